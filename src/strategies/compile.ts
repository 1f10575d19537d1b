/**
 * Compiles a condition tree into column-wise signal masks over one coin's candles.
 *
 * `prepareStrategy` resolves every field once (validation included); `signals(bars)`
 * then computes each indicator the tree names once, with the request's params merged
 * over the defaults, and evaluates the tree a whole column at a time: one tight loop per
 * leaf over typed arrays, AND / OR / NOT as byte-wise combinations. mask[i] = 1 means the
 * condition holds at the CLOSE of bar i, using bars ≤ i only (indicators are causal and
 * `shift` only reads backwards). NaN on either side of a comparison gives 0, so warm-up
 * bars never signal.
 */
import type { IndicatorDef } from '../indicators/types'
import { sma } from '../indicators/ma'
import { rollingMax, rollingMin } from '../indicators/rolling-extremes'
import { firstValid } from '../indicators/util'
import type { Bars } from '../market/types'
import { DAY_MS, HOUR_MS } from '../time'
import type { IndicatorCatalog } from './catalog'
import {
  type ConditionNode,
  type FieldRef,
  type Op,
  type Series,
  type Stat,
  type StrategySpec,
  TREE_LIMITS,
  comparandOf,
  isLeaf,
  onlyChild,
} from './conditions'
import { DEFAULT_CATALOG } from './default-catalog'
import { StrategyValidationError, resolveField, validateStrategy } from './validate'

export interface SignalMasks {
  /** 1 where the entry condition holds at that bar's close */
  entry: Uint8Array
  /** 1 where the exit condition holds; null when the strategy has no exit tree */
  exit: Uint8Array | null
}

const enum OpCode {
  EQ,
  NE,
  GT,
  GE,
  LT,
  LE,
  CROSS_UP,
  CROSS_DOWN,
}

const OP_CODES: Record<Exclude<Op, 'in' | 'not_in'>, OpCode> = {
  '==': OpCode.EQ,
  '!=': OpCode.NE,
  '>': OpCode.GT,
  '>=': OpCode.GE,
  '<': OpCode.LT,
  '<=': OpCode.LE,
  crosses_above: OpCode.CROSS_UP,
  crosses_below: OpCode.CROSS_DOWN,
}

/**
 * A column the tree reads: a candle field, a derived time field, an indicator field, a
 * window statistic of another column, or `mult × column + offset` of shifted columns.
 * Derived sources name earlier sources by index, so computing them in order works.
 */
type Source =
  | { kind: 'bars'; col: 'c' | 'o' | 'h' | 'l' | 'v' }
  | { kind: 'time'; of: 'hour' | 'weekday' | 'next_hour'; slot: number }
  | { kind: 'indicator'; indicatorId: string; field: string }
  | { kind: 'stat'; base: number; stat: Stat; bars: number; slot: number }
  | { kind: 'affine'; a: number; shiftA: number; multA: number; b: number; shiftB: number; multB: number; constant: number; slot: number }

type Plan =
  | { kind: 'leaf'; a: number; shiftA: number; op: OpCode; b: number; constB: number; shiftB: number }
  | { kind: 'list'; a: number; shiftA: number; values: number[]; negate: boolean }
  | { kind: 'and' | 'or'; children: Plan[] }
  | { kind: 'not'; child: Plan }
  | { kind: 'any_prior'; bars: number; child: Plan }

const BAR_COLUMNS = { close: 'c', open: 'o', high: 'h', low: 'l', volume: 'v' } as const

/** Reusable buffers: one pool per thread, grown to the longest coin seen. */
class Scratch {
  private f64: Float64Array[] = []
  private u8: Uint8Array[] = []

  column(slot: number, n: number): Float64Array {
    let b = this.f64[slot]
    if (!b || b.length < n) this.f64[slot] = b = new Float64Array(n + (n >> 3))
    return b.subarray(0, n)
  }

  mask(slot: number, n: number): Uint8Array {
    let b = this.u8[slot]
    if (!b || b.length < n) this.u8[slot] = b = new Uint8Array(n + (n >> 3))
    return b.subarray(0, n)
  }
}

const scratch = new Scratch()

/** mask slots of ANY_PRIOR children sit above those of AND / OR (one per depth each) */
const ANY_PRIOR_MASKS = TREE_LIMITS.maxDepth + 1

