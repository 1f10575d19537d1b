/**
 * Every scheduled job of the service, registered on one scheduler (the server's, or the
 * CLI's for `jobs list` / `jobs run`). A new job is one file in src/jobs/ exporting a
 * JobDefinition factory, added here.
 */
import type { AppDeps } from '../deps'
import type { Logger } from '../log'
import { rankingsJob } from './rankings'
import type { Scheduler } from './scheduler'

/** what the jobs read: the stores, the clock and the run pipeline */
export type JobDeps = Pick<AppDeps, 'clock' | 'db' | 'store' | 'universe' | 'runs' | 'config'>

export function registerJobs(scheduler: Scheduler, deps: JobDeps, log: Logger): void {
  void log
  scheduler.register(rankingsJob(deps))
}
