/**
 * Date windows (docs/metrics.md §1, "Date windows"): start_date and end_date are
 * inclusive UTC days. A bar is inside the window when its open time is; indicators still
 * warm up on every bar before fromIdx, and a trade open at toIdx closes at toIdx's close
 * (`end_of_data`).
 */
import type { Bars } from '../market/types'
import { DAY_MS } from '../time'
import { lowerBound } from '../sorted-search'

export interface BarWindow {
  /** first bar whose open time is on or after the start day */
  fromIdx: number
  /** last bar whose open time is before the end of the end day */
  toIdx: number
}

/**
 * The bar range of [startDayMs, endDayMs + 1 day) (each a UTC midnight; null = open end);
 * null when no bar falls inside.
 */
export function windowIndices(bars: Bars, startDayMs: number | null, endDayMs: number | null): BarWindow | null {
  const fromIdx = startDayMs === null ? 0 : lowerBound(bars.t, startDayMs, bars.n)
  const toIdx = endDayMs === null ? bars.n - 1 : lowerBound(bars.t, endDayMs + DAY_MS, bars.n) - 1
  return fromIdx <= toIdx ? { fromIdx, toIdx } : null
}
