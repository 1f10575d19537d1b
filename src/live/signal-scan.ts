/**
 * The signal scanner (docs/signals.md). A signal of bar i is the registry strategy's
 * entry condition true at bar i's close, computed by the same compiled strategy over the
 * same series as a backtest (strategies/compile.ts, market/series.ts), one signal per
 * true bar. It is recorded once bar i has completed and the open of bar i+1 (the trade
 * model's entry) is known: in the store, or the forming candle's open the store keeps
 * (demo mode draws it, the exchange sync reads it), so a signal is normally recorded
 * seconds after `signal_time`, bar i's close.
 *
 * The masks are computed in src/runs/compute/signal-tasks.ts, on the worker pool when the
 * run service is given (the top 100 split over the workers), else on this thread.
 *
 * Each run looks at every coin with a bar newer than the timeframe's watermark (the
 * newest bar scanned before) and records every signal of the last BACKFILL_HOURS not
 * recorded yet: on a fresh store that is the 72-hour backfill, after a restart or a late
 * sync it is the catch-up. Ids are unique and known ids are skipped, so a second run for
 * the same hour adds nothing.
 */
import type { Clock } from '../clock'
import type { Db } from '../db'
import type { CandleStore } from '../market/candle-store'
import type { SeriesCache } from '../market/series'
import type { Timeframe } from '../market/timeframe'
import { TIMEFRAME_MS } from '../market/timeframe'
import { type FormingOpen } from '../market/types'
import { HOUR_MS } from '../time'
import type { Universe } from '../market/universe'
import { insertSignals, recordScan, scanWatermark, signalId, signalIdsSince, type SignalRow } from '../records/signals'
import { scanCoins, type CoinScan, type ScanPayload } from '../runs/compute/signal-tasks'
import type { RunService } from '../runs/service'
import { yieldToLoop } from '../runs/yield'
import { listStrategies, type StrategyDef } from '../strategies/registry'

export { compiledStrategy, entryMask, exitMask, firstBarAtOrAfter, newestSignalBar, nextOpen } from '../runs/compute/signal-tasks'

/** coins scanned: the first eligible coins in market-cap order */
export const SCAN_TOP_N = 100
/** timeframes scanned; a higher timeframe's bar is scanned when it completes */
export const SCAN_TIMEFRAMES: readonly Timeframe[] = ['1H', '4H', '1D']
/** how far back the first scan (and any catch-up) reaches */
export const BACKFILL_HOURS = 72

export interface ScanDeps {
  db: Db
  /** the forming candles' opens (the entry price of the bar that just closed) */
  store: Pick<CandleStore, 'formingOpen'>
  series: SeriesCache
  universe: Universe
  clock: Clock
  /** the run pipeline: when given, the coins are scanned on its worker pool */
  runs?: RunService
}

export interface ScanReport {
  timeframes: { timeframe: Timeframe; signalBarMs: number | null; barsScanned: number; added: number }[]
  coins: number
  strategies: number
  added: number
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
  const watermark = await scanWatermark(deps.db, tf)
  const earliestMs = nowMs - BACKFILL_HOURS * HOUR_MS
  const known = await signalIdsSince(deps.db, tf, earliestMs - TIMEFRAME_MS[tf])
  const payload = (symbols: string[]): ScanPayload => ({ timeframe: tf, symbols, strategies: strategies.map(s => s.id), nowMs, earliestMs, watermark, forming: formingOf(deps, symbols) })
  const scans = await computeScans(deps, coins, payload, pause)
  // the instant the rows are written, after the scan's compute: what published_at promises
  const recordedMs = deps.clock.now()
  const rows: SignalRow[] = []
  let newestBarMs: number | null = null
  let barsScanned = 0
  for (const scan of scans) {
    if (scan.newestBarMs !== null && (newestBarMs === null || scan.newestBarMs > newestBarMs)) newestBarMs = scan.newestBarMs
    barsScanned += scan.bars
    for (let h = 0; h < scan.hits.length; h += 3) {
      const s = strategies[scan.hits[h]!]!
      const barMs = scan.hits[h + 1]!
      const id = signalId(s.id, tf, scan.symbol, barMs)
      if (known.has(id)) continue
      rows.push({
        id,
        strategy: s.id,
        strategyName: s.name,
        status: s.status,
        coin: scan.symbol,
        direction: s.direction,
        timeframe: tf,
        signalBarMs: barMs,
        signalTimeMs: barMs + TIMEFRAME_MS[tf],
        entryPrice: scan.hits[h + 2]!,
        slPct: s.sl_pct,
        tpPct: s.tp_pct,
        maxBars: s.max_bars,
        publishedAtMs: recordedMs,
        // recorded by a catch-up: a newer bar of the coin had completed already
        backfill: barMs < scan.newestBarMs!,
      })
    }
  }
  const added = rows.length ? await insertSignals(deps.db, rows) : 0
  if (newestBarMs !== null && (watermark === null || newestBarMs > watermark)) {
    await recordScan(deps.db, { timeframe: tf, signalBarMs: newestBarMs, scannedAtMs: nowMs, coins: coins.length, strategies: strategies.length, signalsFound: added })
  }
  return { timeframe: tf, signalBarMs: newestBarMs, barsScanned, added }
}

/** The store's forming opens of these coins (the scan task derives each timeframe's next open from them). */
function formingOf(deps: ScanDeps, symbols: string[]): Record<string, FormingOpen> {
  const out: Record<string, FormingOpen> = {}
  for (const s of symbols) {
    const f = deps.store.formingOpen(s)
    if (f) out[s] = f
  }
  return out
}

/**
 * The coins' scans: on the worker pool when the run service is there (chunks of coins,
 * one per worker, one unit of background work: requests' tasks go first), else on this thread
 * coin by coin with a turn of the event loop between them.
 */
async function computeScans(deps: ScanDeps, coins: string[], payload: (symbols: string[]) => ScanPayload, pause: Pause): Promise<CoinScan[]> {
  if (deps.runs) {
    // the pool gets the store's new snapshot in a microtask queued by the append: let it go
    // out before the tasks, so the workers scan the candle that was just appended
    await yieldToLoop()
    return deps.runs.signalScan(coins, payload, { background: true }) // scheduled work: behind every request on the workers, not counted against QUEUE_MAX
  }
  const out: CoinScan[] = []
  for (const coin of coins) {
    out.push(...scanCoins((s, tf) => deps.series.get(s, tf), payload([coin])))
    await pause()
  }
  return out
}
