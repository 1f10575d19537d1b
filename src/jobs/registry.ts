/**
 * Every scheduled job of the service, registered on one scheduler (the server's, or the
 * CLI's for `jobs list` / `jobs run`). A new job is one file in src/jobs/ exporting a
 * JobDefinition factory, added here.
 */
import type { AppDeps } from '../deps'
import type { Logger } from '../log'
import type { Scheduler } from './scheduler'
import { liveRecordsJob } from './live-records'

export function registerJobs(scheduler: Scheduler, deps: AppDeps, log: Logger): void {
  void scheduler
  void deps
  void log
  scheduler.register(liveRecordsJob(deps))
}
