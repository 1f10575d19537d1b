/**
 * The DCA bot (docs/bots.md §2), in 3Commas' terms: a deal opens with a base order at a
 * bar's open, adds safety orders as the price moves against it, and closes at the take
 * profit (from the average entry), the stop loss (from the average entry), liquidation
 * (isolated margin, as in the trade model) or the window's end. Every trigger is
 * processed along the stated intrabar path (intrabar-path.ts); a level the price jumps
 * over between a close and the next open fills at that open.
 *
 * Inside, prices are oriented: u = dir · price (dir = +1 long, −1 short), so that "against
 * the deal" is always u falling and one set of comparisons serves both directions.
 */
import { fundingEventsInWindow } from '../funding'
import { drawdownOf } from './bot-equity'
import { FundingMeter } from './funding-meter'
import { barPath } from './intrabar-path'
import { midMs, type BotCosts, type BotExit, type BotInput } from './types'
import { roundTo } from '../../round'

export interface DcaParams extends BotCosts {
  direction: 'long' | 'short'
  /** margin of the base order, USDT (its notional is margin × leverage) */
  baseOrderUsdt: number
  /** margin of the first safety order, USDT */
  safetyOrderUsdt: number
  maxSafetyOrders: number
  /** the first safety order's distance from the deal's base price, percent */
  priceDeviationPct: number
  safetyStepScale: number
  safetyVolumeScale: number
  /** from the average entry, percent */
  takeProfitPct: number
  /** from the average entry, percent; null = none */
  stopLossPct: number | null
  leverage: number
  /** whole bars between the bar a deal closed in and the bar the next one opens in */
  cooldownBars: number
}

/** One rung of the safety-order ladder. */
export interface LadderRung {
  /** k = 1 … max_safety_orders */
  k: number
  /** cumulative deviation from the base price, percent */
  deviationPct: number
  marginUsdt: number
  /** false when the level lies at or below zero (a long ladder deeper than 100 %) */
  reachable: boolean
}

export interface DcaDeal {
  openIdx: number
  closeIdx: number
  openTimeMs: number
  closeTimeMs: number
  exitReason: BotExit
  safetyOrdersFilled: number
  basePrice: number
  avgEntry: number
  exitPrice: number
  quantity: number
  marginUsdt: number
  notionalUsdt: number
  feesUsdt: number
  /** positive = paid */
  fundingUsdt: number
  grossPnlUsdt: number
  /** gross − fees − funding; −margin exactly on liquidation */
  netPnlUsdt: number
  /** net, % of the deal's margin */
  netPnlPct: number
}

export interface DcaResult {
  ladder: LadderRung[]
  deals: DcaDeal[]
  /** base order + every reachable safety order, margin USDT */
  maxCapitalRequiredUsdt: number
  /** equity at each bar close from fromIdx to lastIdx: capital + closed deals + the open deal marked */
  equityUsdt: Float64Array
  maxDrawdownUsdt: number
  maxDrawdownPct: number
  /** the worst unrealised price loss of an open deal at any point of the path, USDT (≥ 0) */
  maxFloatingLossUsdt: number
  fundingEvents: number
  fundingEventsReal: number
  warnings: string[]
}

export function dcaLadder(p: DcaParams): LadderRung[] {
  const rungs: LadderRung[] = []
  let dev = 0
  for (let k = 1; k <= p.maxSafetyOrders; k++) {
    dev += p.priceDeviationPct * p.safetyStepScale ** (k - 1)
    rungs.push({ k, deviationPct: dev, marginUsdt: p.safetyOrderUsdt * p.safetyVolumeScale ** (k - 1), reachable: p.direction === 'short' || dev < 100 })
  }
  return rungs
}

/** Warnings about the ladder itself, from its levels alone (base price 1, fills at their levels). */
function ladderWarnings(p: DcaParams, ladder: LadderRung[]): string[] {
  const out: string[] = []
  const unreachable = ladder.filter(r => !r.reachable)
  if (unreachable.length) out.push(`safety orders ${unreachable[0].k}–${p.maxSafetyOrders} lie at or below a price of zero (a cumulative deviation of 100 % or more) and can never fill`)
  const dir = p.direction === 'long' ? 1 : -1
  let q = p.baseOrderUsdt * p.leverage
  let cost = q
  for (const r of ladder) {
    if (!r.reachable) break
    const avg = cost / q
    const liq = avg * (1 - dir * (1 / p.leverage - p.mmrFrac))
    const level = 1 - (dir * r.deviationPct) / 100
    if (dir * liq >= dir * level) {
      out.push(`at leverage ${p.leverage} the deal is liquidated (${fmt(Math.abs(1 - liq) * 100)} % from the base price) before safety order ${r.k} (${fmt(r.deviationPct)} %) can fill`)
      break
    }
    const notional = r.marginUsdt * p.leverage
    q += notional / level
    cost += notional
  }
  return out
}