interface IndicatorJob {
  def: IndicatorDef
  params: Record<string, number>
  /** scratch slot of each of the indicator's fields, in def.fields order */
  slots: number[]
  /** the fields the trees read: only these are asked of compute */
  used: Set<string>
}

/** A validated strategy, resolved once, ready to produce masks for any number of coins. */
export class CompiledStrategy {
  /** ids of the indicators the trees read, in order of first use */
  readonly indicatorsUsed: string[]
  private readonly sources: Source[] = []
  private readonly sourceIndex = new Map<string, number>()
  private readonly jobs = new Map<string, IndicatorJob>()
  private readonly entryPlan: Plan
  private readonly exitPlan: Plan | null
  private nextSlot = 0

  constructor(spec: StrategySpec, private readonly catalog: IndicatorCatalog) {
    const listed = new Set(Object.keys(spec.indicators ?? {}))
    this.entryPlan = this.plan(spec.entry, listed, spec)
    this.exitPlan = spec.exit_conditions ? this.plan(spec.exit_conditions, listed, spec) : null
    this.indicatorsUsed = [...this.jobs.keys()]
  }

  /** Params each used indicator runs with (defaults, overridden by the request). */
  paramsOf(indicatorId: string): Readonly<Record<string, number>> | undefined {
    return this.jobs.get(indicatorId)?.params
  }

  signals(bars: Bars): SignalMasks {
    const n = bars.n
    const columns = this.columns(bars)
    const entry = new Uint8Array(n)
    evaluate(this.entryPlan, entry, columns, n, 0)
    let exit: Uint8Array | null = null
    if (this.exitPlan) {
      exit = new Uint8Array(n)
      evaluate(this.exitPlan, exit, columns, n, 0)
    }
    return { entry, exit }
  }

  /** Every column the plans read, indicators computed once each, derived columns in order. */
  private columns(bars: Bars): Float64Array[] {
    const n = bars.n
    const computed = new Map<string, Record<string, Float64Array>>()
    for (const [id, job] of this.jobs) {
      const out: Record<string, Float64Array> = {}
      job.def.fields.forEach((f, k) => {
        // reused buffers: IndicatorDef.compute writes every row (warm-up as NaN), tested in conditions-compile
        if (job.used.has(f.name)) out[f.name] = scratch.column(job.slots[k], n)
      })
      job.def.compute(bars, job.params, out)
      computed.set(id, out)
    }
    const cols: Float64Array[] = []
    for (const s of this.sources) {
      switch (s.kind) {
        case 'bars':
          cols.push(bars[s.col].subarray(0, n))
          break
        case 'time':
          cols.push(timeColumn(bars, scratch.column(s.slot, n), s.of))
          break
        case 'indicator':
          cols.push(computed.get(s.indicatorId)![s.field])
          break
        case 'stat':
          cols.push(windowStat(cols[s.base], s.stat, s.bars, scratch.column(s.slot, n), n))
          break
        case 'affine':
          cols.push(affine(cols[s.a], s.shiftA, s.multA, s.b < 0 ? null : cols[s.b], s.shiftB, s.multB, s.constant, scratch.column(s.slot, n), n))
          break
      }
    }
    return cols
  }

  private plan(node: ConditionNode, listed: ReadonlySet<string>, spec: StrategySpec): Plan {
    if (isLeaf(node)) {
      const right = comparandOf(node)
      const a = this.series(node, listed, spec)
      const shiftA = node.shift ?? 0
      if (node.op === 'in' || node.op === 'not_in') {
        if (right.kind !== 'list') throw new StrategyValidationError([`${node.op} needs a list of numbers`])
        return { kind: 'list', a, shiftA, values: right.values, negate: node.op === 'not_in' }
      }
      const op = OP_CODES[node.op]
      if (right.kind === 'field') {
        const { b, shiftB } = this.rightSide(right.ref, listed, spec)
        return { kind: 'leaf', a, shiftA, op, b, constB: 0, shiftB }
      }
      const constB = right.kind === 'boolean' ? (right.value ? 1 : 0) : right.kind === 'number' ? right.value : NaN
      return { kind: 'leaf', a, shiftA, op, b: -1, constB, shiftB: 0 }
    }
    if (node.type === 'NOT') return { kind: 'not', child: this.plan(onlyChild(node), listed, spec) }
    if (node.type === 'ANY_PRIOR') return { kind: 'any_prior', bars: node.bars, child: this.plan(onlyChild(node), listed, spec) }
    return {
      kind: node.type === 'AND' ? 'and' : 'or',
      children: node.conditions.map(c => this.plan(c, listed, spec)),
    }
  }

