import { sma } from './ma'
import { checkPeriod, fillNaN, firstValid, rowsOf } from './util'
import { indexScratch, rollingMaxIndex, rollingMinIndex } from './window'

/**
 * Fast stochastic %K: 100 · (close − lowest low) / (highest high − lowest low) over the last
 * `period` bars, 0 when the range is 0 (TA-Lib's convention). Leading NaNs in any input are
 * skipped, so it can run on another indicator (Stoch RSI passes RSI as high, low and close).
 */
export function stochasticOf(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  period: number,
  out: Float64Array,
  n?: number,
): void {
  checkPeriod('stochastic', period)
  const rows = rowsOf(close, n)
  const start = Math.max(firstValid(high, rows), firstValid(low, rows), firstValid(close, rows))
  const first = start + period - 1
  fillNaN(out, 0, Math.min(first, rows))
  const hiAt = indexScratch(0, rows)
  const loAt = indexScratch(1, rows)
  rollingMaxIndex(high, period, hiAt, first, rows)
  rollingMinIndex(low, period, loAt, first, rows)
  // one division per bar: TA-Lib divides by range / 100; (x / range) · 100 differs by an ulp
  for (let i = first; i < rows; i++) {
    const lowest = low[loAt[i]]
    const range = high[hiAt[i]] - lowest
    out[i] = range !== 0 ? ((close[i] - lowest) / range) * 100 : 0
  }
}

/**
 * Slow stochastic as TA-Lib STOCH with SMA smoothing: outK = SMA(kSmooth) of fast %K(kPeriod),
 * outD = SMA(dPeriod) of outK. Both start on the same row, (kPeriod−1)+(kSmooth−1)+(dPeriod−1),
 * as TA-Lib aligns them.
 */
export function stoch(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  kPeriod: number,
  kSmooth: number,
  dPeriod: number,
  outK: Float64Array,
  outD: Float64Array,
  n?: number,
): void {
  const rows = rowsOf(close, n)
  stochasticOf(high, low, close, kPeriod, outD, rows) // fast %K, parked in outD
  sma(outD, kSmooth, outK, rows)
  sma(outK, dPeriod, outD, rows)
  fillNaN(outK, 0, Math.min(firstValid(outD, rows), rows))
}

/**
 * Williams %R: −100 · (highest high − close) / (highest high − lowest low) over `period` bars,
 * 0 when the range is 0 (TA-Lib). First value at row period − 1.
 */
export function willr(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  period: number,
  out: Float64Array,
  n?: number,
): void {
  checkPeriod('willr', period, 2)
  const rows = rowsOf(close, n)
  const first = period - 1
  fillNaN(out, 0, Math.min(first, rows))
  if (first >= rows) return
  const hiAt = indexScratch(0, rows)
  const loAt = indexScratch(1, rows)
  rollingMaxIndex(high, period, hiAt, first, rows)
  rollingMinIndex(low, period, loAt, first, rows)
  for (let i = first; i < rows; i++) {
    const highest = high[hiAt[i]]
    const range = highest - low[loAt[i]]
    out[i] = range !== 0 ? ((highest - close[i]) / range) * -100 : 0 // one division, as in stochasticOf
  }
}
