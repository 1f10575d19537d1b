import { checkPeriod, fillNaN, rowsOf } from './util'
import { indexScratch, rollingMaxIndex, rollingMinIndex } from './window'

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
  // the window is period + 1 bars: the first value is at row `period`
  const hiAt = indexScratch(0, rows)
  const loAt = indexScratch(1, rows)
  rollingMaxIndex(high, period + 1, hiAt, period, rows)
  rollingMinIndex(low, period + 1, loAt, period, rows)
  for (let i = period; i < rows; i++) {
    outUp[i] = factor * (period - (i - hiAt[i]))
    outDown[i] = factor * (period - (i - loAt[i]))
  }
}
