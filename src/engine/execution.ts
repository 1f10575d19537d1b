/**
 * How a trade's fills are executed and what they cost beyond the price move (issue 25
 * §2–3; docs/metrics.md §1 "Execution"): the taker or maker fee of each side, the
 * slippage of each market fill (slippage.ts), the liquidation fee, and for the capacity
 * curve the parts of a trade's cost that change with its size.
 *
 * The trade model calls `ExecutionCosts.apply` once per trade, after its exit is known;
 * without an `Execution` in the trade parameters the model is the one before issue 25
 * (taker fee on both sides, no slippage, flat maintenance rate).
 */
import type { Bars } from '../market/types'
import { bracketOf, liquidationMove, type MarginBracket } from './margin-brackets'
import { fillCostInputs, type CoinCostSeries, type FillCostInputs } from './slippage'

export type SlippageModel = 'impact' | 'none'
export type TpOrder = 'market' | 'limit'
export type MarginModel = 'brackets' | 'flat'

export interface Execution {
  slippage: SlippageModel
  /** the square-root law's prefactor k */
  impactK: number
  tpOrder: TpOrder
  /** maker fee per side on notional, fraction (a limit take profit) */
  makerFeeFrac: number
  /** fee on a liquidated position's notional, fraction (margin 'brackets' only) */
  liquidationFeeFrac: number
  /** 'brackets': the coin's brackets where the store has them; 'flat': the flat rate everywhere */
  margin: MarginModel
  /** the position's notional at entry, USD: what slippage and the bracket are priced at */
  notionalUsd: number
}

export const DEFAULT_MAKER_FEE_FRAC = 0.0002

/** What a trade's costs depend on its size through (the capacity curve re-books with these). */
export interface SizeCosts {
  /** slippage of the trade, % of margin */
  slippagePct: number
  /** spread part of the slippage, fraction of the entry notional (entry side + exit side × X/E) */
  slipSpread: number
  /** impact part per sqrt(USD of entry notional), fraction of the entry notional, k included */
  slipImpact: number
  /** the largest adverse move before the exit (fraction of the entry price) that a nearer liquidation price would have met; 0 when not tracked */
  maeFrac: number
  /** market fills of the trade with no cost estimate (fewer than 5 days of candles before them) */
  fillsUnestimated: number
}

/** The liquidation move of a coin under a run's execution (flat without brackets or with margin 'flat'). */
export function coinLiquidationMove(long: boolean, leverage: number, flatMmr: number, ex: Execution | undefined, brackets: readonly MarginBracket[] | null | undefined): number {
  if (!ex || ex.margin === 'flat' || !brackets || brackets.length === 0) return 1 / leverage - flatMmr
  const b = bracketOf(brackets, ex.notionalUsd)
  if (b === null) throw new RangeError(`notional ${ex.notionalUsd} USD is above the largest bracket's cap`)
  return liquidationMove(long, leverage, ex.notionalUsd, b, flatMmr)
}

/** `x` moved by the smallest step up (away from zero for positives): a "trades through" test `h ≥ nextUp(tp)` is `h > tp`. */
const f64 = new Float64Array(1)
const i64 = new BigInt64Array(f64.buffer)
export function nextUp(x: number): number {
  if (!(x > 0) || !Number.isFinite(x)) return x
  f64[0] = x
  i64[0] += 1n
  return f64[0]
}
export function nextDown(x: number): number {
  if (!(x > 0) || !Number.isFinite(x)) return x
  f64[0] = x
  i64[0] -= 1n
  return f64[0]
}

const R_TP = 0
const R_SL = 1
const R_TRAILING = 2
const R_LIQUIDATION = 5
const FILL_OPEN = 0
/** inside the bar by the bar rule (1), at a minute of its detail (3): the trade model's FILL_ codes */
const FILL_INTRABAR = 1
const FILL_MINUTE = 3

/** An adverse exit inside the exit bar: its fill price is the worst the trade saw there (a gap at a minute's open included). */
const stopped = (tr: PricedTrade) => (tr.fill === FILL_INTRABAR || tr.fill === FILL_MINUTE) && (tr.reason === R_SL || tr.reason === R_TRAILING || tr.reason === R_LIQUIDATION)

/** The fields of a priced trade that apply() reads and rewrites (TradeModel has them). */
export interface PricedTrade extends SizeCosts {
  exitIdx: number
  exitPrice: number
  reason: number
  fill: number
  exitTimeMs: number
  grossPct: number
  feePct: number
  fundingPct: number
  pnlPct: number
}

