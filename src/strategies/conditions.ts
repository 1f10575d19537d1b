/**
 * The condition tree of a strategy (entry and exit signals) and its validation.
 *
 * Validation never stops at the first problem: it walks the whole request and returns
 * one readable message per problem, each starting with the path of the offending part
 * (`entry.conditions[1].field: unknown field 'bb_uper' (did you mean bb_upper?)`).
 * These messages are what POST /backtest returns as `validation_errors`.
 * The rules are written down in docs/conditions.md.
 */
import {
  BASE_FIELDS,
  type FieldType,
  type IndicatorCatalog,
  fieldIndex,
  isBaseField,
  suggest,
} from './catalog'
import { DEFAULT_CATALOG } from './default-catalog'

export const OPS = ['==', '!=', '>', '>=', '<', '<=', 'crosses_above', 'crosses_below'] as const
export type Op = (typeof OPS)[number]

export const TREE_LIMITS = {
  /** levels from the root (a lone leaf is depth 1) */
  maxDepth: 8,
  /** leaves per tree (entry and exit are counted apart) */
  maxLeaves: 64,
  /** bars back a `shift` may read */
  maxShift: 50,
} as const

/** `{field, shift?}` as a comparison value: compare against another column. */
export interface FieldRef {
  field: string
  shift?: number
}

export interface ConditionLeaf {
  field: string
  op: Op
  value?: number | boolean | FieldRef
  /** legacy form of a boolean `value` */
  value_bool?: boolean
  /** read `field` this many bars back (0 = the signal bar) */
  shift?: number
}

export interface GroupNode {
  type: 'AND' | 'OR'
  conditions: ConditionNode[]
}

/** NOT takes its child under `condition`; a one-element `conditions` is accepted too. */
export interface NotNode {
  type: 'NOT'
  condition?: ConditionNode
  conditions?: ConditionNode[]
}

export type ConditionNode = GroupNode | NotNode | ConditionLeaf

/** indicator id -> params (merged over the indicator's defaults) */
export type IndicatorParams = Record<string, Record<string, number>>

export interface StrategySpec {
  indicators: IndicatorParams
  entry: ConditionNode
  exit_conditions?: ConditionNode | null
}

/** The request as it arrives: anything may be missing or of the wrong type. */
export interface StrategySpecInput {
  indicators?: unknown
  entry?: unknown
  exit_conditions?: unknown
}

export class StrategyValidationError extends Error {
  constructor(readonly errors: string[]) {
    super(`invalid strategy: ${errors.join('; ')}`)
  }
}

/** Where a field's values come from, once resolved against the listed indicators. */
export type ResolvedField =
  | { source: 'base'; name: string; type: FieldType }
  | { source: 'indicator'; indicatorId: string; name: string; type: FieldType }

/** What a leaf compares its field with. */
export type Comparand =
  | { kind: 'number'; value: number }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'field'; field: string; shift: number }

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)
const show = (x: unknown): string => (x === undefined ? 'nothing' : JSON.stringify(x) ?? String(x))

/**
 * Resolves a field name. A base field always resolves; an indicator field resolves to
 * the indicator listed in `listed` that produces it.
 */
export function resolveField(
  name: string,
  listed: ReadonlySet<string>,
  catalog: IndicatorCatalog,
): ResolvedField | { error: string } {
  if (isBaseField(name)) return { source: 'base', name, type: BASE_FIELDS[name].type }
  const producers = fieldIndex(catalog).get(name)
  if (!producers) {
    const def = Object.hasOwn(catalog.defs, name) ? catalog.defs[name] : undefined
    if (def) return { error: `'${name}' is an indicator, not a field; its fields are ${def.fields.map(f => f.name).join(', ')}` }
    const near = suggest(name, allFieldNames(catalog))
    return { error: `unknown field '${name}'${near ? ` (did you mean ${near}?)` : ''}` }
  }
  const usable = producers.filter(p => listed.has(p.indicatorId))
  if (usable.length === 0) {
    const ids = producers.map(p => `'${p.indicatorId}'`).join(' or ')
    const add = producers.map(p => `"${p.indicatorId}": {}`).join(' or ')
    return { error: `'${name}' comes from indicator ${ids}, which is not listed in indicators (add ${add})` }
  }
  if (usable.length > 1) {
    const ids = usable.map(p => `'${p.indicatorId}'`).join(' and ')
    return { error: `'${name}' is produced by ${ids}; list only one of them in indicators` }
  }
  const p = usable[0]
  return { source: 'indicator', indicatorId: p.indicatorId, name, type: p.type }
}

