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
 * copies of the scan: every rolling high/low (channels, Ichimoku, stochastic, Williams %R,
 * Aroon) uses them. A NaN never wins a comparison; the extreme of a window holding one is
 * unspecified (inputs are finite after their first valid row).
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
