/**
 * The cost of a market fill beyond its fee (docs/metrics.md §1 "Slippage"): half the
 * spread, estimated from the coin's own 1H candles (Abdi & Ranaldo 2017), floored at one
 * tick, plus a square-root market impact k · σ_daily · sqrt(notional / ADV) (Almgren et
 * al. 2005, Tóth et al. 2011), every input taken from the 30 whole UTC days before the
 * fill's day: nothing of the fill's own day is read, so there is no look-ahead.
 *
 * The candles are reduced once per coin to daily sums (`CoinCostSeries`, a few arrays of
 * one value per day) and every fill reads its 30 days as differences of prefix sums.
 */
import type { Bars } from '../market/types'
import { DAY_MS } from '../time'

/** whole UTC days before the fill day that σ, ADV, the spread and the tick are read from */
export const COST_WINDOW_DAYS = 30
/** fewer days with candles than this in the window: no estimate (the fill is counted, not charged) */
export const MIN_COST_DAYS = 5
/** the square-root law's prefactor when a request does not set `impact_k` */
export const DEFAULT_IMPACT_K = 1
export const MAX_IMPACT_K = 5

/** A coin's daily sums: day d covers [t0 + d·DAY, t0 + (d+1)·DAY). Prefix sums: p[d] = Σ of days < d. */
export interface CoinCostSeries {
  /** UTC midnight of day 0 */
  t0: number
  days: number
  /** prefix: days with at least one candle */
  pDays: Float64Array
  /** prefix: daily log returns (close to close of consecutive days with candles), their squares, their count */
  pRet: Float64Array
  pRet2: Float64Array
  pRetN: Float64Array
  /** prefix: daily quote volume (Σ v·c) */
  pQuote: Float64Array
  /** prefix: Abdi–Ranaldo terms 4·(c_t − η_t)(c_t − η_{t+1}) in log prices (η = mid-range), and their count */
  pAr: Float64Array
  pArN: Float64Array
  /** per day: the smallest price step seen relative to the price (a tick as far as the candles show it); Infinity when none */
  tickRel: Float64Array
  /**
   * The estimate of a fill on each fill day d in [0, days + COST_WINDOW_DAYS) (every day whose
   * window holds a day of candles), worked out once here rather than per fill: at 2d the
   * half spread, at 2d+1 the impact per √USD; NaN at 2d where the day has no estimate. A
   * fill's inputs depend on its day alone, and a run asks for the same days thousands of times
   * (every trade's two fills, every random entry of the Monte Carlo null).
   */
  perDay: Float64Array
}

/** the estimate of one fill: half spread and σ/√ADV (impact per √USD), fractions of the price */
export interface FillCostInputs {
  halfSpread: number
  /** σ_daily / sqrt(ADV in USD): the impact fraction is k · this · sqrt(notional) */
  impactPerSqrtUsd: number
}

