import { checkPeriod, fillNaN, rowsOf } from './util'

/*
 * Rolling extremes keep the index of the current extreme and rescan the window only when
 * that index leaves it (TA-Lib's method). On market data the rescan is rare, so this beats a
 * deque; the worst case (a strictly monotone series) is O(period) per bar.
 */

/**
 * Highest value of src[i-period+1 .. i] (`lag` = 0), or of the window ending `lag` bars
 * earlier (`lag` = 1 gives the previous N-bar high, excluding the current bar).
 * Rows before `start` + period − 1 + lag are NaN; `start` lets a caller skip leading NaNs.
 */
export function rollingMax(src: Float64Array, period: number, out: Float64Array, n?: number, lag = 0, start = 0): void {
  checkPeriod('rollingMax', period)
  const rows = rowsOf(src, n)
  const first = start + period - 1
  fillNaN(out, 0, Math.min(first + lag, rows))
  let at = -1
  let best = 0
  for (let i = first; i + lag < rows; i++) {
    const lo = i - period + 1
    const x = src[i]
    if (at < lo) {
      at = lo
      best = src[lo]
      for (let j = lo + 1; j <= i; j++) {
        if (src[j] >= best) {
          best = src[j]
          at = j
        }
      }
    } else if (x >= best) {
      best = x
      at = i
    }
    out[i + lag] = best
  }
}

/** Lowest value of the window; see rollingMax for `lag` and `start`. */
export function rollingMin(src: Float64Array, period: number, out: Float64Array, n?: number, lag = 0, start = 0): void {
  checkPeriod('rollingMin', period)
  const rows = rowsOf(src, n)
  const first = start + period - 1
  fillNaN(out, 0, Math.min(first + lag, rows))
  let at = -1
  let best = 0
  for (let i = first; i + lag < rows; i++) {
    const lo = i - period + 1
    const x = src[i]
    if (at < lo) {
      at = lo
      best = src[lo]
      for (let j = lo + 1; j <= i; j++) {
        if (src[j] <= best) {
          best = src[j]
          at = j
        }
      }
    } else if (x <= best) {
      best = x
      at = i
    }
    out[i + lag] = best
  }
}