const fmt = (x: number) => String(roundTo(x, 2))

const NONE = -Infinity
const K_LIQ = 0
const K_SL = 1
const K_SAFETY = 2

/** The simulation's state: one object, no allocation per bar. */
class DcaRun {
  readonly dir: number
  readonly deals: DcaDeal[] = []
  // the open deal
  open = false
  q = 0
  cost = 0
  margin = 0
  fees = 0
  funding = 0
  filled = 0
  base = 0
  openIdx = 0
  /** oriented trigger levels of the open deal */
  uNext = NONE
  uTp = Infinity
  uSl = NONE
  uLiq = NONE
  /** set by close(): the deal ended at the current instant (funding at it is settled first) */
  closing: { idx: number; timeMs: number; reason: BotExit; price: number } | null = null
  realized = 0
  maxFloatingLoss = 0

  constructor(readonly p: DcaParams, readonly ladder: LadderRung[]) {
    this.dir = p.direction === 'long' ? 1 : -1
  }

  get signedQty(): number {
    return this.open ? this.dir * this.q : 0
  }

  openDeal(k: number, price: number): void {
    this.open = true
    this.q = 0
    this.cost = 0
    this.margin = 0
    this.fees = 0
    this.funding = 0
    this.filled = 0
    this.base = price
    this.openIdx = k
    this.fill(this.p.baseOrderUsdt, price)
  }

  /** One order of `marginUsdt` filled at `price`; the deal's levels follow the new average. */
  fill(marginUsdt: number, price: number): void {
    const p = this.p
    const notional = marginUsdt * p.leverage
    this.q += notional / price
    this.cost += notional
    this.margin += marginUsdt
    this.fees += notional * p.feeFrac
    const dir = this.dir
    const avg = this.cost / this.q
    this.uTp = dir * avg * (1 + (dir * p.takeProfitPct) / 100)
    this.uSl = p.stopLossPct === null ? NONE : dir * avg * (1 - (dir * p.stopLossPct) / 100)
    this.uLiq = dir * avg * (1 - dir * (1 / p.leverage - p.mmrFrac))
    const rung = this.ladder[this.filled]
    this.uNext = rung !== undefined && rung.reachable ? dir * this.base * (1 - (dir * rung.deviationPct) / 100) : NONE
  }

  close(idx: number, timeMs: number, reason: BotExit, price: number): void {
    this.open = false
    this.closing = { idx, timeMs, reason, price }
  }

  /** Book the deal that close() ended, after the funding at its closing instant. */
  settle(openTimeMs: number): void {
    const c = this.closing!
    this.closing = null
    const p = this.p
    const exitFee = this.q * c.price * p.feeFrac
    const fees = this.fees + exitFee
    const gross = this.dir * (this.q * c.price - this.cost)
    const net = c.reason === 'liquidation' ? -this.margin : gross - fees - this.funding
    this.realized += net
    this.deals.push({
      openIdx: this.openIdx,
      closeIdx: c.idx,
      openTimeMs,
      closeTimeMs: c.timeMs,
      exitReason: c.reason,
      safetyOrdersFilled: this.filled,
      basePrice: this.base,
      avgEntry: this.cost / this.q,
      exitPrice: c.price,
      quantity: this.q,
      marginUsdt: this.margin,
      notionalUsdt: this.cost,
      feesUsdt: fees,
      fundingUsdt: this.funding,
      grossPnlUsdt: gross,
      netPnlUsdt: net,
      netPnlPct: (net / this.margin) * 100,
    })
  }

