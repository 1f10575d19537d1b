/**
 * Funding of positions on one coin (docs/metrics.md §1, "Costs"); the only place the rule is
 * written, for simulateCoin and the random-entry null alike.
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
import { lowerBound, upperBound } from '../sorted-search'
import { lastAtOrBefore } from './search'
import { FALLBACK_FUNDING_INTERVAL_MS, FALLBACK_FUNDING_RATE } from './types'
import { DAY_MS } from '../time'

const GRID_MS = FALLBACK_FUNDING_INTERVAL_MS

/** the event columns of a coin without funding (read only) */
const NO_EVENTS = new Float64Array(0)

/**
 * The funding of positions on one coin inside one window of its bars; the result of the
 * last `charge` is in `pct`, `events` and `real` (no allocation per trade).
 *
 * The random-entry null prices thousands of overlapping trades per coin, and the price
 * lookup is most of a trade's funding cost, so there (`keep`) each event's rate × P(T) is
 * looked up once, up front. Sums run in event order either way: a trade's funding is the
 * same to the last bit whether amounts are kept or not.
 */
export class CoinFunding {
  /** % of margin of the last charge, positive = paid */
  pct = 0
  /** events of the last charge (real + stand-in) */
  events = 0
  /** of those, events of the store's real series */
  real = 0

  private readonly ft: Float64Array
  private readonly rate: Float64Array
  private readonly nEv: number
  private readonly firstRealMs: number
  private readonly lastRealMs: number
  /** first real event after the previous charge's entry (trades mostly come in time order) */
  private cursor = 0
  private readonly startMs: number
  private readonly endMs: number
  /** kept: rate × P(T) of real event realBase + m (the window's, or the whole series' amounts: no view made per window) */
  private readonly realAmt: Float64Array | null
  private readonly realBase: number
  /** kept: FALLBACK_FUNDING_RATE × P(T) of the stand-in at (gridBase + m) × GRID_MS (0 where real events cover) */
  private readonly gridAmt: Float64Array | null
  private readonly gridBase: number
  /** kept: the first real event at or after UTC day dayLo + d's midnight, dayFirst[d] (an index into the series) */
  private readonly dayFirst: Int32Array | null
  private readonly dayLo: number

  /**
   * Positions enter after bar fromIdx's open and leave by bar lastIdx's close. `keep`:
   * look every event's amount up once, for many overlapping trades (one position at a
   * time never charges an event twice, so there it would be wasted work).
   */
  constructor(
    private readonly bars: Bars,
    funding: FundingSeries | null,
    fromIdx: number,
    lastIdx: number,
    keep: boolean,
    /** with `keep`: keptFunding(bars, funding), kept by the caller between runs; absent: looked up here */
    whole?: KeptFunding | null,
  ) {
    const from = Math.max(0, Math.min(fromIdx, bars.n - 1))
    const last = Math.max(from, Math.min(lastIdx, bars.n - 1))
    const startMs = bars.n > 0 ? bars.t[from] : 0
    const endMs = bars.n > 0 ? bars.t[last] + bars.stepMs : 0
    this.startMs = startMs
    this.endMs = endMs
    const nEv = funding === null ? 0 : funding.n
    const ft = funding === null ? NO_EVENTS : funding.t
    const rate = funding === null ? NO_EVENTS : funding.rate
    this.nEv = nEv
    this.ft = ft
    this.rate = rate
    if (keep && bars.n > 0 && whole && whole.nEv === nEv && whole.startMs <= startMs && endMs <= whole.endMs) {
      // the window's amounts are a stretch of the whole bars' (the same products: P(T) does not depend on the window),
      // read in place; the day index holds for any window of the series (its days and indices are absolute), and
      // the series' span is kept with them (a model per coin and run: its two ends are otherwise two reads far apart)
      this.firstRealMs = whole.firstRealMs
      this.lastRealMs = whole.lastRealMs
      // (the fields in the same order as below: one shape of object for charge to read)
      this.realAmt = whole.realAmt
      this.gridAmt = whole.gridAmt
      this.realBase = whole.jLo
      this.gridBase = whole.gridLo
      this.dayFirst = whole.dayFirst
      this.dayLo = whole.dayLo
      return
    }
    this.firstRealMs = nEv > 0 ? ft[0] : Infinity
    this.lastRealMs = nEv > 0 ? ft[nEv - 1] : -Infinity
    this.realAmt = null
    this.gridAmt = null
    this.realBase = 0
    this.gridBase = 0
    this.dayFirst = null
    this.dayLo = 0
    if (!keep || bars.n === 0) return
    // only events strictly inside the window can be charged
    const jLo = upperBound(ft, this.startMs, nEv)
    const gridLo = Math.floor(this.startMs / GRID_MS) + 1
    const nReal = Math.max(0, lowerBound(ft, this.endMs, nEv) - jLo)
    const nGrid = Math.max(0, Math.ceil(this.endMs / GRID_MS) - gridLo)
    const realAmt = new Float64Array(nReal)
    for (let m = 0, b = from; m < nReal; m++) {
      const j = jLo + m
      b = lastAtOrBefore(bars.t, bars.n, bars.stepMs, b, ft[j])
      realAmt[m] = rate[j] * bars.o[b]
    }
    const gridAmt = new Float64Array(nGrid)
    for (let m = 0, b = from; m < nGrid; m++) {
      const gMs = (gridLo + m) * GRID_MS
      if (gMs >= this.firstRealMs && gMs <= this.lastRealMs) continue
      b = lastAtOrBefore(bars.t, bars.n, bars.stepMs, b, gMs)
      gridAmt[m] = FALLBACK_FUNDING_RATE * bars.o[b]
    }
    this.realAmt = realAmt
    this.realBase = jLo
    this.gridAmt = gridAmt
    this.gridBase = gridLo
    // each UTC day's first real event, from the first day of the window to the last
    if (nEv > 0) {
      this.dayLo = Math.floor(this.startMs / DAY_MS)
      const nDays = Math.floor(this.endMs / DAY_MS) - this.dayLo + 1
      const dayFirst = new Int32Array(nDays)
      for (let d = 0, j = lowerBound(ft, this.dayLo * DAY_MS, nEv); d < nDays; d++) {
        const dayMs = (this.dayLo + d) * DAY_MS
        while (j < nEv && ft[j] < dayMs) j++
        dayFirst[d] = j
      }
      this.dayFirst = dayFirst
    }
  }

