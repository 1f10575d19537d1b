/** Small per-coin figures derived from the candle store (7-day change and sparkline). */
import type { Bars } from './types'
import { HOUR_MS } from '../time'
import { upperBound } from '../sorted-search'

const WEEK_H = 168
const SPARK_STEP_H = 4

/** % change of the last close against the close 168 hours earlier; null without that history. */
export function change7d(bars: Bars): number | null {
  const i = bars.n - 1
  if (i < 0) return null
  const target = bars.t[i] - WEEK_H * HOUR_MS
  const j = indexAtOrBefore(bars.t, bars.n, target)
  if (j < 0 || bars.t[j] !== target || !(bars.c[j] > 0)) return null
  return ((bars.c[i] - bars.c[j]) / bars.c[j]) * 100
}

/** Closes of the last 7 days every 4 hours, oldest first, ending with the last close. */
export function sparkline7d(bars: Bars): number[] | null {
  if (bars.n === 0) return null
  const lastT = bars.t[bars.n - 1]
  const out: number[] = []
  for (let k = WEEK_H / SPARK_STEP_H; k >= 0; k--) {
    const j = indexAtOrBefore(bars.t, bars.n, lastT - k * SPARK_STEP_H * HOUR_MS)
    if (j >= 0) out.push(bars.c[j])
  }
  return out
}

/** largest index with t[i] <= x, or -1 */
export function indexAtOrBefore(t: Float64Array, n: number, x: number): number {
  return upperBound(t, x, n) - 1
}
