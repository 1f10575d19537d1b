import { checkPeriod, fillNaN, rowsOf } from './util'

/*
 * Rolling extremes by van Herk / Gil-Werman: cut the series into blocks of `period` bars
 * (the first block ends at the first window's last bar). A window then covers the tail of one
 * block and the head of the next, so its extreme is the better of that block's suffix extreme
 * and the next block's prefix extreme: three comparisons per bar whatever the period.
 * Every comparison picks an index with integer masks (m = −(a ≥ b), i = i ^ ((i ^ j) & m))
 * instead of a branch: on market data "is this bar a new high" is close to a coin toss, and
 * a mispredicted branch costs more than the whole branch-free step (the TA-Lib scan, which
 * rescans the window when its extreme leaves it, measured 1.3–1.5× slower for that reason).
 * Ties go to the most recent bar, as in TA-Lib. The two index kernels below are the only
 * copies of this scan for values: rolling highs/lows (channels, Ichimoku) use them; stochastic,
 * Williams %R and Stoch RSI take the value kernel, coverWindows, further down, and Aroon has a
 * two-pass form of the same blocks of its own (aroon.ts). A NaN never wins a comparison; the
 * extreme of a window holding one is unspecified (inputs are finite after their first valid
 * row).
 */

/** Suffix extremes (indices) of up to four blocks, reused. */
let blockAt: Int32Array[] = [0, 1, 2, 3].map(() => new Int32Array(64))

function blockScratch(period: number): void {
  if (blockAt[0].length < period) blockAt = [0, 1, 2, 3].map(() => new Int32Array(period))
}

/**
 * outIdx[i] = index of the highest of src[i-period+1 .. i], for rows `from` .. rows − 1
 * (from ≥ period − 1). Rows before `from` are left as they are.
 */
export function rollingMaxIndex(src: Float64Array, period: number, outIdx: Int32Array, from: number, rows: number): void {
  if (from >= rows) return
  if (period === 1) {
    for (let i = from; i < rows; i++) outIdx[i] = i
    return
  }
  const p = period
  blockScratch(p)
  let suf = blockAt[0]
  let next = blockAt[1]
  // suffix extremes of the block [b0, b0 + p): suf[t] = argmax of src[b0 + t .. b0 + p − 1]
  let b0 = from - p + 1
  let s = b0 + p - 1
  let sv = src[s]
  suf[p - 1] = s
  for (let t = p - 2; t >= 0; t--) {
    const j = b0 + t
    const m = -(src[j] > sv) // strictly: on a tie the later bar stays
    s ^= (s ^ j) & m
    sv = src[s]
    suf[t] = s
  }
  if (b0 + 4 * p <= rows) {
    // Two blocks per round while four more are complete: four independent chains (the
    // prefixes of blocks k and k + 1, the suffixes of blocks k + 1 and k + 2) keep each
    // other's latency off the clock (about 10–20 % faster than one block per round). At the
    // top of a round b0 starts block k − 1, suf holds its suffixes and c those of block k.
    let c = blockAt[2]
    let d = blockAt[3]
    let e = blockAt[1]
    const bk = b0 + p
    s = bk + p - 1
    sv = src[s]
    c[p - 1] = s
    for (let t = p - 2; t >= 0; t--) {
      const j = bk + t
      const m = -(src[j] > sv)
      s ^= (s ^ j) & m
      sv = src[s]
      c[t] = s
    }
    while (b0 + 4 * p <= rows) {
      const b1 = b0 + p
      const b2 = b1 + p
      const b3 = b2 + p
      let q1 = b1
      let q1v = src[b1]
      let q2 = b2
      let q2v = src[b2]
      let s2 = b2 + p - 1
      let s2v = src[s2]
      let s3 = b3 + p - 1
      let s3v = src[s3]
      d[p - 1] = s2
      e[p - 1] = s3
      for (let t = 0; t < p - 1; t++) {
        const i1 = b1 + t
        const m1 = -(src[i1] >= q1v)
        q1 ^= (q1 ^ i1) & m1
        q1v = src[q1]
        const a1 = suf[t + 1]
        const o1 = -(q1v >= src[a1])
        outIdx[i1] = a1 ^ ((a1 ^ q1) & o1)
        const i2 = b2 + t
        const m2 = -(src[i2] >= q2v)
        q2 ^= (q2 ^ i2) & m2
        q2v = src[q2]
        const a2 = c[t + 1]
        const o2 = -(q2v >= src[a2])
        outIdx[i2] = a2 ^ ((a2 ^ q2) & o2)
        const j2 = b2 + p - 2 - t
        const n2 = -(src[j2] > s2v)
        s2 ^= (s2 ^ j2) & n2
        s2v = src[s2]
        d[p - 2 - t] = s2
        const j3 = b3 + p - 2 - t
        const n3 = -(src[j3] > s3v)
        s3 ^= (s3 ^ j3) & n3
        s3v = src[s3]
        e[p - 2 - t] = s3
      }
      outIdx[b1 - 1] = suf[0]
      outIdx[b2 - 1] = c[0]
      // blocks k and k + 1 are written: d and e hold the suffixes the next round needs
      const f = suf
      suf = d
      d = f
      const g = c
      c = e
      e = g
      b0 = b2
    }
    next = e // free again; the rounds below recompute c
  }
  for (;;) {
    outIdx[b0 + p - 1] = suf[0] // that window is the block itself
    const b1 = b0 + p
    if (b1 >= rows) return
    // the window ending at b1 + t (t < p − 1) joins suf[t + 1] and the prefix b1 .. b1 + t;
    // alongside, the suffix extremes of block b1 for the next round, when it is complete
    const full = b1 + p <= rows
    const count = full ? p - 1 : rows - b1
    let q = b1
    let qv = src[b1]
    s = b1 + p - 1
    sv = full ? src[s] : 0
    next[p - 1] = s
    for (let t = 0; t < count; t++) {
      const i = b1 + t
      const mq = -(src[i] >= qv)
      q ^= (q ^ i) & mq
      qv = src[q]
      const a = suf[t + 1]
      const mo = -(qv >= src[a]) // the prefix is later: it wins ties
      outIdx[i] = a ^ ((a ^ q) & mo)
      if (full) {
        const j = b1 + p - 2 - t
        const ms = -(src[j] > sv)
        s ^= (s ^ j) & ms
        sv = src[s]
        next[p - 2 - t] = s
      }
    }
    if (!full) return
    const done = suf
    suf = next
    next = done
    b0 = b1
  }
}

