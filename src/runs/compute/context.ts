/**
 * What a task sees on its thread: the store view, and the caches kept between tasks —
 * resampled series, compiled strategies, signal masks and custom trees' indicator columns
 * (dropped when the data changes). A run that only changes exits, costs or sizing reuses
 * the masks instead of recomputing every indicator; a new custom tree over indicators
 * earlier trees read compares on their kept columns.
 */
import { canonicalJsonLikeStringify } from '../../engine/canonical-json'
import type { IntrabarDetail } from '../../engine/intrabar'
import { keptFunding, type KeptFunding } from '../../engine/funding'
import { alignMark, type MarkBars } from '../../engine/mark-price'
import { quietExtremes, type QuietExtremes } from '../../engine/quiet-blocks'
import { signalBars } from '../../engine/trade-model'
import { coinCostSeries, type CoinCostSeries } from '../../engine/slippage'
import { resample } from '../../market/resample'
import type { Timeframe } from '../../market/timeframe'
import type { DetailInfo } from '../../market/candle-store'
import type { Bars } from '../../market/types'
import { prepareStrategy, type CompiledStrategy, type MarketData } from '../../strategies/compile'
import type { StrategySpec } from '../../strategies/conditions'
import type { RunSpec } from '../spec'
import { IndicatorColumnCache } from './indicator-columns'
import { MinuteCache, openDetail } from './intrabar-detail'
import type { StoreView } from './store-view'

/** signal masks a thread keeps between tasks, in bytes (one byte per bar and mask) */
const SIGNAL_CACHE_BYTES = 160 * 1024 * 1024

/**
 * The cache key of a strategy: its text in the result hash's form (docs/canonical-json.md),
 * so specs that hash alike share one compiled strategy and one set of signal masks.
 */
export const strategyKeyOf = (strategy: StrategySpec): string => canonicalJsonLikeStringify(strategy)

/**
 * The random-entry null's per-coin inputs a thread keeps between runs, in bytes: about 70 KB
 * a coin of two years of 1H bars (2 bytes a bar of quiet-block extremes, 16 bytes an 8-hour
 * funding slot), so most coins of a 535-coin store stay in it.
 */
const NULL_INPUT_BYTES = 32 * 1024 * 1024

interface NullInputs {
  /** the bars they were computed on */
  bars: Bars
  quiet: QuietExtremes | null
  /** undefined: not computed yet */
  funding: KeptFunding | null | undefined
  /** the funding series' event count it was computed on */
  fundingN: number
  bytes: number
}

export interface CachedSignals {
  entry: Uint8Array
  exit: Uint8Array | null
  /** bars where data a leaf reads was absent (SignalMasks.absent) */
  absent: Uint8Array | null
  /**
   * the bars of `entry`'s signals (engine/trade-model.ts signalBars; null for a dense mask),
   * listed once with the masks: every run steps along them instead of scanning the mask
   */
  entryBars: Int32Array | null
}

export class TaskContext {
  private readonly resampled = new Map<string, Bars>()
  private readonly compiled = new Map<string, CompiledStrategy>()
  private readonly signalCache = new Map<string, CachedSignals>()
  /** indicator columns kept between strategies, so a new tree on known indicators only compares */
  private readonly indicatorColumns = new IndicatorColumnCache()
  private readonly costSeries = new Map<string, CoinCostSeries | null>()
  private readonly marks = new Map<string, MarkBars | null>()
  /**
   * what the random-entry null passes over a coin's whole bars in every run (its quiet-block
   * extremes, its funding amounts), per coin and timeframe, least recently used first, within
   * NULL_INPUT_BYTES
   */
  private readonly nullInputs = new Map<string, NullInputs>()
  private nullInputBytes = 0
  private signalBytes = 0
  /** a number per strategy text, for the signal cache's keys (signals) */
  private readonly strategyIds = new Map<string, number>()
  private nextStrategyId = 0
  private version = ''
  private readonly details = new Map<string, IntrabarDetail | null>()
  private detailVersion = ''
  /** where the minutes come from, under detailVersion */
  private detailInfo: DetailInfo | null = null
  /** the replayed bars' minutes, over every coin (bounded: intrabar-detail.ts) */
  private readonly minuteCache = new MinuteCache()

  constructor(public view: StoreView) {}

