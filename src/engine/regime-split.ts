/**
 * The regime split of a run's trades (BTC trend by its 200-day mean, volatility high/low):
 * the labels of the statistics kernels applied to the trades' entry times. Runs in a
 * worker (task `regimes`), which reads BTC's candles from its store view.
 */
import { lastCloseAt } from './equity-curve'
import { btcRegimeLabels, TREND_SMA_DAYS, type RegimePerformance } from './statistics'
import { regimePerformanceOf, TREND_CODE, VOL_CODE } from './statistics-regime'
import type { Bars } from '../market/types'
import { DAY_MS } from '../time'

/** the market whose regime labels the trades */
export const BENCHMARK_SYMBOL = 'BTCUSDT'

/** Daily closes (the close of the last bar closed by each day's end) over [fromDay, toDay]. */
export function dayCloses(bars: Bars, fromDayMs: number, toDayMs: number): { days: Float64Array; closes: Float64Array } {
  const n = Math.max(0, Math.floor((toDayMs - fromDayMs) / DAY_MS) + 1)
  const days = new Float64Array(n)
  const closes = new Float64Array(n)
  for (let d = 0; d < n; d++) {
    days[d] = fromDayMs + d * DAY_MS
    closes[d] = lastCloseAt(bars, days[d] + DAY_MS)
  }
  return { days, closes }
}

/**
 * Results by the BTC regime at each trade's entry, over the run's days [fromDay, toDay];
 * the labels start 200 days earlier so the trend is known from the first day.
 */
export function regimeSplit(btc: Bars, entryMs: Float64Array, pnlPct: Float64Array, fromDayMs: number, toDayMs: number): RegimePerformance | null {
  const { days, closes } = dayCloses(btc, fromDayMs - TREND_SMA_DAYS * DAY_MS, toDayMs)
  const labels = btcRegimeLabels(days, closes)
  const trendOfDay = Uint8Array.from(labels, l => (l.trend === null ? 0 : TREND_CODE[l.trend]))
  const volOfDay = Uint8Array.from(labels, l => (l.vol === null ? 0 : VOL_CODE[l.vol]))
  const n = pnlPct.length
  const trend = new Uint8Array(n)
  const vol = new Uint8Array(n)
  for (let i = 0; i < n; i++) {
    // the last day whose close (its open + 24 h) is at or before the entry (regimeAt on the regular day grid)
    const d = days.length === 0 ? -1 : Math.min(days.length - 1, Math.floor((entryMs[i] - days[0]) / DAY_MS) - 1)
    if (d < 0) continue
    trend[i] = trendOfDay[d]
    vol[i] = volOfDay[d]
  }
  return regimePerformanceOf(pnlPct, trend, vol)
}
