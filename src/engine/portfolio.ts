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

/**
 * Indices of `trades` in entry-time order, ties in input order. The input is a few long
 * runs already in order (one per coin), so the runs are merged through a heap:
 * O(n log runs) instead of a comparison sort of every trade.
 */
export function entryOrder(trades: readonly Trade[]): Int32Array {
  const n = trades.length
  const entryMs = new Float64Array(n)
  for (let i = 0; i < n; i++) entryMs[i] = trades[i].entryTimeMs
  const runStarts: number[] = []
  for (let i = 0; i < n; i++) if (i === 0 || entryMs[i] < entryMs[i - 1]) runStarts.push(i)
  const nRuns = runStarts.length
  const next = Int32Array.from(runStarts)
  const runEnds = new Int32Array(nRuns)
  for (let r = 0; r < nRuns; r++) runEnds[r] = r + 1 < nRuns ? runStarts[r + 1] : n
  const heap = new IndexHeap(nRuns)
  // tie = run number: runs are in input order, so equal times keep the input order
  for (let r = 0; r < nRuns; r++) heap.push(entryMs[next[r]], r, r)
  const order = new Int32Array(n)
  for (let k = 0; k < n; k++) {
    const r = heap.peekValue()
    const i = next[r]++
    order[k] = i
    if (i + 1 < runEnds[r]) heap.replaceTop(entryMs[i + 1], r, r)
    else heap.pop()
  }
  return order
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
  const order = entryOrder(trades)
  // open positions keyed by exit instant, ties in acceptance order; values index `accepted`
  const open = new IndexHeap(Math.min(opts.maxConcurrent, trades.length) + 1)
  const accepted: PortfolioTrade[] = []
  let realisedUsd = 0
  let skipped = 0

  for (let k = 0; k < order.length; k++) {
    const trade = trades[order[k]]
    while (open.size > 0 && open.peekKey() <= trade.entryTimeMs) realisedUsd += accepted[open.pop()].pnlUsd
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
    const taken = sized(trade, marginUsd)
    open.push(taken.exitTimeMs, accepted.length, accepted.length)
    accepted.push(taken)
  }

  let totalPnlUsd = 0
  for (const tr of accepted) totalPnlUsd += tr.pnlUsd
  return {
    trades: accepted,
    positionsSkipped: skipped,
    initialCapitalUsd: initial,
    finalEquityUsd: initial + totalPnlUsd,
    equityCurve: dailyEquityCurve(accepted, initial, opts.leverage, mark),
  }
}
