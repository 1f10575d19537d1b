/**
 * Mark price beside the last price (issue 25 §3; docs/metrics.md §1 "Mark price"): Binance
 * liquidates when the mark price, not the last traded price, reaches the liquidation
 * price. Where the store has a coin's mark-price candles, the trade model tests its
 * liquidation price against them; this module lines them up with the bars it walks.
 */
import type { Bars, MarkSeries } from '../market/types'
import { lowerBound } from '../sorted-search'
import { HOUR_MS } from '../time'

/** Binance's mark-price klines are imported and synced at 1h */
const MARK_STEP_MS = HOUR_MS

/**
 * Bar k's mark open, high and low: the mark candles inside [t[k], t[k] + stepMs) (a bar
 * longer than an hour takes its first open, highest high and lowest low). A bar whose
 * hours are not all covered by mark candles keeps the last price's open, high and low
 * (`covered` counts the bars that have the mark's).
 */
export interface MarkBars {
  o: Float64Array
  h: Float64Array
  l: Float64Array
  /** bars with a full set of mark candles */
  covered: number
}

export function alignMark(bars: Bars, mark: MarkSeries): MarkBars {
  const n = bars.n
  const o = bars.o.slice(0, n)
  const h = bars.h.slice(0, n)
  const l = bars.l.slice(0, n)
  const per = Math.max(1, Math.round(bars.stepMs / MARK_STEP_MS))
  let covered = 0
  let j = lowerBound(mark.t.subarray(0, mark.n), bars.t[0])
  for (let k = 0; k < n && j < mark.n; k++) {
    const t0 = bars.t[k]
    const t1 = t0 + bars.stepMs
    while (j < mark.n && mark.t[j] < t0) j++
    let count = 0, hi = -Infinity, lo = Infinity, first = NaN
    for (let i = j; i < mark.n && mark.t[i] < t1; i++) {
      if (count === 0) first = mark.o[i]
      if (mark.h[i] > hi) hi = mark.h[i]
      if (mark.l[i] < lo) lo = mark.l[i]
      count++
    }
    if (count === per && mark.t[j] === t0) {
      o[k] = first
      h[k] = hi
      l[k] = lo
      covered++
    }
  }
  return { o, h, l, covered }
}
