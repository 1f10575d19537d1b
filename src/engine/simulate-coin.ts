/**
 * The trade simulator of one coin: DESIGN.md §3 as a tight loop over typed arrays.
 *
 * - A signal at bar i's close (entry[i] = 1) enters at bar i+1's open. Only signal bars
 *   in [fromIdx, toIdx − 1] can open a trade (a signal at toIdx would enter after the
 *   window's last bar).
 * - One position at a time: a signal bar must be at or after the previous trade's exit
 *   bar. An exit inside bar k or at its close lets a signal at k's close enter at k+1's
 *   open; an exit at bar k's open (gap, exit signal) lets a signal at k's close enter at
 *   k+1's open too, never at the same instant as the exit.
 * - Exits, on every bar k from the entry bar on (rules in `exitLong`/`exitShort`):
 *   1. the bar opens beyond the liquidation price: liquidation at the open;
 *   2. the bar opens beyond the stop (hard or trailing): stop at the open (gap slippage);
 *   3. the adverse extreme touches the stop or the liquidation price: whichever lies
 *      nearer the entry is hit first (a tie goes to liquidation); if the take profit was
 *      touched too the adverse exit stands and `slTpSameBar` is set;
 *   4. the favourable extreme touches the take profit: exit at the TP level, also when
 *      the bar opened beyond it (a conservative fill; DESIGN.md "fills at its level");
 *   5. k is the maxBars-th bar held: timeout at its close;
 *   6. k is the window's last bar: end_of_data at its close;
 *   7. the exit signal is true at k's close: exit at k+1's open.
 *   "Touches" includes equality (low ≤ stop, high ≥ take profit).
 * - Trailing (tpSource `trailing`): no take profit; the stop of bar k is the best price
 *   seen from the entry price through bar k−1's extreme, moved back by the trail
 *   distance, unless the hard stop is nearer the current price. It exits as `trailing`
 *   when the trailing level is the binding one, else as `sl`.
 * - Spot: leverage 1, no funding, no liquidation.
 */
import type { Bars, FundingSeries } from '../market/types'
import { chargeFunding, newFundingCharge } from './funding'
import type { ExitReason, Trade, TradeParams } from './types'

export interface CoinSimInput {
  symbol: string
  bars: Bars
  /** entry[i] = 1: the entry condition (after filters) is true at bar i's close */
  entry: Uint8Array
  /** exit[k] = 1: the exit condition is true at bar k's close; null = no signal exits */
  exit: Uint8Array | null
  /** first signal bar of the window */
  fromIdx: number
  /** last bar of the window: an open trade closes at its close (`end_of_data`) */
  toIdx: number
  funding: FundingSeries | null
}

const R_TP = 0
const R_SL = 1
const R_TRAILING = 2
const R_SIGNAL = 3
const R_TIMEOUT = 4
const R_LIQUIDATION = 5
const R_END = 6
const REASONS: readonly ExitReason[] = ['tp', 'sl', 'trailing', 'signal', 'timeout', 'liquidation', 'end_of_data']

const FILL_OPEN = 0
const FILL_INTRABAR = 1
const FILL_CLOSE = 2

/** Where one trade ended; one scratch object reused for every trade. */
interface ExitScratch {
  idx: number
  price: number
  reason: number
  fill: number
  sameBar: boolean
}

interface Levels {
  entry: number
  stop: number
  /** Infinity / −Infinity when there is no take profit (trailing) */
  tp: number
  /** −Infinity / Infinity on spot */
  liq: number
  /** trail distance as a fraction; 0 = not trailing */
  trailFrac: number
  /** the bar of the timeout */
  timeoutIdx: number
  /** the window's last bar */
  lastIdx: number
}

// The common bar touches nothing: one test against the nearest adverse level (the stop
// or the liquidation price, whichever is nearer the entry) and one against the take
// profit. Only a bar that touches either goes through the ordered rules; the open can be
// beyond a level only if the extreme is, since low ≤ open ≤ high.

