import { sma } from './ma'
import { checkPeriod, fillNaN, firstValid, floatScratch, rowsOf } from './util'
import { coverWindows, EXACT_SPREAD, indexScratch, rollingMaxIndex, rollingMinIndex, scanRange } from './window'

/**
 * Fast stochastic %K: 100 · (close − lowest low) / (highest high − lowest low) over the last
 * `period` bars, 0 when the range is 0 (TA-Lib's convention). Leading NaNs in any input are
 * skipped, so it can run on another indicator (Stoch RSI passes RSI as high, low and close).
 *
 * The extremes come from the exact index kernels, whatever the series: an RSI's window spans
 * more than 2× on about 8 % of bars (1H, 28 coins), and there rangePosition's exact fallback
 * (a scan per bar) measured slower than these kernels. stoch and willr, on prices, take
 * rangePosition.
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
 * 100 · (close − ref) / (highest high − lowest low) over the last `period` bars, 0 when the
 * range is 0, where ref is the lowest low (`fromHigh` false: fast %K) or the highest high
 * (true: Williams %R, as (close − highest) · 100 / range). Leading NaNs are skipped.
 *
 * Exact: the extremes come from coverWindows, and a window whose computed highest is not
 * below EXACT_SPREAD × its lowest, where coverWindows may be an ulp off, is scanned afresh.
 * That keeps a %K of exactly 0 or 100 where the close is the window's extreme (so a smoothed
 * K of 0 stays 0, and never dips below it). Price windows almost never span 2×; for series
 * that often do, stochasticOf is faster.
 */
function rangePosition(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  period: number,
  fromHigh: boolean,
  out: Float64Array,
  rows: number,
): void {
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
  for (let i = first; i < o.length; i++) {
    // the covering windows' extremes, by maxOf / minOf written out (see coverWindows)
    const a = hi[i]
    const b = hi[i - back]
    const d = a - b
    let highest = b + (d + Math.abs(d)) * 0.5
    const x = lo[i]
    const y = lo[i - back]
    const e = x - y
    let lowest = y + (e - Math.abs(e)) * 0.5
    if (!(highest < lowest * EXACT_SPREAD)) {
      const exact = scanRange(high, low, i - period + 1, i)
      highest = exact[0]
      lowest = exact[1]
    }
    const range = highest - lowest
    // one division per bar: TA-Lib divides by range / ±100; (x / range) · 100 differs by an ulp
    o[i] = range !== 0 ? ((c[i] - (fromHigh ? highest : lowest)) / range) * 100 : 0
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
  checkPeriod('stoch', kPeriod)
  rangePosition(high, low, close, kPeriod, false, outD, rows) // fast %K, parked in outD
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
  rangePosition(high, low, close, period, true, out, rowsOf(close, n))
}
