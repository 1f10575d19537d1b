/**
 * A sweep's plan: its base run (a /backtest body, or a registry strategy with the body's
 * settings) as a RunSpec, its space expanded (lists, or ranges with a step) and checked
 * (every path names a numeric leaf; every value makes a valid run), and its trials (every
 * combination, or `budget` of them drawn with `seed`), each a RunSpec of its own.
 * Anything wrong is an InvalidRequest naming the field and the rule (docs/api-research.md).
 */
import { createHash } from 'node:crypto'
import { canonicalJsonLikeStringify } from '../../engine/canonical-json'
import { mulberry32 } from '../../engine/random'
import { isTimeframe, TIMEFRAMES, type Timeframe } from '../../market/timeframe'
import { roundTo } from '../../round'
import { backtestSpec, type BacktestFields } from '../../runs/backtest-spec'
import { InvalidRequest, type Problem } from '../../runs/errors'
import { checkDates, registryStrategy, resultHash, type RunSpec } from '../../runs/spec'
import { isObject, type StrategySpec } from '../../strategies/conditions'
import { DEFAULT_CATALOG } from '../../strategies/default-catalog'
import { crossDataProblems, lookAheadProblems, validateStrategy } from '../../strategies/validate'
import type { SpaceDimension, SweepBase } from './model'

/** Limits of a sweep (docs/api-research.md, "Limits"): past them a 422, never a silent cut. */
export const SWEEP_LIMITS = {
  /** trials of one sweep (a walk-forward: folds × trials) */
  maxTrials: 2000,
  /** values of one dimension */
  maxValues: 1000,
  /** coins of the base's universe */
  maxCoins: 200,
  /** sweeps and walk-forward runs queued or running at once, per client (429 past it) */
  maxRunningPerClient: 2,
  /** sweeps and walk-forward runs queued or running at once in the service (503 past it) */
  maxRunning: 6,
} as const

export type SweepBaseBody = typeof SweepBase.static
export type SpaceBody = (typeof SpaceDimension.static)[]
export type ParamValue = number | string

/** Defaults of a custom tree where the base leaves them out: /backtest's. */
const CUSTOM_DEFAULTS = { name: 'Custom Strategy', slPct: 10, tpPct: 8, maxBars: 48, indicators: { bb: {}, ema: {}, volume: {}, candle: {} } }