function exitLong(bars: Bars, exitMask: Uint8Array | null, e: number, lv: Levels, out: ExitScratch): void {
  const { o, h, l, c } = bars
  const tp = lv.tp
  const liq = lv.liq
  const trailFrac = lv.trailFrac
  const end = lv.timeoutIdx < lv.lastIdx ? lv.timeoutIdx : lv.lastIdx
  let best = lv.entry
  let stop = lv.stop
  let stopReason = R_SL
  if (trailFrac > 0 && best - best * trailFrac > stop) {
    stop = best - best * trailFrac
    stopReason = R_TRAILING
  }
  let nearest = stop > liq ? stop : liq
  for (let k = e; ; k++) {
    const lk = l[k]
    const hk = h[k]
    if (lk <= nearest || hk >= tp) {
      const ok = o[k]
      if (ok <= liq) return set(out, k, ok, R_LIQUIDATION, FILL_OPEN, false)
      if (ok <= stop) return set(out, k, ok, stopReason, FILL_OPEN, false)
      if (lk <= nearest) {
        if (liq >= stop) return set(out, k, liq, R_LIQUIDATION, FILL_INTRABAR, hk >= tp)
        return set(out, k, stop, stopReason, FILL_INTRABAR, hk >= tp)
      }
      return set(out, k, tp, R_TP, FILL_INTRABAR, false)
    }
    if (k === end) return set(out, k, c[k], k === lv.timeoutIdx ? R_TIMEOUT : R_END, FILL_CLOSE, false)
    if (exitMask !== null && exitMask[k] !== 0) return set(out, k + 1, o[k + 1], R_SIGNAL, FILL_OPEN, false)
    // the trailing level of bar k+1 uses the best high through bar k
    if (trailFrac > 0 && hk > best) {
      best = hk
      const trail = best - best * trailFrac
      if (trail > stop) {
        stop = trail
        stopReason = R_TRAILING
        nearest = stop > liq ? stop : liq
      }
    }
  }
}

function exitShort(bars: Bars, exitMask: Uint8Array | null, e: number, lv: Levels, out: ExitScratch): void {
  const { o, h, l, c } = bars
  const tp = lv.tp
  const liq = lv.liq
  const trailFrac = lv.trailFrac
  const end = lv.timeoutIdx < lv.lastIdx ? lv.timeoutIdx : lv.lastIdx
  let best = lv.entry
  let stop = lv.stop
  let stopReason = R_SL
  if (trailFrac > 0 && best + best * trailFrac < stop) {
    stop = best + best * trailFrac
    stopReason = R_TRAILING
  }
  let nearest = stop < liq ? stop : liq
  for (let k = e; ; k++) {
    const lk = l[k]
    const hk = h[k]
    if (hk >= nearest || lk <= tp) {
      const ok = o[k]
      if (ok >= liq) return set(out, k, ok, R_LIQUIDATION, FILL_OPEN, false)
      if (ok >= stop) return set(out, k, ok, stopReason, FILL_OPEN, false)
      if (hk >= nearest) {
        if (liq <= stop) return set(out, k, liq, R_LIQUIDATION, FILL_INTRABAR, lk <= tp)
        return set(out, k, stop, stopReason, FILL_INTRABAR, lk <= tp)
      }
      return set(out, k, tp, R_TP, FILL_INTRABAR, false)
    }
    if (k === end) return set(out, k, c[k], k === lv.timeoutIdx ? R_TIMEOUT : R_END, FILL_CLOSE, false)
    if (exitMask !== null && exitMask[k] !== 0) return set(out, k + 1, o[k + 1], R_SIGNAL, FILL_OPEN, false)
    // the trailing level of bar k+1 uses the best low through bar k
    if (trailFrac > 0 && lk < best) {
      best = lk
      const trail = best + best * trailFrac
      if (trail < stop) {
        stop = trail
        stopReason = R_TRAILING
        nearest = stop < liq ? stop : liq
      }
    }
  }
}

function set(out: ExitScratch, idx: number, price: number, reason: number, fill: number, sameBar: boolean): void {
  out.idx = idx
  out.price = price
  out.reason = reason
  out.fill = fill
  out.sameBar = sameBar
}

/**
 * First i in [from, end) with mask[i] ≠ 0, else end. Signals are rare (a few % of bars),
 * so the scan tests four bytes at a time through `words` (a Uint32Array view of the same
 * memory, null when the mask is not 4-byte aligned).
 */
function nextSignal(mask: Uint8Array, words: Uint32Array | null, from: number, end: number): number {
  let i = from
  if (words !== null) {
    while ((i & 3) !== 0) {
      if (i >= end) return end
      if (mask[i] !== 0) return i
      i++
    }
    let w = i >>> 2
    const wEnd = end >>> 2
    while (w < wEnd && words[w] === 0) w++
    i = w << 2
  }
  for (; i < end; i++) if (mask[i] !== 0) return i
  return end
}

