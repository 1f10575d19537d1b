/**
 * Compiles a condition tree into column-wise signal masks over one coin's candles.
 *
 * `prepareStrategy` resolves every field once (validation included); `signals(bars)`
 * then computes each indicator the tree names once, with the request's params merged
 * over the defaults (or reads them from the columns a caller keeps: IndicatorColumns), and
 * evaluates the tree a whole column at a time: one tight loop per leaf over typed arrays,
 * OR / NOT as byte-wise combinations, an AND's leaves narrowing a list of bars (andInto).
 * mask[i] = 1 means the condition holds at the CLOSE of bar i, using bars ≤ i only
 * (indicators are causal and `shift` only reads backwards). NaN on either side of a comparison gives 0, so warm-up
 * bars never signal.
 */
import type { IndicatorDef } from '../indicators/types'
import { sma } from '../indicators/ma'
import { rollingMax, rollingMin } from '../indicators/rolling-extremes'
import { firstValid } from '../indicators/util'
import { TIMEFRAME_MS, TIMEFRAMES, type Timeframe } from '../market/timeframe'
import type { Bars, FundingSeries, SampleKind, SampleSeries } from '../market/types'
import { DAY_MS, HOUR_MS } from '../time'
import type { IndicatorCatalog } from './catalog'
import {
  type ConditionNode,
  type FieldRef,
  type Op,
  type Series,
  type Stat,
  type StrategySpec,
  type Term,
  TREE_LIMITS,
  comparandOf,
  isLeaf,
  onlyChild,
} from './conditions'
import { DEFAULT_CATALOG } from './default-catalog'
import { StrategyValidationError, resolveField, validateStrategy } from './validate'

