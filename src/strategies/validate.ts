/**
 * Validation of a strategy's condition trees (shapes in conditions.ts).
 *
 * Validation never stops at the first problem: it walks the whole request and returns
 * one readable message per problem, each starting with the path of the offending part
 * (`entry.conditions[1].field: unknown field 'bb_uper' (did you mean bb_upper?)`).
 * These messages are what POST /backtest returns as `validation_errors`.
 * A tree that would read the future (a negative shift, a window of negative length) is
 * refused earlier and harder: lookAheadProblems lists it for the controllers' 422.
 * The rules are written down in docs/conditions.md.
 */
import { TIMEFRAME_MS, TIMEFRAMES, type Timeframe } from '../market/timeframe'
import {
  BASE_FIELDS,
  type FieldType,
  type IndicatorCatalog,
  MARKET_FIELDS,
  type MarketField,
  fieldIndex,
  isBaseField,
  isMarketField,
  suggest,
} from './catalog'
import { SYMBOL_PATTERN } from './condition-terms'
import { OPS, STATS, type StrategySpecInput, TREE_LIMITS, conditionsCount, isObject } from './conditions'
import { DEFAULT_CATALOG } from './default-catalog'

export class StrategyValidationError extends Error {
  constructor(readonly errors: string[]) {
    super(`invalid strategy: ${errors.join('; ')}`)
  }
}

/** Where a field's values come from, once resolved against the listed indicators. */
export type ResolvedField =
  | { source: 'base'; name: string; type: FieldType }
  | { source: 'indicator'; indicatorId: string; name: string; type: FieldType }
  | { source: 'market'; name: MarketField; type: FieldType }

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
  if (isMarketField(name)) return { source: 'market', name, type: MARKET_FIELDS[name].type }
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
  return [...Object.keys(BASE_FIELDS), ...Object.keys(MARKET_FIELDS), ...fieldIndex(catalog).keys()]
}

/** One look-ahead problem: where (path parts under the request body), why, and the input. */
export interface LookAheadProblem {
  loc: (string | number)[]
  msg: string
  input: unknown
}

/**
 * Parts of a tree that would read bars after the signal bar: a negative `shift` (on a
 * leaf, a right-hand series or an offset) or a negative `bars` (a window reaching
 * forward). Such a tree is refused outright (HTTP 422), never run. `loc` starts with
 * `root` (e.g. ['entry']).
 */
export function lookAheadProblems(tree: unknown, root: (string | number)[]): LookAheadProblem[] {
  const out: LookAheadProblem[] = []
  const stack: { node: unknown; loc: (string | number)[]; depth: number }[] = [{ node: tree, loc: root, depth: 0 }]
  const check = (obj: Record<string, unknown>, loc: (string | number)[]) => {
    for (const key of ['shift', 'bars'] as const) {
      const v = obj[key]
      if (typeof v === 'number' && v < 0)
        out.push({
          loc: [...loc, key],
          msg: `${key} ${v} would read bars after the signal bar (look-ahead); ${key} counts bars back and must be 0 or more`,
          input: v,
        })
    }
  }
  while (stack.length > 0) {
    const { node, loc, depth } = stack.pop()!
    if (!isObject(node) || depth > 64) continue
    check(node, loc)
    if (Array.isArray(node.conditions)) node.conditions.forEach((c, i) => stack.push({ node: c, loc: [...loc, 'conditions', i], depth: depth + 1 }))
    if (node.condition !== undefined) stack.push({ node: node.condition, loc: [...loc, 'condition'], depth: depth + 1 })
    if (isObject(node.value)) {
      check(node.value, [...loc, 'value'])
      if (isObject(node.value.offset)) check(node.value.offset, [...loc, 'value', 'offset'])
    }
  }
  return out
}

