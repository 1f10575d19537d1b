import { checkPeriod, fillNaN, rowsOf } from './util'

/*
 * Rolling extremes keep the index of the current extreme and rescan the window only when
 * that index leaves it (TA-Lib's method). On market data the rescan is rare, so this beats a
 * deque; the worst case (a strictly monotone series) is O(period) per bar. Ties go to the
 * most recent bar, as in TA-Lib. The two index kernels below are the only copies of the
 * scan: every rolling high/low (channels, Ichimoku, stochastic, Williams %R, Aroon) uses them.
 */

/**
 * outIdx[i] = index of the highest of src[i-period+1 .. i], for rows `from` .. rows − 1
 * (from ≥ period − 1). Rows before `from` are left as they are.
 */
export function rollingMaxIndex(src: Float64Array, period: number, outIdx: Int32Array, from: number, rows: number): void {
  let at = -1
  let best = 0
  for (let i = from; i < rows; i++) {
    const lo = i - period + 1
    const x = src[i]
    if (at < lo) {
      at = lo
      best = src[lo]
      for (let j = lo + 1; j <= i; j++) {
        if (src[j] >= best) {
          best = src[j]
          at = j
        }
      }
    } else if (x >= best) {
      best = x
      at = i
    }
    outIdx[i] = at
  }
}

/** outIdx[i] = index of the lowest of the window; see rollingMaxIndex. */
export function rollingMinIndex(src: Float64Array, period: number, outIdx: Int32Array, from: number, rows: number): void {
  let at = -1
  let best = 0
  for (let i = from; i < rows; i++) {
    const lo = i - period + 1
    const x = src[i]
    if (at < lo) {
      at = lo
      best = src[lo]
      for (let j = lo + 1; j <= i; j++) {
        if (src[j] <= best) {
          best = src[j]
          at = j
        }
      }
    } else if (x <= best) {
      best = x
      at = i
    }
    outIdx[i] = at
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
