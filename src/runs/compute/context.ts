/**
 * What a task sees on its thread: the store view, and the caches kept between tasks —
 * resampled series, compiled strategies, signal masks and custom trees' indicator columns
 * (dropped when the data changes). A run that only changes exits, costs or sizing reuses
 * the masks instead of recomputing every indicator; a new custom tree over indicators
 * earlier trees read compares on their kept columns.
 */
import { canonicalJsonLikeStringify } from '../../engine/canonical-json'
import type { IntrabarDetail } from '../../engine/intrabar'
import { midnightClosesOf, type MidnightCloses } from '../../engine/equity-curve'
import { keptFunding, type KeptFunding } from '../../engine/funding'
import { alignMark, type MarkBars } from '../../engine/mark-price'
import { quietExtremes, type QuietExtremes } from '../../engine/quiet-blocks'
import { signalBars } from '../../engine/trade-model'
import { coinCostSeries, type CoinCostSeries } from '../../engine/slippage'
import { resample } from '../../market/resample'
import type { Timeframe } from '../../market/timeframe'
import type { DetailInfo } from '../../market/candle-store'
import type { Bars, FundingSeries } from '../../market/types'
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
  /** the coin and timeframe they are kept under */
  slot: TfSlot
  /** the bars they were computed on */
  bars: Bars
  quiet: QuietExtremes | null
  /** undefined: not computed yet */
  funding: KeptFunding | null | undefined
  /** the funding series' event count it was computed on */
  fundingN: number
  bytes: number
}

/**
 * What the thread keeps of one coin, found by one lookup per coin of a task (TaskContext
 * tfSlotOf, then the same slot again for the same coin): a task asks for a coin's signals,
 * detail, costs, mark candles and funding amounts one after the other, and a lookup per
 * cache under a key string (`${symbol}|${tf}`, a new string each run, hashed and compared
 * every time, in maps the trades between two coins pushed out of the cache) cost about 3 µs
 * a coin. Each cache keeps its own bound; dropping an entry clears its field.
 */
interface CoinSlot {
  /** daily cost sums (costs); undefined: not made yet */
  costs: CoinCostSeries | null | undefined
  /** minute detail (detail); undefined: not opened yet */
  detail: IntrabarDetail | null | undefined
  /** the closes its trades' midnight marks read (midnightCloses); undefined: not made yet */
  midnight: MidnightCloses | null | undefined
}

/** What the thread keeps of one coin on one timeframe. */
interface TfSlot {
  /** the coin's own (timeframe-free) slot */
  coin: CoinSlot
  /** the 1H bars resampled to the timeframe (bars; never on 1H); undefined: not made yet */
  resampled: Bars | undefined
  /** mark candles lined up with the bars (mark); undefined: not made yet */
  mark: MarkBars | null | undefined
  /** the random-entry null's inputs (quietExtremes, keptFunding) */
  nullInputs: NullInputs | null
  /** the signal cache's entries, by strategy id (null: none yet) */
  signals: Map<number, SignalEntry> | null
}

/** A strategy's masks of one coin and timeframe in the signal cache. */
interface SignalEntry {
  masks: CachedSignals
  id: number
  slot: TfSlot
  bytes: number
}

export interface CachedSignals {
  /** the bar count the masks were made on */
  readonly n: number
  /**
   * the entry mask; where `entryBars` lists its signals the cache may keep that list alone,
   * and the mask is then made (and kept) when first read: a reader that can step along
   * `entryBars` reads that instead (coin-tasks.ts coinMasks)
   */
  readonly entry: Uint8Array
  exit: Uint8Array | null
  /** bars where data a leaf reads was absent (SignalMasks.absent) */
  absent: Uint8Array | null
  /**
   * the bars of `entry`'s signals (engine/trade-model.ts signalBars; null for a dense mask),
   * listed once with the masks: every run steps along them instead of scanning the mask
   */
  entryBars: Int32Array | null
}

/**
 * A strategy's masks of a coin as the signal cache keeps them: a sparse entry as its list of
 * signal bars alone (4 bytes a signal against a byte a bar: a new tree's masks of two years
 * of bars come from the compiler without a mask written, 17.5 KB of fresh memory a coin
 * spared), its mask made from the list when a reader asks for it, and counted in the
 * cache's bytes from then on (`grew`).
 */
