/**
 * The trade model: one trade's exit and costs (TradeModel, the only place both are
 * written; docs/metrics.md §1), and a coin's signals → its trades (simulateCoin). The
 * random-entry null (random bars → net P&L) calls TradeModel for every trade too.
 *
 * - simulateCoin: a signal at bar i's close (entry[i] = 1) enters at bar i+1's open. Only
 *   signal bars in [fromIdx, toIdx − 1] can open a trade (a signal at toIdx would enter
 *   after the window's last bar). One position at a time: a signal bar must be at or
 *   after the previous trade's exit bar. An exit inside bar k or at its close lets a
 *   signal at k's close enter at k+1's open; an exit at bar k's open (gap, exit signal)
 *   lets a signal at k's close enter at k+1's open too, never at the same instant as the
 *   exit.
 *
 * - Entry at bar e's open. Exits, on every bar k from e on (rules in `exitLong` /
 *   `exitShort`):
 *   1. the bar opens beyond the liquidation price: liquidation at the open;
 *   2. the bar opens beyond the stop (hard or trailing): stop at the open (gap slippage);
 *   3. the adverse extreme touches the stop or the liquidation price: whichever lies
 *      nearer the entry is hit first (a tie goes to liquidation); if the take profit was
 *      touched too the adverse exit stands and `slTpSameBar` is set;
 *   4. the favourable extreme touches the take profit: exit at the TP level, also when
 *      the bar opened beyond it (a conservative fill; docs/metrics.md §1);
 *   5. k is the maxBars-th bar held: timeout at its close;
 *   6. k is the window's last bar: end_of_data at its close (`delisted` when that bar
 *      is a delisted coin's last candle: the market closed under the position);
 *   7. the exit signal is true at k's close: exit at k+1's open.
 *   "Touches" includes equality (low ≤ stop, high ≥ take profit).
 * - Trailing (tpSource `trailing`): no take profit; the stop of bar k is the best price
 *   seen from the entry price through bar k−1's extreme, moved back by the trail
 *   distance, unless the hard stop is nearer the current price. It exits as `trailing`
 *   when the trailing level is the binding one, else as `sl`.
 * - Spot: leverage 1, no funding, no liquidation.
 * - Costs in % of margin: gross = direction·(exit/entry − 1)·leverage·100; fees =
 *   feeFrac·leverage·100·(1 + exit/entry) (entry and exit side on their notionals);
 *   funding by funding.ts; net = gross − fees − funding, exactly −100 when liquidated.
 */
import type { Bars, FundingSeries } from '../market/types'
import { CoinFunding, type KeptFunding } from './funding'
import { IntrabarReplay, REPLAY_EXIT, type IntrabarCounts, type IntrabarDetail } from './intrabar'
import { BLOCK, lastOfBlock, quietBlocks, stepQuiet, type QuietBlocks, type QuietExtremes } from './quiet-blocks'
import { coinLiquidationMove, ExecutionCosts, nextDown, nextUp } from './execution'
import type { MarginBracket } from './margin-brackets'
import type { MarkBars } from './mark-price'
import type { CoinCostSeries } from './slippage'
import type { TradeTable } from './trade-table'
import { EXIT_REASONS, type Trade, type TradeParams } from './types'

// exit reason codes: indices into EXIT_REASONS (types.ts)
const R_TP = 0
const R_SL = 1
const R_TRAILING = 2
const R_SIGNAL = 3
const R_TIMEOUT = 4
const R_LIQUIDATION = 5
const R_END = 6
const R_DELISTED = 7

/** where in its bar the exit filled */
const FILL_OPEN = 0
const FILL_INTRABAR = 1
const FILL_CLOSE = 2
/** inside the bar at a minute resolved by the minute detail (intrabar.ts): the instant is the replay's */
const FILL_MINUTE = 3

/** Where one trade ended. */
interface ExitScratch {
  exitIdx: number
  exitPrice: number
  reason: number
  fill: number
  sameBar: boolean
}

interface Levels {
  entry: number
  stop: number
  /** the take profit's test level: Infinity / −Infinity when there is none (trailing); one step beyond the level for a limit order, which fills only when the price trades through */
  tp: number
  /** the take profit's fill price */
  tpFill: number
  /** −Infinity / Infinity on spot */
  liq: number
  /** trail distance as a fraction; 0 = not trailing */
  trailFrac: number
  /** the bar of the timeout */
  timeoutIdx: number
  /** the window's last bar */
  lastIdx: number
  /** the reason of an exit at lastIdx's close: R_END, or R_DELISTED when lastIdx is a delisted coin's last candle */
  endReason: number
}

// The common bar touches nothing: one test against the nearest adverse level (the stop
// or the liquidation price, whichever is nearer the entry) and one against the take
// profit. Only a bar that touches either goes through the ordered rules; the open can be
// beyond a level only if the extreme is, since low ≤ open ≤ high. `checkAt` is the
// trade's last bar, or with quiet blocks the nearer end of the current block, so that
// stepping over blocks costs the bar loop no test of its own.

