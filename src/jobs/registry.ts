/**
 * Every scheduled job of the service, registered on one scheduler (the server's, or the
 * CLI's for `jobs list` / `jobs run`). A new job is one file in src/jobs/ exporting a
 * JobDefinition factory, added here.
 */
import type { AppDeps } from '../deps'
import type { Clock } from '../clock'
import type { Logger } from '../log'
import { HOUR_MS } from '../time'
import type { CandleFeed } from '../market/candle-feed'
import { candlesJob } from './candles'
import { rankingsJob } from './rankings'
import type { Scheduler } from './scheduler'
import { liveRecordsJob } from './live-records'
import { weeklyMailJob } from './weekly-mail'
import { mailerFor } from '../mail/mailer'
import { scoredSignalsSource } from '../mail/weekly-signals'

/** what the jobs read: the stores, the clock, the run pipeline, and what brings the hourly candles */
export type JobDeps = Pick<AppDeps, 'clock' | 'db' | 'store' | 'universe' | 'runs' | 'config' | 'series' | 'mailer'> & Partial<Pick<AppDeps, 'marketContext'>> & { feed?: CandleFeed }

export function registerJobs(scheduler: Scheduler, deps: JobDeps, log: Logger): void {
  if (deps.feed) registerCandles(scheduler, deps.feed, deps.clock, log)
  scheduler.register(rankingsJob(deps))
  const market = deps.marketContext
  scheduler.register(liveRecordsJob({ ...deps, regimeStrategies: market ? async () => (await market.regime()).recommended_strategies.map(s => s.id) : undefined }))
  scheduler.register(weeklyMailJob({ db: deps.db, clock: deps.clock, mailer: deps.mailer ?? mailerFor(deps.config, deps.db, deps.clock, log), signals: scoredSignalsSource(deps.db) }))
}

/**
 * The hourly candles job alone (also with JOBS=0: demo mode and SYNC keep the store live).
 * An exchange sync's latest missed slot runs in the background at start-up; demo mode
 * catches up synchronously before listening (src/main.ts), so it needs none.
 */
export function registerCandles(scheduler: Scheduler, feed: CandleFeed, clock: Clock, log: Logger): void {
  scheduler.register(candlesJob({ feed, clock, log, catchUpMs: feed.source === 'demo' ? 0 : HOUR_MS }))
}