  setView(view: StoreView): void {
    this.view = view
    if (view.dataVersion() !== this.version) {
      this.resampled.clear()
      this.details.clear()
      this.minuteCache.clear()
      this.signalCache.clear()
      this.indicatorColumns.clear()
      this.costSeries.clear()
      this.marks.clear()
      this.nullInputs.clear()
      this.nullInputBytes = 0
      this.signalBytes = 0
      this.version = view.dataVersion()
    }
  }

  bars(symbol: string, tf: Timeframe): Bars | undefined {
    const base = this.view.bars(symbol)
    if (!base || tf === '1H') return base
    const key = `${symbol}|${tf}`
    let b = this.resampled.get(key)
    if (!b) {
      b = resample(base, tf)
      if (this.resampled.size > 4096) this.resampled.clear()
      this.resampled.set(key, b)
    }
    return b
  }

  /**
   * The coin's minute detail (stored or derived; null: none), opened once per thread and
   * data version: only the minutes a replay asks for are ever read, and the thread keeps
   * a bounded number of them decoded (intrabar-detail.ts MinuteCache).
   */
  detail(symbol: string): IntrabarDetail | null {
    // readers and derivers hold the coin's series of one data version
    const version = this.view.dataVersion()
    if (version !== this.detailVersion || this.detailInfo === null) {
      this.details.clear()
      this.minuteCache.clear()
      this.detailVersion = version
      this.detailInfo = this.view.detailInfo()
    }
    let d = this.details.get(symbol)
    if (d === undefined) {
      d = openDetail(this.detailInfo, symbol, this.view.bars(symbol), this.minuteCache)
      if (this.details.size > 4096) {
        this.details.clear()
        this.minuteCache.clear()
      }
      this.details.set(symbol, d)
    }
    return d
  }

  /** A coin's daily cost sums for slippage (engine/slippage.ts), from its 1H candles whatever the run's timeframe; cached per data version. */
  costs(symbol: string): CoinCostSeries | null {
    let s = this.costSeries.get(symbol)
    if (s === undefined) {
      const base = this.view.bars(symbol)
      s = base ? coinCostSeries(base) : null
      this.costSeries.set(symbol, s)
    }
    return s
  }

  /**
   * A coin's mark-price candles lined up with its bars on a timeframe (engine/mark-price.ts);
   * null where the store has none. Cached per data version, like the resampled series.
   */
  mark(symbol: string, tf: Timeframe, bars: Bars): MarkBars | null {
    const key = `${symbol}|${tf}`
    let m = this.marks.get(key)
    if (m === undefined || (m !== null && m.l.length !== bars.n)) {
      const series = this.view.mark?.(symbol)
      m = series ? alignMark(bars, series) : null
      if (this.marks.size > 4096) this.marks.clear()
      this.marks.set(key, m)
    }
    return m
  }

  /**
   * A coin's quiet-block extremes (engine/quiet-blocks.ts) and funding amounts (engine/funding.ts
   * keptFunding) on a timeframe, kept for the next run's random-entry null: every run that
   * tests the coin makes the same passes over its whole bars. Cached per data version, for
   * the bars and funding series they were computed on (a series that grew gets new ones).
   */
  quietExtremes(symbol: string, tf: Timeframe, bars: Bars): QuietExtremes {
    const e = this.nullInputsOf(symbol, tf, bars)
    if (e.quiet === null) {
      e.quiet = quietExtremes(bars)
      this.growNullInputs(e, e.quiet.low.byteLength + e.quiet.high.byteLength)
    }
    return e.quiet
  }

  keptFunding(symbol: string, tf: Timeframe, bars: Bars): KeptFunding | null {
    const e = this.nullInputsOf(symbol, tf, bars)
    const funding = this.view.funding(symbol) ?? null
    const nEv = funding?.n ?? 0
    if (e.funding === undefined || e.fundingN !== nEv) {
      const kept = keptFunding(bars, funding)
      this.growNullInputs(e, keptBytes(kept) - keptBytes(e.funding ?? null))
      e.funding = kept
      e.fundingN = nEv
    }
    return e.funding
  }

  /**
   * The coin's kept funding amounts when the thread has them already (keptFunding; a run's
   * random-entry null keeps them for its coins), else null without working them out: a
   * single run's trades charge a few events each, far fewer than the whole series' pass
   * (80 µs a coin of two years), so a run whose coins have none looks its events up instead.
   */
  keptFundingIfAny(symbol: string, tf: Timeframe, bars: Bars): KeptFunding | null {
    const key = `${symbol}|${tf}`
    const e = this.nullInputs.get(key)
    if (e === undefined || e.bars !== bars || e.funding === undefined || e.fundingN !== (this.view.funding(symbol)?.n ?? 0)) return null
    // most recently used last
    this.nullInputs.delete(key)
    this.nullInputs.set(key, e)
    return e.funding
  }