/** Every series object of a tree (a leaf, its value, the value's offset) with its path under `root`. */
function seriesObjects(tree: unknown, root: (string | number)[]): { obj: Record<string, unknown>; loc: (string | number)[] }[] {
  const out: { obj: Record<string, unknown>; loc: (string | number)[] }[] = []
  const stack: { node: unknown; loc: (string | number)[]; depth: number }[] = [{ node: tree, loc: root, depth: 0 }]
  while (stack.length > 0) {
    const { node, loc, depth } = stack.pop()!
    if (!isObject(node) || depth > 64) continue
    if ('field' in node) out.push({ obj: node, loc })
    if (Array.isArray(node.conditions)) node.conditions.forEach((c, i) => stack.push({ node: c, loc: [...loc, 'conditions', i], depth: depth + 1 }))
    if (node.condition !== undefined) stack.push({ node: node.condition, loc: [...loc, 'condition'], depth: depth + 1 })
    if (isObject(node.value)) {
      out.push({ obj: node.value, loc: [...loc, 'value'] })
      if (isObject(node.value.offset)) out.push({ obj: node.value.offset, loc: [...loc, 'value', 'offset'] })
    }
  }
  return out.sort((a, b) => compareLoc(a.loc, b.loc))
}

/** Document order of two paths: part by part, indices as numbers, a parent before its children. */
function compareLoc(a: (string | number)[], b: (string | number)[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i], y = b[i]
    if (x === y) continue
    if (typeof x === 'number' && typeof y === 'number') return x - y
    return String(x) < String(y) ? -1 : 1
  }
  return a.length - b.length
}

/**
 * What a tree reads that the run cannot give it: a `timeframe` below the run's (its bars
 * would end inside the run's bar) or a `symbol` the store does not hold. Each one is a
 * 422 naming the place (docs/conditions.md "Other timeframes and other coins"); the shapes
 * themselves are validateStrategy's.
 */
export function crossDataProblems(
  tree: unknown,
  root: (string | number)[],
  runTimeframe: Timeframe,
  hasSymbol: (symbol: string) => boolean,
): LookAheadProblem[] {
  const out: LookAheadProblem[] = []
  for (const { obj, loc } of seriesObjects(tree, root)) {
    const { timeframe, symbol } = obj
    if (typeof timeframe === 'string' && Object.hasOwn(TIMEFRAME_MS, timeframe) && TIMEFRAME_MS[timeframe as Timeframe] < TIMEFRAME_MS[runTimeframe])
      out.push({
        loc: [...loc, 'timeframe'],
        msg: `timeframe ${timeframe} is lower than the run's ${runTimeframe}; a field may be read on the run's timeframe or a higher one (its last completed bar)`,
        input: timeframe,
      })
    if (typeof symbol === 'string' && !hasSymbol(symbol))
      out.push({ loc: [...loc, 'symbol'], msg: `unknown symbol '${symbol}': the store has no candles for it`, input: symbol })
  }
  return out
}

/** The coins a tree reads besides the run's own (its series' `symbol`s), sorted. */
export function symbolsRead(tree: unknown): string[] {
  const out = new Set<string>()
  for (const { obj } of seriesObjects(tree, [])) if (typeof obj.symbol === 'string') out.add(obj.symbol)
  return [...out].sort()
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

const SHAPES = 'a group {type, conditions} or a condition {field, op, value}'

function walk(node: unknown, path: string, depth: number, ctx: WalkContext): void {
  if (depth > TREE_LIMITS.maxDepth) {
    if (!ctx.tooDeep) ctx.errors.push(`${path}: the tree is more than ${TREE_LIMITS.maxDepth} levels deep`)
    ctx.tooDeep = true
    ctx.leaves += conditionsCount(node)
    return
  }
  if (!isObject(node)) {
    ctx.errors.push(`${path}: expected ${SHAPES}, got ${show(node)}`)
    return
  }
  if ('type' in node) walkGroup(node, path, depth, ctx)
  else if ('field' in node) {
    ctx.leaves++
    checkLeaf(node, path, ctx)
  } else ctx.errors.push(`${path}: expected ${SHAPES}, got ${show(node)}`)
}

const NODE_TYPES = ['AND', 'OR', 'NOT', 'ANY_PRIOR']

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
  if (type === 'NOT' || type === 'ANY_PRIOR') {
    if (type === 'ANY_PRIOR') checkBars(node.bars, `${path}.bars`, ctx.errors, true)
    if (node.condition !== undefined) {
      if (node.conditions !== undefined)
        ctx.errors.push(`${path}: ${type} takes one child, under 'condition' or as a one-element 'conditions', not both`)
      walk(node.condition, `${path}.condition`, depth + 1, ctx)
    } else if (Array.isArray(node.conditions) && node.conditions.length === 1) {
      walk(node.conditions[0], `${path}.conditions[0]`, depth + 1, ctx)
    } else {
      const got = Array.isArray(node.conditions) ? `${node.conditions.length} conditions` : 'none'
      ctx.errors.push(`${path}: ${type} takes exactly one child under 'condition', got ${got}`)
    }
    return
  }
  const near = typeof type === 'string' && NODE_TYPES.includes(type.toUpperCase()) ? ` (did you mean ${type.toUpperCase()}?)` : ''
  ctx.errors.push(`${path}.type: unknown node type ${show(type)}${near}; expected AND, OR, NOT or ANY_PRIOR`)
}