  /**
   * The price moves from uFrom to uTo (oriented). `gap`: the jump from a close to the next
   * open, where whatever is crossed fills at the open. Returns when the deal closes.
   */
  move(uFrom: number, uTo: number, gap: boolean, k: number, timeMs: number): void {
    let uCur = uFrom
    if (uTo < uFrom) {
      for (;;) {
        // ties: liquidation, then the stop, then a safety order
        let best = this.uLiq
        let kind = K_LIQ
        if (this.uSl > best) {
          best = this.uSl
          kind = K_SL
        }
        if (this.uNext > best) {
          best = this.uNext
          kind = K_SAFETY
        }
        if (best < uTo) break
        // a level already behind the price when it became active fills where the price is
        const uFill = gap ? uTo : Math.min(best, uCur)
        if (kind === K_SAFETY) {
          const rung = this.ladder[this.filled]
          this.filled++
          this.fill(rung.marginUsdt, this.dir * uFill)
          uCur = uFill
          continue
        }
        this.close(k, timeMs, kind === K_LIQ ? 'liquidation' : 'stop_loss', this.dir * uFill)
        return
      }
    } else if (uTo > uFrom && this.uTp <= uTo) {
      const uFill = gap ? uTo : Math.max(this.uTp, uCur)
      this.close(k, timeMs, 'take_profit', this.dir * uFill)
      return
    }
    const floating = this.q * uTo - this.dir * this.cost
    if (-floating > this.maxFloatingLoss) this.maxFloatingLoss = -floating
  }
}

export function simulateDca(input: BotInput, p: DcaParams): DcaResult {
  const { bars, fromIdx, lastIdx } = input
  const { t, o, h, l, c } = bars
  const ladder = dcaLadder(p)
  const run = new DcaRun(p, ladder)
  const dir = run.dir
  const meter = new FundingMeter(fundingEventsInWindow(bars, input.funding, fromIdx, lastIdx))
  const equity = new Float64Array(Math.max(0, lastIdx - fromIdx + 1))
  const capital = p.baseOrderUsdt + ladder.reduce((s, r) => s + (r.reachable ? r.marginUsdt : 0), 0)
  const path = new Float64Array(4)
  let nextOpenIdx = fromIdx
  let openTimeMs = 0

  for (let k = fromIdx; k <= lastIdx; k++) {
    // the open: the gap from the previous close, or a new deal's base order
    run.funding += meter.chargeBefore(t[k], run.signedQty)
    const qBefore = run.signedQty
    if (run.open) run.move(dir * c[k - 1], dir * o[k], true, k, t[k])
    else if (k >= nextOpenIdx) {
      run.openDeal(k, o[k])
      openTimeMs = t[k]
    }
    const fundingAtOpen = meter.chargeAt(t[k], run.closing !== null ? 0 : qBefore)
    if (run.closing !== null) {
      run.settle(openTimeMs)
      nextOpenIdx = k + 1 + p.cooldownBars
    } else run.funding += fundingAtOpen
    // inside the bar, along the path
    if (run.open) {
      const mid = midMs(bars, k)
      run.funding += meter.chargeBefore(mid, run.signedQty)
      const qInside = run.signedQty
      barPath(o[k], h[k], l[k], c[k], path)
      for (let s = 0; s < 3 && run.open; s++) run.move(dir * path[s], dir * path[s + 1], false, k, mid)
      const fundingInside = meter.chargeAt(mid, run.closing !== null ? 0 : qInside)
      if (run.closing !== null) {
        run.settle(openTimeMs)
        nextOpenIdx = k + 1 + p.cooldownBars
      } else run.funding += fundingInside
    }
    if (k === lastIdx && run.open) {
      const endMs = t[k] + bars.stepMs
      run.funding += meter.chargeBefore(endMs, run.signedQty)
      run.close(k, endMs, 'end', c[k])
      run.settle(openTimeMs)
    }
    equity[k - fromIdx] = capital + run.realized + (run.open ? dir * (run.q * c[k] - run.cost) - run.fees - run.funding : 0)
  }
  const dd = drawdownOf(equity)
  const warnings = ladderWarnings(p, ladder)
  return {
    ladder,
    deals: run.deals,
    maxCapitalRequiredUsdt: capital,
    equityUsdt: equity,
    maxDrawdownUsdt: dd.maxDrawdownUsdt,
    maxDrawdownPct: dd.maxDrawdownPct,
    maxFloatingLossUsdt: run.maxFloatingLoss,
    fundingEvents: meter.events,
    fundingEventsReal: meter.real,
    warnings,
  }
}