class KeptSignals implements CachedSignals {
  constructor(
    private mask: Uint8Array | null,
    readonly n: number,
    readonly exit: Uint8Array | null,
    readonly absent: Uint8Array | null,
    readonly entryBars: Int32Array | null,
    private readonly grew: (bytes: number) => void,
  ) {
    if (mask === null && entryBars === null) throw new Error('KeptSignals: an entry mask or its list')
  }

  get entry(): Uint8Array {
    if (this.mask === null) {
      const m = new Uint8Array(this.n)
      const list = this.entryBars!
      for (let j = 0; j < list.length; j++) m[list[j]] = 1
      this.mask = m
      this.grew(m.byteLength)
    }
    return this.mask
  }

  /** whether the entry mask is held (made or given) */
  get holdsMask(): boolean {
    return this.mask !== null
  }
}

export class TaskContext {
  /** the coins' resampled series kept (TfSlot.resampled) */
  private resampledCount = 0
  private readonly compiled = new Map<string, CompiledStrategy>()
  /** the coins' caches (CoinSlot, TfSlot), dropped when the data changes */
  private readonly coins = new Map<string, CoinSlot>()
  private readonly tfSlots = new Map<Timeframe, Map<string, TfSlot>>()
  /**
   * the last coin looked up and its slots: a task's calls for one coin pass the same strings,
   * found by identity (a task's coins go by one after the other)
   */
  private lastSymbol: string | null = null
  private lastCoin: CoinSlot | null = null
  private lastTf: Timeframe | null = null
  private lastTfSlot: TfSlot | null = null
  /** the signal cache's entries (TfSlot.signals), least recently used first (the order its byte bound drops them in) */
  private readonly signalOrder = new Set<SignalEntry>()
  /** indicator columns kept between strategies, so a new tree on known indicators only compares */
  private readonly indicatorColumns = new IndicatorColumnCache()
  /** the coins' mark candles kept (TfSlot.mark) */
  private markCount = 0
  /**
   * what the random-entry null passes over a coin's whole bars in every run (its quiet-block
   * extremes, its funding amounts; TfSlot.nullInputs), per coin and timeframe, least recently
   * used first, within NULL_INPUT_BYTES
   */
  private readonly nullOrder = new Set<NullInputs>()
  private nullInputBytes = 0
  private signalBytes = 0
  /** a number per strategy text, for the signal cache's keys (signals) */
  private readonly strategyIds = new Map<string, number>()
  private nextStrategyId = 0
  /** the last strategy text looked up and its id: a task's coins pass the same string, found by identity instead of a compare of its text per coin */
  private lastStrategyKey = ''
  private lastStrategyId = -1
  private version = ''
  /** the coins' minute details opened (CoinSlot.detail) */
  private detailCount = 0
  private detailVersion = ''
  /** where the minutes come from, under detailVersion */
  private detailInfo: DetailInfo | null = null
  /** the replayed bars' minutes, over every coin (bounded: intrabar-detail.ts) */
  private readonly minuteCache = new MinuteCache()

  constructor(public view: StoreView) {}

  setView(view: StoreView): void {
    this.view = view
    if (view.dataVersion() !== this.version) {
      this.coins.clear()
      this.tfSlots.clear()
      this.lastSymbol = null
      this.lastCoin = null
      this.lastTf = null
      this.lastTfSlot = null
      this.resampledCount = 0
      this.detailCount = 0
      this.markCount = 0
      this.minuteCache.clear()
      this.signalOrder.clear()
      this.indicatorColumns.clear()
      this.nullOrder.clear()
      this.nullInputBytes = 0
      this.signalBytes = 0
      this.version = view.dataVersion()
    }
  }

  bars(symbol: string, tf: Timeframe): Bars | undefined {
    const base = this.view.bars(symbol)
    if (!base || tf === '1H') return base
    const t = this.tfSlotOf(symbol, tf)
    let b = t.resampled
    if (!b) {
      b = resample(base, tf)
      if (this.resampledCount > 4096) {
        this.dropFromTfSlots('resampled')
        this.resampledCount = 0
      }
      t.resampled = b
      this.resampledCount++
    }
    return b
  }

