import { checkPeriod, fillNaN, rowsOf } from './util'
import { indexScratch } from './rolling-extremes'

/**
 * Aroon as TA-Lib: over the last period + 1 bars (the current one included),
 * up = 100 / period · (period − bars since the highest high), down likewise with the lowest
 * low; on ties the most recent bar counts. Values run 0..100; first value at row `period`.
 *
 * The extremes are van Herk / Gil-Werman's, as in rolling-extremes.ts (blocks of w = period + 1 bars,
 * a window is a block's suffix joined with the next block's prefix, branch-free index selects
 * with integer masks, ties to the later bar), but in a form of Aroon's own, in two passes per
 * side. The first writes the suffix extreme (index) of every complete block, four blocks at a
 * time (four independent chains). The second runs the prefix extremes of four blocks at a time,
 * joins each with the suffix of its window's first row and writes the output straight away: no
 * index column and no output pass. The measured alternatives and their times are in
 * docs/benchmarks.md (Indicators).
 * Every value is an exact integer age times the factor, so a row's value is the same wherever
 * the series ends; a block's suffix reads no row past the block, which ends at or before the
 * last row of the first window that uses it. A NaN never wins a comparison (the extreme of a
 * window holding one is unspecified, as in rolling-extremes.ts).
 */
export function aroon(
  high: Float64Array,
  low: Float64Array,
  period: number,
  outUp: Float64Array,
  outDown: Float64Array,
  n?: number,
): void {
  checkPeriod('aroon', period, 2)
  const rows = rowsOf(high, n)
  fillNaN(outUp, 0, Math.min(period, rows))
  fillNaN(outDown, 0, Math.min(period, rows))
  if (period >= rows) return
  const factor = 100 / period
  const at = indexScratch(0, rows) // block suffix indices, one side at a time
  // the window is period + 1 bars: the first value is at row `period`
  suffixHighs(high, period + 1, rows, at)
  upFromPrefixes(high, period, rows, at, outUp, factor)
  suffixLows(low, period + 1, rows, at)
  downFromPrefixes(low, period, rows, at, outDown, factor)
}

/**
 * For every complete block [b, b + w) (b = 0, w, 2w …, b + w ≤ rows) and row j in it:
 * at[j] = index of the highest of src[j .. b + w − 1] (strictly: on a tie the later bar stays).
 * Four blocks per round: their chains (select, then reload the value at the selected index)
 * are independent, so each one's latency hides behind the others'.
 */
function suffixHighs(src: Float64Array, w: number, rows: number, at: Int32Array): void {
  let b = 0
  for (; b + 4 * w <= rows; b += 4 * w) {
    let s0 = b + w - 1
    let s1 = s0 + w
    let s2 = s1 + w
    let s3 = s2 + w
    let v0 = src[s0]
    let v1 = src[s1]
    let v2 = src[s2]
    let v3 = src[s3]
    at[s0] = s0
    at[s1] = s1
    at[s2] = s2
    at[s3] = s3
    for (let j = b + w - 2; j >= b; j--) {
      const j1 = j + w
      const j2 = j1 + w
      const j3 = j2 + w
      s0 ^= (s0 ^ j) & -(src[j] > v0)
      v0 = src[s0]
      at[j] = s0
      s1 ^= (s1 ^ j1) & -(src[j1] > v1)
      v1 = src[s1]
      at[j1] = s1
      s2 ^= (s2 ^ j2) & -(src[j2] > v2)
      v2 = src[s2]
      at[j2] = s2
      s3 ^= (s3 ^ j3) & -(src[j3] > v3)
      v3 = src[s3]
      at[j3] = s3
    }
  }
  for (; b + w <= rows; b += w) {
    let s0 = b + w - 1
    let v0 = src[s0]
    at[s0] = s0
    for (let j = b + w - 2; j >= b; j--) {
      s0 ^= (s0 ^ j) & -(src[j] > v0)
      v0 = src[s0]
      at[j] = s0
    }
  }
}

/**
 * out[i] for i = period .. rows − 1. Row i lies in block [b, b + w), w = period + 1, and its
 * window starts at k = i − period: the window is the suffix of k's block (at[k], src[a0]) joined
 * with the prefix b .. i (for i = b + period both are the block itself). The prefix is later: it
 * wins ties. The age of the extreme is i − index, so out = factor · (period − age) =
 * factor · (index − k). Four blocks per round, as in suffixHighs.
 */