/** One coin's execution costs under a run's settings. */
export class ExecutionCosts {
  private readonly entryIn: FillCostInputs = { halfSpread: 0, impactPerSqrtUsd: 0 }
  private readonly exitIn: FillCostInputs = { halfSpread: 0, impactPerSqrtUsd: 0 }
  private readonly sqrtN: number

  constructor(
    private readonly ex: Execution,
    private readonly feeFrac: number,
    private readonly costs: CoinCostSeries | null,
    /** track the adverse excursion (brackets in use: a larger size liquidates nearer) */
    private readonly trackMae: boolean,
  ) {
    this.sqrtN = Math.sqrt(ex.notionalUsd)
  }

  /** Fees, slippage and net P&L of trade `tr` entered at bar e; lev the trade's leverage, long its side. */
  apply(tr: PricedTrade, bars: Bars, e: number, entry: number, lev: number, long: boolean): void {
    const ex = this.ex
    const ratio = tr.exitPrice / entry
    const makerExit = tr.reason === R_TP && ex.tpOrder === 'limit'
    const liquidated = tr.reason === R_LIQUIDATION
    const exitFee = makerExit ? ex.makerFeeFrac : this.feeFrac
    // the taker fee on both sides is written as the model before issue 25 wrote it, so its figures stay bit for bit
    let feePct = exitFee === this.feeFrac ? this.feeFrac * lev * 100 * (1 + ratio) : lev * 100 * (this.feeFrac + exitFee * ratio)
    // Binance's liquidation clearance fee belongs to the bracket model; margin 'flat' is the model before it
    if (liquidated && ex.margin === 'brackets') feePct += lev * 100 * ex.liquidationFeeFrac * ratio
    tr.feePct = feePct
    let spread = 0
    let impact = 0
    let missing = 0
    if (ex.slippage === 'impact') {
      // the entry is a market order; the exit too unless it is a resting limit take profit or the exchange's liquidation
      if (this.costs !== null && fillCostInputs(this.costs, bars.t[e], this.entryIn)) {
        spread += this.entryIn.halfSpread
        impact += this.entryIn.impactPerSqrtUsd
      } else missing++
      if (!makerExit && !liquidated) {
        if (this.costs !== null && fillCostInputs(this.costs, tr.exitTimeMs, this.exitIn)) {
          spread += ratio * this.exitIn.halfSpread
          impact += ratio * Math.sqrt(ratio) * this.exitIn.impactPerSqrtUsd
        } else missing++
      }
    }
    tr.slipSpread = spread
    tr.slipImpact = ex.impactK * impact
    tr.slippagePct = lev * 100 * (spread + tr.slipImpact * this.sqrtN)
    tr.fillsUnestimated = missing
    tr.maeFrac = this.trackMae ? maeOf(tr, bars, e, entry, long) : 0
    tr.pnlPct = liquidated ? -100 : tr.grossPct - feePct - tr.fundingPct - tr.slippagePct
  }
}

/**
 * The adverse excursion a nearer liquidation price would have met before this exit, by
 * the bar rules (docs/metrics.md §1): every bar from the entry before the exit bar whole;
 * in the exit bar its open for a fill at the open, the fill price of an adverse exit inside
 * it (rule 3: the nearer level is hit first; with minute detail the exit minute's price),
 * the bar's extreme otherwise (rule 3 comes before the take profit, and a close fill saw the
 * whole bar; a take profit resolved by minutes is judged on the whole bar, conservatively).
 */
function maeOf(tr: PricedTrade, bars: Bars, e: number, entry: number, long: boolean): number {
  const k = tr.exitIdx
  const { o, h, l } = bars
  let worst = entry
  if (long) {
    for (let j = e; j < k; j++) if (l[j] < worst) worst = l[j]
    const last = tr.fill === FILL_OPEN ? o[k] : stopped(tr) ? tr.exitPrice : l[k]
    if (last < worst) worst = last
    return (entry - worst) / entry
  }
  for (let j = e; j < k; j++) if (h[j] > worst) worst = h[j]
  const last = tr.fill === FILL_OPEN ? o[k] : stopped(tr) ? tr.exitPrice : h[k]
  if (last > worst) worst = last
  return (worst - entry) / entry
}
