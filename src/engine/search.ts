/** The gap-tolerant jump over bar times (binary searches: src/sorted-search.ts). */

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
