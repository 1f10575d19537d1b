/**
 * Funding charged to many positions of one coin, from prefix sums: the random-entry null
 * (random-entry.ts) prices thousands of single trades per coin, where walking each trade's
 * events (funding.ts, chargeFunding) would be half the cost of a trade.
 */
import type { Bars, FundingSeries } from '../market/types'
import { lowerBound, upperBound } from './search'
import { FALLBACK_FUNDING_INTERVAL_MS, FALLBACK_FUNDING_RATE } from './types'

/**
 * Funding of a position held over (tIn, tOut), by the rule of funding.ts (chargeFunding):
 * real events strictly inside, each paying rate × the open of the bar containing it; 8-hour
 * stand-ins of FALLBACK_FUNDING_RATE outside the span of real events. Here from prefix sums
 * over the coin's events and over the stand-in grid, so one trade costs four binary
 * searches instead of a walk over its events (half the cost of a random trade otherwise).
 * Sums are added in another order than chargeFunding's, so results agree to rounding.
 */
export class FundingSums {
  private readonly realT: Float64Array
  private readonly nReal: number
  /** realCum[j] = Σ rate × price of real events 0..j−1 */
  private readonly realCum: Float64Array
  private readonly firstGrid: number
  /** gridCum[m] = Σ price of the stand-in grid points firstGrid .. firstGrid + m − 1 (0 where real events cover) */
  private readonly gridCum: Float64Array

  constructor(bars: Bars, funding: FundingSeries | null) {
    const { t, o, n } = bars
    this.nReal = funding === null ? 0 : funding.n
    this.realT = funding === null ? new Float64Array(0) : funding.t
    this.realCum = new Float64Array(this.nReal + 1)
    // b: the last bar opened at or before the event or grid time (times ascend)
    let b = 0
    for (let j = 0; j < this.nReal; j++) {
      const tEv = this.realT[j]
      while (b + 1 < n && t[b + 1] <= tEv) b++
      // an event before the first bar is never inside a position
      this.realCum[j + 1] = this.realCum[j] + (tEv >= t[0] ? funding!.rate[j] * o[b] : 0)
    }
    const step = FALLBACK_FUNDING_INTERVAL_MS
    const firstReal = this.nReal > 0 ? this.realT[0] : Infinity
    const lastReal = this.nReal > 0 ? this.realT[this.nReal - 1] : -Infinity
    this.firstGrid = Math.floor(t[0] / step) + 1
    const lastGrid = Math.ceil((t[n - 1] + bars.stepMs) / step)
    const points = Math.max(0, lastGrid - this.firstGrid + 1)
    this.gridCum = new Float64Array(points + 1)
    b = 0
    for (let m = 0; m < points; m++) {
      const g = (this.firstGrid + m) * step
      while (b + 1 < n && t[b + 1] <= g) b++
      this.gridCum[m + 1] = this.gridCum[m] + (g >= firstReal && g <= lastReal ? 0 : o[b])
    }
  }

  /** first event after tIn and first at or after tOut of the previous call (search hints) */
  private jIn = 0
  private jOut = 0

  /**
   * Σ rate × price over the events strictly inside (tIn, tOut), stand-ins included.
   * Outcomes are computed in bar order, so the event indices move forward a few steps per
   * call (a binary search is mostly branch misses); a call going back in time searches.
   */
  rateTimesPrice(tInMs: number, tOutMs: number): number {
    let sum = 0
    const n = this.nReal
    if (n > 0) {
      const ts = this.realT
      let jIn = this.jIn
      if (jIn > 0 && ts[jIn - 1] > tInMs) jIn = upperBound(ts, n, tInMs)
      while (jIn < n && ts[jIn] <= tInMs) jIn++
      let jOut = this.jOut
      if (jOut > 0 && ts[jOut - 1] >= tOutMs) jOut = lowerBound(ts, n, tOutMs)
      while (jOut < n && ts[jOut] < tOutMs) jOut++
      this.jIn = jIn
      this.jOut = jOut
      if (jOut > jIn) sum += this.realCum[jOut] - this.realCum[jIn]
    }
    const step = FALLBACK_FUNDING_INTERVAL_MS
    const mLo = Math.floor(tInMs / step) + 1 - this.firstGrid
    const mHi = Math.ceil(tOutMs / step) - 1 - this.firstGrid
    if (mHi >= mLo) sum += FALLBACK_FUNDING_RATE * (this.gridCum[mHi + 1] - this.gridCum[mLo])
    return sum
  }
}