  /** The kept amounts of this charger (keep mode), as keptFunding returns them for a whole series. */
  kept(): KeptFunding | null {
    if (this.realAmt === null || this.gridAmt === null) return null
    return { nEv: this.nEv, firstRealMs: this.firstRealMs, lastRealMs: this.lastRealMs, startMs: this.startMs, endMs: this.endMs, jLo: this.realBase, realAmt: this.realAmt, gridLo: this.gridBase, gridAmt: this.gridAmt, dayFirst: this.dayFirst, dayLo: this.dayLo }
  }

  /**
   * Charge a position held from tInMs to tOutMs (exclusive at both ends), inside the
   * window. `entryIdx` is the entry bar, whose open time is tInMs; `dirSign` is +1 for a
   * long, −1 for a short.
   */
  charge(entryIdx: number, entryPrice: number, tInMs: number, tOutMs: number, dirSign: number, leverage: number): void {
    if (!(tInMs >= this.startMs && tOutMs <= this.endMs)) throw new RangeError('CoinFunding: a position outside the window')
    const { t, o, n: nBars, stepMs } = this.bars
    let rateTimesPrice = 0
    let real = 0
    // P(T) = o[b], b the last bar opened at or before T, searched on from the previous b
    let b = entryIdx
    const nEv = this.nEv
    if (nEv > 0) {
      const ft = this.ft
      // first event after the entry: a walk from the first event of the entry's day (kept), or
      // a short walk from the cursor; a binary search otherwise. Each finds upperBound(ft, tInMs).
      let j = this.cursor
      const day = Math.floor(tInMs / DAY_MS) - this.dayLo
      const dayFirst = this.dayFirst
      if (dayFirst !== null && day >= 0 && day < dayFirst.length) j = dayFirst[day]
      else if (j > nEv || (j > 0 && ft[j - 1] > tInMs)) j = 0
      for (let steps = 0; j < nEv && ft[j] <= tInMs; j++) {
        if (++steps > 16) {
          j = upperBound(ft, tInMs, nEv)
          break
        }
      }
      this.cursor = j
      const kept = this.realAmt
      if (kept !== null) {
        for (let m = j - this.realBase; j < nEv && ft[j] < tOutMs; j++, m++) rateTimesPrice += kept[m]
      } else {
        const rate = this.rate
        for (; j < nEv && ft[j] < tOutMs; j++) {
          b = lastAtOrBefore(t, nBars, stepMs, b, ft[j])
          rateTimesPrice += rate[j] * o[b]
        }
      }
      real = j - this.cursor
    }
    let events = real
    // stand-ins on the 8h grid, only outside [firstRealMs, lastRealMs]
    const firstRealMs = this.firstRealMs
    const lastRealMs = this.lastRealMs
    if (!(tInMs >= firstRealMs && tOutMs <= lastRealMs)) {
      const kept = this.gridAmt
      b = entryIdx
      for (let g = Math.floor(tInMs / GRID_MS) + 1; g * GRID_MS < tOutMs; g++) {
        const gMs = g * GRID_MS
        if (gMs >= firstRealMs && gMs <= lastRealMs) {
          // jump over the covered span in one step
          g = Math.floor(lastRealMs / GRID_MS)
          continue
        }
        if (kept !== null) rateTimesPrice += kept[g - this.gridBase]
        else {
          b = lastAtOrBefore(t, nBars, stepMs, b, gMs)
          rateTimesPrice += FALLBACK_FUNDING_RATE * o[b]
        }
        events++
      }
    }
    this.pct = (dirSign * rateTimesPrice * leverage * 100) / entryPrice
    this.events = events
    this.real = real
  }
}