/** Reduce a coin's 1H candles to daily sums (once per coin and data version). */
export function coinCostSeries(bars: Bars): CoinCostSeries | null {
  const n = bars.n
  if (n === 0) return null
  const { t, h, l, c, v } = bars
  const t0 = Math.floor(t[0] / DAY_MS) * DAY_MS
  const days = Math.floor(t[n - 1] / DAY_MS) - t0 / DAY_MS + 1
  const has = new Float64Array(days), ret = new Float64Array(days), ret2 = new Float64Array(days), retN = new Float64Array(days)
  const quote = new Float64Array(days), ar = new Float64Array(days), arN = new Float64Array(days)
  const tickRel = new Float64Array(days).fill(Infinity)
  let prevDay = -1
  let prevDayClose = 0
  let dayClose = 0
  for (let i = 0; i < n; i++) {
    const d = Math.floor((t[i] - t0) / DAY_MS)
    if (d !== prevDay) {
      if (prevDay >= 0) {
        if (prevDayClose > 0 && dayClose > 0) {
          const r = Math.log(dayClose / prevDayClose)
          ret[prevDay] += r
          ret2[prevDay] += r * r
          retN[prevDay] += 1
        }
        prevDayClose = dayClose
      }
      prevDay = d
      has[d] = 1
    }
    dayClose = c[i]
    quote[d] += v[i] * c[i]
    if (i + 1 < n && t[i + 1] - t[i] === bars.stepMs && l[i] > 0 && l[i + 1] > 0 && c[i] > 0) {
      const eta0 = 0.5 * (Math.log(h[i]) + Math.log(l[i]))
      const eta1 = 0.5 * (Math.log(h[i + 1]) + Math.log(l[i + 1]))
      const lc = Math.log(c[i])
      // the term of pair (i, i+1) is known at bar i+1's close: it belongs to i+1's day
      const d1 = Math.floor((t[i + 1] - t0) / DAY_MS)
      ar[d1] += 4 * (lc - eta0) * (lc - eta1)
      arN[d1] += 1
    }
    if (c[i] > 0) {
      // the smallest visible price step: bar range and close-to-close moves, float noise ignored
      const noise = c[i] * 1e-9
      const rng = h[i] - l[i]
      let step = rng > noise ? rng : Infinity
      if (i > 0 && t[i] - t[i - 1] === bars.stepMs) {
        const dc = Math.abs(c[i] - c[i - 1])
        if (dc > noise && dc < step) step = dc
      }
      const rel = step / c[i]
      if (rel < tickRel[d]) tickRel[d] = rel
    }
  }
  const pre = (x: Float64Array) => {
    const p = new Float64Array(days + 1)
    for (let d = 0; d < days; d++) p[d + 1] = p[d] + x[d]
    return p
  }
  const series: CoinCostSeries = { t0, days, pDays: pre(has), pRet: pre(ret), pRet2: pre(ret2), pRetN: pre(retN), pQuote: pre(quote), pAr: pre(ar), pArN: pre(arN), tickRel, perDay: new Float64Array(0) }
  const fillDays = days + COST_WINDOW_DAYS
  const perDay = new Float64Array(2 * fillDays)
  const est: FillCostInputs = { halfSpread: 0, impactPerSqrtUsd: 0 }
  for (let d = 0; d < fillDays; d++) {
    if (windowEstimate(series, d, est)) {
      perDay[2 * d] = est.halfSpread
      perDay[2 * d + 1] = est.impactPerSqrtUsd
    } else perDay[2 * d] = NaN
  }
  series.perDay = perDay
  return series
}

/**
 * The estimate for a fill at instant `tMs`, written into `out`: false (out untouched) when
 * the 30 days before hold fewer than MIN_COST_DAYS days of candles or no volume. Read from
 * the per-day table `coinCostSeries` filled with `windowEstimate`.
 */
export function fillCostInputs(s: CoinCostSeries, tMs: number, out: FillCostInputs): boolean {
  const day = Math.floor((tMs - s.t0) / DAY_MS)
  if (!(day >= 0 && day < s.days + COST_WINDOW_DAYS)) return false
  const half = s.perDay[2 * day]
  if (half !== half) return false // NaN: no estimate that day
  out.halfSpread = half
  out.impactPerSqrtUsd = s.perDay[2 * day + 1]
  return true
}

/** The estimate for a fill on day `day` (days since t0) from the 30 whole days before it: the formula of docs/metrics.md §1. */
function windowEstimate(s: CoinCostSeries, day: number, out: FillCostInputs): boolean {
  const hi = Math.min(day, s.days) // exclusive: the fill's own day is not read
  const lo = Math.max(0, day - COST_WINDOW_DAYS)
  if (hi - lo <= 0) return false
  const nDays = s.pDays[hi] - s.pDays[lo]
  const quote = s.pQuote[hi] - s.pQuote[lo]
  if (nDays < MIN_COST_DAYS || !(quote > 0)) return false
  const adv = quote / nDays
  const rn = s.pRetN[hi] - s.pRetN[lo]
  let sigma = 0
  if (rn >= 2) {
    const sum = s.pRet[hi] - s.pRet[lo]
    const mean = sum / rn
    const varr = (s.pRet2[hi] - s.pRet2[lo] - rn * mean * mean) / (rn - 1)
    sigma = varr > 0 ? Math.sqrt(varr) : 0
  }
  const an = s.pArN[hi] - s.pArN[lo]
  const arMean = an > 0 ? (s.pAr[hi] - s.pAr[lo]) / an : 0
  let spread = arMean > 0 ? Math.sqrt(arMean) : 0
  let tick = Infinity
  for (let d = lo; d < hi; d++) if (s.tickRel[d] < tick) tick = s.tickRel[d]
  if (tick !== Infinity && spread < tick) spread = tick
  out.halfSpread = spread / 2
  out.impactPerSqrtUsd = sigma / Math.sqrt(adv)
  return true
}
