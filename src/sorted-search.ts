/**
 * Binary searches over an ascending series (bar times, funding times, grid levels, day
 * opens): the one implementation every layer uses. Pure and import-free, below the engine.
 * `n` bounds the search to the first n values (a store's columns are longer than their
 * filled part); it defaults to the whole series. `from` starts it there instead of at 0 (the
 * answer is then at least `from`): a search inside a buffer's live stretch needs no view.
 */

/** First index j in [from, n) with a[j] >= x; n when none. */
export function lowerBound(a: ArrayLike<number>, x: number, n: number = a.length, from = 0): number {
  let lo = from
  let hi = n
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid] < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First index j in [from, n) with a[j] > x; n when none. (upperBound − 1: the last index with a[j] <= x, or from − 1.) */
export function upperBound(a: ArrayLike<number>, x: number, n: number = a.length, from = 0): number {
  let lo = from
  let hi = n
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid] <= x) lo = mid + 1
    else hi = mid
  }
  return lo
}
