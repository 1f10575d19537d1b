import { REANCHOR_BARS } from './ma'
import { checkPeriod, fillNaN, firstValid, rowsOf } from './util'

/*
 * Window mean and population standard deviation, carried bar to bar as sums of deviations
 * from an anchor K and of their squares. Sums of (x - K) and (x - K)^2 avoid the cancellation
 * of sum(x^2) - n*mean^2 as long as K stays near the window mean, so the anchor is reset
 * (sums rebuilt from scratch, K = the window mean) every REANCHOR_BARS bars and whenever the
 * mean has moved more than MAX_DRIFT_SD standard deviations away from K. The relative error of
 * the variance is then at most about REANCHOR_BARS · (1 + MAX_DRIFT_SD²) · 2^-53 ≈ 2e-12.
 */
const MAX_DRIFT_SD = 8
const MAX_DRIFT_SQ = MAX_DRIFT_SD * MAX_DRIFT_SD

/** anchor state: [K, sum(x-K), sum((x-K)^2)] of src[lo..hi] */
const anchorState = new Float64Array(3)

function anchorAt(src: Float64Array, lo: number, hi: number, inv: number): void {
  let sum = 0
  for (let j = lo; j <= hi; j++) sum += src[j]
  const k = sum * inv
  let dev = 0
  let sq = 0
  for (let j = lo; j <= hi; j++) {
    const d = src[j] - k
    dev += d
    sq += d * d
  }
  anchorState[0] = k
  anchorState[1] = dev
  anchorState[2] = sq
}

/**
 * Bollinger bands: outMid = SMA(period), outUpper/outLower = mid ± k · σ with σ the
 * population standard deviation (÷ period) of the same window, or with `ddof` 1 the
 * sample one (÷ (period − 1), the pandas `rolling.std()` of the named strategies' page).
 * Leading NaNs are skipped; a window holding a NaN gives NaN.
 */
export function bollinger(
  src: Float64Array,
  period: number,
  k: number,
  outMid: Float64Array,
  outUpper: Float64Array,
  outLower: Float64Array,
  n?: number,
  ddof: 0 | 1 = 0,
): void {
  checkPeriod('bollinger', period, 1 + ddof)
  const rows = rowsOf(src, n)
  let i = firstValid(src, rows) + period - 1
  const warm = Math.min(i, rows)
  fillNaN(outMid, 0, warm)
  fillNaN(outUpper, 0, warm)
  fillNaN(outLower, 0, warm)
  const inv = 1 / period
  // σ² ÷ (period − 1) is the population σ² times period / (period − 1)
  const k2 = ddof === 1 ? (k * k * period) / (period - 1) : k * k
  while (i < rows) {
    anchorAt(src, i - period + 1, i, inv)
    const anchor = anchorState[0]
    let dev = anchorState[1]
    let sq = anchorState[2]
    let m = dev * inv
    let v = sq * inv - m * m
    let band = Math.sqrt(v > 0 ? k2 * v : 0)
    outMid[i] = anchor + m
    outUpper[i] = anchor + m + band
    outLower[i] = anchor + m - band
    const end = Math.min(rows, i + REANCHOR_BARS)
    for (i++; i < end; i++) {
      const dNew = src[i] - anchor
      const dOld = src[i - period] - anchor
      const step = dNew - dOld
      dev += step
      sq += step * (dNew + dOld)
      m = dev * inv
      v = sq * inv - m * m
      // re-anchor on this bar when the mean drifted too far (also when v or m is NaN)
      if (!(m * m <= MAX_DRIFT_SQ * v)) break
      band = Math.sqrt(v > 0 ? k2 * v : 0)
      const mid = anchor + m
      outMid[i] = mid
      outUpper[i] = mid + band
      outLower[i] = mid - band
    }
  }
}

/** Population standard deviation (÷ period) of the last `period` values; same method as bollinger. */
export function stddev(src: Float64Array, period: number, out: Float64Array, n?: number): void {
  checkPeriod('stddev', period)
  const rows = rowsOf(src, n)
  let i = firstValid(src, rows) + period - 1
  fillNaN(out, 0, Math.min(i, rows))
  const inv = 1 / period
  while (i < rows) {
    anchorAt(src, i - period + 1, i, inv)
    const anchor = anchorState[0]
    let dev = anchorState[1]
    let sq = anchorState[2]
    let m = dev * inv
    let v = sq * inv - m * m
    out[i] = v > 0 ? Math.sqrt(v) : v === v ? 0 : NaN
    const end = Math.min(rows, i + REANCHOR_BARS)
    for (i++; i < end; i++) {
      const dNew = src[i] - anchor
      const dOld = src[i - period] - anchor
      const step = dNew - dOld
      dev += step
      sq += step * (dNew + dOld)
      m = dev * inv
      v = sq * inv - m * m
      if (!(m * m <= MAX_DRIFT_SQ * v)) break
      out[i] = v > 0 ? Math.sqrt(v) : 0
    }
  }
}
