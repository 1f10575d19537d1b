/**
 * Load shedding on event-loop lag: while the loop is persistently late by more than
 * SHED_LAG_MS, compute requests (the rate-limit "compute" class) are answered 503 with
 * Retry-After before any work starts, so /health and cheap reads keep answering. (A full
 * run queue sheds through the run service: Overloaded, also 503.)
 * The lag is sampled by a timer every 100 ms on the real clock (it measures this process,
 * not simulated time) and smoothed: lag = 0.7·lag + 0.3·(this tick's lateness). A loop that
 * stays late converges to its lateness; one long synchronous task (a background job's
 * second of work) is a single late tick, counted at 30 % and decaying after, so it does not
 * shed the requests that waited for it.
 */
import { Elysia } from 'elysia'
import { HttpError } from './errors'
import { limitClassOf } from './rate-limit'

const TICK_MS = 100
const WEIGHT = 0.3

export interface LagMonitor {
  /** smoothed event-loop lag (ms) */
  lagMs(): number
}

let shared: LagMonitor | null = null

/** The smoothing of one sample (exported for its test). */
export const smoothLag = (lag: number, late: number): number => lag * (1 - WEIGHT) + late * WEIGHT

/** One sampling timer per process (unref'd: it never keeps the process alive). */
export function eventLoopLag(): LagMonitor {
  if (shared) return shared
  let lag = 0
  let expected = performance.now() + TICK_MS
  const timer = setInterval(() => {
    const now = performance.now()
    lag = smoothLag(lag, Math.max(0, now - expected))
    expected = now + TICK_MS
  }, TICK_MS)
  timer.unref?.()
  shared = { lagMs: () => lag }
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
