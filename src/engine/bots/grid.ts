/**
 * The futures grid bot (docs/bots.md §3), in Binance's terms: grid_count intervals between
 * lower_price and upper_price (grid_count + 1 lines, arithmetic or geometric), the same
 * quantity on every interval, and one order per interval at all times.
 *
 * Every interval has a kind fixed at the start. A long interval buys at its lower line and
 * sells at its upper line; a short interval sells at its upper line and buys back at its
 * lower line. So a filled buy places its sell one line up and a filled sell its buy one
 * line down, and a matched pair is one round trip, its profit counted once, net of both
 * fees. Direction: a long grid is all long intervals and starts holding those above the
 * start price; a short grid is all short intervals and starts holding those below it; a
 * neutral grid is long below the start price and short above it, and starts flat.
 *
 * Orders, the liquidation price (isolated margin) and the optional stop-loss and
 * take-profit prices are all processed along the stated intrabar path
 * (intrabar-path.ts), in path order; the jump from a close to the next open fills what
 * it crosses at that open.
 */
import { fundingEventsInWindow } from '../funding'
import { upperBound } from '../../sorted-search'
import { drawdownOf } from './bot-equity'
import { FundingMeter } from './funding-meter'
import { barPath } from './intrabar-path'
import { midMs, type BotCosts, type BotExit, type BotInput } from './types'
import { roundTo } from '../../round'

export type GridDirection = 'long' | 'short' | 'neutral'
export type GridSpacing = 'arithmetic' | 'geometric'

export interface GridParams extends BotCosts {
  lowerPrice: number
  upperPrice: number
  gridCount: number
  spacing: GridSpacing
  investmentUsdt: number
  leverage: number
  direction: GridDirection
  stopLossPrice: number | null
  takeProfitPrice: number | null
}

export interface GridResult {
  /** the grid's lines, ascending (grid_count + 1) */
  levels: Float64Array
  /** quantity of every order */
  qtyPerOrder: number
  startPrice: number
  /** matched round trips, net of both fees */
  gridProfitUsdt: number
  roundTrips: number
  /** lots closed by the stop loss, the take profit or liquidation, net of their fees */
  closeoutPnlUsdt: number
  /** lots still open at the window's last close, marked there, net of their entry fees */
  floatingPnlUsdt: number
  feesUsdt: number
  /** positive = paid */
  fundingUsdt: number
  /** gridProfit + closeout + floating − funding; −investment exactly on liquidation */
  totalPnlUsdt: number
  buys: number
  sells: number
  exitReason: BotExit
  /** bar in which the grid stopped (the last bar for `end`) and the instant */
  exitIdx: number
  exitTimeMs: number
  exitPrice: number
  /** signed net quantity held at the end (+ long, − short; 0 after a close-out) */
  finalPositionQty: number
  equityUsdt: Float64Array
  maxDrawdownUsdt: number
  maxDrawdownPct: number
  fundingEvents: number
  fundingEventsReal: number
  warnings: string[]
}

export function gridLevels(p: Pick<GridParams, 'lowerPrice' | 'upperPrice' | 'gridCount' | 'spacing'>): Float64Array {
  const n = p.gridCount
  const out = new Float64Array(n + 1)
  const ratio = p.upperPrice / p.lowerPrice
  for (let i = 0; i <= n; i++) out[i] = p.spacing === 'arithmetic' ? p.lowerPrice + ((p.upperPrice - p.lowerPrice) * i) / n : p.lowerPrice * ratio ** (i / n)
  out[n] = p.upperPrice
  return out
}

const TRIGGER_NONE = 0
const TRIGGER_SL = 1
const TRIGGER_TP = 2

