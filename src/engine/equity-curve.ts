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
 * returnPct = (equity / initial − 1) × 100; drawdownPct = (peak − max(equity, 0)) / peak × 100
 * with peak the highest of the initial capital and every earlier point: a magnitude from 0
 * to 100, since a portfolio cannot lose more than all it has (equity below zero is capital
 * the run did not have: see stopAtRuin in portfolio.ts).
 */
import type { Bars } from '../market/types'
import { DAY_MS } from '../time'
import { upperBound } from '../sorted-search'
import { lastAtOrBefore } from './search'
import type { DayMarks, SizedTradeTable, TradeTable } from './trade-table'
import type { Direction } from './types'

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

/** Close of the last bar that closed at or before `atMs`; NaN when none did. */
export function lastCloseAt(bars: Bars, atMs: number): number {
  const j = upperBound(bars.t, atMs - bars.stepMs, bars.n) - 1
  return j >= 0 ? bars.c[j] : Number.NaN
}

/** A mark at price p: max(−1, dir × (p/entry − 1) × leverage), the entry price standing in for a p that is not positive (or NaN). */
function markMove(p: number, entryPrice: number, dir: number, leverage: number): number {
  const q = p > 0 ? p : entryPrice
  const move = dir * (q / entryPrice - 1) * leverage
  return move < -1 ? -1 : move
}

/**
 * The marks of one trade at the UTC midnights strictly inside (entryMs, exitMs), appended
 * to `out`: max(−1, dir × (P/entry − 1) × leverage) with P the close of the last bar of
 * `bars` that closed at or before the midnight (the entry price when none did).
 * `entryIdx` is a hint: the entry bar's index when `bars` are the trade's own bars.
 * Returns how many were added.
 */
export function markMovesOf(
  entryMs: number,
  exitMs: number,
  entryPrice: number,
  entryIdx: number,
  direction: Direction,
  leverage: number,
  bars: Bars | undefined,
  out: { addMark(move: number): void },
): number {
  const dir = direction === 'long' ? 1 : -1
  let hint = -1
  if (bars !== undefined && bars.n > 0)
    hint = entryIdx >= 0 && entryIdx < bars.n && bars.t[entryIdx] === entryMs ? entryIdx : Math.max(0, upperBound(bars.t, entryMs, bars.n) - 1)
  let count = 0
  for (let m = (Math.floor(entryMs / DAY_MS) + 1) * DAY_MS; m < exitMs; m += DAY_MS) {
    let p = Number.NaN
    if (hint >= 0) {
      const j = lastAtOrBefore(bars!.t, bars!.n, bars!.stepMs, hint, m - bars!.stepMs)
      if (j >= 0) {
        p = bars!.c[j]
        hint = j
      }
    }
    out.addMark(markMove(p, entryPrice, dir, leverage))
    count++
  }
  return count
}

/**
 * The price a mark at each UTC midnight reads from a coin's bars (markMovesOf's P: the close
 * of the last bar whose open is at or before the midnight less one bar, NaN where none is),
 * midnight by midnight from `fromMs`; every midnight past the table reads `last` (the last
 * bar's close). A function of the bars alone, made once for a coin and read by every trade
 * (markMovesAt): one value a day (5.8 KB for two years) instead of two reads a mark of the
 * 1H columns (140 KB each), which a chunk's trades pushed out of the cache.
 */
export interface MidnightCloses {
  fromMs: number
  closes: Float64Array
  last: number
}

/** MidnightCloses of `bars` (ascending open times, as the store's); null without bars. */
export function midnightClosesOf(bars: Bars | undefined): MidnightCloses | null {
  if (bars === undefined || bars.n === 0) return null
  const { t, c, n } = bars
  const step = bars.stepMs
  const fromMs = Math.floor(t[0] / DAY_MS) * DAY_MS
  // up to the last midnight at or before the last bar's close: every later one less a bar is past t[n − 1] (`last`)
  const days = Math.floor((t[n - 1] + step - fromMs) / DAY_MS) + 1
  const closes = new Float64Array(days)
  let j = -1
  for (let d = 0; d < days; d++) {
    const x = fromMs + d * DAY_MS - step
    while (j + 1 < n && t[j + 1] <= x) j++
    closes[d] = j >= 0 ? c[j] : Number.NaN
  }
  return { fromMs, closes, last: c[n - 1] }
}