function checkShift(raw: unknown, path: string, errors: string[]): void {
  if (raw === undefined) return
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0 || raw > TREE_LIMITS.maxShift)
    errors.push(`${path}: shift must be an integer from 0 to ${TREE_LIMITS.maxShift} (bars back), got ${show(raw)}`)
}

function checkBars(raw: unknown, path: string, errors: string[], required: boolean): void {
  if (raw === undefined) {
    if (required) errors.push(`${path}: required (an integer from 1 to ${TREE_LIMITS.maxBars}, the bars in the window)`)
    return
  }
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > TREE_LIMITS.maxBars)
    errors.push(`${path}: bars must be an integer from 1 to ${TREE_LIMITS.maxBars} (bars in the window, ending at the bar read), got ${show(raw)}`)
}

const SYMBOL_RE = new RegExp(SYMBOL_PATTERN)

/**
 * `timeframe`, `symbol` and `events` of a series: their shapes only. Whether the timeframe
 * is the run's or a higher one, and whether the store holds the coin, depend on the run
 * and are checked where it is resolved (crossDataProblems, HTTP 422).
 */
function checkFrame(obj: Record<string, unknown>, path: string, field: ResolvedField | null, errors: string[]): void {
  const { timeframe, symbol, events } = obj
  if (timeframe !== undefined && (typeof timeframe !== 'string' || !(TIMEFRAMES as readonly string[]).includes(timeframe)))
    errors.push(`${path}.timeframe: unknown timeframe ${show(timeframe)}; expected one of ${TIMEFRAMES.join(', ')}`)
  if (symbol !== undefined && (typeof symbol !== 'string' || !SYMBOL_RE.test(symbol)))
    errors.push(`${path}.symbol: expected a coin's symbol such as BTCUSDT (upper case, ending in USDT), got ${show(symbol)}`)
  if (events === undefined) return
  if (field && field.name !== 'funding_rate_mean') errors.push(`${path}.events: events applies to funding_rate_mean only, not '${field.name}'`)
  else if (typeof events !== 'number' || !Number.isInteger(events) || events < 1 || events > TREE_LIMITS.maxEvents)
    errors.push(`${path}.events: events must be an integer from 1 to ${TREE_LIMITS.maxEvents} (funding settlements averaged), got ${show(events)}`)
}