function exitLong(bars: Bars, exitMask: Uint8Array | null, e: number, lv: Levels, out: ExitScratch, qb: QuietBlocks | null, rp: IntrabarReplay | null, mk: MarkBars | null): void {
  const { o, h, l, c, t } = bars
  // with mark candles the liquidation price is tested on the mark's low, the stop on the last price's
  const ml = mk === null ? l : mk.l
  const mliq = mk === null ? -Infinity : lv.liq
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
  let nearest = mk !== null ? stop : stop > liq ? stop : liq
  let k = e
  let checkAt = end
  if (qb !== null && trailFrac === 0) {
    if ((k & (BLOCK - 1)) === 0) k = stepQuiet(qb, k, end, nearest, tp)
    checkAt = lastOfBlock(k, end)
  }
  for (; ; k++) {
    const lk = l[k]
    const hk = h[k]
    if (lk <= nearest || hk >= tp || ml[k] <= mliq) {
      const ok = o[k]
      if (mk !== null) return markExitLong(bars, k, lv, stop, stopReason, best, out, rp, mk)
      if (ok <= liq) return set(out, k, ok, R_LIQUIDATION, FILL_OPEN, false)
      if (ok <= stop) return set(out, k, ok, stopReason, FILL_OPEN, false)
      // minute detail: the bars whose outcome depends on the path inside them (intrabar.ts)
      if (rp !== null && lk <= nearest && (hk >= tp || (lk <= stop && lk <= liq) || (trailFrac > 0 && hk > best && hk - hk * trailFrac > stop))) {
        const n = rp.now
        n.stop = stop; n.stopReason = stopReason; n.liq = liq; n.tp = tp; n.best = best; n.trailFrac = trailFrac
        if (rp.replay(1, t[k], n, true, liq >= stop ? liq : stop, liq >= stop ? R_LIQUIDATION : stopReason) === REPLAY_EXIT) return set(out, k, rp.price, rp.reason, FILL_MINUTE, rp.sameBar)
      }
      if (lk <= nearest) {
        if (liq >= stop) return set(out, k, liq, R_LIQUIDATION, FILL_INTRABAR, hk >= tp)
        return set(out, k, stop, stopReason, FILL_INTRABAR, hk >= tp)
      }
      return set(out, k, lv.tpFill, R_TP, FILL_INTRABAR, false)
    }
    // a trailing stop that moves inside the bar and is touched there: the bar rule sees no exit
    if (rp !== null && trailFrac > 0 && hk > best && lk <= hk - hk * trailFrac) {
      const n = rp.now
      // with mark candles the mark's low stayed above the liquidation price in this bar
      n.stop = stop; n.stopReason = stopReason; n.liq = mk !== null ? -Infinity : liq; n.tp = tp; n.best = best; n.trailFrac = trailFrac
      if (rp.replay(1, t[k], n, false, 0, 0) === REPLAY_EXIT) return set(out, k, rp.price, rp.reason, FILL_MINUTE, rp.sameBar)
    }
    if (k === checkAt) {
      if (k === end) return set(out, k, c[k], k === lv.timeoutIdx ? R_TIMEOUT : lv.endReason, FILL_CLOSE, false)
      // k ends an 8-bar block (stepping over quiet blocks, so no trailing): step from k + 1
      if (exitMask !== null && exitMask[k] !== 0) return set(out, k + 1, o[k + 1], R_SIGNAL, FILL_OPEN, false)
      const next = stepQuiet(qb!, k + 1, end, nearest, tp)
      checkAt = lastOfBlock(next, end)
      k = next - 1
      continue
    }
    if (exitMask !== null && exitMask[k] !== 0) return set(out, k + 1, o[k + 1], R_SIGNAL, FILL_OPEN, false)
    // the trailing level of bar k+1 uses the best high through bar k
    if (trailFrac > 0 && hk > best) {
      best = hk
      const trail = best - best * trailFrac
      if (trail > stop) {
        stop = trail
        stopReason = R_TRAILING
        nearest = mk !== null ? stop : stop > liq ? stop : liq
      }
    }
  }
}