class GridRun {
  readonly n: number
  /** per interval j = 1 … n: +1 long, −1 short */
  readonly kind: Int8Array
  /** per interval: 1 when it holds its lot */
  readonly holding: Uint8Array
  readonly entryPrice: Float64Array
  readonly entryFee: Float64Array
  /** the instant (ms) each held lot was entered */
  readonly entryMs: Float64Array
  /** signed net quantity and signed cost (Σ dir · qty · entry) of the lots held */
  netQty = 0
  netCost = 0
  openEntryFees = 0
  /** the isolated margin's balance without the open lots' marks: investment + realised − fees */
  balance: number
  gridProfit = 0
  closeout = 0
  fees = 0
  funding = 0
  roundTrips = 0
  buys = 0
  sells = 0
  /** the instant of the fills being processed: a bar's open or its midpoint */
  instantMs = 0
  /** signed quantity of lots held before the current instant and closed at it (for the funding at that instant) */
  closedAtInstant = 0
  stopped: { reason: BotExit; price: number } | null = null
  /** oriented crossing triggers: fire when the price falls to ≤ lo… or rises to ≥ hi… */
  readonly slBelow: number
  readonly slAbove: number
  readonly tpBelow: number
  readonly tpAbove: number

  constructor(readonly p: GridParams, readonly levels: Float64Array, readonly qty: number, startPrice: number) {
    this.n = p.gridCount
    this.kind = new Int8Array(this.n + 1)
    this.holding = new Uint8Array(this.n + 1)
    this.entryPrice = new Float64Array(this.n + 1)
    this.entryFee = new Float64Array(this.n + 1)
    this.entryMs = new Float64Array(this.n + 1)
    this.balance = p.investmentUsdt
    const sl = p.stopLossPrice
    const tp = p.takeProfitPrice
    // a trigger fires when the price reaches it from the side the grid started on
    this.slBelow = sl !== null && sl < startPrice ? sl : -Infinity
    this.slAbove = sl !== null && sl >= startPrice ? sl : Infinity
    this.tpBelow = tp !== null && tp < startPrice ? tp : -Infinity
    this.tpAbove = tp !== null && tp >= startPrice ? tp : Infinity
  }

  /** The price at or beyond which the isolated margin is gone (NaN when flat). */
  liquidationPrice(): number {
    if (this.netQty === 0) return NaN
    // equity(P) = balance + netQty·P − netCost; maintenance = mmr · |netCost| (as in the trade model)
    return (this.netCost + this.p.mmrFrac * Math.abs(this.netCost) - this.balance) / this.netQty
  }

  openLot(j: number, price: number): void {
    const fee = this.qty * price * this.p.feeFrac
    const d = this.kind[j]
    this.holding[j] = 1
    this.entryPrice[j] = price
    this.entryFee[j] = fee
    this.entryMs[j] = this.instantMs
    this.netQty += d * this.qty
    this.netCost += d * this.qty * price
    this.openEntryFees += fee
    this.fees += fee
    this.balance -= fee
    if (d > 0) this.buys++
    else this.sells++
  }

  /** Close interval j's lot at `price`; returns its profit net of both fees. */
  closeLot(j: number, price: number): number {
    const fee = this.qty * price * this.p.feeFrac
    const d = this.kind[j]
    const gross = d * this.qty * (price - this.entryPrice[j])
    this.holding[j] = 0
    this.netQty -= d * this.qty
    this.netCost -= d * this.qty * this.entryPrice[j]
    this.openEntryFees -= this.entryFee[j]
    this.fees += fee
    this.balance += gross - fee
    // a lot opened and closed at the same instant was never held across it
    if (this.entryMs[j] < this.instantMs) this.closedAtInstant += d * this.qty
    if (d > 0) this.sells++
    else this.buys++
    return gross - this.entryFee[j] - fee
  }

  /** Interval j's order is a buy at its lower line (else a sell at its upper line). */
  buyPending(j: number): boolean {
    return this.kind[j] > 0 ? this.holding[j] === 0 : this.holding[j] === 1
  }

  fillBuy(j: number, price: number): void {
    if (this.kind[j] > 0) this.openLot(j, price)
    else this.roundTrip(j, price)
  }

  fillSell(j: number, price: number): void {
    if (this.kind[j] > 0) this.roundTrip(j, price)
    else this.openLot(j, price)
  }

  roundTrip(j: number, price: number): void {
    this.gridProfit += this.closeLot(j, price)
    this.roundTrips++
  }

