/**
 * What a run's answer says about its execution (issue 25 §2–3; docs/api.md "Execution"):
 * the settings it ran with and where the flat maintenance rate stood in for brackets
 * (`execution`), where its edge went (`costs`: fees, funding and slippage in USD and in %
 * of the notional traded), and how its result scales with size (`capacity`,
 * engine/capacity.ts). Built with the response body from the trades the portfolio took, and
 * by compare's runs on the workers (compute/coin-tasks.ts runWholeRuns). Their schemas are in
 * result-model.ts (this file loads no TypeBox, so the workers need not).
 */
import { capacityCurve } from '../engine/capacity'
import type { PortfolioResult } from '../engine/portfolio'
import { DEFAULT_MMR_FRAC, effectiveLeverage } from '../engine/types'
import type { MarginBracket } from '../market/types'
import { roundTo } from '../round'
import { lowerBound } from '../sorted-search'
import { TIMEFRAME_MS } from '../market/timeframe'
import type { CapacityBlock, CostsBlock, ExecutionBlock } from './result-model'
import { executionOf, type RunSpec } from './spec'

const round = (x: number, d = 6) => (Number.isFinite(x) ? roundTo(x, d) : 0)

export interface ExecutionReport {
  execution: ExecutionBlock | null
  costs: CostsBlock
  capacity: CapacityBlock | null
}

/** What the report reads of the store: a coin's brackets (undefined where it has none) and whether it has mark-price candles. */
export interface ExecutionStore {
  marginBrackets(symbol: string): readonly MarginBracket[] | undefined
  mark(symbol: string): unknown
}

/** `knownCapacity`: the capacity block of the same run and trades, already worked out (a cached result's): taken as it is. */
export function executionReport(spec: RunSpec, symbols: readonly string[], portfolio: PortfolioResult, store: ExecutionStore, knownCapacity?: ExecutionReport['capacity']): ExecutionReport {
  const brackets = (s: string) => store.marginBrackets(s)
  const t = portfolio.trades
  const lev = effectiveLeverage(spec)
  let notional = 0, fees = 0, funding = 0, slip = 0, missing = 0
  for (let i = 0; i < t.n; i++) {
    const m = t.marginUsd[i]
    notional += m * lev * (1 + t.exitPrice[i] / t.entryPrice[i])
    fees += (m * t.feePct[i]) / 100
    funding += (m * t.fundingPct[i]) / 100
    slip += (m * t.slippagePct[i]) / 100
    missing += t.fillsUnestimated[i]
  }
  const pct = (usd: number) => (notional > 0 ? round((usd / notional) * 100, 6) : 0)
  const costs = {
    traded_notional_usd: round(notional, 2),
    fees_usd: round(fees, 4),
    funding_usd: round(funding, 4),
    slippage_usd: round(slip, 4),
    fees_pct: pct(fees),
    funding_pct: pct(funding),
    slippage_pct: pct(slip),
  }
  const ex = executionOf(spec)
  if (!ex) return { execution: null, costs, capacity: null }
  const useBrackets = ex.margin === 'brackets' && spec.marketType === 'futures'
  const coinBrackets = t.symbols.map(s => (useBrackets ? brackets(s) ?? null : null))
  const flatCoins = symbols.filter(s => !useBrackets || !brackets(s)?.length)
  // the coin task hands the trade model the mark candles of a futures run's coin wherever the store has them (coin-tasks.ts executionInputs)
  const markCoins = spec.marketType === 'futures' ? symbols.filter(s => store.mark(s) !== undefined) : []
  const capacity = knownCapacity ?? capacityOf(spec, t, ex, lev, coinBrackets)
  return {
    execution: {
      slippage: ex.slippage,
      impact_k: ex.impactK,
      tp_order: ex.tpOrder,
      maker_fee_pct: round(ex.makerFeeFrac * 100, 10),
      liquidation_fee_pct: round(ex.liquidationFeeFrac * 100, 10),
      margin: ex.margin,
      position_notional_usd: round(ex.notionalUsd, 6),
      liquidation_price_source: markCoins.length === 0 ? 'last' : markCoins.length === symbols.length ? 'mark' : 'mixed',
      coins_mark_price: markCoins,
      coins_with_brackets: symbols.length - flatCoins.length,
      coins_flat_margin: flatCoins,
      fills_without_estimate: missing,
    },
    costs,
    capacity,
  }
}

/** The run's trades re-booked at larger sizes (engine/capacity.ts), as the answer's `capacity`. */
function capacityOf(spec: RunSpec, t: PortfolioResult['trades'], ex: NonNullable<ReturnType<typeof executionOf>>, lev: number, coinBrackets: (readonly MarginBracket[] | null)[]): NonNullable<ExecutionReport['capacity']> {
  const cap = capacityCurve({
    trades: t,
    perCoinUsd: spec.perCoinUsd,
    notionalUsd: ex.notionalUsd,
    leverage: lev,
    long: spec.direction === 'long',
    flatMmr: DEFAULT_MMR_FRAC,
    brackets: coinBrackets,
  })
  return {
    curve: cap.curve.map(p => ({
      multiple: p.multiple,
      per_coin_usd: round(p.perCoinUsd, 6),
      total_return_pct: round(p.totalReturnPct, 6),
      profit_factor: round(p.profitFactor, 6),
      liquidations: p.liquidations,
      leverage_allowed: p.leverageAllowed,
    })),
    size_at_half_edge_usd: cap.sizeAtHalfEdgeUsd === null ? null : round(cap.sizeAtHalfEdgeUsd, 2),
  }
}

/**
 * The hours inside the run's window of the coins tested on the mark price that have no
 * mark candle (their bars were tested on the last price: engine/mark-price.ts), summed; and
 * how many coins they fall on. `coins`: each coin's first and last bar open in the window.
 */
export function markHoursMissing(
  spec: RunSpec,
  markCoins: readonly string[],
  coins: readonly { symbol: string; fromMs: number | null; toMs: number | null }[],
  store: { bars(symbol: string): { t: Float64Array; n: number } | undefined; mark(symbol: string): { t: Float64Array; n: number } | undefined },
): { hours: number; coins: number } {
  const marked = new Set(markCoins)
  const step = TIMEFRAME_MS[spec.timeframe]
  let hours = 0
  let affected = 0
  for (const c of coins) {
    if (!marked.has(c.symbol) || c.fromMs === null || c.toMs === null) continue
    const b = store.bars(c.symbol)
    const m = store.mark(c.symbol)
    if (!b || !m) continue
    const end = c.toMs + step
    const inBars = lowerBound(b.t, end, b.n) - lowerBound(b.t, c.fromMs, b.n)
    const inMark = lowerBound(m.t, end, m.n) - lowerBound(m.t, c.fromMs, m.n)
    if (inBars > inMark) {
      hours += inBars - inMark
      affected++
    }
  }
  return { hours, coins: affected }
}
