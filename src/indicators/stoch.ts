import { sma } from './ma'
import { checkPeriod, fillNaN, firstValid, rowsOf } from './util'

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
  let hiAt = -1
  let loAt = -1
  let highest = 0
  let lowest = 0
  for (let i = first; i < rows; i++) {
    const lo = i - period + 1
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
    const diff = (highest - lowest) / 100
    out[i] = diff !== 0 ? (close[i] - lowest) / diff : 0
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
  let hiAt = -1
  let loAt = -1
  let highest = 0
  let lowest = 0
  for (let i = first; i < rows; i++) {
    const lo = i - period + 1
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
    const diff = (highest - lowest) / -100
    out[i] = diff !== 0 ? (highest - close[i]) / diff : 0
  }
}