/** outIdx[i] = index of the lowest of the window; the mirror of rollingMaxIndex. */
export function rollingMinIndex(src: Float64Array, period: number, outIdx: Int32Array, from: number, rows: number): void {
  if (from >= rows) return
  if (period === 1) {
    for (let i = from; i < rows; i++) outIdx[i] = i
    return
  }
  const p = period
  blockScratch(p)
  let suf = blockAt[0]
  let next = blockAt[1]
  // suffix extremes of the block [b0, b0 + p): suf[t] = argmin of src[b0 + t .. b0 + p − 1]
  let b0 = from - p + 1
  let s = b0 + p - 1
  let sv = src[s]
  suf[p - 1] = s
  for (let t = p - 2; t >= 0; t--) {
    const j = b0 + t
    const m = -(src[j] < sv) // strictly: on a tie the later bar stays
    s ^= (s ^ j) & m
    sv = src[s]
    suf[t] = s
  }
  if (b0 + 4 * p <= rows) {
    // Two blocks per round while four more are complete: four independent chains (the
    // prefixes of blocks k and k + 1, the suffixes of blocks k + 1 and k + 2) keep each
    // other's latency off the clock (about 10–20 % faster than one block per round). At the
    // top of a round b0 starts block k − 1, suf holds its suffixes and c those of block k.
    let c = blockAt[2]
    let d = blockAt[3]
    let e = blockAt[1]
    const bk = b0 + p
    s = bk + p - 1
    sv = src[s]
    c[p - 1] = s
    for (let t = p - 2; t >= 0; t--) {
      const j = bk + t
      const m = -(src[j] < sv)
      s ^= (s ^ j) & m
      sv = src[s]
      c[t] = s
    }
    while (b0 + 4 * p <= rows) {
      const b1 = b0 + p
      const b2 = b1 + p
      const b3 = b2 + p
      let q1 = b1
      let q1v = src[b1]
      let q2 = b2
      let q2v = src[b2]
      let s2 = b2 + p - 1
      let s2v = src[s2]
      let s3 = b3 + p - 1
      let s3v = src[s3]
      d[p - 1] = s2
      e[p - 1] = s3
      for (let t = 0; t < p - 1; t++) {
        const i1 = b1 + t
        const m1 = -(src[i1] <= q1v)
        q1 ^= (q1 ^ i1) & m1
        q1v = src[q1]
        const a1 = suf[t + 1]
        const o1 = -(q1v <= src[a1])
        outIdx[i1] = a1 ^ ((a1 ^ q1) & o1)
        const i2 = b2 + t
        const m2 = -(src[i2] <= q2v)
        q2 ^= (q2 ^ i2) & m2
        q2v = src[q2]
        const a2 = c[t + 1]
        const o2 = -(q2v <= src[a2])
        outIdx[i2] = a2 ^ ((a2 ^ q2) & o2)
        const j2 = b2 + p - 2 - t
        const n2 = -(src[j2] < s2v)
        s2 ^= (s2 ^ j2) & n2
        s2v = src[s2]
        d[p - 2 - t] = s2
        const j3 = b3 + p - 2 - t
        const n3 = -(src[j3] < s3v)
        s3 ^= (s3 ^ j3) & n3
        s3v = src[s3]
        e[p - 2 - t] = s3
      }
      outIdx[b1 - 1] = suf[0]
      outIdx[b2 - 1] = c[0]
      // blocks k and k + 1 are written: d and e hold the suffixes the next round needs
      const f = suf
      suf = d
      d = f
      const g = c
      c = e
      e = g
      b0 = b2
    }
    next = e // free again; the rounds below recompute c
  }
  for (;;) {
    outIdx[b0 + p - 1] = suf[0] // that window is the block itself
    const b1 = b0 + p
    if (b1 >= rows) return
    // the window ending at b1 + t (t < p − 1) joins suf[t + 1] and the prefix b1 .. b1 + t;
    // alongside, the suffix extremes of block b1 for the next round, when it is complete
    const full = b1 + p <= rows
    const count = full ? p - 1 : rows - b1
    let q = b1
    let qv = src[b1]
    s = b1 + p - 1
    sv = full ? src[s] : 0
    next[p - 1] = s
    for (let t = 0; t < count; t++) {
      const i = b1 + t
      const mq = -(src[i] <= qv)
      q ^= (q ^ i) & mq
      qv = src[q]
      const a = suf[t + 1]
      const mo = -(qv <= src[a]) // the prefix is later: it wins ties
      outIdx[i] = a ^ ((a ^ q) & mo)
      if (full) {
        const j = b1 + p - 2 - t
        const ms = -(src[j] < sv)
        s ^= (s ^ j) & ms
        sv = src[s]
        next[p - 2 - t] = s
      }
    }
    if (!full) return
    const done = suf
    suf = next
    next = done
    b0 = b1
  }
}

