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
 * Indices of `trades` in entry-time order, ties in input order (a stable sort).
 * Entries happen at bar opens, so their times usually sit on a common grid (the bar
 * step): then a counting sort over the grid slots does it in O(n + slots). Otherwise the
 * input's already-ordered runs (one per coin) are merged through a heap, O(n log runs).
 */
export function entryOrder(trades: readonly Trade[]): Int32Array {
  return entryOrderOf(Float64Array.from(trades, (tr) => tr.entryTimeMs))
}

function entryOrderOf(entryMs: Float64Array): Int32Array {
  const n = entryMs.length
  let minMs = Infinity
  let maxMs = -Infinity
  for (let i = 0; i < n; i++) {
    const x = entryMs[i]
    if (x < minMs) minMs = x
    if (x > maxMs) maxMs = x
  }
  let grid = 0
  for (let i = 0; i < n && Number.isInteger(grid); i++) grid = gcd(grid, entryMs[i] - minMs)
  if (n > 0 && Number.isInteger(grid)) {
    const slots = grid === 0 ? 1 : (maxMs - minMs) / grid + 1
    if (slots <= 4 * n + 1024) return countingOrder(entryMs, minMs, grid, slots)
  }
  return mergeRunsOrder(entryMs)
}

/** Greatest common divisor of two non-negative integers (NaN for other input). */
function gcd(a: number, b: number): number {
  if (!Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b < 0) return Number.NaN
  while (b !== 0) {
    const r = a % b
    a = b
    b = r
  }
  return a
}

function countingOrder(entryMs: Float64Array, minMs: number, grid: number, slots: number): Int32Array {
  const n = entryMs.length
  const slotOf = new Int32Array(n)
  const start = new Int32Array(slots + 1)
  for (let i = 0; i < n; i++) {
    const s = grid === 0 ? 0 : (entryMs[i] - minMs) / grid
    slotOf[i] = s
    start[s + 1]++
  }
  for (let s = 0; s < slots; s++) start[s + 1] += start[s]
  const order = new Int32Array(n)
  for (let i = 0; i < n; i++) order[start[slotOf[i]]++] = i
  return order
}

function mergeRunsOrder(entryMs: Float64Array): Int32Array {
  const n = entryMs.length
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

  // created in entry order, so later passes over them walk memory in order
  const taken: PortfolioTrade[] = new Array(accepted)
  for (let a = 0; a < accepted; a++) taken[a] = sized(trades[acceptedIdx[a]], marginOf[acceptedIdx[a]])

  let totalPnlUsd = 0
  for (const tr of taken) totalPnlUsd += tr.pnlUsd
  return {
    trades: taken,
    positionsSkipped: skipped,
    initialCapitalUsd: initial,
    finalEquityUsd: initial + totalPnlUsd,
    equityCurve: dailyEquityCurve(taken, initial, opts.leverage, mark),
  }
}