/**
 * markMovesOf with its prices read from the coin's MidnightCloses (null: no bars): the same
 * marks, the same operations on the same values.
 */
export function markMovesAt(
  entryMs: number,
  exitMs: number,
  entryPrice: number,
  direction: Direction,
  leverage: number,
  days: MidnightCloses | null,
  out: { addMark(move: number): void },
): number {
  const dir = direction === 'long' ? 1 : -1
  let count = 0
  for (let m = (Math.floor(entryMs / DAY_MS) + 1) * DAY_MS; m < exitMs; m += DAY_MS) {
    let p = Number.NaN
    if (days !== null) {
      const d = (m - days.fromMs) / DAY_MS
      p = d < 0 ? Number.NaN : d < days.closes.length ? days.closes[d] : days.last
    }
    out.addMark(markMove(p, entryPrice, dir, leverage))
    count++
  }
  return count
}

/** The marks of every trade of a table (markMovesOf), valued on `barsOf` each coin. */
export function dayMarksOf(t: TradeTable, barsOf: (symbol: string) => Bars | undefined, leverage: number): DayMarks {
  const start = new Int32Array(t.n + 1)
  const moves: number[] = []
  const out = { addMark: (m: number) => void moves.push(m) }
  const barsOfCoin = new Map<number, Bars | undefined>()
  for (let i = 0; i < t.n; i++) {
    const c = t.coin[i]
    if (!barsOfCoin.has(c)) barsOfCoin.set(c, barsOf(t.symbols[c]))
    markMovesOf(t.entryMs[i], t.exitMs[i], t.entryPrice[i], t.entryIdx[i], t.direction, leverage, barsOfCoin.get(c), out)
    start[i + 1] = moves.length
  }
  return { start, move: Float64Array.from(moves) }
}

/**
 * The point of a curve of `nDays` days from `fromDayMs` that books an instant: the day
 * whose close is the first at or after it (clamped to the curve).
 */
export function curveDayOf(atMs: number, fromDayMs: number, nDays: number): number {
  return Math.min(nDays - 1, Math.max(0, Math.ceil((atMs - fromDayMs) / DAY_MS) - 1))
}

/**
 * The curve of sized trades with their marks (`trades.marks`, see dayMarksOf) over the
 * days fromDayMs … toDayMs.
 */
export function dailyEquityCurve(trades: SizedTradeTable, initialCapitalUsd: number, fromDayMs: number, toDayMs: number): EquityPoint[] {
  const fromDay = fromDayMs
  const nDays = Math.floor((toDayMs - fromDay) / DAY_MS) + 1
  if (!(nDays > 0)) return []
  const marks = trades.marks
  if (!marks) throw new Error('dailyEquityCurve: the trades carry no marks (dayMarksOf)')
  const realisedByDay = new Float64Array(nDays)
  const openValueByDay = new Float64Array(nDays)
  const { entryMs, exitMs, marginUsd, pnlUsd } = trades
  const { start, move } = marks
  for (let i = 0; i < trades.n; i++) {
    const exitDay = curveDayOf(exitMs[i], fromDay, nDays)
    realisedByDay[exitDay] += pnlUsd[i]
    const a = start[i]
    const b = start[i + 1]
    if (a === b) continue
    // the day closing at the first midnight after the entry; the curve's last day is
    // never marked open (a trade still open then is booked at its end of data)
    let d = (Math.floor(entryMs[i] / DAY_MS) + 1) * DAY_MS - fromDay
    d = d / DAY_MS - 1
    const margin = marginUsd[i]
    for (let k = a; k < b; k++, d++) if (d >= 0 && d < nDays - 1) openValueByDay[d] += margin * move[k]
  }

  const equityUsd = new Float64Array(nDays)
  let realised = 0
  for (let d = 0; d < nDays; d++) {
    realised += realisedByDay[d]
    equityUsd[d] = initialCapitalUsd + realised + openValueByDay[d]
  }
  return toEquityPoints(fromDay, equityUsd, initialCapitalUsd)
}

/**
 * The fall from `peak` to `equity` in % of the peak: 0 to 100, equity below zero counting
 * as zero (a portfolio cannot lose more than all it has; below zero is capital it did not
 * have). 0 without a positive peak.
 */
export function drawdownPct(peak: number, equity: number): number {
  return peak > 0 ? ((peak - Math.max(equity, 0)) / peak) * 100 : 0
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
      drawdownPct: drawdownPct(peak, eq),
    }
  }
  return curve
}
