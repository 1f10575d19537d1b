import { REANCHOR_BARS, sma } from './ma'
import { checkPeriod, fillNaN, floatScratch, rowsOf } from './util'

/**
 * Commodity channel index as TA-Lib: tp = (h + l + c) / 3,
 * CCI = (tp − mean tp) / (0.015 · mean |tp − mean tp|) over the last `period` bars,
 * 0 when either factor is 0. First value at row period − 1.
 *
 * The typical prices are computed once into a scratch column; their mean is carried as sma
 * carries it (exact to a few ulps). The mean absolute deviation has no running form, so it is
 * summed over the window on every bar; four consecutive bars are summed in one pass, since
 * they share period − 3 typical prices (one load serves four sums). Each bar's sum is taken in
 * the same order wherever the series ends, so a row's value never depends on later rows.
 */
export function cci(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  period: number,
  out: Float64Array,
  n?: number,
): void {
  checkPeriod('cci', period, 2)
  const rows = rowsOf(close, n)
  fillNaN(out, 0, Math.min(period - 1, rows))
  if (period > rows) return
  // 3 slack rows: the last block of four may read typical prices past `rows` for bars it
  // does not write out
  const tp = floatScratch(0, rows + 3)
  for (let j = 0; j < rows; j++) tp[j] = (high[j] + low[j] + close[j]) / 3
  tp[rows] = tp[rows + 1] = tp[rows + 2] = 0
  const scale = period / 0.015 // spread / (0.015 · sum / period) = spread / sum · scale
  const inv = 1 / period
  if (period < 3) {
    // too short for four bars to share a row: one window at a time
    sma(tp, period, out, rows)
    for (let i = period - 1; i < rows; i++) {
      const m = out[i]
      let sum = 0
      for (let j = i - period + 1; j <= i; j++) sum += Math.abs(tp[j] - m)
      out[i] = deviationRatio(tp[i] - m, sum, scale)
    }
    return
  }
  // the mean is carried as sma carries it: deviations from an anchor (the mean of the window
  // where the sum was last taken afresh), summed afresh every REANCHOR_BARS bars
  let anchor = 0
  let dev = NaN
  let sinceBuilt = 0
  for (let i = period - 1; i < rows; i += 4) {
    const lo = i - period + 1
    if (dev !== dev || sinceBuilt >= REANCHOR_BARS) {
      let sum = 0
      for (let j = lo; j <= i; j++) sum += tp[j]
      anchor = sum * inv
      dev = 0
      for (let j = lo; j <= i; j++) dev += tp[j] - anchor
      sinceBuilt = 0
    } else {
      dev += tp[i] - tp[lo - 1]
    }
    // rows past the end read the zeroed slack: their means are never used for a written row
    const d1 = dev + (tp[i + 1] - tp[lo])
    const d2 = d1 + (tp[i + 2] - tp[lo + 1])
    const d3 = d2 + (tp[i + 3] - tp[lo + 2])
    const m0 = anchor + dev * inv
    const m1 = anchor + d1 * inv
    const m2 = anchor + d2 * inv
    const m3 = anchor + d3 * inv
    dev = d3
    sinceBuilt += 4
    // rows lo + 3 .. i lie in all four windows (none when period is 3); bar k adds rows
    // lo + k .. lo + 2 before them and i + 1 .. i + k after
    let a0 = 0
    let a1 = 0
    let a2 = 0
    let a3 = 0
    for (let j = lo + 3; j <= i; j++) {
      const x = tp[j]
      a0 += Math.abs(x - m0)
      a1 += Math.abs(x - m1)
      a2 += Math.abs(x - m2)
      a3 += Math.abs(x - m3)
    }
    const x0 = tp[lo]
    const x1 = tp[lo + 1]
    const x2 = tp[lo + 2]
    const y0 = tp[i]
    const y1 = tp[i + 1]
    const y2 = tp[i + 2]
    const y3 = tp[i + 3]
    a0 += Math.abs(x0 - m0) + Math.abs(x1 - m0) + Math.abs(x2 - m0)
    out[i] = deviationRatio(y0 - m0, a0, scale)
    if (i + 1 >= rows) break
    a1 += Math.abs(x1 - m1) + Math.abs(x2 - m1) + Math.abs(y1 - m1)
    out[i + 1] = deviationRatio(y1 - m1, a1, scale)
    if (i + 2 >= rows) break
    a2 += Math.abs(x2 - m2) + Math.abs(y1 - m2) + Math.abs(y2 - m2)
    out[i + 2] = deviationRatio(y2 - m2, a2, scale)
    if (i + 3 >= rows) break
    a3 += Math.abs(y1 - m3) + Math.abs(y2 - m3) + Math.abs(y3 - m3)
    out[i + 3] = deviationRatio(y3 - m3, a3, scale)
  }
}

/** spread / (0.015 · sum / period), 0 when either is 0 (TA-Lib) */
function deviationRatio(spread: number, sum: number, scale: number): number {
  return spread !== 0 && sum !== 0 ? (spread / sum) * scale : 0
}