function exitShort(bars: Bars, exitMask: Uint8Array | null, e: number, lv: Levels, out: ExitScratch, qb: QuietBlocks | null, rp: IntrabarReplay | null, mk: MarkBars | null): void {
  const { o, h, l, c, t } = bars
  const mh = mk === null ? h : mk.h
  const mliq = mk === null ? Infinity : lv.liq
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
  let nearest = mk !== null ? stop : stop < liq ? stop : liq
  let k = e
  let checkAt = end
  if (qb !== null && trailFrac === 0) {
    if ((k & (BLOCK - 1)) === 0) k = stepQuiet(qb, k, end, tp, nearest)
    checkAt = lastOfBlock(k, end)
  }
  for (; ; k++) {
    const lk = l[k]
    const hk = h[k]
    if (hk >= nearest || lk <= tp || mh[k] >= mliq) {
      const ok = o[k]
      if (mk !== null) return markExitShort(bars, k, lv, stop, stopReason, best, out, rp, mk)
      if (ok >= liq) return set(out, k, ok, R_LIQUIDATION, FILL_OPEN, false)
      if (ok >= stop) return set(out, k, ok, stopReason, FILL_OPEN, false)
      if (rp !== null && hk >= nearest && (lk <= tp || (hk >= stop && hk >= liq) || (trailFrac > 0 && lk < best && lk + lk * trailFrac < stop))) {
        const n = rp.now
        n.stop = stop; n.stopReason = stopReason; n.liq = liq; n.tp = tp; n.best = best; n.trailFrac = trailFrac
        if (rp.replay(-1, t[k], n, true, liq <= stop ? liq : stop, liq <= stop ? R_LIQUIDATION : stopReason) === REPLAY_EXIT) return set(out, k, rp.price, rp.reason, FILL_MINUTE, rp.sameBar)
      }
      if (hk >= nearest) {
        if (liq <= stop) return set(out, k, liq, R_LIQUIDATION, FILL_INTRABAR, lk <= tp)
        return set(out, k, stop, stopReason, FILL_INTRABAR, lk <= tp)
      }
      return set(out, k, lv.tpFill, R_TP, FILL_INTRABAR, false)
    }
    if (rp !== null && trailFrac > 0 && lk < best && hk >= lk + lk * trailFrac) {
      const n = rp.now
      n.stop = stop; n.stopReason = stopReason; n.liq = mk !== null ? Infinity : liq; n.tp = tp; n.best = best; n.trailFrac = trailFrac
      if (rp.replay(-1, t[k], n, false, 0, 0) === REPLAY_EXIT) return set(out, k, rp.price, rp.reason, FILL_MINUTE, rp.sameBar)
    }
    if (k === checkAt) {
      if (k === end) return set(out, k, c[k], k === lv.timeoutIdx ? R_TIMEOUT : lv.endReason, FILL_CLOSE, false)
      // k ends an 8-bar block (stepping over quiet blocks, so no trailing): step from k + 1
      if (exitMask !== null && exitMask[k] !== 0) return set(out, k + 1, o[k + 1], R_SIGNAL, FILL_OPEN, false)
      const next = stepQuiet(qb!, k + 1, end, tp, nearest)
      checkAt = lastOfBlock(next, end)
      k = next - 1
      continue
    }
    if (exitMask !== null && exitMask[k] !== 0) return set(out, k + 1, o[k + 1], R_SIGNAL, FILL_OPEN, false)
    // the trailing level of bar k+1 uses the best low through bar k
    if (trailFrac > 0 && lk < best) {
      best = lk
      const trail = best + best * trailFrac
      if (trail < stop) {
        stop = trail
        stopReason = R_TRAILING
        nearest = mk !== null ? stop : stop < liq ? stop : liq
      }
    }
  }
}

/**
 * A bar that touches a level of a long position whose liquidation is tested on the mark
 * price (rules 1–4 with the liquidation price against the mark's open and low, the stop
 * and the take profit against the last price's). A liquidation the mark reached is
 * decided by the bar: the store holds no mark minutes, so a replay cannot place it
 * inside the hour (counted in `markLeftToRule` where the bar was ambiguous). Otherwise
 * the liquidation price was not reached in this bar and the replay, where there is one,
 * resolves the stop and the take profit without it.
 */
function markExitLong(bars: Bars, k: number, lv: Levels, stop: number, stopReason: number, best: number, out: ExitScratch, rp: IntrabarReplay | null, mk: MarkBars): void {
  const ok = bars.o[k], lk = bars.l[k], hk = bars.h[k]
  const liq = lv.liq, tp = lv.tp
  if (mk.o[k] <= liq) return set(out, k, ok < liq ? ok : liq, R_LIQUIDATION, FILL_OPEN, false)
  if (ok <= stop) return set(out, k, ok, stopReason, FILL_OPEN, false)
  const stopHit = lk <= stop
  if (mk.l[k] <= liq && (!stopHit || liq >= stop)) {
    if (rp !== null && (hk >= tp || stopHit)) rp.markLeftToRule++
    return set(out, k, liq, R_LIQUIDATION, FILL_INTRABAR, hk >= tp)
  }
  // the stop touched with the take profit, or a trailing stop that moved inside the bar: the minutes say which came first
  // (a bar where neither the stop nor the liquidation price was reached exits at the take profit: nothing to reorder)
  const trailFrac = lv.trailFrac
  if (rp !== null && stopHit && (hk >= tp || (trailFrac > 0 && hk > best && hk - hk * trailFrac > stop))) {
    const n = rp.now
    n.stop = stop; n.stopReason = stopReason; n.liq = -Infinity; n.tp = tp; n.best = best; n.trailFrac = trailFrac
    if (rp.replay(1, bars.t[k], n, stopHit, stop, stopReason) === REPLAY_EXIT) return set(out, k, rp.price, rp.reason, FILL_MINUTE, rp.sameBar)
  }
  if (stopHit) return set(out, k, stop, stopReason, FILL_INTRABAR, hk >= tp)
  return set(out, k, lv.tpFill, R_TP, FILL_INTRABAR, false)
}

