/** A run's sign of life in its job_runs row (why a timer: src/jobs/run-owner.ts). */
import type { Clock } from '../clock'
import type { Logger } from '../log'
import type { JobRuns } from '../records/job-runs'
import { HEARTBEAT_MS } from './run-owner'

/**
 * The heartbeat of run `id` (job_runs row), until stop(): a timer every HEARTBEAT_MS while
 * the event loop is free (a step that awaits the network for minutes still beats), and
 * maybe() at each progress line or yield, which beats once HEARTBEAT_MS of clock time
 * passed (a ManualClock's time, in tests). The timer is unref'd: it never keeps a process
 * alive, and it never starts a run (so it runs also with the scheduler's timers off).
 */
export function startHeartbeat(deps: { clock: Clock; runs: JobRuns; log: Logger }, id: number, slot: string): { maybe(): void; stop(): void } {
  let lastMs = deps.clock.now()
  let warned = false
  const beat = () => {
    lastMs = deps.clock.now()
    deps.runs.heartbeat(id, lastMs).then(
      alive => {
        if (alive || warned) return
        warned = true
        deps.log.warn(`job ${slot}: another process took this run for abandoned and finished its row; the run goes on`)
      },
      // the database busy beyond busy_timeout (or unreachable): the next beat tries again (the lease is three beats)
      e => deps.log.warn(`job ${slot}: heartbeat not written: ${(e as Error)?.message ?? e}`),
    )
  }
  const timer = setInterval(beat, HEARTBEAT_MS)
  timer.unref?.()
  return {
    maybe: () => {
      if (deps.clock.now() - lastMs >= HEARTBEAT_MS) beat()
    },
    stop: () => clearInterval(timer),
  }
}
