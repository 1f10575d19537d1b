import { checkPeriod, fillNaN, rowsOf } from './util'

/**
 * Rate of change in percent, as TA-Lib ROC: 100 · (x[i] / x[i − period] − 1), 0 when the old
 * value is 0. First value at row `period`.
 *
 * Computed as (x[i] − old) · (100 / old), with the reciprocals of four consecutive old values
 * from one division: 1/a = b·c·d / (a·b·c·d) and so on (a few ulps, far inside TA-Lib
 * agreement). A division costs several multiplications' time, and ROC is little else. The
 * four old values of a step are all in the past of its first row, so the last, partial step
 * computes its rows exactly as a full one would: a row's value never depends on where the
 * series ends. Periods under 4, and steps with a pair product outside [1e-150, 1e150] (a zero,
 * negative or extreme old value, where the product could lose precision) take the plain
 * division.
 */
export function roc(src: Float64Array, period: number, out: Float64Array, n?: number): void {
  checkPeriod('roc', period)
  const rows = rowsOf(src, n)
  fillNaN(out, 0, Math.min(period, rows))
  if (period < 4) {
    for (let i = period; i < rows; i++) out[i] = plainRoc(src[i], src[i - period])
    return
  }
  let i = period
  for (; i + 3 < rows; i += 4) rocStep(src, period, out, i, 4)
  if (i < rows) rocStep(src, period, out, i, rows - i)
}

/** Rows i .. i + count − 1 (count ≤ 4): one division serves four rows. */
function rocStep(src: Float64Array, period: number, out: Float64Array, i: number, count: number): void {
  const a = src[i - period]
  const b = src[i - period + 1]
  const c = src[i - period + 2]
  const d = src[i - period + 3]
  const ab = a * b
  const cd = c * d
  if (ab > 1e-150 && ab < 1e150 && cd > 1e-150 && cd < 1e150) {
    const inv = 100 / (ab * cd)
    const invAb = inv * cd // 100 / (a·b)
    const invCd = inv * ab
    out[i] = (src[i] - a) * (invAb * b)
    if (count > 1) out[i + 1] = (src[i + 1] - b) * (invAb * a)
    if (count > 2) out[i + 2] = (src[i + 2] - c) * (invCd * d)
    if (count > 3) out[i + 3] = (src[i + 3] - d) * (invCd * c)
  } else {
    for (let k = i; k < i + count; k++) out[k] = plainRoc(src[k], src[k - period])
  }
}

function plainRoc(x: number, old: number): number {
  return old !== 0 ? (x / old - 1) * 100 : 0
}