function markExitShort(bars: Bars, k: number, lv: Levels, stop: number, stopReason: number, best: number, out: ExitScratch, rp: IntrabarReplay | null, mk: MarkBars): void {
  const ok = bars.o[k], lk = bars.l[k], hk = bars.h[k]
  const liq = lv.liq, tp = lv.tp
  if (mk.o[k] >= liq) return set(out, k, ok > liq ? ok : liq, R_LIQUIDATION, FILL_OPEN, false)
  if (ok >= stop) return set(out, k, ok, stopReason, FILL_OPEN, false)
  const stopHit = hk >= stop
  if (mk.h[k] >= liq && (!stopHit || liq <= stop)) {
    if (rp !== null && (lk <= tp || stopHit)) rp.markLeftToRule++
    return set(out, k, liq, R_LIQUIDATION, FILL_INTRABAR, lk <= tp)
  }
  const trailFrac = lv.trailFrac
  if (rp !== null && stopHit && (lk <= tp || (trailFrac > 0 && lk < best && lk + lk * trailFrac < stop))) {
    const n = rp.now
    n.stop = stop; n.stopReason = stopReason; n.liq = Infinity; n.tp = tp; n.best = best; n.trailFrac = trailFrac
    if (rp.replay(-1, bars.t[k], n, stopHit, stop, stopReason) === REPLAY_EXIT) return set(out, k, rp.price, rp.reason, FILL_MINUTE, rp.sameBar)
  }
  if (stopHit) return set(out, k, stop, stopReason, FILL_INTRABAR, lk <= tp)
  return set(out, k, lv.tpFill, R_TP, FILL_INTRABAR, false)
}

function set(out: ExitScratch, idx: number, price: number, reason: number, fill: number, sameBar: boolean): void {
  out.exitIdx = idx
  out.exitPrice = price
  out.reason = reason
  out.fill = fill
  out.sameBar = sameBar
}

export interface TradeModelInput {
  bars: Bars
  /** exit[k] = 1: the exit condition is true at bar k's close; null = no signal exits */
  exit: Uint8Array | null
  /** first signal bar of the window */
  fromIdx: number
  /** last bar of the window: an open trade closes at its close (`end_of_data`) */
  toIdx: number
  funding: FundingSeries | null
  /** the coin's daily cost sums (slippage.ts); null: no slippage estimate */
  costs?: CoinCostSeries | null
  /** the coin's margin brackets; null/absent: the flat maintenance rate */
  brackets?: readonly MarginBracket[] | null
  /**
   * The coin's minute candles: with them the bars whose outcome depends on the path
   * inside them are replayed minute by minute (intrabar.ts); absent or null: the bar rule.
   */
  detail?: IntrabarDetail | null
  /**
   * The coin's mark-price candles lined up with the bars (mark-price.ts): with them the
   * liquidation price is tested on the mark (futures only); absent or null: on the last price.
   */
  mark?: MarkBars | null
  /**
   * The bars' quiet-block extremes (quiet-blocks.ts), for a caller that keeps them between
   * runs; called only when the model steps over quiet blocks. Absent or null: computed here.
   */
  quietExtremes?: (() => QuietExtremes) | null
  /**
   * The coin's funding amounts over its whole bars (funding.ts keptFunding), for a caller that
   * keeps them between runs: with them a trade's funding is a sum of kept amounts instead of
   * a price lookup per event (the same products in the same order: the same bits). Called
   * once per model on futures. Absent or null: looked up per event, or, for an overlapping
   * model, computed here for the window.
   */
  keptFunding?: (() => KeptFunding | null) | null
  /**
   * the coin was delisted and toIdx is its last candle: a trade still open there exits as
   * `delisted` (at that candle's close, the last price) instead of `end_of_data`
   */
  delisted?: boolean
}

/**
 * The trades of one coin and window under one set of TradeParams, one at a time:
 * `tradeFrom(e)` fills the public fields with the trade entering at bar e's open.
 * Nothing is allocated per trade; build one per coin and reuse it.
 */
export class TradeModel implements ExitScratch {
  /** bar in which the exit filled (at its open, inside it or at its close) */
  exitIdx = 0
  exitPrice = 0
  /** R_ code (EXIT_REASONS[reason] is the ExitReason) */
  reason = 0
  /** FILL_ code */
  fill = 0
  /** the stop (or liquidation) and the take profit were both touched in the exit bar */
  sameBar = false
  exitTimeMs = 0
  /** bars held: the entry bar counts; a fill at bar k's open holds k − e bars */
  barsHeld = 0
  grossPct = 0
  feePct = 0
  fundingPct = 0
  fundingEvents = 0
  fundingEventsReal = 0
  /** net P&L, % of margin */
  pnlPct = 0
  /** size-dependent costs (execution.ts SizeCosts); 0 without an Execution */
  slippagePct = 0
  slipSpread = 0
  slipImpact = 0
  maeFrac = 0
  fillsUnestimated = 0
  /** the minute replays of this coin (null without detail): counts, and the last trade's resolution */
  readonly replay: IntrabarReplay | null