function allFieldNames(catalog: IndicatorCatalog): string[] {
  return [...Object.keys(BASE_FIELDS), ...fieldIndex(catalog).keys()]
}

/** The comparison value of a well-formed leaf (after validation). */
export function comparandOf(leaf: ConditionLeaf): Comparand {
  const v = leaf.value !== undefined ? leaf.value : leaf.value_bool
  if (typeof v === 'number') return { kind: 'number', value: v }
  if (typeof v === 'boolean') return { kind: 'boolean', value: v }
  if (isObject(v)) return { kind: 'field', field: (v as FieldRef).field, shift: (v as FieldRef).shift ?? 0 }
  throw new Error('comparandOf: leaf has no value (validate the tree first)')
}

export function isLeaf(node: ConditionNode): node is ConditionLeaf {
  return !('type' in node) && 'field' in node
}

/** The one child of a NOT node, in either accepted form. */
export function notChild(node: NotNode): ConditionNode {
  return (node.condition ?? node.conditions?.[0]) as ConditionNode
}

/**
 * Leaves of a tree (the contract's `conditions_count`). Unknown shapes count as nothing.
 * Iterative, so an absurdly deep request cannot overflow the stack.
 */
export function conditionsCount(tree: unknown): number {
  let n = 0
  const stack: unknown[] = [tree]
  while (stack.length > 0) {
    const node = stack.pop()
    if (!isObject(node)) continue
    if (typeof node.type === 'string') {
      if (Array.isArray(node.conditions)) for (const c of node.conditions) stack.push(c)
      if (node.type === 'NOT' && node.condition !== undefined) stack.push(node.condition)
    } else if ('field' in node) n++
  }
  return n
}

interface WalkContext {
  errors: string[]
  catalog: IndicatorCatalog
  listed: ReadonlySet<string>
  leaves: number
  tooDeep: boolean
}

/**
 * Every problem with a strategy request, as readable messages naming the path of the
 * offending part; empty when the strategy can be compiled.
 */
export function validateStrategy(spec: StrategySpecInput, catalog: IndicatorCatalog = DEFAULT_CATALOG): string[] {
  const errors: string[] = []
  const listed = validateIndicators(spec.indicators, catalog, errors)
  if (spec.entry === undefined || spec.entry === null) errors.push('entry: required (a condition tree)')
  else validateTree(spec.entry, 'entry', catalog, listed, errors)
  if (spec.exit_conditions !== undefined && spec.exit_conditions !== null)
    validateTree(spec.exit_conditions, 'exit_conditions', catalog, listed, errors)
  return errors
}

/** Checks `indicators` and returns the ids it lists (known or not, so fields resolve). */
function validateIndicators(raw: unknown, catalog: IndicatorCatalog, errors: string[]): Set<string> {
  const listed = new Set<string>()
  if (raw === undefined || raw === null) return listed
  if (!isObject(raw)) {
    errors.push(`indicators: expected an object of indicator id to params, got ${show(raw)}`)
    return listed
  }
  for (const [id, params] of Object.entries(raw)) {
    listed.add(id)
    if (!Object.hasOwn(catalog.defs, id)) {
      const near = suggest(id, Object.keys(catalog.defs))
      errors.push(`indicators.${id}: unknown indicator '${id}'${near ? ` (did you mean ${near}?)` : ''}`)
      continue
    }
    if (params === null || params === undefined) continue
    if (!isObject(params)) {
      errors.push(`indicators.${id}: expected an object of params (e.g. {}), got ${show(params)}`)
      continue
    }
    for (const msg of catalog.validateParams(id, params)) errors.push(underIndicators(id, msg))
  }
  return listed
}

