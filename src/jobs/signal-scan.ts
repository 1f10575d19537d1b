/**
 * The signal scanner (docs/signals.md). A signal of bar i is the registry strategy's
 * entry condition true at bar i's close, computed by the same compiled strategy over the
 * same series as a backtest (strategies/compile.ts, market/series.ts), one signal per
 * true bar. It is recorded once bar i has completed and the open of bar i+1 (the trade
 * model's entry) is in the store; `signal_time` is that instant, bar i's close.
 *
 * Each run looks at every coin with a bar newer than the timeframe's watermark (the
 * newest bar scanned before) and records every signal of the last BACKFILL_HOURS not
 * recorded yet: on a fresh store that is the 72-hour backfill, after a restart or a late
 * sync it is the catch-up. Ids are unique and known ids are skipped, so a second run for
 * the same hour adds nothing.
 */
import type { Clock } from '../clock'
import type { Db } from '../db'
import type { SeriesCache } from '../market/series'
import type { Timeframe } from '../market/timeframe'
import { TIMEFRAME_MS } from '../market/timeframe'
import type { Bars } from '../market/types'
import { HOUR_MS } from '../market/types'
import type { Universe } from '../market/universe'
import { insertSignals, recordScan, scanWatermark, signalId, signalIdsSince, type SignalRow } from '../modules/signals/records'
import { prepareStrategy, type CompiledStrategy } from '../strategies/compile'
import { canonicalJson } from '../runs/spec'
import { getStrategy, listStrategies, type StrategyDef } from '../strategies/registry'

/** coins scanned: the first eligible coins in market-cap order */
export const SCAN_TOP_N = 100
/** timeframes scanned; a higher timeframe's bar is scanned when it completes */
export const SCAN_TIMEFRAMES: readonly Timeframe[] = ['1H', '4H', '1D']
/** how far back the first scan (and any catch-up) reaches */
export const BACKFILL_HOURS = 72

export interface ScanDeps {
  db: Db
  series: SeriesCache
  universe: Universe
  clock: Clock
}

export interface ScanReport {
  timeframes: { timeframe: Timeframe; signalBarMs: number | null; barsScanned: number; added: number }[]
  coins: number
  strategies: number
  added: number
}

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
  return canonicalJson(long.indicators) === canonicalJson(short.indicators) ? { long, short } : null
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
 * The newest bar whose signal can be recorded at `nowMs`: it has closed, and the bar after
 * it has opened and is in the store. −1 when there is none.
 */
export function newestSignalBar(bars: Bars, nowMs: number): number {
  let i = bars.n - 2
  while (i >= 0 && !(bars.t[i + 1] <= nowMs && bars.t[i] + bars.stepMs <= nowMs)) i--
  return i
}

/** First index with t ≥ tMs (bars.n when none). */
export function lowerBound(bars: Bars, tMs: number): number {
  let lo = 0
  let hi = bars.n
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (bars.t[mid] < tMs) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Gives the event loop a turn (the scheduler's ctx.yield); tests pass none. */
export type Pause = () => Promise<void>
const noPause: Pause = async () => {}
/** work between two turns of the event loop, so /health never waits longer behind a job */
export const SLICE_MS = 8

/** `pause`, but only once SLICE_MS of work has passed since the last turn. */
export function slicer(pause: Pause): Pause {
  let since = performance.now()
  return async () => {
    if (performance.now() - since < SLICE_MS) return
    await pause()
    since = performance.now()
  }
}

/** One scan at the clock's time over every timeframe. */
export async function scanSignals(deps: ScanDeps, pause: Pause = noPause): Promise<ScanReport> {
  const nowMs = deps.clock.now()
  const coins = deps.universe.topN(SCAN_TOP_N).map(c => c.meta.symbol)
  const strategies = listStrategies()
  const report: ScanReport = { timeframes: [], coins: coins.length, strategies: strategies.length, added: 0 }
  const turn = slicer(pause)
  for (const tf of SCAN_TIMEFRAMES) {
    const r = await scanTimeframe(deps, tf, coins, strategies, nowMs, turn)
    report.timeframes.push(r)
    report.added += r.added
  }
  return report
}

async function scanTimeframe(deps: ScanDeps, tf: Timeframe, coins: string[], strategies: readonly StrategyDef[], nowMs: number, pause: Pause) {
  const watermark = scanWatermark(deps.db, tf)
  const earliestMs = nowMs - BACKFILL_HOURS * HOUR_MS
  const known = signalIdsSince(deps.db, tf, earliestMs - TIMEFRAME_MS[tf])
  const rows: SignalRow[] = []
  let newestBarMs: number | null = null
  let barsScanned = 0
  for (const coin of coins) {
    const bars = deps.series.get(coin, tf)
    if (!bars || bars.n < 2) continue
    const last = newestSignalBar(bars, nowMs)
    if (last < 0) continue
    if (newestBarMs === null || bars.t[last] > newestBarMs) newestBarMs = bars.t[last]
    // nothing new for this coin since the last scan of the timeframe
    if (watermark !== null && bars.t[last] <= watermark) continue
    // every bar whose signal time lies inside the backfill reach: a coin whose candles
    // arrive late is caught up, and what is already recorded is skipped by id
    let from = lowerBound(bars, earliestMs - bars.stepMs)
    while (from <= last && bars.t[from] + bars.stepMs < earliestMs) from++
    if (from > last) continue
    barsScanned += last - from + 1
    for (const s of strategies) {
      await pause()
      const entry = entryMask(s, bars)
      for (let i = from; i <= last; i++) {
        if (entry[i] === 0) continue
        const entryPrice = bars.o[i + 1]
        // the trade model enters only at a positive open (engine/simulate-coin.ts)
        if (!(entryPrice > 0)) continue
        const id = signalId(s.id, tf, coin, bars.t[i])
        if (known.has(id)) continue
        rows.push({
          id,
          strategy: s.id,
          strategyName: s.name,
          status: s.status,
          coin,
          direction: s.direction,
          timeframe: tf,
          signalBarMs: bars.t[i],
          signalTimeMs: bars.t[i] + bars.stepMs,
          entryPrice,
          slPct: s.sl_pct,
          tpPct: s.tp_pct,
          maxBars: s.max_bars,
          publishedAtMs: nowMs,
          backfill: i < last,
        })
      }
    }
  }
  const added = rows.length ? insertSignals(deps.db, rows) : 0
  if (newestBarMs !== null && (watermark === null || newestBarMs > watermark)) {
    recordScan(deps.db, { timeframe: tf, signalBarMs: newestBarMs, scannedAtMs: nowMs, coins: coins.length, strategies: strategies.length, signalsFound: added })
  }
  return { timeframe: tf, signalBarMs: newestBarMs, barsScanned, added }
}