/** The base run as a RunSpec: a custom `entry` tree as /backtest runs it, or a registry strategy with the base's settings. */
export function baseSpec(base: SweepBaseBody, loc: (string | number)[] = ['body']): RunSpec {
  checkDates(base.start_date, base.end_date)
  // the sweeps' trials and folds run on today's universe (their own operations of the run
  // service): a point-in-time universe is refused, never silently dropped
  const u = base as { universe?: string | null; rebalance?: string | null }
  if (u.universe === 'point_in_time' || (u.rebalance !== undefined && u.rebalance !== null))
    throw new InvalidRequest([
      u.universe === 'point_in_time'
        ? { loc: [...loc, 'universe'], msg: "sweeps and walk-forward run on today's universe: universe 'point_in_time' is not available here (use 'current' or leave it out)", input: u.universe }
        : { loc: [...loc, 'rebalance'], msg: "rebalance applies to universe 'point_in_time', which sweeps and walk-forward do not run", input: u.rebalance },
    ])
  const hasStrategy = base.strategy !== undefined
  const hasTree = base.entry !== undefined
  if (hasStrategy === hasTree)
    throw new InvalidRequest([{ loc, msg: hasStrategy ? 'give either strategy or entry, not both' : 'give strategy (a registry id, GET /strategies) or a custom entry tree', input: null }])
  if (hasStrategy) {
    const extra = (['name', 'indicators', 'direction', 'exit_conditions'] as const).filter(k => base[k] !== undefined)
    if (extra.length)
      throw new InvalidRequest(extra.map(k => ({ loc: [...loc, k], msg: `a registry strategy brings its own ${k}: leave it out, or give a custom entry tree`, input: base[k] })))
    const s = registryStrategy(base.strategy!)
    const spec = backtestSpec({
      ...(base as Omit<BacktestFields, 'name' | 'entry' | 'indicators' | 'sl_pct' | 'tp_pct' | 'max_bars'>),
      name: s.name,
      direction: s.direction,
      indicators: s.indicators,
      entry: s.entry as unknown as Record<string, unknown>,
      exit_conditions: (s.exit_conditions ?? null) as Record<string, unknown> | null,
      sl_pct: base.sl_pct ?? s.sl_pct,
      tp_pct: base.tp_pct ?? s.tp_pct,
      max_bars: base.max_bars ?? s.max_bars,
    })
    return { ...spec, kind: 'simulate', strategyId: s.id }
  }
  const lookAhead = [...lookAheadProblems(base.entry, [...loc, 'entry']), ...lookAheadProblems(base.exit_conditions, [...loc, 'exit_conditions'])]
  if (lookAhead.length) throw new InvalidRequest(lookAhead)
  const spec = backtestSpec({
    ...(base as Omit<BacktestFields, 'name' | 'entry' | 'indicators' | 'sl_pct' | 'tp_pct' | 'max_bars'>),
    name: base.name ?? CUSTOM_DEFAULTS.name,
    indicators: base.indicators ?? CUSTOM_DEFAULTS.indicators,
    entry: base.entry!,
    sl_pct: base.sl_pct ?? CUSTOM_DEFAULTS.slPct,
    tp_pct: base.tp_pct ?? CUSTOM_DEFAULTS.tpPct,
    max_bars: base.max_bars ?? CUSTOM_DEFAULTS.maxBars,
  })
  const errors = validateStrategy(spec.strategy as StrategySpec)
  if (errors.length) throw new InvalidRequest(errors.map(msg => ({ loc: [...loc, 'entry'], msg, input: null })))
  return spec
}

/** The fields of the search (the rest of a sweep's or walk-forward's body is its base run). */
const SEARCH_FIELDS = new Set(['space', 'method', 'seed', 'budget', 'objective', 'min_trades', 'pbo_blocks', 'mode', 'in_sample_days', 'out_of_sample_days', 'folds', 'purge_days'])

/** The base run's fields of a body (what the stored request keeps as `base`). */
export const baseFieldsOf = (body: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(body).filter(([k]) => !SEARCH_FIELDS.has(k)))

/** What a dimension sets: a setting of the run, an indicator's parameter, or a number in the entry or exit tree. */
export type Target =
  | { kind: 'setting'; key: 'sl_pct' | 'tp_pct' | 'max_bars' | 'timeframe' }
  | { kind: 'indicator'; id: string; param: string }
  | { kind: 'tree'; root: 'entry' | 'exit_conditions'; steps: (string | number)[] }

export interface Dimension {
  name: string
  path: string
  target: Target
  values: ParamValue[]
}

const SETTING_RANGES = {
  sl_pct: { min: 0.5, max: 50, integer: false },
  tp_pct: { min: 0.5, max: 100, integer: false },
  max_bars: { min: 1, max: 168, integer: true },
} as const

/** `entry.conditions[1].value` → ['entry', 'conditions', 1, 'value']; null when malformed. */
export function parsePath(path: string): (string | number)[] | null {
  const steps: (string | number)[] = []
  const re = /([A-Za-z_][A-Za-z0-9_]*)|\[(\d{1,4})\]|(\.)/y
  let expectName = true
  let m: RegExpExecArray | null
  re.lastIndex = 0
  while (re.lastIndex < path.length) {
    const at = re.lastIndex
    m = re.exec(path)
    if (!m || m.index !== at) return null
    if (m[1] !== undefined) {
      if (!expectName) return null
      steps.push(m[1])
      expectName = false
    } else if (m[2] !== undefined) {
      if (expectName) return null
      steps.push(Number(m[2]))
    } else {
      if (expectName) return null
      expectName = true
    }
  }
  return steps.length > 0 && !expectName ? steps : null
}

