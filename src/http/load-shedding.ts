/**
 * Load shedding on event-loop lag: while the loop has recently been late by more than
 * SHED_LAG_MS, compute requests (the rate-limit "compute" class) are answered 503 with
 * Retry-After before any work starts, so /health and cheap reads keep answering. (A full
 * run queue sheds through the simulation service: Overloaded, also 503.)
 * The lag is sampled by a timer every 100 ms on the real clock: it measures this process,
 * not simulated time. The figure kept is the worst lag of the last second.
 */
import { Elysia } from 'elysia'
import { HttpError } from './errors'
import { limitClassOf } from './rate-limit'

const TICK_MS = 100
const KEEP_MS = 1000

export interface LagMonitor {
  /** worst event-loop lag (ms) seen in the last second */
  lagMs(): number
}

let shared: LagMonitor | null = null

/** One sampling timer per process (unref'd: it never keeps the process alive). */
export function eventLoopLag(): LagMonitor {
  if (shared) return shared
  let worst = 0
  let worstAt = 0
  let expected = performance.now() + TICK_MS
  const timer = setInterval(() => {
    const now = performance.now()
    const late = Math.max(0, now - expected)
    expected = now + TICK_MS
    if (late >= worst || now - worstAt > KEEP_MS) {
      worst = late
      worstAt = now
    }
  }, TICK_MS)
  timer.unref?.()
  shared = {
    lagMs() {
      const now = performance.now()
      // a loop blocked right now has not run the timer: count the wait so far
      const pending = Math.max(0, now - expected)
      return Math.max(pending, now - worstAt > KEEP_MS ? 0 : worst)
    },
  }
  return shared
}

export function loadShedding(thresholdMs: number, monitor: LagMonitor) {
  return new Elysia({ name: 'load-shedding', seed: thresholdMs }).onTransform({ as: 'global' }, ({ route }) => {
    if (thresholdMs <= 0 || limitClassOf(route) !== 'compute') return
    const lag = monitor.lagMs()
    if (lag <= thresholdMs) return
    const retry = Math.max(1, Math.ceil(lag / 1000))
    throw new HttpError(
      503,
      { detail: `The service is overloaded (event loop ${Math.round(lag)} ms late); retry after ${retry} s`, retry_after_seconds: retry },
      { 'retry-after': String(retry) },
    )
  })
}
