/** Small per-coin figures derived from the candle store (7-day change and sparkline). */
import type { Bars } from './types'
import { HOUR_MS } from './types'

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
  let lo = 0, hi = n - 1, ans = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (t[mid] <= x) {
      ans = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  return ans
}

export function isoDate(tMs: number): string {
  return new Date(tMs).toISOString().slice(0, 10)
}
