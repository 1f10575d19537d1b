/** A stable sort of trades by entry time, fast for the shapes the engine produces. */
import { IndexHeap } from './index-heap'
import type { Trade } from './types'

/**
 * Indices of `trades` in entry-time order, ties in input order (a stable sort).
 * Entries happen at bar opens, so their times usually sit on a common grid (the bar
 * step): then a counting sort over the grid slots does it in O(n + slots). Otherwise the
 * input's already-ordered runs (one per coin) are merged through a heap, O(n log runs).
 */
export function entryOrder(trades: readonly Trade[]): Int32Array {
  return entryOrderOf(Float64Array.from(trades, (tr) => tr.entryTimeMs))
}

/** entryOrder over a column of entry times. */
export function entryOrderOf(entryMs: Float64Array): Int32Array {
  const n = entryMs.length
  let minMs = Infinity
  let maxMs = -Infinity
  for (let i = 0; i < n; i++) {
    const x = entryMs[i]
    if (x < minMs) minMs = x
    if (x > maxMs) maxMs = x
  }
  let grid = 0
  for (let i = 0; i < n && Number.isInteger(grid); i++) {
    const d = entryMs[i] - minMs
    // most times sit on the grid found so far, where gcd would keep it. A division says so
    // exactly (a safe integer's quotient by an integer rounds to an integer only when it is
    // one) at a fifth of the cost of a remainder of doubles (fmod); anything else goes to gcd
    if (grid > 0 && Number.isSafeInteger(d) && Number.isInteger(d / grid)) continue
    grid = gcd(grid, d)
  }
  if (n > 0 && Number.isInteger(grid)) {
    const slots = grid === 0 ? 1 : (maxMs - minMs) / grid + 1
    if (slots <= 4 * n + 1024) return countingOrder(entryMs, minMs, grid, slots)
  }
  return mergeRunsOrder(entryMs)
}

/** Greatest common divisor of two non-negative integers (NaN for other input). */
function gcd(a: number, b: number): number {
  if (!Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b < 0) return Number.NaN
  while (b !== 0) {
    const r = a % b
    a = b
    b = r
  }
  return a
}

function countingOrder(entryMs: Float64Array, minMs: number, grid: number, slots: number): Int32Array {
  const n = entryMs.length
  const slotOf = new Int32Array(n)
  const start = new Int32Array(slots + 1)
  for (let i = 0; i < n; i++) {
    const s = grid === 0 ? 0 : (entryMs[i] - minMs) / grid
    slotOf[i] = s
    start[s + 1]++
  }
  for (let s = 0; s < slots; s++) start[s + 1] += start[s]
  const order = new Int32Array(n)
  for (let i = 0; i < n; i++) order[start[slotOf[i]]++] = i
  return order
}

function mergeRunsOrder(entryMs: Float64Array): Int32Array {
  const n = entryMs.length
  const runStarts: number[] = []
  for (let i = 0; i < n; i++) if (i === 0 || entryMs[i] < entryMs[i - 1]) runStarts.push(i)
  const nRuns = runStarts.length
  const next = Int32Array.from(runStarts)
  const runEnds = new Int32Array(nRuns)
  for (let r = 0; r < nRuns; r++) runEnds[r] = r + 1 < nRuns ? runStarts[r + 1] : n
  const heap = new IndexHeap(nRuns)
  // tie = run number: runs are in input order, so equal times keep the input order
  for (let r = 0; r < nRuns; r++) heap.push(entryMs[next[r]], r, r)
  const order = new Int32Array(n)
  for (let k = 0; k < n; k++) {
    const r = heap.peekValue()
    const i = next[r]++
    order[k] = i
    if (i + 1 < runEnds[r]) heap.replaceTop(entryMs[i + 1], r, r)
    else heap.pop()
  }
  return order
}