  /** Close every lot at `price` and stop the grid. */
  stop(reason: BotExit, price: number): void {
    for (let j = 1; j <= this.n; j++) if (this.holding[j] === 1) this.closeout += this.closeLot(j, price)
    this.stopped = { reason, price }
  }

  /**
   * The price moves from `from` to `to`; `gap`: a jump from a close to the next open,
   * where everything crossed fills at the open. Stops when the grid stops.
   */
  move(from: number, to: number, gap: boolean): void {
    const L = this.levels
    let cur = from
    if (to < from) {
      // lines at or below the price, highest first: line i holds interval i+1's buy
      let i = upperBound(L, from) - 1
      for (;;) {
        while (i >= 0 && (i + 1 > this.n || !this.buyPending(i + 1))) i--
        const line = i >= 0 ? L[i] : -Infinity
        const liq = this.netQty > 0 ? this.liquidationPrice() : -Infinity
        const trig = Math.max(this.slBelow, this.tpBelow)
        // ties: liquidation, then a stop/take-profit trigger, then an order
        if (liq >= to && liq >= trig && liq >= line) return this.stop('liquidation', gap ? to : Math.min(liq, cur))
        if (trig >= to && trig >= line) return this.stop(trig === this.slBelow ? 'stop_loss' : 'take_profit', gap ? to : Math.min(trig, cur))
        if (line < to) return
        const price = gap ? to : Math.min(line, cur)
        this.fillBuy(i + 1, price)
        cur = price
        i--
      }
    } else if (to > from) {
      // lines at or above the price, lowest first: line i holds interval i's sell
      let i = upperBound(L, from)
      if (i > 0 && L[i - 1] === from) i--
      for (;;) {
        while (i < L.length && (i < 1 || this.buyPending(i))) i++
        const line = i < L.length ? L[i] : Infinity
        const liq = this.netQty < 0 ? this.liquidationPrice() : Infinity
        const trig = Math.min(this.slAbove, this.tpAbove)
        if (liq <= to && liq <= trig && liq <= line) return this.stop('liquidation', gap ? to : Math.max(liq, cur))
        if (trig <= to && trig <= line) return this.stop(trig === this.slAbove ? 'stop_loss' : 'take_profit', gap ? to : Math.max(trig, cur))
        if (line > to) return
        const price = gap ? to : Math.max(line, cur)
        this.fillSell(i, price)
        cur = price
        i++
      }
    }
  }
}

function gridWarnings(p: GridParams, levels: Float64Array, startPrice: number): string[] {
  const out: string[] = []
  if (startPrice < p.lowerPrice || startPrice > p.upperPrice)
    out.push(`the start price ${startPrice} lies outside the grid [${p.lowerPrice}, ${p.upperPrice}]: ${p.direction === 'neutral' ? 'every interval starts on one side' : 'the initial position takes every interval on one side'}`)
  let minStepPct = Infinity
  for (let i = 1; i < levels.length; i++) minStepPct = Math.min(minStepPct, ((levels[i] - levels[i - 1]) / levels[i - 1]) * 100)
  const feesPct = 2 * p.feeFrac * 100
  if (minStepPct <= feesPct) out.push(`the grid step (${roundTo(minStepPct, 4)} %) does not cover the two taker fees of a round trip (${feesPct} %): round trips lose money`)
  return out
}

/** The intervals' kinds (by direction) and the initial position, filled at the first bar's open. */
function setUp(run: GridRun, p: GridParams, levels: Float64Array, startPrice: number, startMs: number): void {
  const n = p.gridCount
  run.instantMs = startMs
  for (let j = 1; j <= n; j++) {
    const lower = levels[j - 1]
    const upper = levels[j]
    if (p.direction === 'long') run.kind[j] = 1
    else if (p.direction === 'short') run.kind[j] = -1
    else run.kind[j] = upper <= startPrice ? 1 : lower >= startPrice ? -1 : startPrice >= (lower + upper) / 2 ? 1 : -1
  }
  for (let j = 1; j <= n; j++) {
    if (p.direction === 'long' && levels[j - 1] >= startPrice) run.openLot(j, startPrice)
    if (p.direction === 'short' && levels[j] <= startPrice) run.openLot(j, startPrice)
  }
}