/**
 * CoinFunding's kept amounts over a coin's whole bars: real event jLo + m's rate × P(T) in
 * realAmt[m], the stand-in at (gridLo + m) × 8h's in gridAmt[m]. A window's amounts are a
 * stretch of them, so a caller pricing the random-entry null of the same coin run after run
 * (a worker) keeps them instead of looking every event's price up again.
 */
export interface KeptFunding {
  /** the series' event count they were computed on */
  nEv: number
  /** the series' first and last event (CoinFunding's) */
  firstRealMs: number
  lastRealMs: number
  /** the span whose events they hold: those strictly inside it (a window inside reads them in place) */
  startMs: number
  endMs: number
  jLo: number
  realAmt: Float64Array
  gridLo: number
  gridAmt: Float64Array
  /** the first real event at or after UTC day dayLo + d's midnight (an index into the series); null: no real event */
  dayFirst: Int32Array | null
  dayLo: number
}

export function keptFunding(bars: Bars, funding: FundingSeries | null): KeptFunding | null {
  return bars.n === 0 ? null : new CoinFunding(bars, funding, 0, bars.n - 1, true).kept()
}

/**
 * Every funding event strictly inside the span from bar fromIdx's open to bar lastIdx's
 * close, in time order, by the rule above (real events; stand-ins outside the real
 * span), each with its rate × P(T). For positions whose size changes between fills (the
 * DCA and grid bots), which charge event by event on the quantity held at T.
 */
export interface FundingEvents {
  n: number
  tMs: Float64Array
  /** rate × P(T): the payment per unit of quantity held long (a short receives it) */
  ratePrice: Float64Array
  /** 1 for an event of the store's real series, 0 for a stand-in */
  real: Uint8Array
}

export function fundingEventsInWindow(bars: Bars, funding: FundingSeries | null, fromIdx: number, lastIdx: number): FundingEvents {
  const empty: FundingEvents = { n: 0, tMs: new Float64Array(0), ratePrice: new Float64Array(0), real: new Uint8Array(0) }
  if (bars.n === 0 || fromIdx > lastIdx) return empty
  const startMs = bars.t[fromIdx]
  const endMs = bars.t[lastIdx] + bars.stepMs
  const nEv = funding === null ? 0 : funding.n
  const ft = funding === null ? new Float64Array(0) : funding.t
  const firstRealMs = nEv > 0 ? ft[0] : Infinity
  const lastRealMs = nEv > 0 ? ft[nEv - 1] : -Infinity
  const times: number[] = []
  const amounts: number[] = []
  const real: number[] = []
  let b = fromIdx
  const push = (tMs: number, rate: number, isReal: number) => {
    b = lastAtOrBefore(bars.t, bars.n, bars.stepMs, b, tMs)
    times.push(tMs)
    amounts.push(rate * bars.o[b])
    real.push(isReal)
  }
  const grid = (fromMs: number, toMs: number) => {
    // stand-ins strictly inside (fromMs, toMs), never inside the real span
    for (let g = Math.floor(fromMs / GRID_MS) + 1; g * GRID_MS < toMs; g++) {
      const gMs = g * GRID_MS
      if (gMs >= firstRealMs && gMs <= lastRealMs) continue
      push(gMs, FALLBACK_FUNDING_RATE, 0)
    }
  }
  grid(startMs, Math.min(endMs, firstRealMs))
  for (let j = upperBound(ft, startMs, nEv); j < nEv && ft[j] < endMs; j++) push(ft[j], funding!.rate[j], 1)
  if (nEv > 0) grid(Math.max(startMs, lastRealMs), endMs)
  return { n: times.length, tMs: Float64Array.from(times), ratePrice: Float64Array.from(amounts), real: Uint8Array.from(real) }
}