function upFromPrefixes(
  src: Float64Array,
  period: number,
  rows: number,
  at: Int32Array,
  out: Float64Array,
  factor: number,
): void {
  const w = period + 1
  out[period] = factor * at[0] // the first window is block 0 itself
  let b = w
  for (; b + 4 * w <= rows; b += 4 * w) {
    let q0 = b
    let x0 = src[q0]
    let q1 = b + w
    let x1 = src[q1]
    let q2 = q1 + w
    let x2 = src[q2]
    let q3 = q2 + w
    let x3 = src[q3]
    for (let i = b; i < b + w; i++) {
      const k = i - period
      q0 ^= (q0 ^ i) & -(src[i] >= x0)
      x0 = src[q0]
      const a0 = at[k]
      out[i] = factor * ((a0 ^ ((a0 ^ q0) & -(x0 >= src[a0]))) - k)
      const i1 = i + w
      const k1 = k + w
      q1 ^= (q1 ^ i1) & -(src[i1] >= x1)
      x1 = src[q1]
      const a1 = at[k1]
      out[i1] = factor * ((a1 ^ ((a1 ^ q1) & -(x1 >= src[a1]))) - k1)
      const i2 = i1 + w
      const k2 = k1 + w
      q2 ^= (q2 ^ i2) & -(src[i2] >= x2)
      x2 = src[q2]
      const a2 = at[k2]
      out[i2] = factor * ((a2 ^ ((a2 ^ q2) & -(x2 >= src[a2]))) - k2)
      const i3 = i2 + w
      const k3 = k2 + w
      q3 ^= (q3 ^ i3) & -(src[i3] >= x3)
      x3 = src[q3]
      const a3 = at[k3]
      out[i3] = factor * ((a3 ^ ((a3 ^ q3) & -(x3 >= src[a3]))) - k3)
    }
  }
  for (; b < rows; b += w) {
    const end = Math.min(b + w, rows)
    let q0 = b
    let x0 = src[q0]
    for (let i = b; i < end; i++) {
      const k = i - period
      q0 ^= (q0 ^ i) & -(src[i] >= x0)
      x0 = src[q0]
      const a0 = at[k]
      out[i] = factor * ((a0 ^ ((a0 ^ q0) & -(x0 >= src[a0]))) - k)
    }
  }
}

/**
 * suffixHighs for the lowest low: the mirror, comparisons reversed. Written twice, as rolling-extremes.ts's
 * max/min kernels are: the low side as the high side of a negated copy of the lows would add a
 * pass (≈ 0.4 ns per bar, 5 % of the kernel, most of its margin over 3× the library), and a
 * comparison passed in as a flag or function costs more inside these loops.
 */
function suffixLows(src: Float64Array, w: number, rows: number, at: Int32Array): void {
  let b = 0
  for (; b + 4 * w <= rows; b += 4 * w) {
    let s0 = b + w - 1
    let s1 = s0 + w
    let s2 = s1 + w
    let s3 = s2 + w
    let v0 = src[s0]
    let v1 = src[s1]
    let v2 = src[s2]
    let v3 = src[s3]
    at[s0] = s0
    at[s1] = s1
    at[s2] = s2
    at[s3] = s3
    for (let j = b + w - 2; j >= b; j--) {
      const j1 = j + w
      const j2 = j1 + w
      const j3 = j2 + w
      s0 ^= (s0 ^ j) & -(src[j] < v0)
      v0 = src[s0]
      at[j] = s0
      s1 ^= (s1 ^ j1) & -(src[j1] < v1)
      v1 = src[s1]
      at[j1] = s1
      s2 ^= (s2 ^ j2) & -(src[j2] < v2)
      v2 = src[s2]
      at[j2] = s2
      s3 ^= (s3 ^ j3) & -(src[j3] < v3)
      v3 = src[s3]
      at[j3] = s3
    }
  }
  for (; b + w <= rows; b += w) {
    let s0 = b + w - 1
    let v0 = src[s0]
    at[s0] = s0
    for (let j = b + w - 2; j >= b; j--) {
      s0 ^= (s0 ^ j) & -(src[j] < v0)
      v0 = src[s0]
      at[j] = s0
    }
  }
}

/** upFromPrefixes for the lowest low: the mirror, comparisons reversed. */
function downFromPrefixes(
  src: Float64Array,
  period: number,
  rows: number,
  at: Int32Array,
  out: Float64Array,
  factor: number,
): void {
  const w = period + 1
  out[period] = factor * at[0]
  let b = w
  for (; b + 4 * w <= rows; b += 4 * w) {
    let q0 = b
    let x0 = src[q0]
    let q1 = b + w
    let x1 = src[q1]
    let q2 = q1 + w
    let x2 = src[q2]
    let q3 = q2 + w
    let x3 = src[q3]
    for (let i = b; i < b + w; i++) {
      const k = i - period
      q0 ^= (q0 ^ i) & -(src[i] <= x0)
      x0 = src[q0]
      const a0 = at[k]
      out[i] = factor * ((a0 ^ ((a0 ^ q0) & -(x0 <= src[a0]))) - k)
      const i1 = i + w
      const k1 = k + w
      q1 ^= (q1 ^ i1) & -(src[i1] <= x1)
      x1 = src[q1]
      const a1 = at[k1]
      out[i1] = factor * ((a1 ^ ((a1 ^ q1) & -(x1 <= src[a1]))) - k1)
      const i2 = i1 + w
      const k2 = k1 + w
      q2 ^= (q2 ^ i2) & -(src[i2] <= x2)
      x2 = src[q2]
      const a2 = at[k2]
      out[i2] = factor * ((a2 ^ ((a2 ^ q2) & -(x2 <= src[a2]))) - k2)
      const i3 = i2 + w
      const k3 = k2 + w
      q3 ^= (q3 ^ i3) & -(src[i3] <= x3)
      x3 = src[q3]
      const a3 = at[k3]
      out[i3] = factor * ((a3 ^ ((a3 ^ q3) & -(x3 <= src[a3]))) - k3)
    }
  }
  for (; b < rows; b += w) {
    const end = Math.min(b + w, rows)
    let q0 = b
    let x0 = src[q0]
    for (let i = b; i < end; i++) {
      const k = i - period
      q0 ^= (q0 ^ i) & -(src[i] <= x0)
      x0 = src[q0]
      const a0 = at[k]
      out[i] = factor * ((a0 ^ ((a0 ^ q0) & -(x0 <= src[a0]))) - k)
    }
  }
}