export function simulateGrid(input: BotInput, p: GridParams): GridResult {
  const { bars, fromIdx, lastIdx } = input
  const { t, o, h, l, c } = bars
  const levels = gridLevels(p)
  const n = p.gridCount
  let midSum = 0
  for (let j = 1; j <= n; j++) midSum += (levels[j - 1] + levels[j]) / 2
  const qty = (p.investmentUsdt * p.leverage) / midSum
  const startPrice = o[fromIdx]
  const run = new GridRun(p, levels, qty, startPrice)
  const meter = new FundingMeter(fundingEventsInWindow(bars, input.funding, fromIdx, lastIdx))
  const equity = new Float64Array(lastIdx - fromIdx + 1)

  setUp(run, p, levels, startPrice, t[fromIdx])

  const path = new Float64Array(4)
  let exitIdx = lastIdx
  let exitTimeMs = t[lastIdx] + bars.stepMs
  for (let k = fromIdx; k <= lastIdx; k++) {
    if (run.stopped === null) {
      run.funding += meter.chargeBefore(t[k], k === fromIdx ? 0 : run.netQty)
      const qBefore = k === fromIdx ? 0 : run.netQty
      run.closedAtInstant = 0
      run.instantMs = t[k]
      if (k > fromIdx) run.move(c[k - 1], o[k], true)
      run.funding += meter.chargeAt(t[k], qBefore - run.closedAtInstant)
      if (run.stopped !== null) {
        exitIdx = k
        exitTimeMs = t[k]
      } else {
        const mid = midMs(bars, k)
        run.funding += meter.chargeBefore(mid, run.netQty)
        const qInside = run.netQty
        run.closedAtInstant = 0
        run.instantMs = mid
        barPath(o[k], h[k], l[k], c[k], path)
        for (let s = 0; s < 3 && run.stopped === null; s++) run.move(path[s], path[s + 1], false)
        run.funding += meter.chargeAt(mid, qInside - run.closedAtInstant)
        if (run.stopped !== null) {
          exitIdx = k
          exitTimeMs = mid
        }
      }
    }
    equity[k - fromIdx] = p.investmentUsdt + run.gridProfit + run.closeout + (run.netQty * c[k] - run.netCost - run.openEntryFees) - run.funding
  }
  if (run.stopped === null) run.funding += meter.chargeBefore(exitTimeMs, run.netQty)

  const floating = run.netQty * c[lastIdx] - run.netCost - run.openEntryFees
  const liquidated = run.stopped?.reason === 'liquidation'
  if (liquidated) {
    // the isolated margin is lost whole (as in the trade model): the close-out is what makes the total −investment
    run.closeout = -p.investmentUsdt - run.gridProfit + run.funding
    for (let k = exitIdx; k <= lastIdx; k++) equity[k - fromIdx] = 0
  }
  const total = run.gridProfit + run.closeout + (run.stopped === null ? floating : 0) - run.funding
  if (run.stopped === null) equity[lastIdx - fromIdx] = p.investmentUsdt + total
  const dd = drawdownOf(equity)
  return {
    levels,
    qtyPerOrder: qty,
    startPrice,
    gridProfitUsdt: run.gridProfit,
    roundTrips: run.roundTrips,
    closeoutPnlUsdt: run.closeout,
    floatingPnlUsdt: run.stopped === null ? floating : 0,
    feesUsdt: run.fees,
    fundingUsdt: run.funding,
    totalPnlUsdt: total,
    buys: run.buys,
    sells: run.sells,
    exitReason: run.stopped?.reason ?? 'end',
    exitIdx,
    exitTimeMs,
    exitPrice: run.stopped?.price ?? c[lastIdx],
    finalPositionQty: run.stopped === null ? run.netQty : 0,
    equityUsdt: equity,
    maxDrawdownUsdt: dd.maxDrawdownUsdt,
    maxDrawdownPct: dd.maxDrawdownPct,
    fundingEvents: meter.events,
    fundingEventsReal: meter.real,
    warnings: gridWarnings(p, levels, startPrice),
  }
}