  private nullInputsOf(symbol: string, tf: Timeframe, bars: Bars): NullInputs {
    const key = `${symbol}|${tf}`
    let e = this.nullInputs.get(key)
    if (e !== undefined && e.bars !== bars) {
      this.nullInputs.delete(key)
      this.nullInputBytes -= e.bytes
      e = undefined
    }
    if (e === undefined) e = { bars, quiet: null, funding: undefined, fundingN: -1, bytes: 0 }
    else this.nullInputs.delete(key)
    // most recently used last
    this.nullInputs.set(key, e)
    return e
  }

  private growNullInputs(e: NullInputs, bytes: number): void {
    e.bytes += bytes
    this.nullInputBytes += bytes
    for (const [key, old] of this.nullInputs) {
      if (this.nullInputBytes <= NULL_INPUT_BYTES || old === e) break
      this.nullInputs.delete(key)
      this.nullInputBytes -= old.bytes
    }
  }

  /** Entry/exit masks of the run's strategy on one coin (cached; callers must not write them). */
  signals(spec: RunSpec, strategyKey: string, symbol: string, bars: Bars): CachedSignals {
    // a short number for the strategy's text (often kilobytes): a key holding the text would be
    // a new string per coin, hashed whole on every lookup (the text's own hash is kept with it)
    let id = this.strategyIds.get(strategyKey)
    if (id === undefined) {
      if (this.strategyIds.size >= 4096) this.strategyIds.clear() // ids are never reused: the cache's entries under a dropped id age out
      id = this.nextStrategyId++
      this.strategyIds.set(strategyKey, id)
    }
    const key = `${id}|${spec.timeframe}|${symbol}`
    const hit = this.signalCache.get(key)
    if (hit && hit.entry.length === bars.n) {
      this.signalCache.delete(key)
      this.signalCache.set(key, hit)
      return hit
    }
    // a custom tree's indicator columns are kept for the next tree (one edited in the builder
    // and run again); a registry strategy's masks are cached whole above, and the rankings'
    // daily pass over every strategy would only churn the columns of the trees being edited
    const kept = spec.strategyId === null ? this.indicatorColumns.of(symbol, spec.timeframe, bars) : undefined
    const sig = this.strategy(spec, strategyKey).signals(bars, this.marketData(symbol), kept)
    const masks: CachedSignals = { entry: sig.entry, exit: sig.exit, absent: sig.absent, entryBars: signalBars(sig.entry) }
    const bytes = sizeOf(masks)
    if (bytes <= SIGNAL_CACHE_BYTES) {
      this.signalCache.set(key, masks)
      this.signalBytes += bytes
      for (const [k, v] of this.signalCache) {
        if (this.signalBytes <= SIGNAL_CACHE_BYTES) break
        this.signalCache.delete(k)
        this.signalBytes -= sizeOf(v)
      }
    }
    return masks
  }

  /** What a tree reading other coins, timeframes or derivatives data sees while evaluated on `symbol`. */
  marketData(symbol: string): MarketData {
    return {
      symbol,
      bars: (s, tf) => this.bars(s, tf),
      funding: s => this.view.funding(s),
      samples: (kind, s) => this.view.samples?.(kind, s),
    }
  }

  /** `key`: strategyKeyOf(spec.strategy) when the caller has it (a canonical text per coin cost more than the coin's leaves) */
  strategy(spec: RunSpec, key = strategyKeyOf(spec.strategy)): CompiledStrategy {
    let c = this.compiled.get(key)
    if (!c) {
      c = prepareStrategy(spec.strategy)
      if (this.compiled.size > 256) this.compiled.clear()
      this.compiled.set(key, c)
    }
    return c
  }
}

const keptBytes = (k: KeptFunding | null): number => (k === null ? 0 : k.realAmt.byteLength + k.gridAmt.byteLength + (k.dayFirst?.byteLength ?? 0))

const sizeOf = (m: CachedSignals): number => m.entry.length + (m.exit?.length ?? 0) + (m.absent?.length ?? 0) + (m.entryBars === null ? 0 : m.entryBars.byteLength)

/** A task: a plain function of the thread's context and a payload (both sides of a worker run it alike). */
export type Task<P, R> = (ctx: TaskContext, payload: P) => R