/** The value at `steps` under `root`, or undefined. */
function at(root: unknown, steps: readonly (string | number)[]): unknown {
  let node = root
  for (const s of steps) {
    if (typeof s === 'number') {
      if (!Array.isArray(node) || s >= node.length) return undefined
      node = node[s]
    } else {
      if (!isObject(node) || !(s in node)) return undefined
      node = node[s]
    }
  }
  return node
}

/** The dimension's target, or the rule its path breaks. */
function targetOf(path: string, base: RunSpec): Target | string {
  if (path === 'sl_pct' || path === 'tp_pct' || path === 'max_bars' || path === 'timeframe') return { kind: 'setting', key: path }
  const steps = parsePath(path)
  if (!steps) return 'not a path: names joined by dots, list indices in brackets (entry.conditions[1].value, indicators.bb.period)'
  const [root, ...rest] = steps
  if (root === 'indicators') {
    if (rest.length !== 2 || typeof rest[0] !== 'string' || typeof rest[1] !== 'string') return 'an indicator parameter is indicators.<indicator id>.<parameter>'
    const def = DEFAULT_CATALOG.defs[rest[0]]
    if (!def) return `no indicator '${rest[0]}' (GET /indicators)`
    if (!(rest[1] in def.params)) return `indicator '${rest[0]}' has no parameter '${rest[1]}'; its parameters: ${Object.keys(def.params).join(', ') || 'none'}`
    return { kind: 'indicator', id: rest[0], param: rest[1] }
  }
  if (root === 'entry' || root === 'exit_conditions') {
    const tree = root === 'entry' ? base.strategy.entry : base.strategy.exit_conditions
    if (!tree) return `the base has no ${root} tree`
    const v = at(tree, rest)
    if (typeof v !== 'number') return `does not name a numeric leaf of the base's ${root} tree (found ${v === undefined ? 'nothing' : JSON.stringify(v)})`
    return { kind: 'tree', root, steps: rest }
  }
  return 'not a parameter of a sweep: sl_pct, tp_pct, max_bars, timeframe, indicators.<id>.<param>, or a path into entry or exit_conditions'
}

/** A range's values: min, min + step, … up to max (inclusive), rounded to 10 decimals so the steps land on round numbers. */
function rangeValues(min: number, max: number, step: number): number[] {
  const n = Math.floor((max - min) / step + 1e-9) + 1
  return Array.from({ length: n }, (_, k) => roundTo(min + k * step, 10))
}

/** The space expanded and checked against the base. */
export function expandSpace(space: SpaceBody, base: RunSpec, loc: (string | number)[] = ['body', 'space']): Dimension[] {
  const problems: Problem[] = []
  const dims: Dimension[] = []
  const names = new Set<string>()
  const paths = new Set<string>()
  space.forEach((d, i) => {
    const here = [...loc, i]
    const target = targetOf(d.path, base)
    if (typeof target === 'string') {
      problems.push({ loc: [...here, 'path'], msg: target, input: d.path })
      return
    }
    const name = d.name ?? d.path
    if (names.has(name)) problems.push({ loc: [...here, 'name'], msg: `two dimensions are named '${name}'`, input: name })
    if (paths.has(d.path)) problems.push({ loc: [...here, 'path'], msg: `two dimensions set '${d.path}'`, input: d.path })
    names.add(name)
    paths.add(d.path)
    const hasRange = d.min !== undefined || d.max !== undefined || d.step !== undefined
    let values: ParamValue[]
    if (d.values !== undefined) {
      if (hasRange) {
        problems.push({ loc: here, msg: 'give values, or min, max and step, not both', input: d })
        return
      }
      values = d.values
    } else {
      if (d.min === undefined || d.max === undefined || d.step === undefined) {
        problems.push({ loc: here, msg: 'give values, or a range: min, max and step', input: d })
        return
      }
      if (!(d.step > 0)) {
        problems.push({ loc: [...here, 'step'], msg: 'a range’s step must be greater than 0', input: d.step })
        return
      }
      if (d.max < d.min) {
        problems.push({ loc: [...here, 'max'], msg: 'max is below min', input: d.max })
        return
      }
      const n = Math.floor((d.max - d.min) / d.step + 1e-9) + 1
      if (n > SWEEP_LIMITS.maxValues) {
        problems.push({ loc: [...here, 'step'], msg: `the range has ${n} values; a dimension has at most ${SWEEP_LIMITS.maxValues}`, input: d.step })
        return
      }
      values = rangeValues(d.min, d.max, d.step)
    }
    if (new Set(values).size !== values.length) problems.push({ loc: [...here, 'values'], msg: 'a value is listed twice', input: values })
    values.forEach((v, k) => {
      const msg = valueProblem(target, v)
      if (msg) problems.push({ loc: [...here, 'values', k], msg, input: v })
    })
    dims.push({ name, path: d.path, target, values })
  })
  if (problems.length) throw new InvalidRequest(problems)
  return dims
}

