/**
 * The signal scan's compute (docs/signals.md): entry masks of the registry strategies over
 * coins' series, as a task the worker pool runs (the scanner job spreads the top 100 over
 * it) and as plain functions for the scorer and the paper trader. The masks are those of a
 * backtest: the same compiled trees over the same series (resampled as a run resamples).
 */
import { canonicalJsonLikeStringify } from '../../engine/canonical-json'
import type { Bars, FormingOpen } from '../../market/types'
import { lowerBound as lowerBoundOf } from '../../sorted-search'
import type { Timeframe } from '../../market/timeframe'
import { prepareStrategy, type CompiledStrategy } from '../../strategies/compile'
import { getStrategy, type StrategyDef } from '../../strategies/registry'
import type { TaskContext } from './context'

const compiled = new Map<string, CompiledStrategy>()

/** A tree pair compiled once: the registry's entry/exit compiler, two trees on one set of indicators. */
function compiledPair(key: string, spec: Parameters<typeof prepareStrategy>[0]): CompiledStrategy {
  let c = compiled.get(key)
  if (!c) compiled.set(key, (c = prepareStrategy(spec)))
  return c
}

/** The registry strategy compiled as a backtest compiles it (its entry and exit trees). */
export function compiledStrategy(s: StrategyDef): CompiledStrategy {
  return compiledPair(`own:${s.id}`, { indicators: s.indicators, entry: s.entry, exit_conditions: s.exit_conditions ?? null })
}

/**
 * The long and short variants of a registry strategy read the same indicators with the
 * same settings; their two trees are compiled together (one as the entry tree, one as the
 * exit tree of one compiled strategy), so the indicators are computed once for both. The
 * trees, the indicator code and the evaluator are the ones a backtest uses: the masks are
 * the same bytes (tests/signals.test.ts checks them against /simulate/coin).
 */
function sibling(s: StrategyDef): { long: StrategyDef; short: StrategyDef } | null {
  const base = s.id.replace(/-(long|short)$/, '')
  const long = getStrategy(`${base}-long`)
  const short = getStrategy(`${base}-short`)
  if (!long || !short || long.direction !== 'long' || short.direction !== 'short') return null
  // equal settings whatever their key order; compared in memory only, as the cache keys are
  return canonicalJsonLikeStringify(long.indicators) === canonicalJsonLikeStringify(short.indicators) ? { long, short } : null
}

/**
 * Masks by series view (a new candle makes a new view): a pair's second entry mask until
 * it is read, and exit masks for the scorer and the paper trader of the same hour.
 */
const masksOfView = new WeakMap<Bars, Map<string, Uint8Array | null>>()

function cachedMask(bars: Bars, key: string, make: () => void): Uint8Array | null {
  let m = masksOfView.get(bars)
  if (!m) masksOfView.set(bars, (m = new Map()))
  if (!m.has(key)) make()
  return m.get(key)!
}

function putMask(bars: Bars, key: string, mask: Uint8Array | null): void {
  masksOfView.get(bars)!.set(key, mask)
}

/**
 * Entry mask of a registry strategy over one series view. Taken, not kept: the scan reads
 * each once per view, and a hundred coins' masks would otherwise stay in memory for the
 * hour (a pair's second mask waits in the cache until its strategy's turn).
 */
export function entryMask(s: StrategyDef, bars: Bars): Uint8Array {
  const key = `entry:${s.id}`
  const mask = cachedMask(bars, key, () => {
    const pair = sibling(s)
    if (!pair) {
      const m = compiledStrategy(s).signals(bars)
      putMask(bars, `entry:${s.id}`, m.entry)
      putMask(bars, `exit:${s.id}`, m.exit)
      return
    }
    const { long, short } = pair
    const m = compiledPair(`entries:${long.id}`, { indicators: long.indicators, entry: long.entry, exit_conditions: short.entry }).signals(bars)
    putMask(bars, `entry:${long.id}`, m.entry)
    putMask(bars, `entry:${short.id}`, m.exit)
  })!
  masksOfView.get(bars)!.delete(key)
  return mask
}

/** Exit mask of a registry strategy over one series view, or null when it has no exit tree. */
export function exitMask(s: StrategyDef, bars: Bars): Uint8Array | null {
  if (!s.exit_conditions) return null
  return cachedMask(bars, `exit:${s.id}`, () => {
    const pair = sibling(s)
    if (!pair) {
      putMask(bars, `exit:${s.id}`, compiledStrategy(s).signals(bars).exit)
      return
    }
    const { long, short } = pair
    if (long.exit_conditions && short.exit_conditions) {
      const m = compiledPair(`exits:${long.id}`, { indicators: long.indicators, entry: long.exit_conditions, exit_conditions: short.exit_conditions }).signals(bars)
      putMask(bars, `exit:${long.id}`, m.entry)
      putMask(bars, `exit:${short.id}`, m.exit)
    } else putMask(bars, `exit:${s.id}`, compiledStrategy(s).signals(bars).exit)
  })
}