  /** The right side of a comparison with a field: a plain (shifted) series, or an affine column. */
  private rightSide(ref: FieldRef, listed: ReadonlySet<string>, spec: StrategySpec): { b: number; shiftB: number } {
    const b = this.series(ref, listed, spec)
    const shiftB = ref.shift ?? 0
    if (ref.mult === undefined && ref.offset === undefined) return { b, shiftB }
    const multA = ref.mult ?? 1
    const off = ref.offset ?? 0
    const key =
      typeof off === 'number'
        ? `affine:${b}@${shiftB}*${multA}+${off}`
        : `affine:${b}@${shiftB}*${multA}+${this.series(off, listed, spec)}@${off.shift ?? 0}*${off.mult ?? 1}`
    const known = this.sourceIndex.get(key)
    if (known !== undefined) return { b: known, shiftB: 0 }
    const src: Source =
      typeof off === 'number'
        ? { kind: 'affine', a: b, shiftA: shiftB, multA, b: -1, shiftB: 0, multB: 0, constant: off, slot: this.nextSlot++ }
        : { kind: 'affine', a: b, shiftA: shiftB, multA, b: this.series(off, listed, spec), shiftB: off.shift ?? 0, multB: off.mult ?? 1, constant: 0, slot: this.nextSlot++ }
    return { b: this.register(key, src), shiftB: 0 }
  }

  /** Index of the column of a series: the field's own, or its window statistic. */
  private series(s: Series, listed: ReadonlySet<string>, spec: StrategySpec): number {
    const base = this.source(s.field, listed, spec)
    if (s.stat === undefined) return base
    const bars = s.bars ?? 1
    const key = `stat:${base}:${s.stat}:${bars}`
    return this.sourceIndex.get(key) ?? this.register(key, { kind: 'stat', base, stat: s.stat, bars, slot: this.nextSlot++ })
  }

  private register(key: string, src: Source): number {
    this.sources.push(src)
    this.sourceIndex.set(key, this.sources.length - 1)
    return this.sources.length - 1
  }

  /** Index of the column for a field, registering it (and its indicator) on first use. */
  private source(field: string, listed: ReadonlySet<string>, spec: StrategySpec): number {
    const known = this.sourceIndex.get(field)
    if (known !== undefined) return known
    const r = resolveField(field, listed, this.catalog)
    if ('error' in r) throw new StrategyValidationError([r.error])
    let src: Source
    if (r.source === 'base') {
      src = field === 'hour' || field === 'weekday' || field === 'next_hour'
        ? { kind: 'time', of: field, slot: this.nextSlot++ }
        : { kind: 'bars', col: BAR_COLUMNS[field as keyof typeof BAR_COLUMNS] }
    } else {
      src = { kind: 'indicator', indicatorId: r.indicatorId, field }
      this.addJob(r.indicatorId, spec)
      this.jobs.get(r.indicatorId)!.used.add(field)
    }
    return this.register(field, src)
  }

  private addJob(id: string, spec: StrategySpec): void {
    if (this.jobs.has(id)) return
    const def = this.catalog.defs[id]
    const params: Record<string, number> = {}
    for (const [k, p] of Object.entries(def.params)) params[k] = p.default
    Object.assign(params, spec.indicators[id] ?? {})
    const slots = def.fields.map(() => this.nextSlot++)
    this.jobs.set(id, { def, params, slots, used: new Set() })
  }
}

/** Validates and resolves a strategy once; throws StrategyValidationError when invalid. */
export function prepareStrategy(spec: StrategySpec, catalog: IndicatorCatalog = DEFAULT_CATALOG): CompiledStrategy {
  const errors = validateStrategy(spec, catalog)
  if (errors.length > 0) throw new StrategyValidationError(errors)
  return new CompiledStrategy({ ...spec, indicators: spec.indicators ?? {} }, catalog)
}

/** Entry (and exit) masks of a strategy over one coin's bars. */
export function compileStrategy(spec: StrategySpec, bars: Bars, catalog: IndicatorCatalog = DEFAULT_CATALOG): SignalMasks {
  return prepareStrategy(spec, catalog).signals(bars)
}