function valueProblem(target: Target, v: ParamValue): string | null {
  if (target.kind === 'setting' && target.key === 'timeframe') return typeof v === 'string' && isTimeframe(v) ? null : `not a timeframe: one of ${TIMEFRAMES.join(', ')}`
  if (typeof v !== 'number') return 'a number'
  if (target.kind === 'setting') {
    const r = SETTING_RANGES[target.key as keyof typeof SETTING_RANGES]
    if (v < r.min || v > r.max) return `${target.key} is between ${r.min} and ${r.max}`
    if (r.integer && !Number.isInteger(v)) return `${target.key} is a whole number of bars`
  }
  if (target.kind === 'indicator') {
    const msgs = DEFAULT_CATALOG.validateParams(target.id, { [target.param]: v })
    if (msgs.length) return msgs.join('; ')
  }
  return null
}

/** Combinations of the grid: the product of the dimensions' sizes. */
export const gridSize = (dims: readonly Dimension[]): number => dims.reduce((n, d) => n * d.values.length, 1)

/** A trial: each dimension's value index. */
export type Point = number[]

/** Every combination, the first dimension slowest; or `budget` distinct ones drawn with `seed` (mulberry32), in draw order. */
export function trialPoints(dims: readonly Dimension[], method: 'grid' | 'random', budget: number | undefined, seed: number, loc: (string | number)[] = ['body']): Point[] {
  const size = gridSize(dims)
  const pointOf = (k: number): Point => {
    const p = new Array<number>(dims.length)
    for (let d = dims.length - 1; d >= 0; d--) {
      p[d] = k % dims[d].values.length
      k = Math.floor(k / dims[d].values.length)
    }
    return p
  }
  if (method === 'grid') {
    if (budget !== undefined) throw new InvalidRequest([{ loc: [...loc, 'budget'], msg: 'a grid runs every combination: budget is for method random', input: budget }])
    if (size > SWEEP_LIMITS.maxTrials)
      throw new InvalidRequest([{ loc: [...loc, 'space'], msg: `the grid has ${size} combinations; a sweep runs at most ${SWEEP_LIMITS.maxTrials} trials (use method random with a budget)`, input: dims.map(d => d.values.length) }])
    return Array.from({ length: size }, (_, k) => pointOf(k))
  }
  if (budget === undefined) throw new InvalidRequest([{ loc: [...loc, 'budget'], msg: 'method random needs a budget (trials to draw)', input: null }])
  if (budget > SWEEP_LIMITS.maxTrials) throw new InvalidRequest([{ loc: [...loc, 'budget'], msg: `a sweep runs at most ${SWEEP_LIMITS.maxTrials} trials`, input: budget }])
  if (budget > size) throw new InvalidRequest([{ loc: [...loc, 'budget'], msg: `the space has ${size} combinations: a budget of ${budget} cannot draw distinct ones (use method grid)`, input: budget }])
  const rng = mulberry32(seed)
  const drawn = new Set<number>()
  const out: Point[] = []
  if (size <= 4 * budget) {
    // a partial Fisher–Yates over the whole space: every draw distinct without retries
    const ks = Array.from({ length: size }, (_, k) => k)
    for (let i = 0; i < budget; i++) {
      const j = i + Math.floor(rng() * (size - i))
      ;[ks[i], ks[j]] = [ks[j], ks[i]]
      out.push(pointOf(ks[i]))
    }
    return out
  }
  while (out.length < budget) {
    // the mixed-radix number of a point drawn one dimension at a time (spaces may exceed 2^53)
    const p = dims.map(d => Math.floor(rng() * d.values.length))
    const key = p.reduce((k, x, d) => k * dims[d].values.length + x, 0)
    if (drawn.has(key)) continue
    drawn.add(key)
    out.push(p)
  }
  return out
}

