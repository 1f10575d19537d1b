/**
 * The portfolio: every coin's trades on one timeline (DESIGN.md §3, "Portfolio").
 *
 * - Trades are taken in entry-time order; ties keep the order of the input (pass the
 *   coins' trade lists concatenated in universe order, so ties go by that order).
 * - A position holds a slot from its entry instant to its exit instant; an entry at
 *   instant T sees every slot freed by exits at or before T. When maxConcurrent slots are
 *   held the entry is skipped and counted (positionsSkipped).
 * - Without compounding each position's margin is perCoinUsd, and the initial capital is
 *   perCoinUsd × min(maxConcurrent, coinCount): the most margin the run can ever have
 *   committed at once.
 * - With compounding perCoinUsd is the starting capital and a position's margin is
 *   equity / maxConcurrent at its entry, where equity = starting capital + the P&L of
 *   every trade closed at or before the entry instant (realised equity: the engine
 *   has no intrabar prices of other coins at that instant). An entry when that equity
 *   is at or below zero is skipped and counted too.
 * - pnlUsd = marginUsd × pnlPct / 100.
 */
import { dailyEquityCurve, type EquityPoint, type MarkToMarket } from './equity-curve'
import { entryOrderOf } from './entry-order'
import { IndexHeap } from './index-heap'
import type { Trade } from './types'

export interface PortfolioOptions {
  /** margin per position (no compounding) or starting capital (compounding), USD */
  perCoinUsd: number
  maxConcurrent: number
  compounding: boolean
  /** the leverage the trades ran with (1 on spot), for marking open positions */
  leverage: number
  /** coins in the run (coins_used), for the initial capital without compounding */
  coinCount: number
}

export interface PortfolioTrade extends Trade {
  marginUsd: number
  pnlUsd: number
}

export interface PortfolioResult {
  /** accepted trades in entry order */
  trades: PortfolioTrade[]
  /**
   * The same objects in input order (grouped by coin): the order to aggregate them in
   * (computeMetrics), because it walks memory in order.
   */
  tradesInInputOrder: PortfolioTrade[]
  positionsSkipped: number
  initialCapitalUsd: number
  finalEquityUsd: number
  /** one point per UTC day of the mark's span, valued at that day's close */
  equityCurve: EquityPoint[]
}

export function initialCapitalUsd(opts: PortfolioOptions): number {
  if (opts.compounding) return opts.perCoinUsd
  return opts.perCoinUsd * Math.max(1, Math.min(opts.maxConcurrent, opts.coinCount))
}

/** The trade with its margin and USD P&L (field by field: much faster than a spread). */
function sized(tr: Trade, marginUsd: number): PortfolioTrade {
  return {
    symbol: tr.symbol,
    direction: tr.direction,
    entryIdx: tr.entryIdx,
    exitIdx: tr.exitIdx,
    entryTimeMs: tr.entryTimeMs,
    exitTimeMs: tr.exitTimeMs,
    entryPrice: tr.entryPrice,
    exitPrice: tr.exitPrice,
    barsHeld: tr.barsHeld,
    exitReason: tr.exitReason,
    pnlPct: tr.pnlPct,
    grossPct: tr.grossPct,
    feePct: tr.feePct,
    fundingPct: tr.fundingPct,
    slTpSameBar: tr.slTpSameBar,
    fundingEvents: tr.fundingEvents,
    fundingEventsReal: tr.fundingEventsReal,
    marginUsd,
    pnlUsd: (marginUsd * tr.pnlPct) / 100,
  }
}

/** Accept and size the trades, then mark the portfolio at every day's close. */
export function runPortfolio(trades: readonly Trade[], opts: PortfolioOptions, mark: MarkToMarket): PortfolioResult {
  if (!(opts.maxConcurrent >= 1)) throw new RangeError('runPortfolio: maxConcurrent must be at least 1')
  const initial = initialCapitalUsd(opts)
  const n = trades.length
  // the loop reads only these columns (one sequential pass over the objects)
  const entryMs = new Float64Array(n)
  const exitMs = new Float64Array(n)
  const pnlPct = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const tr = trades[i]
    entryMs[i] = tr.entryTimeMs
    exitMs[i] = tr.exitTimeMs
    pnlPct[i] = tr.pnlPct
  }
  const order = entryOrderOf(entryMs)
  // open positions keyed by exit instant, ties in acceptance order; values index the input
  const open = new IndexHeap(Math.min(opts.maxConcurrent, n) + 1)
  const marginOf = new Float64Array(n)
  const acceptedIdx = new Int32Array(n)
  let accepted = 0
  let realisedUsd = 0
  let skipped = 0

  for (let k = 0; k < n; k++) {
    const i = order[k]
    while (open.size > 0 && open.peekKey() <= entryMs[i]) {
      const j = open.pop()
      realisedUsd += (marginOf[j] * pnlPct[j]) / 100
    }
    if (open.size >= opts.maxConcurrent) {
      skipped++
      continue
    }
    const equity = initial + realisedUsd
    const marginUsd = opts.compounding ? equity / opts.maxConcurrent : opts.perCoinUsd
    if (!(marginUsd > 0)) {
      skipped++
      continue
    }
    marginOf[i] = marginUsd
    open.push(exitMs[i], accepted, i)
    acceptedIdx[accepted++] = i
  }

  // Objects are created in input order (coin by coin, the order the simulator allocated
  // the inputs in), so this pass and every later order-free pass walk memory in order;
  // random access to scattered objects costs far more than the arithmetic here.
  const slotOf = new Int32Array(n).fill(-1)
  for (let a = 0; a < accepted; a++) slotOf[acceptedIdx[a]] = a
  const inInputOrder: PortfolioTrade[] = []
  const inEntryOrder: PortfolioTrade[] = new Array(accepted)
  let totalPnlUsd = 0
  for (let i = 0; i < n; i++) {
    if (slotOf[i] < 0) continue
    const tr = sized(trades[i], marginOf[i])
    inInputOrder.push(tr)
    inEntryOrder[slotOf[i]] = tr
    totalPnlUsd += tr.pnlUsd
  }
  return {
    trades: inEntryOrder,
    tradesInInputOrder: inInputOrder,
    positionsSkipped: skipped,
    initialCapitalUsd: initial,
    finalEquityUsd: initial + totalPnlUsd,
    equityCurve: dailyEquityCurve(inInputOrder, initial, opts.leverage, mark),
  }
}