/** Ids of the indicators a valid strategy's trees read (what /backtest reports as indicators_used). */
export function indicatorsUsed(spec: StrategySpec, catalog: IndicatorCatalog = DEFAULT_CATALOG): string[] {
  return prepareStrategy(spec, catalog).indicatorsUsed
}

function timeColumn(bars: Bars, out: Float64Array, kind: 'hour' | 'weekday' | 'next_hour'): Float64Array {
  const t = bars.t
  const n = out.length
  // whole hours and days since 1970 fit an int32 (until the year 246,953 for hours), so the
  // divisions are truncated with | 0 and the remainders are integer ones: a floating-point
  // % (fmod) on the millisecond times cost ~20 ns per bar
  if (kind === 'weekday') {
    // 1970-01-01 was a Thursday (weekday 3 when Monday is 0)
    for (let i = 0; i < n; i++) out[i] = (((t[i] / DAY_MS) | 0) + 3) % 7
    return out
  }
  // the next bar opens one step later: causal, and the hour the entry filters test (engine/filters.ts)
  const step = kind === 'next_hour' ? bars.stepMs : 0
  for (let i = 0; i < n; i++) out[i] = (((t[i] + step) / HOUR_MS) | 0) % 24
  return out
}

/**
 * out[i] = the mean / lowest / highest of src over the `bars` rows ending at i; NaN where
 * the window reaches before the first row or holds a NaN (the kernels of the indicators:
 * sma, and the rolling extremes, which need NaNs only before the first valid row).
 */
function windowStat(src: Float64Array, stat: Stat, bars: number, out: Float64Array, n: number): Float64Array {
  if (stat === 'mean') {
    sma(src, bars, out, n)
    return out
  }
  const first = firstValid(src, n)
  let gaps = false
  for (let i = first; i < n; i++) if (src[i] !== src[i]) gaps = true
  if (!gaps) {
    if (stat === 'max') rollingMax(src, bars, out, n, 0, first)
    else rollingMin(src, bars, out, n, 0, first)
    return out
  }
  // a NaN inside the series (rare: e.g. a ratio over a zero): the plain scan, NaN-aware
  for (let i = 0; i < n; i++) {
    let m = i + 1 >= bars ? src[i] : NaN
    for (let j = i - bars + 1; j < i && m === m; j++) {
      const x = src[j]
      m = x !== x ? NaN : stat === 'max' ? (x > m ? x : m) : x < m ? x : m
    }
    out[i] = m
  }
  return out
}

/**
 * out[i] = multA × a[i − shiftA] + (multB × b[i − shiftB] or constant): the right side of
 * a comparison such as `close[i−2] + 2 × atr_sma_prev[i]`. NaN where a shift reaches
 * before the first row.
 */
function affine(
  a: Float64Array,
  shiftA: number,
  multA: number,
  b: Float64Array | null,
  shiftB: number,
  multB: number,
  constant: number,
  out: Float64Array,
  n: number,
): Float64Array {
  const start = Math.min(n, Math.max(shiftA, b ? shiftB : 0))
  for (let i = 0; i < start; i++) out[i] = NaN
  if (b === null) AFFINE_KERNELS[0](out, a, shiftA, multA, a, 0, 0, constant, start, n)
  else AFFINE_KERNELS[1](out, a, shiftA, multA, b, shiftB, multB, 0, start, n)
  return out
}

type AffineKernel = (out: Float64Array, a: Float64Array, sa: number, ma: number, b: Float64Array, sb: number, mb: number, c: number, start: number, n: number) => void

/** called through an array so each loop is compiled on its own (see TABLE_KERNELS) */
const AFFINE_KERNELS: readonly AffineKernel[] = [
  (out, a, sa, ma, _b, _sb, _mb, c, start, n) => {
    for (let i = start; i < n; i++) out[i] = ma * a[i - sa] + c
  },
  (out, a, sa, ma, b, sb, mb, _c, start, n) => {
    for (let i = start; i < n; i++) out[i] = ma * a[i - sa] + mb * b[i - sb]
  },
]