/** `bb.period: …` / `macd: …` from the registry become `indicators.bb.period: …` / `indicators.macd: …` */
function underIndicators(id: string, msg: string): string {
  if (msg.startsWith(`${id}.`) || msg.startsWith(`${id}:`)) return `indicators.${msg}`
  return `indicators.${id}: ${msg}`
}

function validateTree(
  tree: unknown,
  path: string,
  catalog: IndicatorCatalog,
  listed: ReadonlySet<string>,
  errors: string[],
): void {
  const ctx: WalkContext = { errors, catalog, listed, leaves: 0, tooDeep: false }
  walk(tree, path, 1, ctx)
  if (ctx.leaves > TREE_LIMITS.maxLeaves)
    errors.push(`${path}: ${ctx.leaves} conditions; at most ${TREE_LIMITS.maxLeaves} are allowed in one tree`)
}

function walk(node: unknown, path: string, depth: number, ctx: WalkContext): void {
  if (depth > TREE_LIMITS.maxDepth) {
    if (!ctx.tooDeep) ctx.errors.push(`${path}: the tree is more than ${TREE_LIMITS.maxDepth} levels deep`)
    ctx.tooDeep = true
    ctx.leaves += conditionsCount(node)
    return
  }
  if (!isObject(node)) {
    ctx.errors.push(`${path}: expected a group {type, conditions} or a condition {field, op, value}, got ${show(node)}`)
    return
  }
  if ('type' in node) walkGroup(node, path, depth, ctx)
  else if ('field' in node) {
    ctx.leaves++
    checkLeaf(node, path, ctx)
  } else ctx.errors.push(`${path}: expected a group {type, conditions} or a condition {field, op, value}, got ${show(node)}`)
}

function walkGroup(node: Record<string, unknown>, path: string, depth: number, ctx: WalkContext): void {
  const type = node.type
  if (type === 'AND' || type === 'OR') {
    const list = node.conditions
    if (!Array.isArray(list)) {
      ctx.errors.push(`${path}.conditions: ${type} needs a list of conditions, got ${show(list)}`)
      return
    }
    if (list.length === 0) {
      ctx.errors.push(`${path}.conditions: ${type} with no conditions (give at least one)`)
      return
    }
    list.forEach((c, i) => walk(c, `${path}.conditions[${i}]`, depth + 1, ctx))
    return
  }
  if (type === 'NOT') {
    if (node.condition !== undefined) {
      if (node.conditions !== undefined)
        ctx.errors.push(`${path}: NOT takes one child, under 'condition' or as a one-element 'conditions', not both`)
      walk(node.condition, `${path}.condition`, depth + 1, ctx)
    } else if (Array.isArray(node.conditions) && node.conditions.length === 1) {
      walk(node.conditions[0], `${path}.conditions[0]`, depth + 1, ctx)
    } else {
      const got = Array.isArray(node.conditions) ? `${node.conditions.length} conditions` : 'none'
      ctx.errors.push(`${path}: NOT takes exactly one child under 'condition', got ${got}`)
    }
    return
  }
  const near = typeof type === 'string' && ['AND', 'OR', 'NOT'].includes(type.toUpperCase()) ? ` (did you mean ${type.toUpperCase()}?)` : ''
  ctx.errors.push(`${path}.type: unknown node type ${show(type)}${near}; expected AND, OR or NOT`)
}

function checkShift(raw: unknown, path: string, errors: string[]): void {
  if (raw === undefined) return
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0 || raw > TREE_LIMITS.maxShift)
    errors.push(`${path}: shift must be an integer from 0 to ${TREE_LIMITS.maxShift} (bars back), got ${show(raw)}`)
}

