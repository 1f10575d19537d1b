import { checkPeriod, fillNaN, firstValid, rowsOf } from './util'

/**
 * How many bars a window sum is carried forward by add-new/subtract-old before it is summed
 * again from scratch. Each carried step can add half an ulp of the (small, anchored) sum, so
 * 256 steps keep the mean within a few ulps of an exact per-window sum, at ~1 extra add per bar.
 */
export const REANCHOR_BARS = 256

/**
 * Simple moving average: out[i] = mean(src[i-period+1 .. i]).
 *
 * Exact on long series: the window is summed relative to an anchor K (the mean of the window
 * where the block starts), so the carried sum holds only small deviations, and it is rebuilt
 * from scratch every REANCHOR_BARS bars, so rounding never piles up past a few ulps (a plain
 * running sum drifts with the series length). Leading NaNs are skipped: the first value is at
 * firstValid + period - 1. A window that contains a NaN gives NaN.
 */
export function sma(src: Float64Array, period: number, out: Float64Array, n?: number): void {
  checkPeriod('sma', period)
  const rows = rowsOf(src, n)
  if (period === 1) {
    // carried differences would telescope with rounding; a window of one is the value itself
    out.set(src.subarray(0, rows))
    return
  }
  let i = firstValid(src, rows) + period - 1
  fillNaN(out, 0, Math.min(i, rows))
  const inv = 1 / period
  while (i < rows) {
    const lo = i - period + 1
    let sum = 0
    for (let j = lo; j <= i; j++) sum += src[j]
    const anchor = sum * inv
    let dev = 0 // sum over the window of (x - anchor)
    for (let j = lo; j <= i; j++) dev += src[j] - anchor
    out[i] = anchor + dev * inv
    i++
    if (dev !== dev) continue // a NaN in the window: sum the next one afresh too
    const end = Math.min(rows, i + REANCHOR_BARS - 1)
    // four bars per step so the carried sum has one add per four bars on its critical path
    for (; i + 3 < end; i += 4) {
      const d1 = src[i] - src[i - period]
      const d12 = d1 + (src[i + 1] - src[i + 1 - period])
      const d123 = d12 + (src[i + 2] - src[i + 2 - period])
      const d1234 = d123 + (src[i + 3] - src[i + 3 - period])
      out[i] = anchor + (dev + d1) * inv
      out[i + 1] = anchor + (dev + d12) * inv
      out[i + 2] = anchor + (dev + d123) * inv
      dev += d1234
      out[i + 3] = anchor + dev * inv
      if (dev !== dev) {
        // a NaN entered: rows from it on hold NaN already; resume with fresh sums
        i += 4
        break
      }
    }
    // the last one to three rows of the block, with the same sums as in a full step, so a
    // row's value never depends on where the series ends
    if (i < end && dev === dev) {
      const d1 = src[i] - src[i - period]
      out[i] = anchor + (dev + d1) * inv
      if (i + 1 < end) {
        const d12 = d1 + (src[i + 1] - src[i + 1 - period])
        out[i + 1] = anchor + (dev + d12) * inv
        if (i + 2 < end) out[i + 2] = anchor + (dev + (d12 + (src[i + 2] - src[i + 2 - period]))) * inv
      }
      i = end
    }
  }
}

/**
 * Continues the recursion p = a·p + b·x over x = src[from..to), writing each p to out (which
 * may be src itself), and returns the last p. Four bars per step: p four bars on is
 * a⁴·p + (terms of the four inputs), so the loop-carried chain is one multiply-add per four
 * bars instead of one per bar. Rounding differs from the one-step form by a few ulps; the
 * grouping starts at `from`, so a row's value is the same whatever `to` is.
 */