function evaluate(plan: Plan, dst: Uint8Array, columns: Float64Array[], n: number, depth: number): void {
  switch (plan.kind) {
    case 'leaf':
      compareInto(dst, columns[plan.a], plan.shiftA, plan.op, plan.b < 0 ? null : columns[plan.b], plan.constB, plan.shiftB, n)
      return
    case 'list':
      listInto(dst, columns[plan.a], plan.shiftA, plan.values, plan.negate, n)
      return
    case 'not':
      evaluate(plan.child, dst, columns, n, depth + 1)
      for (let i = 0; i < n; i++) dst[i] ^= 1
      return
    case 'any_prior': {
      const held = scratch.mask(ANY_PRIOR_MASKS + depth, n)
      evaluate(plan.child, held, columns, n, depth + 1)
      ANY_PRIOR_KERNELS[0](dst, held, plan.bars, n)
      return
    }
    case 'and':
    case 'or': {
      evaluate(plan.children[0], dst, columns, n, depth + 1)
      if (plan.children.length === 1) return
      const tmp = scratch.mask(depth, n)
      for (let c = 1; c < plan.children.length; c++) {
        evaluate(plan.children[c], tmp, columns, n, depth + 1)
        if (plan.kind === 'and') for (let i = 0; i < n; i++) dst[i] &= tmp[i]
        else for (let i = 0; i < n; i++) dst[i] |= tmp[i]
      }
    }
  }
}

type ConstKernel = (dst: Uint8Array, a: Float64Array, sa: number, y: number, start: number, n: number) => void
type FieldKernel = (dst: Uint8Array, a: Float64Array, sa: number, b: Float64Array, sb: number, start: number, n: number) => void

/*
 * One small kernel per operator, each loop compiled on its own. `+(x > y)` rather than
 * `x > y ? 1 : 0`: the JIT turns the ternary into a branch, which mispredicts on noisy
 * data (≈14 ns against ≈3 ns per bar, measured).
 * dst[i] = (a[i − sa] op y) or (a[i − sa] op b[i − sb]); a NaN on either side gives 0
 * because every comparison with NaN is false, and != checks for NaN itself.
 * crosses_above at i: a[i] > b[i] and a[i−1] ≤ b[i−1]; crosses_below mirrors it.
 */
const CONST_KERNELS: readonly ConstKernel[] = [
  (dst, a, sa, y, start, n) => {
    for (let i = start; i < n; i++) dst[i] = +(a[i - sa] === y)
  },
  (dst, a, sa, y, start, n) => {
    for (let i = start; i < n; i++) {
      const x = a[i - sa]
      dst[i] = +(x === x) & +(x !== y)
    }
  },
  (dst, a, sa, y, start, n) => {
    for (let i = start; i < n; i++) dst[i] = +(a[i - sa] > y)
  },
  (dst, a, sa, y, start, n) => {
    for (let i = start; i < n; i++) dst[i] = +(a[i - sa] >= y)
  },
  (dst, a, sa, y, start, n) => {
    for (let i = start; i < n; i++) dst[i] = +(a[i - sa] < y)
  },
  (dst, a, sa, y, start, n) => {
    for (let i = start; i < n; i++) dst[i] = +(a[i - sa] <= y)
  },
  (dst, a, sa, y, start, n) => {
    for (let i = start; i < n; i++) dst[i] = +(a[i - sa] > y) & +(a[i - 1 - sa] <= y)
  },
  (dst, a, sa, y, start, n) => {
    for (let i = start; i < n; i++) dst[i] = +(a[i - sa] < y) & +(a[i - 1 - sa] >= y)
  },
]

const FIELD_KERNELS: readonly FieldKernel[] = [
  (dst, a, sa, b, sb, start, n) => {
    for (let i = start; i < n; i++) dst[i] = +(a[i - sa] === b[i - sb])
  },
  (dst, a, sa, b, sb, start, n) => {
    for (let i = start; i < n; i++) {
      const x = a[i - sa]
      const y = b[i - sb]
      dst[i] = +(x === x) & +(y === y) & +(x !== y)
    }
  },
  (dst, a, sa, b, sb, start, n) => {
    for (let i = start; i < n; i++) dst[i] = +(a[i - sa] > b[i - sb])
  },
  (dst, a, sa, b, sb, start, n) => {
    for (let i = start; i < n; i++) dst[i] = +(a[i - sa] >= b[i - sb])
  },
  (dst, a, sa, b, sb, start, n) => {
    for (let i = start; i < n; i++) dst[i] = +(a[i - sa] < b[i - sb])
  },
  (dst, a, sa, b, sb, start, n) => {
    for (let i = start; i < n; i++) dst[i] = +(a[i - sa] <= b[i - sb])
  },
  (dst, a, sa, b, sb, start, n) => {
    for (let i = start; i < n; i++) dst[i] = +(a[i - sa] > b[i - sb]) & +(a[i - 1 - sa] <= b[i - 1 - sb])
  },
  (dst, a, sa, b, sb, start, n) => {
    for (let i = start; i < n; i++) dst[i] = +(a[i - sa] < b[i - sb]) & +(a[i - 1 - sa] >= b[i - 1 - sb])
  },
]

