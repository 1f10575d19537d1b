/**
 * Funding of one position (DESIGN.md §3, "Costs").
 *
 * A position pays or receives at every funding event T with entry instant < T < exit
 * instant. Events come from the store's real series; outside the span from the coin's
 * first to its last real event (everywhere, for a coin with none) stand-in events of
 * FALLBACK_FUNDING_RATE at 00/08/16 UTC are charged instead, and counted apart so that
 * the result can report its coverage (real / total).
 *
 * Payment = qty × P(T) × rate, with P(T) the open of the bar that contains T: on the
 * 1H base timeframe, whose bars start on the hour like the events, that is the bar
 * starting at T; on resampled timeframes an event inside a bar is priced at that bar's
 * open, the last price the bars say was traded at or before T.
 * As % of margin (margin = qty × entry / leverage): rate × P(T) / entry × leverage × 100,
 * paid by longs for a positive rate and received by shorts.
 */
import type { Bars, FundingSeries } from '../market/types'
import { lastAtOrBefore, upperBound } from './search'
import { FALLBACK_FUNDING_INTERVAL_MS, FALLBACK_FUNDING_RATE } from './types'

/** Scratch result, reused across trades so the kernel allocates nothing per trade. */
export interface FundingCharge {
  /** % of margin, positive = paid */
  pct: number
  events: number
  real: number
  /**
   * Search hint: index of the first real event after the previous trade's entry. Trades
   * of one coin come in time order, so the next search starts here (reset to 0 per coin).
   */
  cursor: number
}

export function newFundingCharge(): FundingCharge {
  return { pct: 0, events: 0, real: 0, cursor: 0 }
}

/**
 * Charge the funding of a position held from tInMs to tOutMs (exclusive at both ends)
 * into `out`. `entryIdx` is the entry bar, whose open time is tInMs; `dirSign` is +1 for
 * a long, −1 for a short.
 */
export function chargeFunding(
  bars: Bars,
  funding: FundingSeries | null,
  entryIdx: number,
  entryPrice: number,
  tInMs: number,
  tOutMs: number,
  dirSign: number,
  leverage: number,
  out: FundingCharge,
): void {
  const t = bars.t
  const o = bars.o
  const nBars = bars.n
  const stepMs = bars.stepMs
  let rateTimesPrice = 0
  let events = 0
  let real = 0

  const nEv = funding === null ? 0 : funding.n
  let firstRealMs = Infinity
  let lastRealMs = -Infinity
  if (funding !== null && nEv > 0) {
    const ft = funding.t
    const fr = funding.rate
    firstRealMs = ft[0]
    lastRealMs = ft[nEv - 1]
    // first event after the entry: a short walk from the hint, a binary search otherwise
    let j = out.cursor
    if (j > nEv || (j > 0 && ft[j - 1] > tInMs)) j = 0
    for (let steps = 0; j < nEv && ft[j] <= tInMs; j++) {
      if (++steps > 16) {
        j = upperBound(ft, nEv, tInMs)
        break
      }
    }
    out.cursor = j
    let b = entryIdx
    for (; j < nEv; j++) {
      const tEv = ft[j]
      if (tEv >= tOutMs) break
      b = lastAtOrBefore(t, nBars, stepMs, b, tEv)
      rateTimesPrice += fr[j] * o[b]
      real++
    }
    events = real
  }

  // stand-ins on the 8h grid, only outside [firstRealMs, lastRealMs]
  const step = FALLBACK_FUNDING_INTERVAL_MS
  let b = entryIdx
  for (let g = (Math.floor(tInMs / step) + 1) * step; g < tOutMs; g += step) {
    if (g >= firstRealMs && g <= lastRealMs) {
      // jump over the covered span in one step
      g = (Math.floor(lastRealMs / step) + 1) * step - step
      continue
    }
    b = lastAtOrBefore(t, nBars, stepMs, b, g)
    rateTimesPrice += FALLBACK_FUNDING_RATE * o[b]
    events++
  }

  out.pct = (dirSign * rateTimesPrice * leverage * 100) / entryPrice
  out.events = events
  out.real = real
}
