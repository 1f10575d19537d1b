/**
 * Buy-and-hold curves (BTC, ETH) over the same days as the strategy's equity curve, for
 * comparison: the initial capital bought at the last close before the first day (the
 * first day's first open when the coin has no earlier bar), valued at every day's close.
 * Days before the coin's first bar keep the initial capital.
 */
import type { Bars } from '../market/types'
import { DAY_MS } from '../time'
import { lastCloseAt, toEquityPoints, type EquityPoint } from './equity-curve'
import { lowerBound } from '../sorted-search'

export function holdCurve(bars: Bars, fromDayMs: number, toDayMs: number, initialCapitalUsd: number): EquityPoint[] {
  const nDays = Math.floor((toDayMs - fromDayMs) / DAY_MS) + 1
  if (!(nDays > 0)) return []
  let base = lastCloseAt(bars, fromDayMs)
  if (!(base > 0)) {
    const first = lowerBound(bars.t, fromDayMs, bars.n)
    base = first < bars.n ? bars.o[first] : Number.NaN
  }
  const equity = new Float64Array(nDays)
  for (let d = 0; d < nDays; d++) {
    const p = lastCloseAt(bars, fromDayMs + (d + 1) * DAY_MS)
    equity[d] = base > 0 && p > 0 ? (initialCapitalUsd * p) / base : initialCapitalUsd
  }
  return toEquityPoints(fromDayMs, equity, initialCapitalUsd)
}

/** The hold return over the span, % (the last point's return; 0 for an empty span). */
export function holdReturnPct(curve: readonly EquityPoint[]): number {
  return curve.length > 0 ? curve[curve.length - 1].returnPct : 0
}
