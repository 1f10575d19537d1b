/**
 * The daily equity curve: the portfolio marked to market at every UTC day's close.
 *
 * equity(D) = initial capital
 *           + Σ pnlUsd of trades whose exit instant is at or before D's close (D + 24h)
 *           + Σ over trades open at D's close (entry < D + 24h < exit) of
 *               marginUsd × max(−1, dir × (P/entry − 1) × leverage)
 * where P is the close of the last bar of that coin that closed at or before D + 24h.
 * Open positions are valued at the price move only; their fees and funding are booked
 * when they close (the curve steps by those costs on the exit day).
 * returnPct = (equity / initial − 1) × 100; drawdownPct = (peak − equity) / peak × 100
 * with peak the highest of the initial capital and every earlier point (a magnitude ≥ 0).
 */
import type { Bars } from '../market/types'
import { DAY_MS } from '../market/types'
import { lastAtOrBefore, upperBound } from './search'
import type { Trade } from './types'

export interface EquityPoint {
  /** the UTC day (midnight); the value is at that day's close */
  tMs: number
  equityUsd: number
  returnPct: number
  drawdownPct: number
}

export interface MarkToMarket {
  /**
   * Bars that value a coin's open positions: any timeframe (the 1H base series gives the
   * exact day close; a coarser series gives the last close known by then).
   */
  barsOf(symbol: string): Bars | undefined
  /** first UTC day (midnight ms) of the curve */
  fromDayMs: number
  /** last UTC day (midnight ms) of the curve, inclusive */
  toDayMs: number
}

interface SizedTrade extends Trade {
  marginUsd: number
  pnlUsd: number
}

/** Close of the last bar that closed at or before `atMs`; NaN when none did. */
export function lastCloseAt(bars: Bars, atMs: number): number {
  const j = upperBound(bars.t, bars.n, atMs - bars.stepMs) - 1
  return j >= 0 ? bars.c[j] : Number.NaN
}

export function dailyEquityCurve(
  trades: readonly SizedTrade[],
  initialCapitalUsd: number,
  leverage: number,
  mark: MarkToMarket,
): EquityPoint[] {
  const fromDay = mark.fromDayMs
  const nDays = Math.floor((mark.toDayMs - fromDay) / DAY_MS) + 1
  if (!(nDays > 0)) return []
  const realisedByDay = new Float64Array(nDays)
  const openValueByDay = new Float64Array(nDays)
  // the day whose close is the first at or after instant x
  const dayClosing = (x: number) => Math.min(nDays - 1, Math.max(0, Math.ceil((x - fromDay) / DAY_MS) - 1))

  for (const tr of trades) {
    const exitDay = dayClosing(tr.exitTimeMs)
    realisedByDay[exitDay] += tr.pnlUsd
    const firstOpenDay = Math.max(0, Math.floor((tr.entryTimeMs - fromDay) / DAY_MS))
    if (firstOpenDay >= exitDay) continue
    const bars = mark.barsOf(tr.symbol)
    const dir = tr.direction === 'long' ? 1 : -1
    // hint: the bar of the entry when the mark bars are the trade's own bars, else a search
    let hint = -1
    if (bars !== undefined && bars.n > 0) {
      hint = tr.entryIdx < bars.n && bars.t[tr.entryIdx] === tr.entryTimeMs ? tr.entryIdx : Math.max(0, upperBound(bars.t, bars.n, tr.entryTimeMs) - 1)
    }
    for (let d = firstOpenDay; d < exitDay; d++) {
      const closeMs = fromDay + (d + 1) * DAY_MS
      if (closeMs >= tr.exitTimeMs || closeMs <= tr.entryTimeMs) continue
      let p = Number.NaN
      if (hint >= 0) {
        const j = lastAtOrBefore(bars!.t, bars!.n, bars!.stepMs, hint, closeMs - bars!.stepMs)
        if (j >= 0) {
          p = bars!.c[j]
          hint = j
        }
      }
      if (!(p > 0)) p = tr.entryPrice
      const move = dir * (p / tr.entryPrice - 1) * leverage
      openValueByDay[d] += tr.marginUsd * (move < -1 ? -1 : move)
    }
  }

  const equityUsd = new Float64Array(nDays)
  let realised = 0
  for (let d = 0; d < nDays; d++) {
    realised += realisedByDay[d]
    equityUsd[d] = initialCapitalUsd + realised + openValueByDay[d]
  }
  return toEquityPoints(fromDay, equityUsd, initialCapitalUsd)
}

/** Daily equity values (day d = fromDayMs + d days) as points with return and drawdown. */
export function toEquityPoints(fromDayMs: number, equityUsd: Float64Array, initialCapitalUsd: number): EquityPoint[] {
  const curve: EquityPoint[] = new Array(equityUsd.length)
  let peak = initialCapitalUsd
  for (let d = 0; d < equityUsd.length; d++) {
    const eq = equityUsd[d]
    if (eq > peak) peak = eq
    curve[d] = {
      tMs: fromDayMs + d * DAY_MS,
      equityUsd: eq,
      returnPct: (eq / initialCapitalUsd - 1) * 100,
      drawdownPct: peak > 0 ? ((peak - eq) / peak) * 100 : 0,
    }
  }
  return curve
}
