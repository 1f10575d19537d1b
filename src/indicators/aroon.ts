import { checkPeriod, fillNaN, rowsOf } from './util'

/**
 * Aroon as TA-Lib: over the last period + 1 bars (the current one included),
 * up = 100 / period · (period − bars since the highest high), down likewise with the lowest
 * low; on ties the most recent bar counts. Values run 0..100; first value at row `period`.
 */
export function aroon(
  high: Float64Array,
  low: Float64Array,
  period: number,
  outUp: Float64Array,
  outDown: Float64Array,
  n?: number,
): void {
  checkPeriod('aroon', period, 2)
  const rows = rowsOf(high, n)
  fillNaN(outUp, 0, Math.min(period, rows))
  fillNaN(outDown, 0, Math.min(period, rows))
  const factor = 100 / period
  let hiAt = -1
  let loAt = -1
  let highest = 0
  let lowest = 0
  for (let i = period; i < rows; i++) {
    const lo = i - period
    const l = low[i]
    if (loAt < lo) {
      loAt = lo
      lowest = low[lo]
      for (let j = lo + 1; j <= i; j++) {
        if (low[j] <= lowest) {
          lowest = low[j]
          loAt = j
        }
      }
    } else if (l <= lowest) {
      lowest = l
      loAt = i
    }
    const h = high[i]
    if (hiAt < lo) {
      hiAt = lo
      highest = high[lo]
      for (let j = lo + 1; j <= i; j++) {
        if (high[j] >= highest) {
          highest = high[j]
          hiAt = j
        }
      }
    } else if (h >= highest) {
      highest = h
      hiAt = i
    }
    outUp[i] = factor * (period - (i - hiAt))
    outDown[i] = factor * (period - (i - loAt))
  }
}
