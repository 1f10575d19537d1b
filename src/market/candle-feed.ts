/**
 * What brings a running service its new candles every hour: demo mode's synthetic
 * continuation, or the exchange sync of a store that came from the exchange. Either one
 * appends every candle completed by now and keeps the open of the candle now forming
 * (store.setFormingOpen), which a signal of the bar that just closed enters at.
 *
 * A feed has two halves, because signals need only the candles: `candles` (then the
 * signal scan runs) and `funding` (before scoring, which charges it). Demo mode writes
 * its funding with its candles. Each half runs once an hour (`hourly`): the live-records
 * job that asks after the candles job waits for its run, or finds the hour brought.
 */
import type { Clock } from '../clock'
import type { CandleStore } from './candle-store'
import { HOUR_MS } from '../time'
import { appendDemoCandles } from './synthetic'
import { syncFromExchange, type SyncReport } from './sync-ccxt'
import { createBinanceUsdm, type ExchangeLike, type RetryPolicy } from './sync-exchange'

export interface FeedReport {
  /** candle rows (or funding events) appended */
  appended: number
  /** symbols whose forming candle's open is known after the call */
  forming: number
  /** symbols the call failed for (their candles come with a later call) */
  failed: number
}

export interface CandleFeed {
  /** 'demo' or the exchange's id */
  readonly source: string
  candles(nowMs: number): Promise<FeedReport>
  funding(nowMs: number): Promise<FeedReport>
}

/**
 * One run an hour: a call made while one is running gets that run's result, and a call in
 * the same clock hour as a run that finished without failures has nothing left to bring
 * (candles close and funding settles on the hour), so it returns at once, appending nothing.
 * A run with failures is tried again by the next call.
 */
function hourly(run: (nowMs: number) => Promise<FeedReport>): (nowMs: number) => Promise<FeedReport> {
  let inFlight: Promise<FeedReport> | null = null
  let done: { hour: number; report: FeedReport } | null = null
  return nowMs => {
    const hour = Math.floor(nowMs / HOUR_MS)
    if (!inFlight && done?.hour === hour) return Promise.resolve({ ...done.report, appended: 0 })
    return (inFlight ??= run(nowMs)
      .then(report => {
        done = report.failed === 0 ? { hour, report } : null
        return report
      })
      .finally(() => (inFlight = null)))
  }
}

function formingCount(store: CandleStore): number {
  return store.symbols().filter(s => store.formingOpen(s)).length
}

export function demoFeed(store: CandleStore, seed: number): CandleFeed {
  return {
    source: 'demo',
    candles: hourly(async nowMs => ({ appended: appendDemoCandles(store, nowMs, seed), forming: formingCount(store), failed: 0 })),
    funding: async () => ({ appended: 0, forming: formingCount(store), failed: 0 }),
  }
}

export interface ExchangeFeedOptions {
  /** Binance USDⓈ-M API origin (tests: a loopback server) */
  baseUrl?: string
  /** a ccxt exchange (tests); default binanceusdm at baseUrl, made once and reused */
  exchange?: ExchangeLike
  log?: (line: string) => void
  retry?: RetryPolicy
}

/**
 * The exchange sync of the store's own symbols, hour by hour: the hourly catch-up is one
 * request of two rows a coin (the hour that closed and the forming one), at Binance's
 * lowest request weight (ccxt's limiter paces weight-1 requests 50 ms apart).
 */
export function exchangeFeed(store: CandleStore, clock: Clock, opts: ExchangeFeedOptions = {}): CandleFeed {
  let exchange: Promise<ExchangeLike> | null = opts.exchange ? Promise.resolve(opts.exchange) : null
  const client = () => (exchange ??= createBinanceUsdm(opts.baseUrl).catch(e => { exchange = null; throw e }))
  const report = (r: SyncReport, appended: number): FeedReport => ({ appended, forming: formingCount(store), failed: r.failed })
  const sync = async (only: 'candles' | 'funding') =>
    syncFromExchange(store, {
      exchange: await client(),
      symbols: store.symbols(),
      now: () => clock.now(),
      retry: opts.retry,
      log: opts.log,
      forming: only === 'candles',
      only,
      // the coins with mark-price candles keep them in step with their candles
      mark: only === 'candles' ? 'stored' : false,
      reloadMarkets: only === 'candles',
    })
  return {
    source: 'binanceusdm',
    candles: hourly(async () => {
      const r = await sync('candles')
      return report(r, r.candlesAppended)
    }),
    funding: hourly(async () => {
      const r = await sync('funding')
      return report(r, r.fundingAppended)
    }),
  }
}