function wordView(mask: Uint8Array): Uint32Array | null {
  return mask.byteOffset % 4 === 0 ? new Uint32Array(mask.buffer, mask.byteOffset, mask.length >>> 2) : null
}

/** Simulate every trade of one coin; trades come out in time order. */
export function simulateCoin(input: CoinSimInput, p: TradeParams): Trade[] {
  // a trade must end: a max_bars below 1 would let the exit loop run off the bars
  if (!(p.maxBars >= 1) || !(p.leverage > 0)) throw new RangeError('simulateCoin: maxBars must be ≥ 1 and leverage > 0')
  const { bars, entry, exit, funding, symbol } = input
  const trades: Trade[] = []
  const lastIdx = Math.min(input.toIdx, bars.n - 1)
  const futures = p.marketType === 'futures'
  const lev = futures ? p.leverage : 1
  const long = p.direction === 'long'
  const dirSign = long ? 1 : -1
  const trailing = p.tpSource === 'trailing'
  const trailPct = trailing ? (p.trailingPct ?? p.tpPct) : 0
  // adverse move (fraction of entry) at which the isolated margin is gone
  const liqMove = 1 / lev - p.mmrFrac
  const t = bars.t
  const o = bars.o
  const halfStepMs = bars.stepMs / 2
  const scratch: ExitScratch = { idx: 0, price: 0, reason: 0, fill: 0, sameBar: false }
  const fundingCharge = newFundingCharge()
  const lv: Levels = { entry: 0, stop: 0, tp: 0, liq: 0, trailFrac: trailPct / 100, timeoutIdx: 0, lastIdx }

  const words = wordView(entry)
  let i = Math.max(input.fromIdx, 0)
  for (;;) {
    i = nextSignal(entry, words, i, lastIdx)
    if (i >= lastIdx) break
    const e = i + 1
    const entryPrice = o[e]
    if (!(entryPrice > 0)) {
      i++
      continue
    }
    lv.entry = entryPrice
    lv.timeoutIdx = e + p.maxBars - 1
    if (long) {
      lv.stop = entryPrice - (entryPrice * p.slPct) / 100
      lv.tp = trailing ? Infinity : entryPrice + (entryPrice * p.tpPct) / 100
      lv.liq = futures ? entryPrice - entryPrice * liqMove : -Infinity
      exitLong(bars, exit, e, lv, scratch)
    } else {
      lv.stop = entryPrice + (entryPrice * p.slPct) / 100
      lv.tp = trailing ? -Infinity : entryPrice - (entryPrice * p.tpPct) / 100
      lv.liq = futures ? entryPrice + entryPrice * liqMove : Infinity
      exitShort(bars, exit, e, lv, scratch)
    }

    const k = scratch.idx
    const exitPrice = scratch.price
    const entryTimeMs = t[e]
    const exitTimeMs = scratch.fill === FILL_OPEN ? t[k] : scratch.fill === FILL_CLOSE ? t[k] + bars.stepMs : t[k] + halfStepMs
    let fundingPct = 0
    let fundingEvents = 0
    let fundingEventsReal = 0
    if (futures) {
      chargeFunding(bars, funding, e, entryPrice, entryTimeMs, exitTimeMs, dirSign, lev, fundingCharge)
      fundingPct = fundingCharge.pct
      fundingEvents = fundingCharge.events
      fundingEventsReal = fundingCharge.real
    }
    const priceRatio = exitPrice / entryPrice
    const grossPct = dirSign * (priceRatio - 1) * lev * 100
    const feePct = p.feeFrac * lev * 100 * (1 + priceRatio)
    const liquidated = scratch.reason === R_LIQUIDATION
    trades.push({
      symbol,
      direction: p.direction,
      entryIdx: e,
      exitIdx: k,
      entryTimeMs,
      exitTimeMs,
      entryPrice,
      exitPrice,
      barsHeld: scratch.fill === FILL_OPEN ? k - e : k - e + 1,
      exitReason: REASONS[scratch.reason],
      pnlPct: liquidated ? -100 : grossPct - feePct - fundingPct,
      grossPct,
      feePct,
      fundingPct,
      slTpSameBar: scratch.sameBar,
      fundingEvents,
      fundingEventsReal,
    })
    i = k > i + 1 ? k : i + 1
  }
  return trades
}