/** Evaluates one leaf; bars without enough history for its shifts (or a cross's previous bar) are 0. */
function compareInto(
  dst: Uint8Array,
  a: Float64Array,
  sa: number,
  op: OpCode,
  b: Float64Array | null,
  constB: number,
  sb: number,
  n: number,
): void {
  const lag = op === OpCode.CROSS_UP || op === OpCode.CROSS_DOWN ? 1 : 0
  const start = Math.min(n, Math.max(sa, b ? sb : 0) + lag)
  dst.fill(0, 0, start)
  if (b === null) CONST_KERNELS[op](dst, a, sa, constB, start, n)
  else FIELD_KERNELS[op](dst, a, sa, b, sb, start, n)
}


type AnyPriorKernel = (dst: Uint8Array, held: Uint8Array, bars: number, n: number) => void

/**
 * dst[i] = 1 when held[j] = 1 for some j in i − bars … i − 1; 0 where that window starts
 * before row 0. A sliding count; called through an array like the other kernels.
 */
const ANY_PRIOR_KERNELS: readonly AnyPriorKernel[] = [
  (dst, held, bars, n) => {
    const start = Math.min(n, bars)
    dst.fill(0, 0, start)
    let count = 0
    for (let j = 0; j < start; j++) count += held[j]
    for (let i = start; i < n; i++) {
      dst[i] = +(count > 0)
      count += held[i] - held[i - bars]
    }
  },
]

type ListKernel = (dst: Uint8Array, a: Float64Array, sa: number, table: Uint8Array, start: number, n: number) => void

/*
 * `in` / `not_in` over a list of small non-negative integers (hours, weekdays): a
 * 256-entry table, one load per bar; x & 255 === x holds exactly for such a value. NaN is
 * in no list and is not `not_in` one either (NaN is never true). Called through this array,
 * like the comparison kernels, so each loop is compiled on its own: inlined into the
 * recursive evaluate(), the same loop measured 10-20x slower once other trees had run.
 */
const TABLE_KERNELS: readonly ListKernel[] = [
  (dst, a, sa, table, start, n) => {
    for (let i = start; i < n; i++) {
      const x = a[i - sa]
      const k = x & 255
      dst[i] = +(k === x) & table[k]
    }
  },
  (dst, a, sa, table, start, n) => {
    // a value outside 0..255 or not an integer is in no list of this kind
    for (let i = start; i < n; i++) {
      const x = a[i - sa]
      const k = x & 255
      dst[i] = (+(k === x) & (table[k] ^ 1)) | (+(k !== x) & +(x === x))
    }
  },
]

type ValuesKernel = (dst: Uint8Array, a: Float64Array, sa: number, values: number[], start: number, n: number) => void

/** `in` / `not_in` over any list of numbers: one comparison per value and bar */
const VALUES_KERNELS: readonly ValuesKernel[] = [
  (dst, a, sa, values, start, n) => {
    for (let i = start; i < n; i++) {
      const x = a[i - sa]
      let hit = 0
      for (let j = 0; j < values.length; j++) hit |= +(x === values[j])
      dst[i] = hit
    }
  },
  (dst, a, sa, values, start, n) => {
    for (let i = start; i < n; i++) {
      const x = a[i - sa]
      let hit = 0
      for (let j = 0; j < values.length; j++) hit |= +(x === values[j])
      dst[i] = +(x === x) & (hit ^ 1)
    }
  },
]

/** Evaluates an `in` / `not_in` leaf; bars before its shift reaches data are 0. */
function listInto(dst: Uint8Array, a: Float64Array, sa: number, values: number[], negate: boolean, n: number): void {
  const start = Math.min(n, sa)
  dst.fill(0, 0, start)
  const kind = negate ? 1 : 0
  if (values.every(v => Number.isInteger(v) && v >= 0 && v < 256)) {
    const table = new Uint8Array(256)
    for (const v of values) table[v] = 1
    TABLE_KERNELS[kind](dst, a, sa, table, start, n)
  } else VALUES_KERNELS[kind](dst, a, sa, values, start, n)
}
