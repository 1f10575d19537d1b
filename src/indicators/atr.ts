import { ratioToMean, smoothRun } from './ma'
import { checkPeriod, fillNaN, isTaZero, rowsOf } from './util'

/**
 * True range: max(high - low, |high - prevClose|, |low - prevClose|). Row 0 has no previous
 * close, so it is NaN (as in TA-Lib's TRANGE).
 *
 * Computed as max(high, prevClose) − min(low, prevClose), each side chosen without a branch:
 * with d = high − prevClose, max = prevClose + (d + |d|) / 2, exactly high or exactly
 * prevClose whenever d is exact, which it is when the two are within a factor of 2 of each
 * other (Sterbenz). The final subtraction is then the same single rounding as TA-Lib's pick
 * of the largest of its three differences: the same value to the bit, except on a bar more
 * than 2× away from the last close, where it may differ in the last bit. Whether the last
 * close lies inside the bar is close to a coin toss on real candles, and the comparisons
 * measured about 1.5× slower for their mispredicted branches (a guard that sends the 2× bars
 * to the comparisons cost as much again).
 */
export function trueRange(high: Float64Array, low: Float64Array, close: Float64Array, out: Float64Array, n?: number): void {
  const rows = rowsOf(high, n)
  fillNaN(out, 0, Math.min(1, rows))
  for (let i = 1; i < rows; i++) {
    const h = high[i]
    const l = low[i]
    const pc = close[i - 1]
    const dh = h - pc
    const dl = pc - l
    out[i] = pc + (dh + Math.abs(dh)) * 0.5 - (pc - (dl + Math.abs(dl)) * 0.5)
  }
}

/**
 * Average true range with Wilder smoothing, as TA-Lib: the first value (row `period`) is the
 * mean of TR over rows 1..period, then atr = (prev · (period − 1) + tr) / period.
 * `natrOut`, when given, receives ATR / close × 100 (0 where close is ~0, as TA-Lib's NATR);
 * `trOut`, when given, receives the true range.
 */
export function atr(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  period: number,
  out: Float64Array,
  n?: number,
  natrOut?: Float64Array,
  trOut?: Float64Array,
): void {
  checkPeriod('atr', period)
  const rows = rowsOf(high, n)
  // the true range goes where it was asked for, else into `out`, smoothed there in place
  const tr = trOut ?? out
  trueRange(high, low, close, tr, rows)
  let sum = 0
  for (let i = 1; i <= period && i < rows; i++) sum += tr[i]
  const warm = Math.min(period, rows)
  fillNaN(out, 0, warm) // after the sum: `out` may be holding the true range
  if (natrOut) fillNaN(natrOut, 0, warm)
  if (period >= rows) return
  const seed = sum / period
  out[period] = seed
  smoothRun(tr, (period - 1) / period, 1 / period, seed, period + 1, rows, out)
  if (natrOut) {
    for (let i = period; i < rows; i++) {
      const c = close[i]
      natrOut[i] = isTaZero(c) ? 0 : (out[i] / c) * 100
    }
  }
}

/** Normalised ATR: ATR / close × 100 (TA-Lib NATR). */
export function natr(high: Float64Array, low: Float64Array, close: Float64Array, period: number, out: Float64Array, n?: number): void {
  const rows = rowsOf(high, n)
  atr(high, low, close, period, new Float64Array(rows), rows, out)
}

/**
 * ATR ratio, the `min_vol_regime` filter: ATR(period) divided by the mean of the last
 * `meanPeriod` ATR values (the current one included). Above 1: volatility above its recent
 * average. First value at row period + meanPeriod − 1. `atrOut`, when given, receives the ATR.
 */
export function atrRatio(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  period: number,
  meanPeriod: number,
  out: Float64Array,
  n?: number,
  atrOut?: Float64Array,
): void {
  const rows = rowsOf(high, n)
  const range = atrOut ?? new Float64Array(rows)
  atr(high, low, close, period, range, rows)
  ratioToMean(range, meanPeriod, out, rows)
}
