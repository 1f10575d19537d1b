/** Binary searches over a sorted (ascending) time column. */

/** First index j < n with ts[j] >= x; n when none. */
export function lowerBound(ts: Float64Array, n: number, x: number): number {
  let lo = 0
  let hi = n
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (ts[mid] < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First index j < n with ts[j] > x; n when none. */
export function upperBound(ts: Float64Array, n: number, x: number): number {
  let lo = 0
  let hi = n
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (ts[mid] <= x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * Last index j < n with ts[j] <= x, or −1, for bars of (mostly) regular spacing stepMs:
 * a jump from `hint` (any valid index) by the time difference, then a walk over gaps.
 * O(1) on gap-free bars; use a binary search when the hint may be far off.
 */
export function lastAtOrBefore(ts: Float64Array, n: number, stepMs: number, hint: number, x: number): number {
  let j = hint + Math.floor((x - ts[hint]) / stepMs)
  if (j >= n) j = n - 1
  if (j < 0) j = 0
  while (j >= 0 && ts[j] > x) j--
  while (j + 1 < n && ts[j + 1] <= x) j++
  return j
}