  /** the window's last bar */
  readonly lastIdx: number
  private readonly bars: Bars
  private readonly exitMask: Uint8Array | null
  private readonly p: TradeParams
  private readonly lv: Levels
  private readonly lev: number
  private readonly long: boolean
  private readonly dirSign: number
  private readonly trailing: boolean
  /** adverse move (fraction of entry) at which the isolated margin is gone */
  private readonly liqMove: number
  private readonly funding: CoinFunding | null
  private readonly blocks: QuietBlocks | null
  /** fees beyond the taker fee, slippage, liquidation fee (issue 25); null: the model before it */
  private readonly exec: ExecutionCosts | null
  private readonly limitTp: boolean
  private readonly mark: MarkBars | null

  /**
   * `overlapping`: many trades of the coin will be priced, overlapping in time (the
   * random-entry null): precompute the quiet blocks and keep each funding event's amount.
   * `pnlOnly`: the caller reads only the net P&L (the random-entry null), so the adverse
   * excursion (`maeFrac`, a walk over every bar held that the capacity curve reads) is not
   * tracked; it enters no other field.
   */
  constructor(input: TradeModelInput, p: TradeParams, overlapping = false, pnlOnly = false) {
    // a trade must end: a max_bars below 1 would let the exit loop run off the bars
    if (!(p.maxBars >= 1) || !(p.leverage > 0)) throw new RangeError('trade model: maxBars must be ≥ 1 and leverage > 0')
    const { bars } = input
    this.bars = bars
    this.exitMask = input.exit
    this.p = p
    this.lastIdx = Math.min(input.toIdx, bars.n - 1)
    const futures = p.marketType === 'futures'
    this.lev = futures ? p.leverage : 1
    this.long = p.direction === 'long'
    this.dirSign = this.long ? 1 : -1
    this.trailing = p.tpSource === 'trailing'
    const trailPct = this.trailing ? (p.trailingPct ?? p.tpPct) : 0
    const ex = p.execution
    this.liqMove = futures ? coinLiquidationMove(this.long, this.lev, p.mmrFrac, ex, input.brackets) : 0
    this.exec = ex ? new ExecutionCosts(ex, p.feeFrac, input.costs ?? null, !pnlOnly && futures && ex.margin === 'brackets' && !!input.brackets?.length) : null
    this.limitTp = ex?.tpOrder === 'limit'
    const whole = futures ? (input.keptFunding?.() ?? null) : null
    this.funding = futures ? new CoinFunding(bars, input.funding, input.fromIdx, this.lastIdx, overlapping || whole !== null, whole) : null
    this.mark = futures ? (input.mark ?? null) : null
    // the quiet blocks are built on the last price's extremes: a mark low below them would be stepped over
    this.blocks = overlapping && !this.trailing && this.mark === null ? quietBlocks(bars, input.exit, input.quietExtremes?.() ?? undefined) : null
    const delistedEnd = input.delisted === true && this.lastIdx === bars.n - 1
    this.lv = { entry: 0, stop: 0, tp: 0, tpFill: 0, liq: 0, trailFrac: trailPct / 100, timeoutIdx: 0, lastIdx: this.lastIdx, endReason: delistedEnd ? R_DELISTED : R_END }
    this.replay = input.detail ? new IntrabarReplay(input.detail, bars.stepMs) : null
  }

