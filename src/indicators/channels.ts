import { atr } from './atr'
import { ema } from './ma'
import { rollingMax, rollingMin } from './rolling-extremes'
import { fillNaN, rowsOf } from './util'

/**
 * Donchian channel: upper = highest high and lower = lowest low of the last `period` bars
 * (the current one included), mid = their mean. First value at row period − 1.
 */
export function donchian(
  high: Float64Array,
  low: Float64Array,
  period: number,
  outUpper: Float64Array,
  outLower: Float64Array,
  outMid: Float64Array,
  n?: number,
  /** compute the upper / lower side (mid needs both; a side left out is not written) */
  upper = true,
  lower = true,
): void {
  const rows = rowsOf(high, n)
  if (upper) rollingMax(high, period, outUpper, rows)
  if (lower) rollingMin(low, period, outLower, rows)
  if (upper && lower) for (let i = 0; i < rows; i++) outMid[i] = (outUpper[i] + outLower[i]) / 2
}

/**
 * Previous Donchian channel: highest high / lowest low of the `period` bars before the current
 * one (rows i−period .. i−1), the level a breakout close is compared with. First value at
 * row `period`.
 */
export function donchianPrev(
  high: Float64Array,
  low: Float64Array,
  period: number,
  outUpperPrev: Float64Array,
  outLowerPrev: Float64Array,
  n?: number,
  /** compute the upper / lower side (a side left out is not written) */
  upper = true,
  lower = true,
): void {
  const rows = rowsOf(high, n)
  if (upper) rollingMax(high, period, outUpperPrev, rows, 1)
  if (lower) rollingMin(low, period, outLowerPrev, rows, 1)
}

/**
 * Keltner channel (the EMA/ATR form): mid = EMA(period) of close, upper/lower = mid ± mult ·
 * ATR(atrPeriod) (Wilder, as atr()). First value at row max(period − 1, atrPeriod).
 */
export function keltner(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  period: number,
  atrPeriod: number,
  mult: number,
  outUpper: Float64Array,
  outLower: Float64Array,
  outMid: Float64Array,
  n?: number,
): void {
  const rows = rowsOf(close, n)
  atr(high, low, close, atrPeriod, outUpper, rows) // the ATR waits in outUpper
  ema(close, period, outMid, rows)
  for (let i = 0; i < rows; i++) {
    const band = mult * outUpper[i]
    outUpper[i] = outMid[i] + band
    outLower[i] = outMid[i] - band
  }
  // mid alone could start before the ATR: keep all three on one first row
  const first = Math.max(period - 1, atrPeriod)
  fillNaN(outMid, 0, Math.min(first, rows))
}
