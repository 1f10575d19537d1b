import { checkPeriod, fillNaN, rowsOf } from './util'

/**
 * Rate of change in percent, as TA-Lib ROC: 100 · (x[i] / x[i − period] − 1), 0 when the old
 * value is 0. First value at row `period`.
 */
export function roc(src: Float64Array, period: number, out: Float64Array, n?: number): void {
  checkPeriod('roc', period)
  const rows = rowsOf(src, n)
  fillNaN(out, 0, Math.min(period, rows))
  for (let i = period; i < rows; i++) {
    const old = src[i - period]
    out[i] = old !== 0 ? (src[i] / old - 1) * 100 : 0
  }
}