export function smoothRun(src: Float64Array, a: number, b: number, p: number, from: number, to: number, out: Float64Array): number {
  const a2 = a * a
  const a3 = a2 * a
  const a4 = a2 * a2
  let i = from
  for (; i + 3 < to; i += 4) {
    const x1 = b * src[i]
    const q2 = a * x1 + b * src[i + 1]
    const q3 = a * q2 + b * src[i + 2]
    const q4 = a * q3 + b * src[i + 3]
    out[i] = a * p + x1
    out[i + 1] = a2 * p + q2
    out[i + 2] = a3 * p + q3
    p = a4 * p + q4
    out[i + 3] = p
  }
  // one to three rows left: the same expressions as in a full step, so a row's value does
  // not depend on where the series ends
  if (i < to) {
    const x1 = b * src[i]
    out[i] = a * p + x1
    if (i + 1 < to) {
      const q2 = a * x1 + b * src[i + 1]
      out[i + 1] = a2 * p + q2
      if (i + 2 < to) out[i + 2] = a3 * p + (a * q2 + b * src[i + 2])
    }
    p = out[to - 1]
  }
  return p
}

/**
 * Exponential moving average as TA-Lib defines it: alpha = 2 / (period + 1), seeded with the
 * SMA of the first `period` values, then p = p + alpha · (x − p). Leading NaNs are skipped
 * (the seed is the first `period` values after them); a NaN after the start poisons the rest.
 */
export function ema(src: Float64Array, period: number, out: Float64Array, n?: number): void {
  checkPeriod('ema', period)
  const rows = rowsOf(src, n)
  emaSeededAt(src, period, firstValid(src, rows) + period - 1, out, rows)
}

/**
 * The bias-corrected exponential mean (pandas `ewm(span=period, adjust=True)`): with
 * w = 1 − 2 / (period + 1), out[i] = Σ w^k · x[i − k] / Σ w^k over every value since the
 * first valid one, carried as num = x + w · num and den = 1 + w · den. The first
 * `period − 1` rows after the first valid value are NaN (pandas' min_periods = span).
 * Unlike the TA-Lib EMA it forgets its start only as fast as w^k, which is why ma-cross,
 * whose rule is written for this form, reads it (docs/strategies.md).
 */
export function emaAdjusted(src: Float64Array, period: number, out: Float64Array, n?: number): void {
  checkPeriod('emaAdjusted', period)
  const rows = rowsOf(src, n)
  const first = firstValid(src, rows)
  const valid = first + period - 1
  fillNaN(out, 0, Math.min(valid, rows))
  const w = 1 - 2 / (period + 1)
  let num = 0
  let den = 0
  for (let i = first; i < rows; i++) {
    num = src[i] + w * num
    den = 1 + w * den
    if (i >= valid) out[i] = num / den
  }
}

/**
 * EMA whose SMA seed is the window ending at `seedEnd` (out[seedEnd] = that SMA); earlier rows
 * are NaN. TA-Lib's MACD seeds its fast EMA this way, so both of its EMAs start on one bar.
 */
export function emaSeededAt(src: Float64Array, period: number, seedEnd: number, out: Float64Array, n: number): void {
  const rows = Math.min(n, src.length)
  fillNaN(out, 0, Math.min(seedEnd, rows))
  if (seedEnd >= rows) return
  let sum = 0
  for (let j = seedEnd - period + 1; j <= seedEnd; j++) sum += src[j]
  const seed = sum / period
  out[seedEnd] = seed
  const alpha = 2 / (period + 1)
  smoothRun(src, 1 - alpha, alpha, seed, seedEnd + 1, rows, out)
}

/**
 * Ratio of each value to the mean of its window: out[i] = src[i] / mean(src[i-period+1 .. i]).
 * NaN during warm-up and where the mean is 0 (the mean is computed as sma does). `out` must
 * not be `src`.
 */
export function ratioToMean(src: Float64Array, period: number, out: Float64Array, n?: number): void {
  const rows = rowsOf(src, n)
  sma(src, period, out, rows)
  // a window of zeros (no volume for `period` bars) must read as mean 0 even when the carried
  // sum left a rounding residue, so the window's non-zero values are counted
  let nonZero = 0
  for (let i = 0; i < rows; i++) {
    nonZero += +(src[i] !== 0)
    if (i >= period) nonZero -= +(src[i - period] !== 0)
    const m = out[i]
    out[i] = m === 0 || nonZero === 0 ? NaN : src[i] / m
  }
}