function fieldOf(raw: unknown, path: string, ctx: WalkContext): ResolvedField | null {
  if (raw === undefined) {
    ctx.errors.push(`${path}: required (the name of a field, e.g. close or bb_upper)`)
    return null
  }
  if (typeof raw !== 'string') {
    ctx.errors.push(`${path}: expected a field name, got ${show(raw)}`)
    return null
  }
  const r = resolveField(raw, ctx.listed, ctx.catalog)
  if ('error' in r) {
    ctx.errors.push(`${path}: ${r.error}`)
    return null
  }
  return r
}

function checkLeaf(leaf: Record<string, unknown>, path: string, ctx: WalkContext): void {
  const errors = ctx.errors
  const left = fieldOf(leaf.field, `${path}.field`, ctx)
  checkShift(leaf.shift, `${path}.shift`, errors)

  const op = leaf.op
  const opOk = typeof op === 'string' && (OPS as readonly string[]).includes(op)
  if (op === undefined) errors.push(`${path}.op: required (one of ${OPS.join(', ')})`)
  else if (!opOk) errors.push(`${path}.op: unknown operator ${show(op)}; expected one of ${OPS.join(', ')}`)

  const right = comparandType(leaf, path, ctx)
  if (!left || !opOk || right === null) return
  const ordered = op !== '==' && op !== '!='
  const crosses = op === 'crosses_above' || op === 'crosses_below'
  if (left.type === 'boolean' && ordered) {
    errors.push(
      crosses
        ? `${path}.op: ${op} needs number fields; '${left.name}' is boolean (use == true / == false)`
        : `${path}.op: '${op}' does not apply to boolean field '${left.name}' (use == or !=)`,
    )
    return
  }
  const valuePath = `${path}.${leaf.value === undefined ? 'value_bool' : 'value'}`
  if (right.kind === 'field') {
    if (right.type !== left.type)
      errors.push(`${valuePath}.field: cannot compare ${left.type} field '${left.name}' with ${right.type} field '${right.name}'`)
    return
  }
  if (left.type === 'number' && right.kind === 'boolean')
    errors.push(`${valuePath}: '${left.name}' is a number field and cannot be compared with ${right.value}`)
  if (left.type === 'boolean' && right.kind === 'number')
    errors.push(`${valuePath}: '${left.name}' is a boolean field; compare it with true or false, not ${right.value}`)
}

type RightType =
  | { kind: 'number'; value: number }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'field'; name: string; type: FieldType }

/** The type of a leaf's comparison value, or null after reporting why it has none. */
function comparandType(leaf: Record<string, unknown>, path: string, ctx: WalkContext): RightType | null {
  const { value, value_bool } = leaf
  if (value_bool !== undefined) {
    if (value !== undefined) {
      ctx.errors.push(`${path}: give either value or value_bool, not both`)
      return null
    }
    if (typeof value_bool !== 'boolean') {
      ctx.errors.push(`${path}.value_bool: expected true or false, got ${show(value_bool)}`)
      return null
    }
    return { kind: 'boolean', value: value_bool }
  }
  if (value === undefined) {
    ctx.errors.push(`${path}.value: required (a number, a boolean or {field, shift})`)
    return null
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      ctx.errors.push(`${path}.value: expected a finite number, got ${show(value)}`)
      return null
    }
    return { kind: 'number', value }
  }
  if (typeof value === 'boolean') return { kind: 'boolean', value }
  if (isObject(value) && 'field' in value) {
    checkShift(value.shift, `${path}.value.shift`, ctx.errors)
    const r = fieldOf(value.field, `${path}.value.field`, ctx)
    return r ? { kind: 'field', name: r.name, type: r.type } : null
  }
  ctx.errors.push(`${path}.value: expected a number, a boolean or {field, shift}, got ${show(value)}`)
  return null
}
