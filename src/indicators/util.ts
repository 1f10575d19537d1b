/**
 * Small helpers shared by the indicator kernels.
 *
 * Kernel conventions (every file in this folder):
 * - inputs and outputs are Float64Array; the caller allocates outputs of at least `n` rows;
 * - `n` (rows to process) defaults to the first input's length;
 * - a row without enough history holds NaN, never 0;
 * - row i depends on rows <= i only (causal).
 */

/** Rows to process: `n` if given, else the input's length; never more than the input holds. */
export function rowsOf(src: Float64Array, n: number | undefined): number {
  return n === undefined ? src.length : Math.min(n, src.length)
}

/**
 * NaN into out[from .. to). A warm-up (up to a few hundred rows) is written by a loop: in a
 * kernel that had just called TypedArray.prototype.fill, even on one row, Bun's JIT made the
 * kernel's own loop run up to 2× slower (true range: 3.3 against 1.7 ns per bar), so fill is
 * kept for long runs only, where its speed matters more than the loop after it.
 */
export function fillNaN(out: Float64Array, from: number, to: number): void {
  const start = Math.max(0, from)
  if (to - start > 4096) {
    out.fill(NaN, start, to)
    return
  }
  for (let i = start; i < to; i++) out[i] = NaN
}

/** Index of the first non-NaN value of src[0..n), or n when there is none. */
export function firstValid(src: Float64Array, n: number): number {
  let i = 0
  while (i < n && src[i] !== src[i]) i++
  return i
}

/** Throws on a period a kernel cannot use: it would be a caller's bug, not a data problem. */
export function checkPeriod(name: string, period: number, min = 1): void {
  if (!Number.isInteger(period) || period < min) {
    throw new RangeError(`${name}: period must be an integer >= ${min}, got ${period}`)
  }
}

/** TA-Lib's TA_IS_ZERO: its guards treat |x| < 1e-8 as zero, so ours do too (golden parity). */
export function isTaZero(x: number): boolean {
  return x > -1e-8 && x < 1e-8
}

/** Reused scratch columns (a thread computes one indicator at a time). */
const floatPool: Float64Array[] = []

/** Float scratch column `slot` of at least `rows` rows, valid until the next call for that slot. */
export function floatScratch(slot: number, rows: number): Float64Array {
  let buf = floatPool[slot]
  if (!buf || buf.length < rows) floatPool[slot] = buf = new Float64Array(rows + (rows >> 3))
  return buf
}

/**
 * Two values a kernel picks one of by a comparison's 0 or 1 (`pick[+(x > y)]`): the value
 * itself, to the bit, with no branch, where which one wins is a coin toss bar to bar (a
 * mispredicted branch costs more than the store and the load). One per thread, like the
 * scratch columns: a kernel runs to its end before another starts.
 */
export const PICK_PAIR = new Float64Array(2)
