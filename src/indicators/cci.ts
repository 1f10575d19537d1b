import { REANCHOR_BARS, sma } from './ma'
import { checkPeriod, fillNaN, floatScratch, rowsOf } from './util'

/**
 * Commodity channel index as TA-Lib: tp = (h + l + c) / 3,
 * CCI = (tp − mean tp) / (0.015 · mean |tp − mean tp|) over the last `period` bars,
 * 0 when either factor is 0. First value at row period − 1.
 *
 * The ratio does not change when every typical price is scaled, so the kernel works on
 * h + l + c (three times tp) and saves a division per bar (about 8 % of the kernel); it
 * differs from TA-Lib's by the rounding of that division, a few ulps.
 * The typical prices are computed once into a scratch column; their mean is carried as sma
 * carries it (exact to a few ulps). The mean absolute deviation has no running form, so it is
 * summed over the window on every bar: a subtraction and an addition per row and bar, which
 * keeps the two floating-point adders of the CPU busy for about 20 of the kernel's ~28 cycles
 * per bar at period 20 (the rest: typical prices, means, the division). Five consecutive bars
 * are summed in one pass, since they share period − 4 typical prices (one load serves five
 * sums); five rather than four saves ~3 %, six or more run out of registers in Bun's JIT and
 * take 1.7× longer. Each bar's sum is taken in the same order wherever the series ends, so a
 * row's value never depends on later rows (times and the forms tried: docs/benchmarks.md).
 * Ruled out for exactness:
 * taking Σ|x − m| of the five bars from one reference mean with a sign count (x − m_k =
 * (x − m_0) − δ_k when x is not between the means): which rows are "between" depends on the
 * later bars' means, so the earlier bars' rounding would depend on later rows; 15 % of rows
 * are between on this data anyway. The division is free (the adders bound the kernel):
 * replacing it by a multiplication measured the same.
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
  // 4 slack rows: the last block of five may read typical prices past `rows` for bars it
  // does not write out
  const tp = floatScratch(0, rows + 4)
  // 3 · tp (see above), last row first: in Bun's JIT this loop ran ~0.2 ns per bar faster
  // backwards than forwards (0.82 against 1.0, measured alone and inside the kernel)
  for (let j = rows - 1; j >= 0; j--) tp[j] = high[j] + low[j] + close[j]
  tp[rows] = tp[rows + 1] = tp[rows + 2] = tp[rows + 3] = 0
  const scale = period / 0.015 // spread / (0.015 · sum / period) = spread / sum · scale
  const inv = 1 / period
  if (period < 5) {
    // too short for five bars to share a row: one window at a time
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
  for (let i = period - 1; i < rows; i += 5) {
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
    const d4 = d3 + (tp[i + 4] - tp[lo + 3])
    const m0 = anchor + dev * inv
    const m1 = anchor + d1 * inv
    const m2 = anchor + d2 * inv
    const m3 = anchor + d3 * inv
    const m4 = anchor + d4 * inv
    dev = d4
    sinceBuilt += 5
    // bar k's window is lo + k .. i + k. Rows lo .. lo + 3 open the windows of bars 0 .. 3
    // (each sum starts with its first row rather than with 0), rows lo + 4 .. i lie in all
    // five, rows i + 1 .. i + 4 close the windows of bars 1 .. 4
    const x0 = tp[lo]
    const x1 = tp[lo + 1]
    const x2 = tp[lo + 2]
    const x3 = tp[lo + 3]
    let a0 = Math.abs(x0 - m0) + Math.abs(x1 - m0) + Math.abs(x2 - m0) + Math.abs(x3 - m0)
    let a1 = Math.abs(x1 - m1) + Math.abs(x2 - m1) + Math.abs(x3 - m1)
    let a2 = Math.abs(x2 - m2) + Math.abs(x3 - m2)
    let a3 = Math.abs(x3 - m3)
    let a4 = 0
    for (let j = lo + 4; j < i; j++) {
      const x = tp[j]
      a0 += Math.abs(x - m0)
      a1 += Math.abs(x - m1)
      a2 += Math.abs(x - m2)
      a3 += Math.abs(x - m3)
      a4 += Math.abs(x - m4)
    }
    // a bar's own row closes its window, and its deviation there is the spread: one
    // subtraction serves both
    const y0 = tp[i]
    const y1 = tp[i + 1]
    const y2 = tp[i + 2]
    const y3 = tp[i + 3]
    const y4 = tp[i + 4]
    const e0 = y0 - m0
    const e1 = y1 - m1
    const e2 = y2 - m2
    const e3 = y3 - m3
    const e4 = y4 - m4
    a0 += Math.abs(e0)
    a1 += Math.abs(y0 - m1) + Math.abs(e1)
    a2 += Math.abs(y0 - m2) + Math.abs(y1 - m2) + Math.abs(e2)
    a3 += Math.abs(y0 - m3) + Math.abs(y1 - m3) + Math.abs(y2 - m3) + Math.abs(e3)
    a4 += Math.abs(y0 - m4) + Math.abs(y1 - m4) + Math.abs(y2 - m4) + Math.abs(y3 - m4) + Math.abs(e4)
    out[i] = deviationRatio(e0, a0, scale)
    if (i + 4 < rows) {
      out[i + 1] = deviationRatio(e1, a1, scale)
      out[i + 2] = deviationRatio(e2, a2, scale)
      out[i + 3] = deviationRatio(e3, a3, scale)
      out[i + 4] = deviationRatio(e4, a4, scale)
    } else {
      if (i + 1 < rows) out[i + 1] = deviationRatio(e1, a1, scale)
      if (i + 2 < rows) out[i + 2] = deviationRatio(e2, a2, scale)
      if (i + 3 < rows) out[i + 3] = deviationRatio(e3, a3, scale)
    }
  }
}

/**
 * spread / (0.015 · sum / period), 0 when either is 0 (TA-Lib). A zero sum means every row of
 * the window equals the mean, the bar's own row too, so the spread is 0 as well and one test
 * covers both.
 */
function deviationRatio(spread: number, sum: number, scale: number): number {
  return sum !== 0 ? (spread / sum) * scale : 0
}