export interface SignalMasks {
  /** 1 where the entry condition holds at that bar's close (signalsListed hands null instead where `entryBars` lists them) */
  entry: Uint8Array
  /** 1 where the exit condition holds; null when the strategy has no exit tree */
  exit: Uint8Array | null
  /**
   * 1 where data a leaf reads (another coin's or timeframe's bar, funding, premium index,
   * open interest) was absent at that bar, so such leaves were false there; null when the
   * trees read no such data
   */
  absent: Uint8Array | null
  /**
   * the bars of `entry`'s 1s, ascending, when they are at most one in 32 bars, else null:
   * what engine/trade-model.ts signalBars(entry) gives, known without scanning the mask when
   * the entry tree is an AND of comparisons (its list of bars: andInto); absent otherwise
   */
  entryBars?: Int32Array | null
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
 * market-data field (funding, premium index, open interest at the bar's close), a window
 * statistic of another column, `mult × column + offset` of shifted columns, or a column of
 * another frame (another coin, a higher timeframe) aligned to the run's bars. Derived
 * sources name earlier sources by index, so computing them in order works.
 */
type Source =
  | { kind: 'bars'; col: 'c' | 'o' | 'h' | 'l' | 'v' }
  | { kind: 'time'; of: 'hour' | 'weekday' | 'next_hour'; slot: number }
  | { kind: 'indicator'; indicatorId: string; field: string }
  | { kind: 'funding'; events: number; slot: number }
  | { kind: 'samples'; of: SampleKind; slot: number }
  | { kind: 'stat'; base: number; stat: Stat; bars: number; slot: number }
  | { kind: 'affine'; a: number; shiftA: number; multA: number; b: number; shiftB: number; multB: number; constant: number; slot: number }
  | { kind: 'align'; frame: number; src: number; shift: number; slot: number }

/**
 * `key`: what the bars where the leaf holds depend on besides the coin's bars (its columns,
 * shifts, operator and constant), when its sides are candle or indicator columns of the
 * run's frame, so a keeper may hold those bars between trees (IndicatorColumns.leaf); null
 * for a leaf on derived, aligned or market-data columns
 */
type LeafPlan = {
  kind: 'leaf'
  a: number
  shiftA: number
  op: OpCode
  b: number
  constB: number
  shiftB: number
  key: string | null
  /**
   * what its columns' values on an AND's kept list of bars are kept by (`side@shift`, one per
   * column: IndicatorColumns.sparse), when the leaf has a key and is no cross (which reads the
   * bar before too); else null
   */
  at: string[] | null
}

type Plan =
  | LeafPlan
  | { kind: 'list'; a: number; shiftA: number; values: number[]; negate: boolean; table: Uint8Array | null }
  /** an AND's comparison leaves apart from its other children: they narrow a list of bars (andInto) */
  | { kind: 'and'; children: Plan[]; leaves: LeafPlan[]; rest: Plan[] }
  | { kind: 'or'; children: Plan[] }
  | { kind: 'not'; child: Plan }
  | { kind: 'any_prior'; bars: number; child: Plan }

const BAR_COLUMNS = { close: 'c', open: 'o', high: 'h', low: 'l', volume: 'v' } as const

/**
 * What a tree reading other coins, higher timeframes or derivatives data needs besides the
 * run's bars: the task context of a worker gives it (runs/compute/context.ts).
 */
export interface MarketData {
  /** the coin whose bars are being evaluated */
  readonly symbol: string
  /** a coin's candles on a timeframe (resampled from 1H), undefined when the store has none */
  bars(symbol: string, tf: Timeframe): Bars | undefined
  funding(symbol: string): FundingSeries | undefined
  samples(kind: SampleKind, symbol: string): SampleSeries | undefined
}

/**
 * A value of derivatives data older than this at a bar's close is absent, not current: the
 * store's series has a hole there or ends before the bar (Binance settles funding every 8
 * hours at the longest; premium index and open interest come hourly or finer).
 */
export const MARKET_DATA_STALE_MS = DAY_MS

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

  private i32: Int32Array[] = []

  /** a list of bar indices (an AND's bars still true), one per depth */
  positions(slot: number, n: number): Int32Array {
    let b = this.i32[slot]
    if (!b || b.length < n) this.i32[slot] = b = new Int32Array(n + (n >> 3))
    return b
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
  /** the indicator and its params as text: what its columns are kept by (IndicatorColumns) */
  key: string
}

/**
 * Indicator columns kept between strategies on one coin's bars (a worker's TaskContext
 * keeps them: runs/compute/indicator-columns.ts), so a new tree reading indicators an
 * earlier tree computed there compares on those columns instead of computing them again.
 * A key names the indicator, its params and the field (`bb(period=20,…)|bb_lower`); the
 * keeper answers only columns of the bars it was asked for (the coin, its timeframe, the
 * data version). A kept column is never written: the trees only read indicator columns.
 */
export interface IndicatorColumns {
  get(key: string): Float64Array | undefined
  /**
   * after a miss: whether the keeper wants the column (else it is computed into this
   * thread's scratch, which stays in cache, and not offered)
   */
  wants(key: string): boolean
  /** a column of n rows to compute a wanted field into and then offer (put); no other holder reads it */
  column(n: number): Float64Array
  /** offered after a compute; the keeper may drop it (its memory budget) */
  put(key: string, col: Float64Array): void
  /**
   * The bars where an AND's comparison leaf holds, kept between trees as a bit set (bit i of
   * word i >> 5: bar i), so a tree edited in one leaf compares only that leaf, on the bars
   * where its unchanged leaves all hold, and reads none of their columns (issue 30). A
   * keeper without these keeps no leaves. A kept set is never written.
   */
  leaf?(key: string): Uint32Array | undefined
  /** after a miss: whether the keeper wants the leaf's bars (a full pass over its columns if it was not the AND's first) */
  wantsLeaf?(key: string): boolean
  putLeaf?(key: string, bits: Uint32Array): void
  /**
   * Beside the leaves' sets, in a budget of their own: the list of bars where an AND's kept
   * leaves all hold (`list:` and their keys), and a column's values on such a list (that key,
   * `#` and LeafPlan.at: the column's value at each listed bar, shift applied, NaN where the
   * shift reaches before row 0). A tree edited in one leaf again and again then starts from
   * the list instead of intersecting the sets, and compares the edited leaf on its values
   * there instead of reading its column at scattered bars (issue 30: the column's cache
   * misses were most of a new tree's signals). A kept array is never written.
   */
  sparse?(key: string): Int32Array | Float64Array | undefined
  /** after a miss: whether the keeper wants an array of `bytes` under `key` */
  wantsSparse?(key: string, bytes: number): boolean
  putSparse?(key: string, x: Int32Array | Float64Array): void
}

/**
 * The bars a group of sources is computed on: frame 0 is the run's coin on the run's
 * timeframe; another frame names a coin (null: the run's) and a timeframe (null: the
 * run's), and its columns reach the run's bars through `align` sources of frame 0.
 */
interface Frame {
  symbol: string | null
  timeframe: Timeframe | null
  sources: Source[]
  sourceIndex: Map<string, number>
  jobs: Map<string, IndicatorJob>
}

/** A frame's columns over its bars, and where its market data was absent (null: it reads none). */
interface FrameColumns {
  bars: Bars
  cols: Float64Array[]
  absent: Uint8Array | null
}

/** the place of a column no plan reads (only leaves whose bars are kept name it) */
const UNREAD = new Float64Array(0)

/** frames of a fixed other coin kept between calls (the same BTCUSDT columns for every coin of a run) */
const FOREIGN_CACHE_ENTRIES = 8

/** A validated strategy, resolved once, ready to produce masks for any number of coins. */
export class CompiledStrategy {
  /** ids of the indicators the trees read, in order of first use */
  readonly indicatorsUsed: string[]
  /** the tree reads another coin, another timeframe or derivatives data: signals need MarketData */
  readonly readsMarketData: boolean
  private readonly frames: Frame[] = [newFrame(null, null)]
  private readonly entryPlan: Plan
  private readonly exitPlan: Plan | null
  private readonly foreignCache = new Map<string, FrameColumns>()
  private nextSlot = 0

  constructor(spec: StrategySpec, private readonly catalog: IndicatorCatalog) {
    const listed = new Set(Object.keys(spec.indicators ?? {}))
    this.entryPlan = this.plan(spec.entry, listed, spec)
    this.exitPlan = spec.exit_conditions ? this.plan(spec.exit_conditions, listed, spec) : null
    const used = new Set<string>()
    for (const f of this.frames) for (const id of f.jobs.keys()) used.add(id)
    this.indicatorsUsed = [...used]
    this.readsMarketData = this.frames.length > 1 || this.frames[0].sources.some(s => s.kind === 'funding' || s.kind === 'samples')
  }

  /** Params each used indicator runs with (defaults, overridden by the request). */
  paramsOf(indicatorId: string): Readonly<Record<string, number>> | undefined {
    for (const f of this.frames) {
      const job = f.jobs.get(indicatorId)
      if (job) return job.params
    }
    return undefined
  }

  /** The fields of a used indicator the trees read (the ones its compute is asked for). */
  fieldsOf(indicatorId: string): readonly string[] | undefined {
    for (const f of this.frames) {
      const job = f.jobs.get(indicatorId)
      if (job) return [...job.used]
    }
    return undefined
  }

  /**
   * Entry and exit masks over `bars`. A tree that reads other coins, other timeframes or
   * derivatives data needs `data` (the coin's symbol and the store); `absent` then marks
   * the bars where some of that data was missing (those leaves were false there).
   * `kept`: indicator columns of these bars kept between strategies (read, and offered
   * the ones computed here); valid for this strategy's catalog only.
   */
  signals(bars: Bars, data?: MarketData, kept?: IndicatorColumns): SignalMasks {
    return this.masks(bars, data, kept, false) as SignalMasks
  }

  /**
   * signals(), except that an entry whose bars `entryBars` lists (an AND of comparisons at
   * the root, its signals at most one in 32 bars) comes without its mask: `entry` null, no
   * mask written (a worker's cache keeps the list, and makes the mask only for a reader that
   * needs it: runs/compute/context.ts).
   */
  signalsListed(bars: Bars, data?: MarketData, kept?: IndicatorColumns): Omit<SignalMasks, 'entry'> & { entry: Uint8Array | null } {
    return this.masks(bars, data, kept, true)
  }

  private masks(bars: Bars, data: MarketData | undefined, kept: IndicatorColumns | undefined, listOnly: boolean): Omit<SignalMasks, 'entry'> & { entry: Uint8Array | null } {
    if (this.readsMarketData && !data) throw new Error('this strategy reads other coins, timeframes or market data: signals(bars, data) needs the market data')
    const n = bars.n
    // the AND leaves whose bars the keeper holds: their columns are neither computed nor read
    let sets: LeafSets | null = null
    if (kept?.leaf && kept.wantsLeaf && kept.putLeaf) {
      const hits = new Map<LeafPlan, Uint32Array>()
      const lists = kept.sparse && kept.wantsSparse && kept.putSparse ? new Map<Plan, AndList>() : null
      collectLeafHits(this.entryPlan, kept, hits, lists)
      if (this.exitPlan) collectLeafHits(this.exitPlan, kept, hits, lists)
      sets = { kept, hits, lists }
    }
    const needed = sets !== null && sets.hits.size > 0 ? this.neededIndicatorColumns(sets) : null
    const { cols: columns, absent } = this.columns(bars, data, kept, needed)
    let entry: Uint8Array | null = null
    let entryBars: Int32Array | null | undefined
    const root = this.entryPlan
    if (root.kind === 'and' && root.leaves.length > 0) {
      // the root AND's list is the mask's bars (signalBars' rule: null beyond one in 32), read before the exit's tree reuses the scratch
      const k = andListInto(root, columns, n, 0, sets)
      const pos = scratch.positions(0, n)
      entryBars = k <= n >>> 5 ? pos.slice(0, k) : null
      if (!listOnly || entryBars === null) {
        entry = new Uint8Array(n)
        for (let j = 0; j < k; j++) entry[pos[j]] = 1
      }
    } else {
      entry = new Uint8Array(n)
      evaluate(root, entry, columns, n, 0, sets)
    }
    let exit: Uint8Array | null = null
    if (this.exitPlan) {
      exit = new Uint8Array(n)
      evaluate(this.exitPlan, exit, columns, n, 0, sets)
    }
    const out: Omit<SignalMasks, 'entry'> & { entry: Uint8Array | null } = { entry, exit, absent: absent ? absent.slice() : null }
    if (entryBars !== undefined) out.entryBars = entryBars
    return out
  }

  /**
   * The indicator columns of the run's frame the plans read besides those of the leaves whose
   * bars are kept (`sets.hits`) and of those compared on their kept values on a kept list
   * (`sets.lists`) (`id|field`); only indicator columns are left out, so every other source
   * (and the absent marks of market data) is computed as before.
   */
  private neededIndicatorColumns(sets: LeafSets): Set<string> {
    const hits = sets.hits
    const onList = new Set<LeafPlan>()
    if (sets.lists !== null) for (const l of sets.lists.values()) for (const leaf of l.at.keys()) onList.add(leaf)
    const sources = this.frames[0].sources
    const read = new Uint8Array(sources.length)
    const mark = (p: Plan): void => {
      switch (p.kind) {
        case 'leaf':
          if (hits.has(p) || onList.has(p)) return
          read[p.a] = 1
          if (p.b >= 0) read[p.b] = 1
          return
        case 'list':
          read[p.a] = 1
          return
        case 'not':
        case 'any_prior':
          mark(p.child)
          return
        case 'and':
        case 'or':
          for (const c of p.children) mark(c)
      }
    }
    mark(this.entryPlan)
    if (this.exitPlan) mark(this.exitPlan)
    // derived sources name earlier ones: from the last down, what a read one reads is read
    for (let i = sources.length - 1; i >= 0; i--) {
      const s = sources[i]
      if (!read[i]) continue
      if (s.kind === 'stat') read[s.base] = 1
      else if (s.kind === 'affine') {
        read[s.a] = 1
        if (s.b >= 0) read[s.b] = 1
      }
    }
    const out = new Set<string>()
    sources.forEach((s, i) => {
      if (read[i] && s.kind === 'indicator') out.add(`${s.indicatorId}|${s.field}`)
    })
    return out
  }

  /** Every column the plans read: the other frames first, then the run's frame in order. */
  private columns(bars: Bars, data: MarketData | undefined, kept: IndicatorColumns | undefined, needed: ReadonlySet<string> | null): FrameColumns {
    const runTf = timeframeOf(bars)
    const others: (FrameColumns | null)[] = this.frames.map((f, k) => (k === 0 ? null : this.foreignColumns(f, runTf, data!)))
    const main = this.frames[0]
    const reads = this.readsMarketData
    return computeFrame(main, bars, data?.symbol ?? '', data, (slot, n) => scratch.column(slot, n), reads ? scratch.mask(2 * ANY_PRIOR_MASKS + 1, bars.n) : null, (s, out, absent) => {
      const fc = others[s.frame]!
      alignColumn(bars, fc, fc.cols[s.src], s.shift, out, absent)
    }, kept, needed)
  }

  /** The columns of another frame over its own bars (a fixed other coin's are cached). */
  private foreignColumns(frame: Frame, runTf: Timeframe, data: MarketData): FrameColumns {
    const tf = frame.timeframe ?? runTf
    if (TIMEFRAME_MS[tf] < TIMEFRAME_MS[runTf]) throw new StrategyValidationError([`timeframe ${tf} is lower than the run's ${runTf}`])
    const symbol = frame.symbol ?? data.symbol
    const fbars = data.bars(symbol, tf) ?? emptyBars(TIMEFRAME_MS[tf])
    // what the frame's columns depend on: its bars, and the funding and samples it reads (appended apart from the candles)
    const key =
      frame.symbol === null
        ? null
        : `${this.frames.indexOf(frame)}|${symbol}|${tf}|${fbars.n}|${fbars.n ? fbars.t[fbars.n - 1] : 0}|${fbars.n ? fbars.c[fbars.n - 1] : 0}|${frame.sources
            .map(s => (s.kind === 'funding' ? `f${seriesEnd(data.funding(symbol))}` : s.kind === 'samples' ? `${s.of}${seriesEnd(data.samples(s.of, symbol))}` : ''))
            .join('')}`
    if (key !== null) {
      const hit = this.foreignCache.get(key)
      if (hit) return hit
    }
    const reads = frame.sources.some(s => s.kind === 'funding' || s.kind === 'samples')
    const fc = computeFrame(frame, fbars, symbol, data, (_slot, n) => new Float64Array(n), reads ? new Uint8Array(fbars.n) : null, () => {
      throw new Error('an align source outside the run frame')
    })
    if (key !== null) {
      if (this.foreignCache.size >= FOREIGN_CACHE_ENTRIES) this.foreignCache.delete(this.foreignCache.keys().next().value!)
      this.foreignCache.set(key, fc)
    }
    return fc
  }

  private plan(node: ConditionNode, listed: ReadonlySet<string>, spec: StrategySpec): Plan {
    if (isLeaf(node)) {
      const right = comparandOf(node)
      const { col: a, shift: shiftA } = this.seriesRef(node, listed, spec)
      if (node.op === 'in' || node.op === 'not_in') {
        if (right.kind !== 'list') throw new StrategyValidationError([`${node.op} needs a list of numbers`])
        return { kind: 'list', a, shiftA, values: right.values, negate: node.op === 'not_in', table: listTable(right.values) }
      }
      const op = OP_CODES[node.op]
      if (right.kind === 'field') {
        const { b, shiftB } = this.rightSide(right.ref, listed, spec)
        return { kind: 'leaf', a, shiftA, op, b, constB: 0, shiftB, ...this.leafKey(a, shiftA, op, b, 0, shiftB) }
      }
      const constB = right.kind === 'boolean' ? (right.value ? 1 : 0) : right.kind === 'number' ? right.value : NaN
      return { kind: 'leaf', a, shiftA, op, b: -1, constB, shiftB: 0, ...this.leafKey(a, shiftA, op, -1, constB, 0) }
    }
    if (node.type === 'NOT') return { kind: 'not', child: this.plan(onlyChild(node), listed, spec) }
    if (node.type === 'ANY_PRIOR') return { kind: 'any_prior', bars: node.bars, child: this.plan(onlyChild(node), listed, spec) }
    const children = node.conditions.map(c => this.plan(c, listed, spec))
    if (node.type === 'OR') return { kind: 'or', children }
    const leaves = children.filter((c): c is LeafPlan => c.kind === 'leaf')
    return { kind: 'and', children, leaves, rest: children.filter(c => c.kind !== 'leaf') }
  }

  /**
   * A comparison leaf's key (LeafPlan.key): its columns by what they are (a candle field, or
   * an indicator's key and field), its shifts, operator and constant (String gives every
   * double its own text; -0 and 0 compare alike, so one text for both is right). Null when a
   * side is another kind of source. `at`: LeafPlan.at.
   */
  private leafKey(a: number, shiftA: number, op: OpCode, b: number, constB: number, shiftB: number): { key: string | null; at: string[] | null } {
    const main = this.frames[0]
    const side = (i: number): string | null => {
      const src = main.sources[i]
      if (src.kind === 'bars') return src.col
      if (src.kind === 'indicator') return `${main.jobs.get(src.indicatorId)!.key}|${src.field}`
      return null
    }
    const left = side(a)
    const right = b < 0 ? `=${String(constB)}` : side(b)
    if (left === null || right === null) return { key: null, at: null }
    const key = `leaf:${left}@${shiftA} ${op} ${right}${b < 0 ? '' : `@${shiftB}`}`
    if (op === OpCode.CROSS_UP || op === OpCode.CROSS_DOWN) return { key, at: null }
    return { key, at: b < 0 ? [`${left}@${shiftA}`] : [`${left}@${shiftA}`, `${right}@${shiftB}`] }
  }

  /** The right side of a comparison with a field: a plain (shifted) series, or an affine column. */
  private rightSide(ref: FieldRef, listed: ReadonlySet<string>, spec: StrategySpec): { b: number; shiftB: number } {
    const { col: b, shift: shiftB } = this.seriesRef(ref, listed, spec)
    if (ref.mult === undefined && ref.offset === undefined) return { b, shiftB }
    const multA = ref.mult ?? 1
    const off = ref.offset ?? 0
    const main = this.frames[0]
    const offRef = typeof off === 'number' ? null : this.seriesRef(off, listed, spec)
    const key =
      offRef === null
        ? `affine:${b}@${shiftB}*${multA}+${off}`
        : `affine:${b}@${shiftB}*${multA}+${offRef.col}@${offRef.shift}*${(off as Term).mult ?? 1}`
    const known = main.sourceIndex.get(key)
    if (known !== undefined) return { b: known, shiftB: 0 }
    const src: Source =
      offRef === null
        ? { kind: 'affine', a: b, shiftA: shiftB, multA, b: -1, shiftB: 0, multB: 0, constant: off as number, slot: this.nextSlot++ }
        : { kind: 'affine', a: b, shiftA: shiftB, multA, b: offRef.col, shiftB: offRef.shift, multB: (off as Term).mult ?? 1, constant: 0, slot: this.nextSlot++ }
    return { b: register(main, key, src), shiftB: 0 }
  }

  /**
   * The run-frame column of a series and the shift to read it with. A series of another
   * coin or timeframe is computed on that frame's bars (its shift and window counting its
   * bars) and aligned to the run's bars, so it is read unshifted.
   */
  private seriesRef(s: Series, listed: ReadonlySet<string>, spec: StrategySpec): { col: number; shift: number } {
    const symbol = s.symbol ?? null
    const timeframe = s.timeframe ?? null
    if (symbol === null && timeframe === null) return { col: this.series(this.frames[0], s, listed, spec), shift: s.shift ?? 0 }
    let f = this.frames.findIndex(x => x.symbol === symbol && x.timeframe === timeframe)
    if (f < 0) {
      this.frames.push(newFrame(symbol, timeframe))
      f = this.frames.length - 1
    }
    const src = this.series(this.frames[f], s, listed, spec)
    const shift = s.shift ?? 0
    const main = this.frames[0]
    const key = `align:${f}:${src}:${shift}`
    return { col: main.sourceIndex.get(key) ?? register(main, key, { kind: 'align', frame: f, src, shift, slot: this.nextSlot++ }), shift: 0 }
  }

  /** Index of the column of a series in its frame: the field's own, or its window statistic. */
  private series(frame: Frame, s: Series, listed: ReadonlySet<string>, spec: StrategySpec): number {
    const base = this.source(frame, s.field, s.events, listed, spec)
    if (s.stat === undefined) return base
    const bars = s.bars ?? 1
    const key = `stat:${base}:${s.stat}:${bars}`
    return frame.sourceIndex.get(key) ?? register(frame, key, { kind: 'stat', base, stat: s.stat, bars, slot: this.nextSlot++ })
  }

  /** Index of the column for a field in a frame, registering it (and its indicator) on first use. */
  private source(frame: Frame, field: string, events: number | undefined, listed: ReadonlySet<string>, spec: StrategySpec): number {
    const key = field === 'funding_rate_mean' ? `${field}:${events ?? TREE_LIMITS.defaultFundingEvents}` : field
    const known = frame.sourceIndex.get(key)
    if (known !== undefined) return known
    const r = resolveField(field, listed, this.catalog)
    if ('error' in r) throw new StrategyValidationError([r.error])
    let src: Source
    if (r.source === 'base') {
      src = field === 'hour' || field === 'weekday' || field === 'next_hour'
        ? { kind: 'time', of: field, slot: this.nextSlot++ }
        : { kind: 'bars', col: BAR_COLUMNS[field as keyof typeof BAR_COLUMNS] }
    } else if (r.source === 'market') {
      src =
        r.name === 'funding_rate' || r.name === 'funding_rate_mean'
          ? { kind: 'funding', events: r.name === 'funding_rate' ? 0 : (events ?? TREE_LIMITS.defaultFundingEvents), slot: this.nextSlot++ }
          : { kind: 'samples', of: r.name === 'basis' ? 'premium_index' : 'open_interest', slot: this.nextSlot++ }
    } else {
      src = { kind: 'indicator', indicatorId: r.indicatorId, field }
      this.addJob(frame, r.indicatorId, spec)
      frame.jobs.get(r.indicatorId)!.used.add(field)
    }
    return register(frame, key, src)
  }

  private addJob(frame: Frame, id: string, spec: StrategySpec): void {
    if (frame.jobs.has(id)) return
    const def = this.catalog.defs[id]
    const params: Record<string, number> = {}
    for (const [k, p] of Object.entries(def.params)) params[k] = p.default
    Object.assign(params, spec.indicators[id] ?? {})
    const slots = def.fields.map(() => this.nextSlot++)
    frame.jobs.set(id, { def, params, slots, used: new Set(), key: indicatorKey(id, params) })
  }
}

/** `id(name=value,…)`, params by name; -0 spelled apart from 0 (String(-0) is "0") */
function indicatorKey(id: string, params: Record<string, number>): string {
  const parts = Object.keys(params)
    .sort()
    .map(k => `${k}=${Object.is(params[k], -0) ? '-0' : String(params[k])}`)
  return `${id}(${parts.join(',')})`
}

/** how far a funding or samples series reaches: its length and last time */
const seriesEnd = (x: { t: Float64Array; n: number } | undefined): string => (x ? `${x.n}@${x.n ? x.t[x.n - 1] : 0}` : '-')

function newFrame(symbol: string | null, timeframe: Timeframe | null): Frame {
  return { symbol, timeframe, sources: [], sourceIndex: new Map(), jobs: new Map() }
}

function register(frame: Frame, key: string, src: Source): number {
  frame.sources.push(src)
  frame.sourceIndex.set(key, frame.sources.length - 1)
  return frame.sources.length - 1
}

function emptyBars(stepMs: number): Bars {
  const z = new Float64Array(0)
  return { t: z, o: z, h: z, l: z, c: z, v: z, n: 0, stepMs }
}

/** The timeframe of a series by its bar length (the run's bars are the store's 1H or a resample). */
function timeframeOf(bars: Bars): Timeframe {
  for (const tf of TIMEFRAMES) if (TIMEFRAME_MS[tf] === bars.stepMs) return tf
  throw new Error(`bars of ${bars.stepMs} ms are not of a known timeframe`)
}

/**
 * A frame's columns over `bars`: indicators computed once each, then every source in order.
 * `absent` (when the frame reads market data) gets 1 where such data was missing.
 */
function computeFrame(
  frame: Frame,
  bars: Bars,
  symbol: string,
  data: MarketData | undefined,
  alloc: (slot: number, n: number) => Float64Array,
  absent: Uint8Array | null,
  align: (s: Extract<Source, { kind: 'align' }>, out: Float64Array, absent: Uint8Array | null) => void,
  kept?: IndicatorColumns,
  needed: ReadonlySet<string> | null = null,
): FrameColumns {
  const n = bars.n
  if (absent) absent.fill(0)
  const computed = new Map<string, Record<string, Float64Array>>()
  for (const [id, job] of frame.jobs) {
    const cols: Record<string, Float64Array> = {}
    // the fields not kept are computed, in one call (a field's values do not depend on which
    // others are asked: tests/indicators-subset.test.ts)
    let out: Record<string, Float64Array> | null = null
    let offer: string[] | null = null
    const defFields = job.def.fields
    for (let k = 0; k < defFields.length; k++) {
      const name = defFields[k].name
      if (!job.used.has(name)) continue
      // read only by leaves whose bars are kept: not computed, and never read (signals())
      if (needed !== null && !needed.has(`${id}|${name}`)) continue
      const key = `${job.key}|${name}`
      const hit = kept?.get(key)
      if (hit) {
        cols[name] = hit
        continue
      }
      out ??= {}
      if (kept?.wants(key)) {
        // a column offered to the keeper is its own
        out[name] = cols[name] = kept.column(n)
        ;(offer ??= []).push(name)
      } else {
        // reused buffers: IndicatorDef.compute writes every row (warm-up as NaN), tested in conditions-compile
        out[name] = cols[name] = alloc(job.slots[k], n)
      }
    }
    if (out !== null) {
      job.def.compute(bars, job.params, out)
      if (offer !== null) for (const name of offer) kept!.put(`${job.key}|${name}`, out[name])
    }
    computed.set(id, cols)
  }
  const cols: Float64Array[] = []
  for (const s of frame.sources) {
    switch (s.kind) {
      case 'bars':
        cols.push(bars[s.col].subarray(0, n))
        break
      case 'time':
        cols.push(timeColumn(bars, alloc(s.slot, n), s.of))
        break
      case 'indicator':
        cols.push(computed.get(s.indicatorId)![s.field] ?? UNREAD)
        break
      case 'funding': {
        const f = data!.funding(symbol)
        cols.push(settledColumn(bars, f ? f.t : null, f ? f.rate : null, f ? f.n : 0, s.events, alloc(s.slot, n), absent!))
        break
      }
      case 'samples': {
        const f = data!.samples(s.of, symbol)
        cols.push(settledColumn(bars, f ? f.t : null, f ? f.value : null, f ? f.n : 0, 0, alloc(s.slot, n), absent!))
        break
      }
      case 'stat':
        cols.push(windowStat(cols[s.base], s.stat, s.bars, alloc(s.slot, n), n))
        break
      case 'affine':
        cols.push(affine(cols[s.a], s.shiftA, s.multA, s.b < 0 ? null : cols[s.b], s.shiftB, s.multB, s.constant, alloc(s.slot, n), n))
        break
      case 'align': {
        const out = alloc(s.slot, n)
        align(s, out, absent)
        cols.push(out)
        break
      }
    }
  }
  return { bars, cols, absent }
}

/**
 * out[i] = the value of the last event known at the close of bar i (time ≤ open + one bar),
 * or with `events` > 0 the mean of the last `events` of them, summed oldest first. NaN
 * where there is none yet or fewer than `events` (a warm-up), and NaN with absent[i] = 1
 * where the series has no event within MARKET_DATA_STALE_MS of the close (no data there).
 */
function settledColumn(
  bars: Bars,
  t: Float64Array | null,
  value: Float64Array | null,
  m: number,
  events: number,
  out: Float64Array,
  absent: Uint8Array,
): Float64Array {
  const n = bars.n
  const step = bars.stepMs
  let j = 0
  let last = -1
  let cur = NaN
  for (let i = 0; i < n; i++) {
    const close = bars.t[i] + step
    while (j < m && t![j] <= close) j++
    if (j === 0 || close - t![j - 1] > MARKET_DATA_STALE_MS) {
      out[i] = NaN
      absent[i] = 1
      continue
    }
    if (j !== last) {
      last = j
      if (events === 0) cur = value![j - 1]
      else if (j < events) cur = NaN
      else {
        let sum = 0
        for (let k = j - events; k < j; k++) sum += value![k]
        cur = sum / events
      }
    }
    out[i] = cur
  }
  return out
}

/**
 * out[i] = the other frame's column at its last bar completed by the close of run bar i,
 * `shift` of its bars back: the bar k with close (open + its length) ≤ the run bar's close,
 * the latest such. When that bar closed a whole bar of its own or more before (a hole in
 * that coin's data, a coin not yet listed) the value is absent: NaN, and absent[i] = 1; so
 * is a bar where the frame's own market data was absent.
 */
function alignColumn(bars: Bars, fc: FrameColumns, col: Float64Array, shift: number, out: Float64Array, absent: Uint8Array | null): void {
  const n = bars.n
  const step = bars.stepMs
  const fb = fc.bars
  const m = fb.n
  const size = fb.stepMs
  const fa = fc.absent
  let j = 0
  for (let i = 0; i < n; i++) {
    const close = bars.t[i] + step
    while (j < m && fb.t[j] + size <= close) j++
    const k = j - 1
    if (k < 0 || fb.t[k] + size <= close - size || (fa !== null && fa[k] === 1)) {
      out[i] = NaN
      if (absent) absent[i] = 1
      continue
    }
    out[i] = k >= shift ? col[k - shift] : NaN
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

type AndPlan = Extract<Plan, { kind: 'and' }>
type ListPlan = Extract<Plan, { kind: 'list' }>

/**
 * An AND some of whose leaves' bars the keeper holds: the keeper's key of the list of bars
 * where those leaves all hold (IndicatorColumns.sparse), that list when kept, and the open
 * leaves whose columns' values on it are kept (one array per column, LeafPlan.at's order).
 */
interface AndList {
  key: string
  list: Int32Array | undefined
  at: Map<LeafPlan, Float64Array[]>
}

/**
 * the keeper of leaves' bars, the leaves of this coin it holds, and its lists of the ANDs
 * with such leaves (null: a keeper of sets alone) (collectLeafHits)
 */
interface LeafSets {
  kept: IndicatorColumns
  hits: Map<LeafPlan, Uint32Array>
  lists: Map<Plan, AndList> | null
}

/**
 * The AND leaves of a plan whose bars the keeper holds (only an AND's leaves use kept bars:
 * andInto), and with `lists`, each such AND's kept list and kept values of its other leaves.
 */
function collectLeafHits(plan: Plan, kept: IndicatorColumns, hits: Map<LeafPlan, Uint32Array>, lists: Map<Plan, AndList> | null): void {
  switch (plan.kind) {
    case 'and': {
      let keys: string[] | null = null
      for (const l of plan.leaves) {
        if (l.key === null) continue
        let bits = hits.get(l)
        if (bits === undefined) {
          bits = kept.leaf!(l.key)
          if (bits !== undefined) hits.set(l, bits)
        }
        if (bits !== undefined) (keys ??= []).push(l.key)
      }
      if (lists !== null && keys !== null && keys.length < plan.leaves.length) {
        const key = `list:${keys.join('&')}`
        const list = kept.sparse!(key) as Int32Array | undefined
        const at = new Map<LeafPlan, Float64Array[]>()
        if (list !== undefined)
          for (const l of plan.leaves) {
            if (l.at === null || hits.has(l)) continue
            const values: Float64Array[] = []
            for (const side of l.at) {
              const v = kept.sparse!(`${key}#${side}`) as Float64Array | undefined
              if (v === undefined) break
              values.push(v)
            }
            if (values.length === l.at.length) at.set(l, values)
          }
        lists.set(plan, { key, list, at })
      }
      for (const c of plan.rest) collectLeafHits(c, kept, hits, lists)
      return
    }
    case 'or':
      for (const c of plan.children) collectLeafHits(c, kept, hits, lists)
      return
    case 'not':
    case 'any_prior':
      collectLeafHits(plan.child, kept, hits, lists)
  }
}

function evaluate(plan: Plan, dst: Uint8Array, columns: Float64Array[], n: number, depth: number, sets: LeafSets | null = null): void {
  switch (plan.kind) {
    case 'leaf':
      compareInto(dst, columns[plan.a], plan.shiftA, plan.op, plan.b < 0 ? null : columns[plan.b], plan.constB, plan.shiftB, n)
      return
    case 'list':
      listInto(dst, columns[plan.a], plan, n)
      return
    case 'not':
      evaluate(plan.child, dst, columns, n, depth + 1, sets)
      for (let i = 0; i < n; i++) dst[i] ^= 1
      return
    case 'any_prior': {
      const held = scratch.mask(ANY_PRIOR_MASKS + depth, n)
      evaluate(plan.child, held, columns, n, depth + 1, sets)
      ANY_PRIOR_KERNELS[0](dst, held, plan.bars, n)
      return
    }
    case 'and':
    case 'or': {
      if (plan.kind === 'and' && plan.leaves.length > 0) return andInto(plan, dst, columns, n, depth, sets)
      // an OR, or an AND of groups alone: mask by mask
      evaluate(plan.children[0], dst, columns, n, depth + 1, sets)
      if (plan.children.length === 1) return
      const tmp = scratch.mask(depth, n)
      for (let c = 1; c < plan.children.length; c++) {
        evaluate(plan.children[c], tmp, columns, n, depth + 1, sets)
        if (plan.kind === 'and') for (let i = 0; i < n; i++) dst[i] &= tmp[i]
        else for (let i = 0; i < n; i++) dst[i] |= tmp[i]
      }
      return
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

/** A list of small integers (0 … 255, the hours and weekdays) as a table of 256 flags, read by TABLE_KERNELS; null for any other list (VALUES_KERNELS). Made once per plan. */
function listTable(values: readonly number[]): Uint8Array | null {
  if (!values.every(v => Number.isInteger(v) && v >= 0 && v < 256)) return null
  const table = new Uint8Array(256)
  for (const v of values) table[v] = 1
  return table
}

/** Evaluates an `in` / `not_in` leaf; bars before its shift reaches data are 0. */
function listInto(dst: Uint8Array, a: Float64Array, list: ListPlan, n: number): void {
  const sa = list.shiftA
  const start = Math.min(n, sa)
  dst.fill(0, 0, start)
  const kind = list.negate ? 1 : 0
  if (list.table !== null) TABLE_KERNELS[kind](dst, a, sa, list.table, start, n)
  else VALUES_KERNELS[kind](dst, a, sa, list.values, start, n)
}


/*
 * An AND with comparison leaves, evaluated on a list of bars rather than mask by mask
 * (issue 30: a new tree on kept indicator columns is these loops alone). The leaf that
 * holds on the fewest of 64 sampled bars writes the list of bars where it holds (one pass
 * over the coin); each other leaf, the fewest first, keeps only the listed bars where it
 * holds too, and the AND's groups (OR, NOT, ANY_PRIOR, lists) are evaluated mask by mask
 * only while some bar is left. The same comparisons on the same bars as compareInto, so
 * the mask is the same bit for bit; the order only decides how many bars are visited.
 * With a keeper of leaves' bars (`sets`), the kept leaves' sets seed the list instead, and
 * a leaf seen before has its set made and offered (IndicatorColumns.leaf).
 */
function andInto(plan: AndPlan, dst: Uint8Array, columns: Float64Array[], n: number, depth: number, sets: LeafSets | null): void {
  const k = andListInto(plan, columns, n, depth, sets)
  const pos = scratch.positions(depth, n)
  // the root's mask (depth 0, from signals()) is new, so already zero
  if (depth > 0) dst.fill(0, 0, n)
  for (let j = 0; j < k; j++) dst[pos[j]] = 1
}

/**
 * andInto's list alone: the bars where the AND holds, in order, in the depth's positions;
 * answers how many. In three functions (the kept leaves' seed, the leaves' narrowing, the
 * groups'), each with its own loops: one function holding them all was compiled again by
 * the JIT's top tier at the first runs of most strategies (its loops entered with other
 * types), 35–55 ms of compiler time a worker each time (docs/benchmarks.md, session 16).
 */
function andListInto(plan: AndPlan, columns: Float64Array[], n: number, depth: number, sets: LeafSets | null): number {
  const pos = scratch.positions(depth, n)
  let open = plan.leaves
  let k = -1
  if (sets !== null && sets.hits.size > 0) {
    const seeded = seedFromKept(plan, pos, columns, n, depth, sets)
    if (seeded !== null) {
      open = seeded.open
      k = seeded.k
    }
  }
  k = narrowByLeaves(open, pos, k, columns, n, depth, sets)
  const rest = plan.rest
  if (k > 0 && rest.length > 0) {
    const tmp = scratch.mask(depth, n)
    for (let c = 0; c < rest.length && k > 0; c++) {
      const r = rest[c]
      // a list leaf (an hour filter, say) is tested on the listed bars alone, not over the coin
      if (r.kind === 'list') k = listFilter(pos, k, columns[r.a], r)
      else {
        evaluate(r, tmp, columns, n, depth + 1, sets)
        k = MASK_FILTER_KERNELS[0](pos, k, tmp)
      }
    }
  }
  return k
}

/**
 * The listed bars pos[0 … k − 1] kept where an `in` / `not_in` leaf holds: the same test as
 * listInto's kernels (TABLE_KERNELS, VALUES_KERNELS) on each listed bar instead of every bar
 * of the coin, a bar before the leaf's shift reaches data false as there; answers how many
 * are left.
 */
function listFilter(pos: Int32Array, k: number, a: Float64Array, list: ListPlan): number {
  const { shiftA: sa, table, values, negate } = list
  let m = 0
  if (table !== null) {
    for (let j = 0; j < k; j++) {
      const i = pos[j]
      pos[m] = i
      if (i < sa) continue
      const x = a[i - sa]
      const t = x & 255
      m += negate ? (+(t === x) & (table[t] ^ 1)) | (+(t !== x) & +(x === x)) : +(t === x) & table[t]
    }
    return m
  }
  for (let j = 0; j < k; j++) {
    const i = pos[j]
    pos[m] = i
    if (i < sa) continue
    const x = a[i - sa]
    let hit = 0
    for (let v = 0; v < values.length; v++) hit |= +(x === values[v])
    m += negate ? +(x === x) & (hit ^ 1) : hit
  }
  return m
}

/**
 * The list seeded from the leaves whose bars are kept (their sets intersected word by
 * word, or the list kept of them), narrowed by the leaves whose values on it are kept;
 * answers the list's length and the leaves left open, or null when no leaf of the AND is
 * kept. Their columns were not computed (signals()).
 */
function seedFromKept(plan: AndPlan, pos: Int32Array, columns: Float64Array[], n: number, depth: number, sets: LeafSets): { open: LeafPlan[]; k: number } | null {
  const leaves = plan.leaves
  const held: Uint32Array[] = []
  for (const l of leaves) {
    const bits = sets.hits.get(l)
    if (bits !== undefined) held.push(bits)
  }
  if (held.length === 0) return null
  // (loops, not Array.filter: its callback cost about a microsecond a call here)
  let open: LeafPlan[] = []
  for (const l of leaves) if (!sets.hits.has(l)) open.push(l)
  let k: number
  const kl = sets.lists?.get(plan)
  let listed = kl?.list
  if (listed !== undefined) {
    pos.set(listed)
    k = listed.length
  } else {
    k = BITS_SEED_KERNELS[0](pos, held)
    // kept (from its second use) while short: its values of a column cost 8 bytes a listed bar
    if (kl !== undefined && k <= n >>> LIST_MOST_SHIFT && sets.kept.wantsSparse!(kl.key, 4 * k)) {
      listed = pos.slice(0, k)
      sets.kept.putSparse!(kl.key, listed)
    }
  }
  if (kl !== undefined && listed !== undefined) {
    // the other leaves' values on the list: offered (from their second use) while the columns are at hand
    for (const l of open) if (l.at !== null && !kl.at.has(l)) offerValuesOnList(sets.kept, kl.key, listed, l, columns)
    // the leaves whose values on the list are kept narrow it first, reading those values alone
    if (kl.at.size > 0) {
      k = valuesFilter(pos, k, kl.at, scratch.mask(depth, n))
      const left: LeafPlan[] = []
      for (const l of open) if (!kl.at.has(l)) left.push(l)
      open = left
    }
  }
  return { open, k }
}

/**
 * The list narrowed by the open leaves, the one holding on the fewest sampled bars first;
 * `k` < 0: no list yet (every leaf is open), the first leaf writes it. Answers its length.
 */
function narrowByLeaves(open: LeafPlan[], pos: Int32Array, k: number, columns: Float64Array[], n: number, depth: number, sets: LeafSets | null): number {
  let order = open
  if (open.length > 1) {
    // the fewest held first, ties in the tree's order: an insertion sort of a few leaves
    // (no closure over the arguments: the writes to its scope failed the JIT's caches and
    // sent the function back to be compiled again)
    order = []
    const held: number[] = []
    for (const l of open) {
      const h = sampledHolds(l, columns, n)
      let j = order.length
      while (j > 0 && held[j - 1] > h) {
        order[j] = order[j - 1]
        held[j] = held[j - 1]
        j--
      }
      order[j] = l
      held[j] = h
    }
  }
  let c = 0
  if (k < 0) {
    const first = order[c++]
    k = seedInto(pos, first, columns, n)
    // the first leaf's list is every bar where it holds: its set costs no pass of its own
    if (sets !== null && first.key !== null && sets.kept.wantsLeaf!(first.key)) sets.kept.putLeaf!(first.key, bitsOf(pos, k, n))
  }
  for (; c < order.length && k > 0; c++) {
    const l = order[c]
    if (sets !== null && l.key !== null && sets.kept.wantsLeaf!(l.key)) {
      // a leaf seen before (kept from its second use on, as columns are): one pass over its
      // columns lists every bar where it holds, kept as a set; the list keeps the bars in it
      const all = scratch.positions(FULL_PASS_POSITIONS, n)
      const bits = bitsOf(all, seedInto(all, l, columns, n), n)
      sets.kept.putLeaf!(l.key, bits)
      k = BITS_FILTER_KERNELS[0](pos, k, bits)
      continue
    }
    // bars before the leaf's start (its shifts reach before row 0) are false: leave them out
    const start = leafStart(l, n)
    let from = 0
    while (from < k && pos[from] < start) from++
    // the depth's mask is free until the groups below
    const held = scratch.mask(depth, n)
    if (l.b < 0) FILTER_CONST_KERNELS[l.op](held, pos, from, k, columns[l.a], l.shiftA, l.constB)
    else FILTER_FIELD_KERNELS[l.op](held, pos, from, k, columns[l.a], l.shiftA, columns[l.b], l.shiftB)
    k = HELD_FILTER_KERNELS[0](pos, held, from, k)
  }
  return k
}

/** a list of bars is kept while it lists at most one bar in 2^LIST_MOST_SHIFT (its values of a column: half a byte a bar of the coin at most) */
const LIST_MOST_SHIFT = 4

/**
 * Offers the values of a leaf's columns on a kept list of bars (IndicatorColumns.sparse),
 * each from its second use on, where the keeper does not hold them yet.
 */
function offerValuesOnList(kept: IndicatorColumns, listKey: string, list: Int32Array, l: LeafPlan, columns: Float64Array[]): void {
  const sides = l.at!
  for (let s = 0; s < sides.length; s++) {
    const key = `${listKey}#${sides[s]}`
    if (kept.sparse!(key) !== undefined || !kept.wantsSparse!(key, 8 * list.length)) continue
    const out = new Float64Array(list.length)
    GATHER_KERNELS[0](out, list, s === 0 ? columns[l.a] : columns[l.b], s === 0 ? l.shiftA : l.shiftB)
    kept.putSparse!(key, out)
  }
}

/**
 * The listed bars pos[0 … k − 1] (a kept list) kept where every leaf of `at` holds, on its
 * columns' kept values on that list (the same comparisons on the same values as the filter
 * kernels; a value before row 0 is NaN, false like a bar before the leaf's start); answers
 * how many are left. `held`: a free mask of at least k bytes.
 */
function valuesFilter(pos: Int32Array, k: number, at: ReadonlyMap<LeafPlan, Float64Array[]>, held: Uint8Array): number {
  held.fill(1, 0, k)
  for (const [l, v] of at) {
    if (l.b < 0) VALUES_CONST_KERNELS[l.op](held, v[0], l.constB, k)
    else VALUES_FIELD_KERNELS[l.op](held, v[0], v[1], k)
  }
  return HELD_FILTER_KERNELS[0](pos, held, 0, k)
}

/** out[j] = a[list[j] − s], NaN where that is before row 0 (called through an array like the other kernels) */
const GATHER_KERNELS: readonly ((out: Float64Array, list: Int32Array, a: Float64Array, s: number) => void)[] = [
  (out, list, a, s) => {
    for (let j = 0; j < out.length; j++) {
      const i = list[j] - s
      out[j] = i >= 0 ? a[i] : NaN
    }
  },
]

/*
 * held[j] &= (x[j] op y) or (x[j] op z[j]) on the values of a leaf's columns on a kept list:
 * the comparisons of CONST_KERNELS / FIELD_KERNELS (no cross: LeafPlan.at is null for one).
 */
type ValuesConstKernel = (held: Uint8Array, x: Float64Array, y: number, k: number) => void
type ValuesFieldKernel = (held: Uint8Array, x: Float64Array, z: Float64Array, k: number) => void

const NO_CROSS_ON_VALUES = () => {
  throw new Error('a cross is never compared on kept values')
}

const VALUES_CONST_KERNELS: readonly ValuesConstKernel[] = [
  (held, x, y, k) => {
    for (let j = 0; j < k; j++) held[j] &= +(x[j] === y)
  },
  (held, x, y, k) => {
    for (let j = 0; j < k; j++) {
      const v = x[j]
      held[j] &= +(v === v) & +(v !== y)
    }
  },
  (held, x, y, k) => {
    for (let j = 0; j < k; j++) held[j] &= +(x[j] > y)
  },
  (held, x, y, k) => {
    for (let j = 0; j < k; j++) held[j] &= +(x[j] >= y)
  },
  (held, x, y, k) => {
    for (let j = 0; j < k; j++) held[j] &= +(x[j] < y)
  },
  (held, x, y, k) => {
    for (let j = 0; j < k; j++) held[j] &= +(x[j] <= y)
  },
  NO_CROSS_ON_VALUES,
  NO_CROSS_ON_VALUES,
]

const VALUES_FIELD_KERNELS: readonly ValuesFieldKernel[] = [
  (held, x, z, k) => {
    for (let j = 0; j < k; j++) held[j] &= +(x[j] === z[j])
  },
  (held, x, z, k) => {
    for (let j = 0; j < k; j++) {
      const v = x[j]
      const w = z[j]
      held[j] &= +(v === v) & +(w === w) & +(v !== w)
    }
  },
  (held, x, z, k) => {
    for (let j = 0; j < k; j++) held[j] &= +(x[j] > z[j])
  },
  (held, x, z, k) => {
    for (let j = 0; j < k; j++) held[j] &= +(x[j] >= z[j])
  },
  (held, x, z, k) => {
    for (let j = 0; j < k; j++) held[j] &= +(x[j] < z[j])
  },
  (held, x, z, k) => {
    for (let j = 0; j < k; j++) held[j] &= +(x[j] <= z[j])
  },
  NO_CROSS_ON_VALUES,
  NO_CROSS_ON_VALUES,
]

/** the positions scratch of a leaf's full pass (andInto), above those of the depths */
const FULL_PASS_POSITIONS = TREE_LIMITS.maxDepth + 2

/** Lists in pos every bar where a leaf holds (from its start on), in order; answers how many. */
function seedInto(pos: Int32Array, l: LeafPlan, columns: Float64Array[], n: number): number {
  return l.b < 0
    ? SEED_CONST_KERNELS[l.op](pos, columns[l.a], l.shiftA, l.constB, leafStart(l, n), n)
    : SEED_FIELD_KERNELS[l.op](pos, columns[l.a], l.shiftA, columns[l.b], l.shiftB, leafStart(l, n), n)
}

/** The bit set of n bars (bit i & 31 of word i >> 5) with the k bars of pos set. */
function bitsOf(pos: Int32Array, k: number, n: number): Uint32Array {
  const bits = new Uint32Array((n + 31) >>> 5)
  for (let j = 0; j < k; j++) {
    const i = pos[j]
    bits[i >>> 5] |= 1 << (i & 31)
  }
  return bits
}

/*
 * The kept sets of an AND's leaves: the bars in all of them listed in order (one word of
 * each set at a time, its set bits taken lowest first), and a list kept to the bars in a
 * set (branch-free, like the filter kernels). Called through arrays like the other kernels.
 */
const BITS_SEED_KERNELS: readonly ((pos: Int32Array, sets: Uint32Array[]) => number)[] = [
  (pos, sets) => {
    const first = sets[0]
    const m = sets.length
    let k = 0
    for (let w = 0; w < first.length; w++) {
      let x = first[w] | 0
      for (let j = 1; j < m && x !== 0; j++) x &= sets[j][w]
      const base = w << 5
      while (x !== 0) {
        const low = x & -x
        pos[k++] = base | (31 - Math.clz32(low))
        x ^= low
      }
    }
    return k
  },
]

const BITS_FILTER_KERNELS: readonly ((pos: Int32Array, k: number, bits: Uint32Array) => number)[] = [
  (pos, k, bits) => {
    let m = 0
    for (let j = 0; j < k; j++) {
      const i = pos[j]
      pos[m] = i
      m += (bits[i >>> 5] >>> (i & 31)) & 1
    }
    return m
  },
]

/** the first bar a leaf can hold on: before it a shift (or a cross's previous bar) reaches before row 0 */
function leafStart(l: LeafPlan, n: number): number {
  const lag = l.op === OpCode.CROSS_UP || l.op === OpCode.CROSS_DOWN ? 1 : 0
  return Math.min(n, Math.max(l.shiftA, l.b < 0 ? 0 : l.shiftB) + lag)
}

/** sampled bars: 4 runs of 16 consecutive bars (a few cache lines per column; scattered single bars cost a miss each) */
const SAMPLE_RUNS = 4
const SAMPLE_RUN = 16

/** On how many of 64 bars spread over the coin a leaf holds: which leaf narrows the list first. */
function sampledHolds(l: LeafPlan, columns: Float64Array[], n: number): number {
  const start = leafStart(l, n)
  const span = n - start
  if (span < SAMPLE_RUNS * SAMPLE_RUN) return 0
  const a = columns[l.a]
  const b = l.b < 0 ? null : columns[l.b]
  const sa = l.shiftA
  const sb = l.shiftB
  let held = 0
  for (let r = 0; r < SAMPLE_RUNS; r++) {
    const from = start + Math.floor((span * (2 * r + 1)) / (2 * SAMPLE_RUNS)) - SAMPLE_RUN
    for (let i = Math.max(start, from); i < Math.max(start, from) + SAMPLE_RUN; i++) {
      const x = a[i - sa]
      const y = b === null ? l.constB : b[i - sb]
      switch (l.op) {
        case OpCode.EQ: held += +(x === y); break
        case OpCode.NE: held += +(x === x) & +(y === y) & +(x !== y); break
        case OpCode.GT: case OpCode.CROSS_UP: held += +(x > y); break
        case OpCode.GE: held += +(x >= y); break
        case OpCode.LT: case OpCode.CROSS_DOWN: held += +(x < y); break
        default: held += +(x <= y)
      }
    }
  }
  return held
}

type SeedConstKernel = (pos: Int32Array, a: Float64Array, sa: number, y: number, start: number, n: number) => number
type SeedFieldKernel = (pos: Int32Array, a: Float64Array, sa: number, b: Float64Array, sb: number, start: number, n: number) => number
type FilterConstKernel = (held: Uint8Array, pos: Int32Array, from: number, k: number, a: Float64Array, sa: number, y: number) => void
type FilterFieldKernel = (held: Uint8Array, pos: Int32Array, from: number, k: number, a: Float64Array, sa: number, b: Float64Array, sb: number) => void

/*
 * The comparisons of CONST_KERNELS / FIELD_KERNELS, writing bar indices instead of a mask:
 * pos[k] = i, and k moves on only where the leaf holds (no branch to mispredict). A seed
 * kernel lists the bars start … n − 1 where its leaf holds and answers how many; a filter
 * kernel marks held[j] = 1 where its leaf holds on the listed bar pos[j], j in from … k − 1,
 * and HELD_FILTER_KERNELS moves those to the front. Marking first keeps the reads of the column (cold:
 * kept between trees) apart from the count: when the count moved on in the same loop, the
 * next write's place waited on each read (a new tree's RSI leaf on the listed bars of 268
 * coins, alternated in one process: the whole signals 12.4 -> 9.7 ms CPU p50).
 */
const SEED_CONST_KERNELS: readonly SeedConstKernel[] = [
  (pos, a, sa, y, start, n) => {
    let k = 0
    for (let i = start; i < n; i++) {
      pos[k] = i
      k += +(a[i - sa] === y)
    }
    return k
  },
  (pos, a, sa, y, start, n) => {
    let k = 0
    for (let i = start; i < n; i++) {
      const x = a[i - sa]
      pos[k] = i
      k += +(x === x) & +(x !== y)
    }
    return k
  },
  (pos, a, sa, y, start, n) => {
    let k = 0
    for (let i = start; i < n; i++) {
      pos[k] = i
      k += +(a[i - sa] > y)
    }
    return k
  },
  (pos, a, sa, y, start, n) => {
    let k = 0
    for (let i = start; i < n; i++) {
      pos[k] = i
      k += +(a[i - sa] >= y)
    }
    return k
  },
  (pos, a, sa, y, start, n) => {
    let k = 0
    for (let i = start; i < n; i++) {
      pos[k] = i
      k += +(a[i - sa] < y)
    }
    return k
  },
  (pos, a, sa, y, start, n) => {
    let k = 0
    for (let i = start; i < n; i++) {
      pos[k] = i
      k += +(a[i - sa] <= y)
    }
    return k
  },
  (pos, a, sa, y, start, n) => {
    let k = 0
    for (let i = start; i < n; i++) {
      pos[k] = i
      k += +(a[i - sa] > y) & +(a[i - 1 - sa] <= y)
    }
    return k
  },
  (pos, a, sa, y, start, n) => {
    let k = 0
    for (let i = start; i < n; i++) {
      pos[k] = i
      k += +(a[i - sa] < y) & +(a[i - 1 - sa] >= y)
    }
    return k
  },
]

const SEED_FIELD_KERNELS: readonly SeedFieldKernel[] = [
  (pos, a, sa, b, sb, start, n) => {
    let k = 0
    for (let i = start; i < n; i++) {
      pos[k] = i
      k += +(a[i - sa] === b[i - sb])
    }
    return k
  },
  (pos, a, sa, b, sb, start, n) => {
    let k = 0
    for (let i = start; i < n; i++) {
      const x = a[i - sa]
      const y = b[i - sb]
      pos[k] = i
      k += +(x === x) & +(y === y) & +(x !== y)
    }
    return k
  },
  (pos, a, sa, b, sb, start, n) => {
    let k = 0
    for (let i = start; i < n; i++) {
      pos[k] = i
      k += +(a[i - sa] > b[i - sb])
    }
    return k
  },
  (pos, a, sa, b, sb, start, n) => {
    let k = 0
    for (let i = start; i < n; i++) {
      pos[k] = i
      k += +(a[i - sa] >= b[i - sb])
    }
    return k
  },
  (pos, a, sa, b, sb, start, n) => {
    let k = 0
    for (let i = start; i < n; i++) {
      pos[k] = i
      k += +(a[i - sa] < b[i - sb])
    }
    return k
  },
  (pos, a, sa, b, sb, start, n) => {
    let k = 0
    for (let i = start; i < n; i++) {
      pos[k] = i
      k += +(a[i - sa] <= b[i - sb])
    }
    return k
  },
  (pos, a, sa, b, sb, start, n) => {
    let k = 0
    for (let i = start; i < n; i++) {
      pos[k] = i
      k += +(a[i - sa] > b[i - sb]) & +(a[i - 1 - sa] <= b[i - 1 - sb])
    }
    return k
  },
  (pos, a, sa, b, sb, start, n) => {
    let k = 0
    for (let i = start; i < n; i++) {
      pos[k] = i
      k += +(a[i - sa] < b[i - sb]) & +(a[i - 1 - sa] >= b[i - 1 - sb])
    }
    return k
  },
]

const FILTER_CONST_KERNELS: readonly FilterConstKernel[] = [
  (held, pos, from, k, a, sa, y) => {
    for (let j = from; j < k; j++) {
      const i = pos[j]
      held[j] = +(a[i - sa] === y)
    }
  },
  (held, pos, from, k, a, sa, y) => {
    for (let j = from; j < k; j++) {
      const i = pos[j]
      const x = a[i - sa]
      held[j] = +(x === x) & +(x !== y)
    }
  },
  (held, pos, from, k, a, sa, y) => {
    for (let j = from; j < k; j++) {
      const i = pos[j]
      held[j] = +(a[i - sa] > y)
    }
  },
  (held, pos, from, k, a, sa, y) => {
    for (let j = from; j < k; j++) {
      const i = pos[j]
      held[j] = +(a[i - sa] >= y)
    }
  },
  (held, pos, from, k, a, sa, y) => {
    for (let j = from; j < k; j++) {
      const i = pos[j]
      held[j] = +(a[i - sa] < y)
    }
  },
  (held, pos, from, k, a, sa, y) => {
    for (let j = from; j < k; j++) {
      const i = pos[j]
      held[j] = +(a[i - sa] <= y)
    }
  },
  (held, pos, from, k, a, sa, y) => {
    for (let j = from; j < k; j++) {
      const i = pos[j]
      held[j] = +(a[i - sa] > y) & +(a[i - 1 - sa] <= y)
    }
  },
  (held, pos, from, k, a, sa, y) => {
    for (let j = from; j < k; j++) {
      const i = pos[j]
      held[j] = +(a[i - sa] < y) & +(a[i - 1 - sa] >= y)
    }
  },
]

const FILTER_FIELD_KERNELS: readonly FilterFieldKernel[] = [
  (held, pos, from, k, a, sa, b, sb) => {
    for (let j = from; j < k; j++) {
      const i = pos[j]
      held[j] = +(a[i - sa] === b[i - sb])
    }
  },
  (held, pos, from, k, a, sa, b, sb) => {
    for (let j = from; j < k; j++) {
      const i = pos[j]
      const x = a[i - sa]
      const y = b[i - sb]
      held[j] = +(x === x) & +(y === y) & +(x !== y)
    }
  },
  (held, pos, from, k, a, sa, b, sb) => {
    for (let j = from; j < k; j++) {
      const i = pos[j]
      held[j] = +(a[i - sa] > b[i - sb])
    }
  },
  (held, pos, from, k, a, sa, b, sb) => {
    for (let j = from; j < k; j++) {
      const i = pos[j]
      held[j] = +(a[i - sa] >= b[i - sb])
    }
  },
  (held, pos, from, k, a, sa, b, sb) => {
    for (let j = from; j < k; j++) {
      const i = pos[j]
      held[j] = +(a[i - sa] < b[i - sb])
    }
  },
  (held, pos, from, k, a, sa, b, sb) => {
    for (let j = from; j < k; j++) {
      const i = pos[j]
      held[j] = +(a[i - sa] <= b[i - sb])
    }
  },
  (held, pos, from, k, a, sa, b, sb) => {
    for (let j = from; j < k; j++) {
      const i = pos[j]
      held[j] = +(a[i - sa] > b[i - sb]) & +(a[i - 1 - sa] <= b[i - 1 - sb])
    }
  },
  (held, pos, from, k, a, sa, b, sb) => {
    for (let j = from; j < k; j++) {
      const i = pos[j]
      held[j] = +(a[i - sa] < b[i - sb]) & +(a[i - 1 - sa] >= b[i - 1 - sb])
    }
  },
]

/** keeps, of pos[from … k − 1], the bars marked in held (by a filter kernel), moved to the front; answers how many */
const HELD_FILTER_KERNELS: readonly ((pos: Int32Array, held: Uint8Array, from: number, k: number) => number)[] = [
  (pos, held, from, k) => {
    let m = 0
    for (let j = from; j < k; j++) {
      pos[m] = pos[j]
      m += held[j]
    }
    return m
  },
]

/** keeps, of pos[0 … k − 1], the bars where a group's mask holds */
const MASK_FILTER_KERNELS: readonly ((pos: Int32Array, k: number, mask: Uint8Array) => number)[] = [
  (pos, k, mask) => {
    let m = 0
    for (let j = 0; j < k; j++) {
      const i = pos[j]
      pos[m] = i
      m += mask[i]
    }
    return m
  },
]