  /** The coin's caches (CoinSlot). */
  private slotOf(symbol: string): CoinSlot {
    if (symbol === this.lastSymbol) return this.lastCoin!
    let c = this.coins.get(symbol)
    if (c === undefined) {
      c = { costs: undefined, detail: undefined, midnight: undefined }
      this.coins.set(symbol, c)
    }
    this.lastSymbol = symbol
    this.lastCoin = c
    this.lastTf = null
    this.lastTfSlot = null
    return c
  }

  /** Every coin's `field` on every timeframe dropped (a cache past its bound starts again). */
  private dropFromTfSlots(field: 'resampled' | 'mark'): void {
    for (const byCoin of this.tfSlots.values()) for (const t of byCoin.values()) t[field] = undefined
  }

  /** The coin's caches on a timeframe. */
  private tfSlotOf(symbol: string, tf: Timeframe): TfSlot {
    if (symbol === this.lastSymbol && tf === this.lastTf) return this.lastTfSlot!
    let byCoin = this.tfSlots.get(tf)
    if (byCoin === undefined) this.tfSlots.set(tf, (byCoin = new Map()))
    let t = byCoin.get(symbol)
    if (t === undefined) {
      t = { coin: this.slotOf(symbol), resampled: undefined, mark: undefined, nullInputs: null, signals: null }
      byCoin.set(symbol, t)
    }
    this.lastSymbol = symbol
    this.lastCoin = t.coin
    this.lastTf = tf
    this.lastTfSlot = t
    return t
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
      this.dropDetails()
      this.detailVersion = version
      this.detailInfo = this.view.detailInfo()
    }
    const c = this.slotOf(symbol)
    let d = c.detail
    if (d === undefined) {
      d = openDetail(this.detailInfo, symbol, this.view.bars(symbol), this.minuteCache)
      if (this.detailCount > 4096) this.dropDetails()
      c.detail = d
      this.detailCount++
    }
    return d
  }

  private dropDetails(): void {
    if (this.detailCount > 0) for (const c of this.coins.values()) c.detail = undefined
    this.detailCount = 0
    this.minuteCache.clear()
  }

  /** A coin's daily cost sums for slippage (engine/slippage.ts), from its 1H candles whatever the run's timeframe; cached per data version. */
  costs(symbol: string): CoinCostSeries | null {
    const c = this.slotOf(symbol)
    let s = c.costs
    if (s === undefined) {
      const base = this.view.bars(symbol)
      s = base ? coinCostSeries(base) : null
      c.costs = s
    }
    return s
  }

  /**
   * The closes a coin's trades are marked at each UTC midnight (engine/equity-curve.ts
   * MidnightCloses), from its 1H candles whatever the run's timeframe; cached per data
   * version: a chunk's trades read one value a day instead of searching the 1H columns.
   */
  midnightCloses(symbol: string): MidnightCloses | null {
    const c = this.slotOf(symbol)
    let m = c.midnight
    if (m === undefined) c.midnight = m = midnightClosesOf(this.view.bars(symbol))
    return m
  }

  /**
   * A coin's mark-price candles lined up with its bars on a timeframe (engine/mark-price.ts);
   * null where the store has none. Cached per data version, like the resampled series.
   */
  mark(symbol: string, tf: Timeframe, bars: Bars): MarkBars | null {
    const t = this.tfSlotOf(symbol, tf)
    let m = t.mark
    if (m === undefined || (m !== null && m.l.length !== bars.n)) {
      const series = this.view.mark?.(symbol)
      m = series ? alignMark(bars, series) : null
      if (t.mark === undefined) {
        if (this.markCount > 4096) {
          this.dropFromTfSlots('mark')
          this.markCount = 0
        }
        this.markCount++
      }
      t.mark = m
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
   * `funding`: the view's funding series of the coin, where the caller has it.
   */
  keptFundingIfAny(symbol: string, tf: Timeframe, bars: Bars, funding: FundingSeries | null | undefined = this.view.funding(symbol)): KeptFunding | null {
    const e = this.tfSlotOf(symbol, tf).nullInputs
    if (e === null || e.bars !== bars || e.funding === undefined || e.fundingN !== (funding?.n ?? 0)) return null
    // most recently used last
    this.nullOrder.delete(e)
    this.nullOrder.add(e)
    return e.funding
  }

  private nullInputsOf(symbol: string, tf: Timeframe, bars: Bars): NullInputs {
    const slot = this.tfSlotOf(symbol, tf)
    let e = slot.nullInputs
    if (e !== null && e.bars !== bars) {
      this.dropNullInputs(e)
      e = null
    }
    if (e === null) {
      e = { slot, bars, quiet: null, funding: undefined, fundingN: -1, bytes: 0 }
      slot.nullInputs = e
    } else this.nullOrder.delete(e)
    // most recently used last
    this.nullOrder.add(e)
    return e
  }

  private growNullInputs(e: NullInputs, bytes: number): void {
    e.bytes += bytes
    this.nullInputBytes += bytes
    for (const old of this.nullOrder) {
      if (this.nullInputBytes <= NULL_INPUT_BYTES || old === e) break
      this.dropNullInputs(old)
    }
  }

  private dropNullInputs(e: NullInputs): void {
    this.nullOrder.delete(e)
    e.slot.nullInputs = null
    this.nullInputBytes -= e.bytes
  }

  /** Entry/exit masks of the run's strategy on one coin (cached; callers must not write them). */
  signals(spec: RunSpec, strategyKey: string, symbol: string, bars: Bars): CachedSignals {
    const id = this.strategyIdOf(strategyKey)
    const slot = this.tfSlotOf(symbol, spec.timeframe)
    const hit = slot.signals?.get(id)
    if (hit !== undefined && hit.masks.n === bars.n) {
      // most recently used last
      this.signalOrder.delete(hit)
      this.signalOrder.add(hit)
      return hit.masks
    }
    // a custom tree's indicator columns are kept for the next tree (one edited in the builder
    // and run again); a registry strategy's masks are cached whole above, and the rankings'
    // daily pass over every strategy would only churn the columns of the trees being edited
    const kept = spec.strategyId === null ? this.indicatorColumns.of(symbol, spec.timeframe, bars) : undefined
    // a sparse entry of an AND's list comes without its mask (KeptSignals makes it for a reader that needs it)
    const sig = this.strategy(spec, strategyKey).signalsListed(bars, this.marketData(symbol), kept)
    let e: SignalEntry | null = null
    // a mask made later is counted while the entry is kept
    const grew = (b: number) => {
      if (e === null || slot.signals?.get(id) !== e) return
      e.bytes += b
      this.signalBytes += b
    }
    const masks = new KeptSignals(sig.entry, bars.n, sig.exit, sig.absent, sig.entryBars !== undefined ? sig.entryBars : signalBars(sig.entry!), grew)
    const bytes = sizeOf(masks)
    if (bytes <= SIGNAL_CACHE_BYTES) {
      // masks made on fewer bars than the coin has now
      if (hit !== undefined) this.dropSignals(hit)
      e = { masks, id, slot, bytes }
      ;(slot.signals ??= new Map()).set(id, e)
      this.signalOrder.add(e)
      this.signalBytes += bytes
      for (const old of this.signalOrder) {
        if (this.signalBytes <= SIGNAL_CACHE_BYTES) break
        this.dropSignals(old)
      }
    }
    return masks
  }

  private dropSignals(e: SignalEntry): void {
    this.signalOrder.delete(e)
    e.slot.signals!.delete(e.id)
    this.signalBytes -= e.bytes
  }

  /**
   * A short number for a strategy's text (often kilobytes), for the signal cache's keys: a key
   * holding the text would be hashed and compared whole on every lookup.
   */
  private strategyIdOf(strategyKey: string): number {
    if (strategyKey === this.lastStrategyKey) return this.lastStrategyId
    let id = this.strategyIds.get(strategyKey)
    if (id === undefined) {
      if (this.strategyIds.size >= 4096) this.strategyIds.clear() // ids are never reused: the cache's entries under a dropped id age out
      id = this.nextStrategyId++
      this.strategyIds.set(strategyKey, id)
    }
    this.lastStrategyKey = strategyKey
    this.lastStrategyId = id
    return id
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

const sizeOf = (m: KeptSignals): number => (m.holdsMask ? m.n : 0) + (m.exit?.length ?? 0) + (m.absent?.length ?? 0) + (m.entryBars === null ? 0 : m.entryBars.byteLength)

/** A task: a plain function of the thread's context and a payload (both sides of a worker run it alike). */
export type Task<P, R> = (ctx: TaskContext, payload: P) => R