/**
 * The open of the bar after a series' last one, when it is known although that bar is not
 * in the series: its first hour is stored while the bar is unfinished (a higher timeframe),
 * or it is the forming candle's (market/types.ts FormingOpen).
 */
export interface NextOpen {
  /** open time in ms: the series' last bar + its step */
  t: number
  o: number
}

/** NextOpen of a series: the stored hour that opens its next bar, else the forming candle when it does. */
export function nextOpenOf(bars: Bars, hours: Bars, forming: FormingOpen | undefined): NextOpen | undefined {
  if (bars.n === 0) return undefined
  const t = bars.t[bars.n - 1] + bars.stepMs
  const k = firstBarAtOrAfter(hours, t)
  if (k < hours.n && hours.t[k] === t) return { t, o: hours.o[k] }
  return forming?.t === t ? forming : undefined
}

/**
 * The newest bar whose signal can be recorded at `nowMs`: it has closed, and the open of
 * the bar after it (the trade model's entry) is known: that bar is in the series, or it is
 * `next`. −1 when there is none.
 */
export function newestSignalBar(bars: Bars, nowMs: number, next?: NextOpen): number {
  const last = bars.n - 1
  if (last >= 0 && follows(bars, next) && next!.t <= nowMs) return last
  let i = bars.n - 2
  while (i >= 0 && !(bars.t[i + 1] <= nowMs && bars.t[i] + bars.stepMs <= nowMs)) i--
  return i
}

/** `next` opens the bar right after the series' last one */
function follows(bars: Bars, next: NextOpen | undefined): boolean {
  return next !== undefined && bars.n > 0 && next.t === bars.t[bars.n - 1] + bars.stepMs
}

/** The open of bar i+1 (the trade model's entry for a signal of bar i): in the series, or `next`. */
export function nextOpen(bars: Bars, i: number, next?: NextOpen): number {
  if (i + 1 < bars.n) return bars.o[i + 1]
  return i === bars.n - 1 && follows(bars, next) ? next!.o : NaN
}

/** First index with t ≥ tMs (bars.n when none). */
export function firstBarAtOrAfter(bars: Bars, tMs: number): number {
  return lowerBoundOf(bars.t, tMs, bars.n)
}

/** The last bar whose close is at or before nowMs, or −1. */
export function lastCompletedBar(bars: Bars, nowMs: number): number {
  let k = bars.n - 1
  while (k >= 0 && bars.t[k] + bars.stepMs > nowMs) k--
  return k
}

export interface ScanPayload {
  timeframe: Timeframe
  symbols: string[]
  /** registry ids, in the order hits refer to */
  strategies: string[]
  nowMs: number
  /** signals with a signal time before this are out of reach */
  earliestMs: number
  /** the newest bar scanned before on this timeframe (a coin with nothing newer is skipped) */
  watermark: number | null
  /** the forming 1H candle's open of the symbols that have one (store.formingOpen) */
  forming: Record<string, FormingOpen>
}

export interface CoinScan {
  symbol: string
  /** open time of the coin's newest recordable signal bar, or null */
  newestBarMs: number | null
  /** bars looked at */
  bars: number
  /** per signal: strategy index, signal bar open time, entry price (the next bar's open); flat */
  hits: number[]
}

/** The scan of some coins: every signal of the reachable bars, with the entry price. */
export function scanCoins(barsOf: (symbol: string, tf: Timeframe) => Bars | undefined, p: ScanPayload): CoinScan[] {
  const strategies = p.strategies.map(id => getStrategy(id)!)
  const out: CoinScan[] = []
  for (const symbol of p.symbols) {
    const bars = barsOf(symbol, p.timeframe)
    if (!bars || bars.n < 2) continue
    const next = nextOpenOf(bars, barsOf(symbol, '1H')!, p.forming[symbol])
    const last = newestSignalBar(bars, p.nowMs, next)
    if (last < 0) continue
    const scan: CoinScan = { symbol, newestBarMs: bars.t[last], bars: 0, hits: [] }
    out.push(scan)
    if (p.watermark !== null && bars.t[last] <= p.watermark) continue
    let from = firstBarAtOrAfter(bars, p.earliestMs - bars.stepMs)
    while (from <= last && bars.t[from] + bars.stepMs < p.earliestMs) from++
    if (from > last) continue
    scan.bars = last - from + 1
    strategies.forEach((s, k) => {
      const entry = entryMask(s, bars)
      for (let i = from; i <= last; i++) {
        if (entry[i] === 0) continue
        // the trade model enters only at a positive open (engine/trade-model.ts)
        const open = nextOpen(bars, i, next)
        if (open > 0) scan.hits.push(k, bars.t[i], open)
      }
    })
  }
  return out
}

/** The worker task: scanCoins over the task context's series. */
export function runScanSignals(ctx: TaskContext, p: ScanPayload): CoinScan[] {
  return scanCoins((s, tf) => ctx.bars(s, tf), p)
}