  /**
   * The trade entering at bar e's open: e ≤ lastIdx and a positive open at e. `barRule`:
   * priced by the bar rule even where the model has minute detail (no replay).
   */
  tradeFrom(e: number, barRule = false): void {
    const bars = this.bars
    const p = this.p
    const lv = this.lv
    const entryPrice = bars.o[e]
    lv.entry = entryPrice
    lv.timeoutIdx = e + p.maxBars - 1
    const futures = this.funding !== null
    this.replay?.reset()
    const rp = barRule ? null : this.replay
    if (this.long) {
      lv.stop = entryPrice - (entryPrice * p.slPct) / 100
      lv.tpFill = entryPrice + (entryPrice * p.tpPct) / 100
      lv.tp = this.trailing ? Infinity : this.limitTp ? nextUp(lv.tpFill) : lv.tpFill
      lv.liq = futures ? entryPrice - entryPrice * this.liqMove : -Infinity
      exitLong(bars, this.exitMask, e, lv, this, this.blocks, rp, this.mark)
    } else {
      lv.stop = entryPrice + (entryPrice * p.slPct) / 100
      lv.tpFill = entryPrice - (entryPrice * p.tpPct) / 100
      lv.tp = this.trailing ? -Infinity : this.limitTp ? nextDown(lv.tpFill) : lv.tpFill
      lv.liq = futures ? entryPrice + entryPrice * this.liqMove : Infinity
      exitShort(bars, this.exitMask, e, lv, this, this.blocks, rp, this.mark)
    }

    // a limit take profit is tested one step beyond its level (traded through) but fills at it, by the bar rule or the minutes
    if (this.limitTp && this.reason === R_TP) this.exitPrice = lv.tpFill
    const k = this.exitIdx
    const t = bars.t
    const fill = this.fill
    const exitTimeMs = fill === FILL_OPEN ? t[k] : fill === FILL_CLOSE ? t[k] + bars.stepMs : fill === FILL_MINUTE ? this.replay!.timeMs : t[k] + bars.stepMs / 2
    this.exitTimeMs = exitTimeMs
    // a fill at a bar's open (or a minute gap at it) holds the bars before it
    this.barsHeld = exitTimeMs === t[k] ? k - e : k - e + 1
    const lev = this.lev
    const dirSign = this.dirSign
    if (this.funding !== null) {
      const fc = this.funding
      fc.charge(e, entryPrice, t[e], exitTimeMs, dirSign, lev)
      this.fundingPct = fc.pct
      this.fundingEvents = fc.events
      this.fundingEventsReal = fc.real
    }
    const priceRatio = this.exitPrice / entryPrice
    const grossPct = dirSign * (priceRatio - 1) * lev * 100
    const feePct = p.feeFrac * lev * 100 * (1 + priceRatio)
    this.grossPct = grossPct
    this.feePct = feePct
    this.pnlPct = this.reason === R_LIQUIDATION ? -100 : grossPct - feePct - this.fundingPct
    if (this.exec !== null) this.exec.apply(this, bars, e, entryPrice, lev, this.long, this.mark)
  }
}

export interface CoinSimInput extends TradeModelInput {
  symbol: string
  /** entry[i] = 1: the entry condition (after filters) is true at bar i's close (null: `entryBars` lists them) */
  entry: Uint8Array | null
  /**
   * The bars i with entry[i] ≠ 0, ascending (signalBars(entry)), for a caller that keeps
   * them with the mask: the next signal is then a step along the list instead of a scan of
   * the mask's bytes (most of a coin's bars carry no signal). Absent or null: the mask is
   * scanned. With `entry` null, the list alone says where the signals are (a point-in-time
   * run's coin: its cached list cut to its membership, tradable-windows.ts barsInsideWindows,
   * with no mask made for it).
   */
  entryBars?: Int32Array | null
}

/**
 * The bars whose mask byte is set, ascending, when they are at most one in 32 of the mask
 * (4 bytes each: at most an eighth of the mask's size); null for a denser mask, whose scan
 * finds the next signal within a few bytes anyway.
 */
