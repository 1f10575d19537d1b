/**
 * The regime split of a run's trades (BTC trend by its 200-day mean, volatility high/low):
 * the labels of the statistics kernels applied to the trades' entry times. Runs in a
 * worker (task `regimes`), which reads BTC's candles from its store view.
 */
import { lastCloseAt } from '../engine/equity-curve'
import { btcRegimeLabels, regimeAt, regimePerformance, TREND_SMA_DAYS, type DayRegime, type RegimePerformance } from '../engine/statistics'
import type { Bars } from '../market/types'
import { DAY_MS, HOUR_MS } from '../market/types'

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
  // trades entering in the same hour share the labels: look each hour up once
  const byHour = new Map<number, DayRegime>()
  const trades = Array.from(pnlPct, (p, i) => {
    const hour = Math.floor(entryMs[i] / HOUR_MS)
    let r = byHour.get(hour)
    if (r === undefined) byHour.set(hour, (r = regimeAt(labels, days, entryMs[i])))
    return { pnlPct: p, trend: r.trend, vol: r.vol }
  })
  return regimePerformance(trades)
}