/** The trial's values keyed by the dimensions' names. */
export const paramsOf = (dims: readonly Dimension[], p: Point): Record<string, ParamValue> => Object.fromEntries(dims.map((d, i) => [d.name, d.values[p[i]]]))

/** The base with the trial's values set. */
export function trialSpec(base: RunSpec, dims: readonly Dimension[], p: Point): RunSpec {
  let spec = base
  let strategy: StrategySpec | null = null
  const tree = () => (strategy ??= structuredClone(base.strategy))
  dims.forEach((d, i) => {
    const v = d.values[p[i]]
    const t = d.target
    if (t.kind === 'setting') {
      if (t.key === 'timeframe') spec = { ...spec, timeframe: v as Timeframe }
      else if (t.key === 'sl_pct') spec = { ...spec, slPct: v as number }
      else if (t.key === 'tp_pct') spec = { ...spec, tpPct: v as number }
      else spec = { ...spec, maxBars: v as number }
    } else if (t.kind === 'indicator') {
      const s = tree()
      s.indicators = { ...s.indicators, [t.id]: { ...(s.indicators[t.id] ?? {}), [t.param]: v as number } }
    } else {
      const s = tree()
      const root = (t.root === 'entry' ? s.entry : s.exit_conditions) as unknown
      const parent = at(root, t.steps.slice(0, -1)) as Record<string | number, unknown>
      parent[t.steps[t.steps.length - 1]] = v
    }
  })
  return strategy ? { ...spec, strategy } : spec
}

/**
 * Every trial's strategy checked (a value may make a tree invalid: a period of 0, a shift
 * past the limit): an InvalidRequest naming the dimension values that do.
 */
export function checkTrialStrategies(specs: readonly RunSpec[], points: readonly Point[], dims: readonly Dimension[], loc: (string | number)[] = ['body', 'space']): void {
  const seen = new Map<string, string[]>()
  const problems: Problem[] = []
  specs.forEach((s, k) => {
    const key = `${s.timeframe}|${canonicalJsonLikeStringify(s.strategy)}`
    let errors = seen.get(key)
    if (!errors) {
      errors = validateStrategy(s.strategy)
      // a swept timeframe may fall below one a leaf reads (docs/conditions.md): refused like the base's
      if (errors.length === 0) errors = crossDataProblems(s.strategy.entry, ['entry'], s.timeframe, () => true).concat(crossDataProblems(s.strategy.exit_conditions, ['exit_conditions'], s.timeframe, () => true)).map(p => `${p.loc.join('.')}: ${p.msg}`)
      seen.set(key, errors)
      if (errors.length && problems.length < 20) problems.push({ loc, msg: `the trial ${JSON.stringify(paramsOf(dims, points[k]))} is not a valid strategy: ${errors.join('; ')}`, input: paramsOf(dims, points[k]) })
    }
  })
  if (problems.length) throw new InvalidRequest(problems)
}

/** The ledger's hash of a trial's exact request: its run's result_hash (the spec and the store's data version). */
export const requestHashOf = (spec: RunSpec, dataVersion: string): string => resultHash(spec, dataVersion)

/** A key of what a trial's signals depend on (its tree and timeframe): trials with equal keys share their masks. */
export function entryKeyOf(spec: RunSpec): string {
  return createHash('sha1').update(canonicalJsonLikeStringify({ s: spec.strategy, tf: spec.timeframe })).digest('hex')
}
