/**
 * The entry tree as the builder edits it: which trees the rows can show, the rows of a flat
 * tree, the kind of a row's value, and the indicators a tree uses. Pure functions of the
 * spec and GET /builder/indicators' catalog.
 */
import type { BuilderIndicator } from '../api'
import type { BuilderSpec, ConditionNode } from '../settings'

export type Leaf = Extract<ConditionNode, { field: string }>
type Group = Extract<ConditionNode, { type: 'AND' | 'OR' }>

/** what a row shows: a leaf of these keys, compared with a number, a boolean, a list or a plain field (anything richer is edited as JSON) */
const ROW_KEYS = new Set(['field', 'op', 'value', 'value_bool', 'shift', 'stat', 'bars', 'timeframe', 'symbol'])
function rowCanShow(n: ConditionNode): n is Leaf {
  if (!('field' in n) || !Object.keys(n).every(k => ROW_KEYS.has(k))) return false
  const v = (n as Leaf).value
  return typeof v !== 'object' || v === null || Array.isArray(v) || Object.keys(v).every(k => k === 'field' || k === 'shift')
}

export const emptyBuilder = (): BuilderSpec => ({
  name: 'Custom Strategy',
  dir: 'long',
  indicators: { rsi: {} },
  entry: { type: 'AND', conditions: [{ field: 'rsi', op: '<', value: 30 }] },
})

/** the rows of a flat tree (a leaf, or AND/OR of leaves), or null when it has nested groups */
export function flatRows(entry: ConditionNode): { logic: 'AND' | 'OR'; rows: Leaf[] } | null {
  if ('field' in entry) return rowCanShow(entry) ? { logic: 'AND', rows: [entry] } : null
  if ('type' in entry && (entry.type === 'AND' || entry.type === 'OR')) {
    const g = entry as Group
    if (g.conditions.every(rowCanShow)) return { logic: g.type, rows: g.conditions as Leaf[] }
  }
  return null
}

/** the indicators whose fields a tree uses, keeping the params already set */
export function indicatorsFor(entry: ConditionNode, catalog: readonly BuilderIndicator[], current: BuilderSpec['indicators']): BuilderSpec['indicators'] {
  const used = new Set<string>()
  const walk = (n: unknown) => {
    if (!n || typeof n !== 'object') return
    const o = n as Record<string, unknown>
    if (typeof o.field === 'string') used.add(o.field)
    const v = o.value as Record<string, unknown> | undefined
    if (v && typeof v === 'object' && typeof v.field === 'string') used.add(v.field)
    if (Array.isArray(o.conditions)) o.conditions.forEach(walk)
    if (o.condition) walk(o.condition)
  }
  walk(entry)
  const out: BuilderSpec['indicators'] = {}
  for (const ind of catalog) if (ind.fields.some(f => used.has(f))) out[ind.id] = current[ind.id] ?? {}
  return out
}

/** what a row's value is: a number, true/false, another field, or a list of numbers */
export type Kind = 'number' | 'bool' | 'field' | 'list'
export const kindOf = (l: Leaf): Kind =>
  Array.isArray(l.value) ? 'list' : typeof l.value === 'boolean' || l.value_bool !== undefined ? 'bool' : typeof l.value === 'object' && l.value !== null ? 'field' : 'number'

/** a field's type as the catalog gives it (the candle's fields and unknown names are numbers) */
export function fieldType(f: string, catalog: readonly BuilderIndicator[]): 'number' | 'boolean' {
  for (const ind of catalog) {
    const info = ind.field_info.find(x => x.name === f)
    if (info) return info.type === 'boolean' ? 'boolean' : 'number'
  }
  return 'number'
}

/** a change to a row: the keys to set, or a function of the row as it is when the change lands */
export type LeafPatch = Partial<Leaf> | ((r: Leaf) => Partial<Leaf>)