export function signalBars(mask: Uint8Array): Int32Array | null {
  const n = mask.length
  const most = n >>> 5
  // one pass over the mask (a count, then a list, were two scans of it: a new tree lists every
  // coin's signals once, about 2.5 ms over 516 coins of two years, 1.8 ms in one pass)
  const found = new Int32Array(most)
  let count = 0
  let i = 0
  const words = wordView(mask)
  if (words !== null) {
    const nw = words.length
    // sixteen bytes a test over the long runs of bars without a signal
    const nw4 = nw & ~3
    for (let w = 0; w < nw; w += 4) {
      if (w < nw4 && (words[w] | words[w + 1] | words[w + 2] | words[w + 3]) === 0) continue
      const wEnd = w + 4 < nw ? w + 4 : nw
      for (let b = w << 2, e = wEnd << 2; b < e; b++) {
        if (mask[b] === 0) continue
        if (count === most) return null
        found[count++] = b
      }
    }
    i = nw << 2
  }
  for (; i < n; i++) {
    if (mask[i] === 0) continue
    if (count === most) return null
    found[count++] = i
  }
  return found.slice(0, count)
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

/**
 * The bar rule's trades of a coin simulated with minute detail (for `rule_bias`, filled by
 * simulateCoin): `trades` null where no replay changed a trade (the bar rule's trades are
 * the detail's).
 */
export interface BarRuleTwin {
  trades: Trade[] | null
}

/**
 * Simulate every trade of one coin; trades come out in time order. With `input.detail`,
 * the coin's replay counts are added to `counts`, and `twin` (where given) receives the
 * bar rule's trades of the coin, the same as simulateCoin without detail gives.
 *
 * The twin costs only the changed trades: up to the first trade a replay changed the
 * trades are the same; a changed trade is priced again by the bar rule (same model, no
 * replay), and while the bar rule exits in the same bar as the minutes did, the next
 * signal and so every following trade are the same as the detail's up to the next changed
 * one (one position at a time: the next entry depends on the exit bar only, and an
 * unchanged exit is the bar rule's own). Where the bar rule exits in another bar (a
 * trailing stop the minutes saw touched inside a bar the bar rule passes), its own trades
 * follow from there, simulated after the detail's.
 */
export function simulateCoin(input: CoinSimInput, p: TradeParams, counts?: IntrabarCounts, twin?: BarRuleTwin): Trade[] {
  const model = new TradeModel(input, p)
  const trades: Trade[] = []
  const rp = model.replay
  const tw = twin !== undefined && rp !== null ? twin : null
  if (twin) twin.trades = null
  /** the bar rule's next signal bar where its path parted from the detail's (−1: not parted) */
  let partedAt = -1
  const lastIdx = model.lastIdx
  const signals = new EntrySignals(input, lastIdx)
  let i = Math.max(input.fromIdx, 0)
  for (;;) {
    i = signals.next(i)
    if (i >= lastIdx) break
    const e = i + 1
    model.tradeFrom(e)
    const tr = tradeOf(model, input, p, e)
    trades.push(tr)
    const k = model.exitIdx
    if (tw !== null && partedAt < 0) {
      if (rp!.changed) {
        tw.trades ??= trades.slice(0, -1)
        model.tradeFrom(e, true)
        tw.trades.push(tradeOf(model, input, p, e))
        if (model.exitIdx !== k) partedAt = model.exitIdx > e ? model.exitIdx : e
      } else if (tw.trades !== null) tw.trades.push(tr)
    }
    i = k > i + 1 ? k : i + 1
  }
  if (partedAt >= 0) eachTrade(model, input, partedAt, true, e => tw!.trades!.push(tradeOf(model, input, p, e)))
  addCounts(counts, rp)
  return trades
}

/** Where simulateCoinRows hands each trade: `model` has just priced the trade entering at bar e's open. */
export interface TradeRowSink {
  take(model: TradeModel, e: number): void
}

/**
 * simulateCoin's trades (without `twin` or `known`) handed to `sink` as they are priced,
 * with no Trade object made: a worker's coin task writes each straight into its chunk's
 * table (writeTradeRow) while the coin's bars are in the cache. Returns whether a minute
 * replay changed a trade's exit: a caller that wants the bar rule's trades of such a coin
 * (simulateCoin's twin, a few coins a run) simulates it again with simulateCoin.
 */
export function simulateCoinRows(input: CoinSimInput, p: TradeParams, sink: TradeRowSink, counts?: IntrabarCounts): boolean {
  const model = new TradeModel(input, p)
  const rp = model.replay
  let changed = false
  eachTrade(model, input, Math.max(input.fromIdx, 0), false, e => {
    sink.take(model, e)
    if (rp !== null && rp.changed) changed = true
  })
  addCounts(counts, rp)
  return changed
}

/** Trades of a coin already priced, as rows [from, to) in time order: where each entered and exited (bar indices). */
export interface KnownTrades {
  entryIdx: Int32Array
  exitIdx: Int32Array
  from: number
  to: number
}

/** Where simulateCoinKnownRows hands each trade: a known one by its row, or one `model` has just priced. */
export interface KnownTradeSink extends TradeRowSink {
  takeKnown(row: number): void
}

/**
 * simulateCoinRows's trades (replay counts aside) where some are `known`: trades of this
 * coin already simulated from the same input under another entry mask (a point-in-time
 * run's own trades, for its twin on today's coins, whose mask has more signals). Given the
 * rest of the input a trade depends on its entry bar alone, so one entering where a known
 * trade entered is that trade: handed to `sink` by its row, not priced again.
 */
export function simulateCoinKnownRows(input: CoinSimInput, p: TradeParams, known: KnownTrades, sink: KnownTradeSink): void {
  const model = new TradeModel(input, p)
  const lastIdx = model.lastIdx
  const signals = new EntrySignals(input, lastIdx)
  let i = Math.max(input.fromIdx, 0)
  let next = known.from
  for (;;) {
    i = signals.next(i)
    if (i >= lastIdx) break
    const e = i + 1
    while (next < known.to && known.entryIdx[next] < e) next++
    let k: number
    if (next < known.to && known.entryIdx[next] === e) {
      sink.takeKnown(next)
      k = known.exitIdx[next]
    } else {
      model.tradeFrom(e)
      sink.take(model, e)
      k = model.exitIdx
    }
    i = k > i + 1 ? k : i + 1
  }
}

/** A coin's replay counts added to the run's. */
function addCounts(counts: IntrabarCounts | undefined, rp: IntrabarReplay | null): void {
  if (!counts || !rp) return
  counts.replayed += rp.replayed
  counts.leftToRule += rp.leftToRule
  if (rp.markLeftToRule > 0) counts.markLeftToRule = (counts.markLeftToRule ?? 0) + rp.markLeftToRule
}

/**
 * The trades whose signal bar is at or after bar i, one position at a time (`barRule`:
 * without replays), each priced by `model` then handed to `take` with its entry bar.
 */
function eachTrade(model: TradeModel, input: CoinSimInput, i: number, barRule: boolean, take: (e: number) => void): void {
  const lastIdx = model.lastIdx
  const signals = new EntrySignals(input, lastIdx)
  for (;;) {
    i = signals.next(i)
    if (i >= lastIdx) break
    const e = i + 1
    model.tradeFrom(e, barRule)
    take(e)
    const k = model.exitIdx
    i = k > i + 1 ? k : i + 1
  }
}

/**
 * A coin's entry signals read in time order, for simulateCoin and eachTrade alike: from
 * the list of signal bars where the input has one, else by a scan of the mask.
 */
class EntrySignals {
  private readonly entry: Uint8Array | null
  private readonly list: Int32Array | null
  private readonly words: Uint32Array | null
  private readonly o: Float64Array
  /** the list's first entry not yet passed */
  private at = 0

  constructor(
    input: CoinSimInput,
    private readonly lastIdx: number,
  ) {
    this.entry = input.entry
    this.list = input.entryBars ?? null
    if (this.list === null && this.entry === null) throw new Error(`${input.symbol}: neither an entry mask nor its signal bars`)
    this.words = this.list === null ? wordView(this.entry!) : null
    this.o = input.bars.o
  }

  /**
   * The next signal bar at or after i whose next bar opens at a price (a trade enters
   * there), or lastIdx or beyond when there is none. i never decreases from one call to the next.
   */
  next(i: number): number {
    const o = this.o
    const lastIdx = this.lastIdx
    const list = this.list
    if (list !== null) {
      let at = this.at
      for (; at < list.length; at++) {
        const j = list[at]
        if (j < i) continue
        if (j >= lastIdx) break
        if (o[j + 1] > 0) {
          this.at = at
          return j
        }
      }
      this.at = at
      return lastIdx
    }
    for (;;) {
      i = nextSignal(this.entry!, this.words, i, lastIdx)
      if (i >= lastIdx || o[i + 1] > 0) return i
      i++
    }
  }
}

/** The trade `model` just priced (entered at bar e's open) as a Trade. */
function tradeOf(model: TradeModel, input: CoinSimInput, p: TradeParams, e: number): Trade {
  const tr: Trade = {
    symbol: input.symbol,
    direction: p.direction,
    entryIdx: e,
    exitIdx: model.exitIdx,
    entryTimeMs: input.bars.t[e],
    exitTimeMs: model.exitTimeMs,
    entryPrice: input.bars.o[e],
    exitPrice: model.exitPrice,
    barsHeld: model.barsHeld,
    exitReason: EXIT_REASONS[model.reason],
    pnlPct: model.pnlPct,
    grossPct: model.grossPct,
    feePct: model.feePct,
    fundingPct: model.fundingPct,
    slTpSameBar: model.sameBar,
    fundingEvents: model.fundingEvents,
    fundingEventsReal: model.fundingEventsReal,
    slippagePct: model.slippagePct,
    slipSpread: model.slipSpread,
    slipImpact: model.slipImpact,
    maeFrac: model.maeFrac,
    fillsUnestimated: model.fillsUnestimated,
  }
  // only a trade the minutes resolved carries these keys: the bar rule's trades stay as they were
  // (added to the one trade that has them: a spread of an empty object per trade cost more than the literal)
  const rp = model.replay
  if (rp !== null && rp.resolved) {
    tr.exitResolution = 'detail'
    tr.exitChanged = rp.changed
  }
  return tr
}

/**
 * The trade `model` just priced (entered at bar e's open) written into row i of `t`, coin
 * aside: the row writeTrade makes of tradeOf's object (trade-table.ts), without the object.
 */
export function writeTradeRow(t: TradeTable, i: number, model: TradeModel, bars: Bars, e: number): void {
  t.entryIdx[i] = e
  t.exitIdx[i] = model.exitIdx
  t.entryMs[i] = bars.t[e]
  t.exitMs[i] = model.exitTimeMs
  t.entryPrice[i] = bars.o[e]
  t.exitPrice[i] = model.exitPrice
  t.barsHeld[i] = model.barsHeld
  // the R_ codes are the indices of EXIT_REASONS, as the table's codes are
  t.exitReason[i] = model.reason
  t.pnlPct[i] = model.pnlPct
  t.grossPct[i] = model.grossPct
  t.feePct[i] = model.feePct
  t.fundingPct[i] = model.fundingPct
  t.slTpSameBar[i] = model.sameBar ? 1 : 0
  t.fundingEvents[i] = model.fundingEvents
  t.fundingEventsReal[i] = model.fundingEventsReal
  t.slippagePct[i] = model.slippagePct
  t.slipSpread[i] = model.slipSpread
  t.slipImpact[i] = model.slipImpact
  t.maeFrac[i] = model.maeFrac
  t.fillsUnestimated[i] = model.fillsUnestimated
  const rp = model.replay
  t.resolution[i] = rp !== null && rp.resolved ? (rp.changed ? 3 : 1) : 0
}