function checkMult(raw: unknown, path: string, errors: string[]): void {
  if (raw !== undefined && (typeof raw !== 'number' || !Number.isFinite(raw))) errors.push(`${path}: expected a finite number, got ${show(raw)}`)
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

/**
 * Checks a series (`field`, `shift`, `stat`, `bars`) at `path` and returns its type: a
 * stat makes a number of a number field; null after reporting a problem.
 */
function seriesType(obj: Record<string, unknown>, path: string, ctx: WalkContext): { name: string; type: FieldType; derived: boolean } | null {
  const r = fieldOf(obj.field, `${path}.field`, ctx)
  checkShift(obj.shift, `${path}.shift`, ctx.errors)
  checkFrame(obj, path, r, ctx.errors)
  const { stat, bars } = obj
  if (stat === undefined) {
    if (bars !== undefined) ctx.errors.push(`${path}.bars: bars needs a stat (one of ${STATS.join(', ')})`)
    return r ? { name: r.name, type: r.type, derived: false } : null
  }
  if (typeof stat !== 'string' || !(STATS as readonly string[]).includes(stat)) {
    ctx.errors.push(`${path}.stat: unknown stat ${show(stat)}; expected one of ${STATS.join(', ')}`)
    return null
  }
  checkBars(bars, `${path}.bars`, ctx.errors, true)
  if (!r) return null
  if (r.type === 'boolean') {
    ctx.errors.push(`${path}.stat: ${stat} needs a number field; '${r.name}' is boolean (use ANY_PRIOR for "held on one of the prior bars")`)
    return null
  }
  return { name: r.name, type: 'number', derived: true }
}

function checkLeaf(leaf: Record<string, unknown>, path: string, ctx: WalkContext): void {
  const errors = ctx.errors
  const left = seriesType(leaf, path, ctx)

  const op = leaf.op
  const opOk = typeof op === 'string' && (OPS as readonly string[]).includes(op)
  if (op === undefined) errors.push(`${path}.op: required (one of ${OPS.join(', ')})`)
  else if (!opOk) errors.push(`${path}.op: unknown operator ${show(op)}; expected one of ${OPS.join(', ')}`)

  const right = comparandType(leaf, path, ctx)
  if (!left || !opOk || right === null) return
  const list = op === 'in' || op === 'not_in'
  const valuePath = `${path}.${leaf.value === undefined ? 'value_bool' : 'value'}`
  if (list !== (right.kind === 'list')) {
    errors.push(
      list
        ? `${valuePath}: ${op} needs a list of numbers (e.g. [2, 3, 22]), got ${show(leaf.value)}`
        : `${valuePath}: a list of values goes with in or not_in, not ${op}`,
    )
    return
  }
  if (list) {
    if (left.type === 'boolean') errors.push(`${path}.op: ${op} needs a number field; '${left.name}' is boolean (use == or !=)`)
    return
  }
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
  | { kind: 'list' }
  | { kind: 'field'; name: string; type: FieldType }

const VALUE_KINDS = 'a number, a boolean, a list of numbers or {field, shift?, stat?, bars?, mult?, offset?}'

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
    ctx.errors.push(`${path}.value: required (${VALUE_KINDS})`)
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
  if (Array.isArray(value)) {
    const bad = value.findIndex(v => typeof v !== 'number' || !Number.isFinite(v))
    if (value.length === 0 || value.length > TREE_LIMITS.maxListValues || bad >= 0) {
      ctx.errors.push(`${path}.value: expected a list of 1 to ${TREE_LIMITS.maxListValues} finite numbers, got ${show(value)}`)
      return null
    }
    return { kind: 'list' }
  }
  if (isObject(value) && 'field' in value) return fieldRefType(value, `${path}.value`, ctx)
  ctx.errors.push(`${path}.value: expected ${VALUE_KINDS}, got ${show(value)}`)
  return null
}

/** `{field, shift?, stat?, bars?, mult?, offset?}`: arithmetic needs number series. */
function fieldRefType(ref: Record<string, unknown>, path: string, ctx: WalkContext): RightType | null {
  const s = seriesType(ref, path, ctx)
  checkMult(ref.mult, `${path}.mult`, ctx.errors)
  const { offset } = ref
  let arithmetic = ref.mult !== undefined
  if (offset !== undefined) {
    arithmetic = true
    if (typeof offset === 'number') checkMult(offset, `${path}.offset`, ctx.errors)
    else if (isObject(offset) && 'field' in offset) {
      if ('offset' in offset) ctx.errors.push(`${path}.offset.offset: an offset takes no offset of its own (one field and one offset per side)`)
      const o = seriesType(offset, `${path}.offset`, ctx)
      checkMult(offset.mult, `${path}.offset.mult`, ctx.errors)
      if (o && o.type === 'boolean') ctx.errors.push(`${path}.offset.field: '${o.name}' is boolean; an offset needs a number field`)
    } else ctx.errors.push(`${path}.offset: expected a number or {field, shift?, stat?, bars?, mult?}, got ${show(offset)}`)
  }
  if (!s) return null
  if (arithmetic && s.type === 'boolean') {
    ctx.errors.push(`${path}.field: '${s.name}' is boolean; mult and offset need a number field`)
    return null
  }
  return { kind: 'field', name: s.name, type: s.type }
}
