import { sma } from './ma'
import { checkPeriod, fillNaN, firstValid, floatScratch, rowsOf } from './util'
import { coverWindows } from './window'

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
  if (first >= rows) return
  // views of exactly `rows` rows: loops bounded by their length carry no bounds checks
  const hi = floatScratch(0, rows).subarray(0, rows)
  const lo = floatScratch(1, rows).subarray(0, rows)
  const back = coverWindows(high.subarray(0, rows), low.subarray(0, rows), period, start, rows, hi, lo)
  const c = close.subarray(0, rows)
  const o = out.subarray(0, rows)
  // one division per bar: TA-Lib divides by range / 100; (x / range) · 100 differs by an ulp
  for (let i = first; i < o.length; i++) {
    // the covering windows' extremes, by maxOf / minOf written out (see coverWindows)
    const a = hi[i]
    const b = hi[i - back]
    const d = a - b
    const x = lo[i]
    const y = lo[i - back]
    const e = x - y
    const lowest = y + (e - Math.abs(e)) * 0.5
    const range = b + (d + Math.abs(d)) * 0.5 - lowest
    o[i] = range !== 0 ? ((c[i] - lowest) / range) * 100 : 0
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
  const hi = floatScratch(0, rows).subarray(0, rows)
  const lo = floatScratch(1, rows).subarray(0, rows)
  const back = coverWindows(high.subarray(0, rows), low.subarray(0, rows), period, 0, rows, hi, lo)
  const c = close.subarray(0, rows)
  const o = out.subarray(0, rows)
  for (let i = first; i < o.length; i++) {
    const a = hi[i]
    const b = hi[i - back]
    const d = a - b
    const highest = b + (d + Math.abs(d)) * 0.5
    const x = lo[i]
    const y = lo[i - back]
    const e = x - y
    const range = highest - (y + (e - Math.abs(e)) * 0.5)
    o[i] = range !== 0 ? ((highest - c[i]) / range) * -100 : 0 // one division, as in stochasticOf
  }
}
