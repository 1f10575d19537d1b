/**
 * Every scheduled job of the service, registered on one scheduler (the server's, or the
 * CLI's for `jobs list` / `jobs run`). A new job is one file in src/jobs/ exporting a
 * JobDefinition factory, added here.
 */
import type { AppDeps } from '../deps'
import type { Logger } from '../log'
import type { CandleFeed } from '../market/candle-feed'
import { rankingsJob } from './rankings'
import type { Scheduler } from './scheduler'
import { liveRecordsJob } from './live-records'
import { weeklyMailJob } from './weekly-mail'
import { mailerFor } from '../mail/mailer'
import { scoredSignalsSource } from '../mail/weekly-signals'

/** what the jobs read: the stores, the clock, the run pipeline, and what brings the hourly candles */
export type JobDeps = Pick<AppDeps, 'clock' | 'db' | 'store' | 'universe' | 'runs' | 'config' | 'series' | 'mailer'> & Partial<Pick<AppDeps, 'marketContext'>> & { feed?: CandleFeed }

export function registerJobs(scheduler: Scheduler, deps: JobDeps, log: Logger): void {
  void log
  scheduler.register(rankingsJob(deps))
  const market = deps.marketContext
  scheduler.register(liveRecordsJob({ ...deps, regimeStrategies: market ? async () => (await market.regime()).recommended_strategies.map(s => s.id) : undefined }))
  scheduler.register(weeklyMailJob({ db: deps.db, clock: deps.clock, mailer: deps.mailer ?? mailerFor(deps.config, deps.db, deps.clock, log), signals: scoredSignalsSource(deps.db) }))
}