/**
 * The larger of a and b: b + max(a − b, 0), with max(d, 0) = (d + |d|) / 2, so no branch (a
 * comparison of two prices is a coin toss to the branch predictor, and Math.max compiles to
 * branches). The result is exactly a or b whenever a − b is exact, which Sterbenz's lemma
 * guarantees when both have the same sign and lie within a factor of 2 of each other; otherwise
 * it can be the larger one off by an ulp (see EXACT_SPREAD for how callers stay exact). The
 * definition of the max in coverWindows and its callers, which write it out in their loops.
 */
export function maxOf(a: number, b: number): number {
  const d = a - b
  return b + (d + Math.abs(d)) * 0.5
}

/** The smaller of a and b; the mirror of maxOf, with the same exactness. */
export function minOf(a: number, b: number): number {
  const d = a - b
  return b + (d - Math.abs(d)) * 0.5
}

/**
 * coverWindows' extremes of a window are exact when its highest value is at most twice its
 * lowest (both positive: every difference taken is then exact, by Sterbenz's lemma), so a
 * caller whose computed pair satisfies highest < EXACT_SPREAD × lowest has the exact pair. The
 * margin below 2 covers the few ulps by which a pair can be off when the window is wider.
 */
export const EXACT_SPREAD = 1.9999

const scanned = new Float64Array(2)

/**
 * [highest of hiSrc, lowest of loSrc] over rows from .. to by a plain scan: the exact answer
 * for the rare window coverWindows cannot vouch for. The array is reused by the next call.
 */
export function scanRange(hiSrc: Float64Array, loSrc: Float64Array, from: number, to: number): Float64Array {
  let highest = hiSrc[from]
  let lowest = loSrc[from]
  for (let j = from + 1; j <= to; j++) {
    if (hiSrc[j] > highest) highest = hiSrc[j]
    if (loSrc[j] < lowest) lowest = loSrc[j]
  }
  scanned[0] = highest
  scanned[1] = lowest
  return scanned
}

/**
 * Rolling high of hiSrc and low of loSrc by doubling, left as two covering windows: after the
 * call, `hi[i]` / `lo[i]` hold the highest / lowest of the last `span` rows, where span is the
 * power of two with period / 2 ≤ span < period (span = 1 when period ≤ 2), and the return value is
 * back = period − span: the window of `period` rows ending at row i is the union of the span
 * windows ending at i and at i − back, so highest = maxOf(hi[i], hi[i − back]). The caller takes
 * that last step inside its own loop, which saves a pass.
 *
 * Why doubling (⌈log2 period⌉ maxOf per bar and side: 4 for 14 bars) rather than the 3 of van
 * Herk's blocks: every level is a pass with no loop-carried chain, so the branch-free maxOf
 * (five float operations, 13 cycles of latency) runs at the processor's throughput, while in van
 * Herk's prefix and suffix scans each step waits for the last. The values are maxOf's: exact
 * when the window's highest is at most twice its lowest (EXACT_SPREAD), else possibly an ulp
 * off, so callers check and fall back to scanRange.
 *
 * Valid rows: i ≥ start + period − 1, when rows start .. rows − 1 of both inputs are finite
 * (`start` lets a caller skip leading NaNs). hi and lo are the caller's columns of at least
 * `rows` rows. maxOf and minOf are written out in the loops: called, they measured up to 2×
 * slower here once the process had compiled much other code.
 */
