/**
 * The capacity curve (issue 25 §2; docs/metrics.md §3 "Capacity"): the trades a run took,
 * re-booked at 1×, 10×, 100×, 1,000× and 10,000× the request's position size. Entries
 * and exits stay; what a size changes is recomputed per trade:
 *
 * - slippage: lev · 100 · (spread + impact · sqrt(N)), N the entry notional at that size
 *   (execution.ts SizeCosts), replacing the slippage the run paid at its own size;
 * - liquidation: with brackets, the liquidation move of the bracket holding N
 *   (margin-brackets.ts); a trade whose adverse excursion before its exit reaches it is a
 *   liquidation at that size (−100 %).
 *
 * `size_at_half_edge_usd` is the position size (margin, USD) at which the mean net return
 * per trade is half the run's, by bisection on the log of the size between 1× and
 * 10,000× (the mean falls as the size grows); null when the run has no positive edge or
 * the edge never halves within the range.
 */
import { bracketOf, liquidationMove, type MarginBracket } from './margin-brackets'
import { profitFactor } from './metrics-breakdown'
import type { TradeTable } from './trade-table'
import { EXIT_REASON_CODE } from './types'

export const CAPACITY_MULTIPLES = [1, 10, 100, 1_000, 10_000] as const

export interface CapacityPoint {
  multiple: number
  /** margin per position at this size, USD */
  perCoinUsd: number
  /** summed net return of the trades, % of margin (as total_return_pct) */
  totalReturnPct: number
  profitFactor: number
  /** trades liquidated at this size */
  liquidations: number
  /** every coin's bracket allows the run's leverage at this notional (Binance would open the position) */
  leverageAllowed: boolean
}

export interface CapacityResult {
  curve: CapacityPoint[]
  sizeAtHalfEdgeUsd: number | null
}

export interface CapacityInput {
  /** the trades the portfolio took */
  trades: TradeTable
  /** the run's margin per position (per_coin_usd) and the notional its costs were priced at */
  perCoinUsd: number
  notionalUsd: number
  leverage: number
  long: boolean
  flatMmr: number
  /** each coin's brackets (by `trades.symbols` index), null where the flat rate applies (spot: all null) */
  brackets: readonly (readonly MarginBracket[] | null)[]
}

const LIQ = EXIT_REASON_CODE.get('liquidation')!

/** Each coin's liquidation move at a notional (NaN: flat rate, nothing to recompute), and whether its bracket allows the leverage. */
function coinMoves(input: CapacityInput, notional: number, moves: Float64Array): boolean {
  let allowed = true
  input.brackets.forEach((bs, c) => {
    if (!bs || bs.length === 0) {
      moves[c] = NaN
      return
    }
    const b = bracketOf(bs, notional) ?? bs[bs.length - 1]
    if (notional > b.capUsd || input.leverage > b.maxLeverage) allowed = false
    moves[c] = liquidationMove(input.long, input.leverage, notional, b, input.flatMmr)
  })
  return allowed
}

/** The trades' net returns at `multiple` × the run's size into `out`; the number liquidated. */
function rebook(input: CapacityInput, multiple: number, moves: Float64Array, out: Float64Array): { liquidations: number; allowed: boolean } {
  const t = input.trades
  const notional = input.notionalUsd * multiple
  const allowed = coinMoves(input, notional, moves)
  const sqrtN = Math.sqrt(notional)
  const scale = input.leverage * 100
  let liquidations = 0
  for (let i = 0; i < t.n; i++) {
    if (t.exitReason[i] === LIQ) {
      out[i] = -100
      liquidations++
      continue
    }
    const move = moves[t.coin[i]]
    if (move === move && t.maeFrac[i] >= move) {
      out[i] = -100
      liquidations++
      continue
    }
    out[i] = t.pnlPct[i] + t.slippagePct[i] - scale * (t.slipSpread[i] + t.slipImpact[i] * sqrtN)
  }
  return { liquidations, allowed }
}

function mean(x: Float64Array): number {
  let s = 0
  for (let i = 0; i < x.length; i++) s += x[i]
  return x.length ? s / x.length : 0
}

export function capacityCurve(input: CapacityInput): CapacityResult {
  const n = input.trades.n
  const moves = new Float64Array(input.trades.symbols.length)
  const pnl = new Float64Array(n)
  const curve: CapacityPoint[] = []
  let base = 0
  let atMax = 0
  for (const m of CAPACITY_MULTIPLES) {
    const { liquidations, allowed } = rebook(input, m, moves, pnl)
    let sum = 0
    for (let i = 0; i < n; i++) sum += pnl[i]
    if (m === 1) base = n ? sum / n : 0
    atMax = n ? sum / n : 0
    curve.push({ multiple: m, perCoinUsd: input.perCoinUsd * m, totalReturnPct: sum, profitFactor: profitFactor(pnl).value, liquidations, leverageAllowed: allowed })
  }
  if (!(base > 0) || atMax > base / 2) return { curve, sizeAtHalfEdgeUsd: null }
  // the mean falls with the size: bisect on log(multiple) in [0, log 10,000] for mean = base / 2
  let lo = 0
  let hi = Math.log(CAPACITY_MULTIPLES[CAPACITY_MULTIPLES.length - 1])
  for (let it = 0; it < 24; it++) {
    const mid = (lo + hi) / 2
    rebook(input, Math.exp(mid), moves, pnl)
    if (mean(pnl) > base / 2) lo = mid
    else hi = mid
  }
  return { curve, sizeAtHalfEdgeUsd: input.perCoinUsd * Math.exp((lo + hi) / 2) }
}
