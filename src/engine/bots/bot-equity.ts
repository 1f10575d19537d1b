/**
 * The equity curve both bots report (docs/bots.md §4): equity in USDT at every bar close
 * of the window, its deepest fall from a running peak, and its last close of each UTC
 * day for the response.
 */
import { DAY_MS } from '../../time'
import { drawdownPct } from '../equity-curve'

export interface Drawdown {
  /** deepest fall from a running peak, USDT (≥ 0) */
  maxDrawdownUsdt: number
  /** the same fall in % of that peak: 0 to 100, the one drawdown formula (engine/equity-curve.ts, docs/metrics.md) */
  maxDrawdownPct: number
}

export function drawdownOf(equity: Float64Array): Drawdown {
  let peak = -Infinity
  let ddUsdt = 0
  let ddPct = 0
  for (let i = 0; i < equity.length; i++) {
    const e = equity[i]
    if (e > peak) peak = e
    const fall = peak - e
    if (fall > ddUsdt) ddUsdt = fall
    const pct = drawdownPct(peak, e)
    if (pct > ddPct) ddPct = pct
  }
  return { maxDrawdownUsdt: ddUsdt, maxDrawdownPct: ddPct }
}

export interface DailyEquity {
  /** UTC day start, ms */
  dayMs: number
  equityUsdt: number
}

/** The equity at the last bar close of each UTC day; `closeMs[i]` is bar i's close instant. */
export function dailyEquity(closeMs: Float64Array, equity: Float64Array): DailyEquity[] {
  const out: DailyEquity[] = []
  for (let i = 0; i < equity.length; i++) {
    // a bar closing exactly at midnight belongs to the day it traded in
    const dayMs = Math.floor((closeMs[i] - 1) / DAY_MS) * DAY_MS
    if (out.length > 0 && out[out.length - 1].dayMs === dayMs) out[out.length - 1].equityUsdt = equity[i]
    else out.push({ dayMs, equityUsdt: equity[i] })
  }
  return out
}