export function coverWindows(
  hiSrc: Float64Array,
  loSrc: Float64Array,
  period: number,
  start: number,
  rows: number,
  hi: Float64Array,
  lo: Float64Array,
): number {
  if (period <= 2) {
    hi.set(hiSrc.subarray(start, rows), start)
    lo.set(loSrc.subarray(start, rows), start)
    return period - 1
  }
  let span = 2
  if (period > 4) {
    // spans 2 and 4 in one pass: the span-2 extremes of the last two rows stay in registers
    // (rows start + 1 and start + 2 get values of shorter windows; nothing reads them)
    let hp = hiSrc[start]
    let h1 = hp
    let h2 = hp
    let lp = loSrc[start]
    let l1 = lp
    let l2 = lp
    for (let i = start + 1; i < rows; i++) {
      const a = hiSrc[i]
      const d = a - hp
      const m2 = hp + (d + Math.abs(d)) * 0.5
      hp = a
      const d2 = m2 - h2
      hi[i] = h2 + (d2 + Math.abs(d2)) * 0.5
      h2 = h1
      h1 = m2
      const x = loSrc[i]
      const e = x - lp
      const n2 = lp + (e - Math.abs(e)) * 0.5
      lp = x
      const e2 = n2 - l2
      lo[i] = l2 + (e2 - Math.abs(e2)) * 0.5
      l2 = l1
      l1 = n2
    }
    span = 4
  } else {
    for (let i = start + 1; i < rows; i++) {
      const a = hiSrc[i]
      const b = hiSrc[i - 1]
      const d = a - b
      hi[i] = b + (d + Math.abs(d)) * 0.5
      const x = loSrc[i]
      const y = loSrc[i - 1]
      const e = x - y
      lo[i] = y + (e - Math.abs(e)) * 0.5
    }
  }
  while (span * 2 < period) {
    // in place, last row first: row i reads row i − span before that row is overwritten
    for (let i = rows - 1; i >= start + 2 * span - 1; i--) {
      const a = hi[i]
      const b = hi[i - span]
      const d = a - b
      hi[i] = b + (d + Math.abs(d)) * 0.5
      const x = lo[i]
      const y = lo[i - span]
      const e = x - y
      lo[i] = y + (e - Math.abs(e)) * 0.5
    }
    span *= 2
  }
  return period - span
}

/** Reused index columns (a thread computes one indicator at a time). */
const indexPool: Int32Array[] = []

/** Index scratch column `slot`, valid until the next call that asks for the same slot. */
export function indexScratch(slot: number, rows: number): Int32Array {
  let buf = indexPool[slot]
  if (!buf || buf.length < rows) indexPool[slot] = buf = new Int32Array(rows + (rows >> 3))
  return buf
}

/** NaN warm-up, then out[i + lag] = src[idx[i]]: a value column from an index column. */
function valuesAt(src: Float64Array, idx: Int32Array, out: Float64Array, first: number, last: number, lag: number): void {
  for (let i = first; i < last; i++) out[i + lag] = src[idx[i]]
}

/**
 * Highest value of src[i-period+1 .. i] (`lag` = 0), or of the window ending `lag` bars
 * earlier (`lag` = 1 gives the previous N-bar high, excluding the current bar).
 * Rows before `start` + period − 1 + lag are NaN; `start` lets a caller skip leading NaNs.
 */
export function rollingMax(src: Float64Array, period: number, out: Float64Array, n?: number, lag = 0, start = 0): void {
  checkPeriod('rollingMax', period)
  const rows = rowsOf(src, n)
  const first = start + period - 1
  fillNaN(out, 0, Math.min(first + lag, rows))
  const idx = indexScratch(0, rows)
  rollingMaxIndex(src, period, idx, first, rows - lag)
  valuesAt(src, idx, out, first, rows - lag, lag)
}

/** Lowest value of the window; see rollingMax for `lag` and `start`. */
export function rollingMin(src: Float64Array, period: number, out: Float64Array, n?: number, lag = 0, start = 0): void {
  checkPeriod('rollingMin', period)
  const rows = rowsOf(src, n)
  const first = start + period - 1
  fillNaN(out, 0, Math.min(first + lag, rows))
  const idx = indexScratch(0, rows)
  rollingMinIndex(src, period, idx, first, rows - lag)
  valuesAt(src, idx, out, first, rows - lag, lag)
}
