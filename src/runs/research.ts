/**
 * The research routes' work on the workers, as the run service's named operations run it
 * (RunService.gridSearch, RunService.validation): the SL/TP grid's trades with each cell
 * booked as a portfolio of its own (POST /simulate/optimize), and a run's trade bootstrap
 * and random-entry null (POST /simulate/validate). The formulas are in docs/statistics.md.
 */
import type { BacktestMetrics } from '../engine/metrics'
import { dailyReturns } from '../engine/metrics'
import { deriveSeed } from '../engine/random'
import { book, daySpan, markOver, type DaySpan } from '../engine/run'
import type { PathSizing, TradeBootstrapResult } from '../engine/trade-bootstrap'
import { tradeTableOf } from '../engine/trade-table'
import type { Bars } from '../market/types'
import { runTradeBootstrap, type GridCell } from './compute/research-tasks'
import { gridOutcomes } from './fan-out'
import type { RunResult } from './present'
import { portfolioOptionsOf, type RunSpec } from './spec'
import { startRandomEntryNull, type RandomEntryOutcome } from './statistics'
import { coinSums, tradeColumns } from './statistics-inputs'
import type { Lane } from './transport'

/** One cell of the grid booked as a portfolio of its own: its metrics and daily returns. */
export interface GridCellResult {
  daily: Float64Array
  metrics: BacktestMetrics
  /** the exit instant at which the cell's portfolio reached zero equity; null when it never did */
  ruinedAtMs: number | null
}

export interface GridSearchResult {
  /** the coins' day span (null: no coin has a bar in the window) */
  span: DaySpan | null
  /** per cell, in the order given; all null when `span` is null */
  cells: (GridCellResult | null)[]
}

/** Every coin's trades under every cell (chunked over the workers), then each cell booked on this thread. */
export async function gridSearch(
  lane: Lane,
  spec: RunSpec,
  symbols: string[],
  cells: GridCell[],
  bars: (symbol: string) => Bars | undefined,
  universe: { tradable?: Record<string, number[]>; delisted?: string[]; coinCount?: number } = {},
): Promise<GridSearchResult> {
  const coins = await gridOutcomes(lane, spec, symbols, cells, universe)
  const span = daySpan(coins)
  if (!span) return { span, cells: cells.map(() => null) }
  return {
    span,
    cells: cells.map((_, j) => {
      const table = tradeTableOf(coins.flatMap(c => c.cells[j]), symbols, spec.direction)
      const { portfolio: p, metrics } = book(table, portfolioOptionsOf(spec, universe.coinCount ?? symbols.length), markOver(span, bars))
      return { daily: dailyReturns(p.equityCurve, p.initialCapitalUsd), metrics, ruinedAtMs: p.ruinedAtMs }
    }),
  }
}

/** A run's Monte Carlo for POST /simulate/validate. */
export interface RunMonteCarlo {
  /** the run's net trade returns in exit order (the observed path books them so) */
  pnlInExitOrder: Float64Array
  /** the run's sizing, with which every path is booked */
  sizing: PathSizing
  bootstrap: TradeBootstrapResult
  /** the random-entry null over every coin (null without trades) */
  randomEntry: RandomEntryOutcome | null
}

/**
 * The run's trades resampled (a bootstrap of paths booked with the run's sizing) and the
 * random-entry null over every coin, on the workers at once. `tradable`: a point-in-time
 * run's membership intervals (the null draws entries only while a coin is in the set).
 */
export async function runMonteCarlo(lane: Lane, r: RunResult, simulations: number, seed: number, tradable?: Record<string, number[]>): Promise<RunMonteCarlo> {
  const { spec, symbols } = r
  const portfolio = r.assembled.portfolio
  const cols = tradeColumns(portfolio.trades, portfolio.entryOrder)
  const byExit = Array.from(cols.pnlPct.keys()).sort((a, b) => cols.exitMs[a] - cols.exitMs[b] || a - b)
  const pnlInExitOrder = Float64Array.from(byExit, i => cols.pnlPct[i])
  const sizing: PathSizing = { initialCapitalUsd: portfolio.initialCapitalUsd, marginUsd: spec.perCoinUsd, compounding: spec.compounding, maxConcurrent: spec.maxConcurrent }
  const bootstrap = lane.run(runTradeBootstrap, { pnlPct: pnlInExitOrder, sizing, simulations, seed: deriveSeed(seed, 'trade-bootstrap') })
  bootstrap.catch(() => {})
  const unlimited = { maxCoins: Infinity, maxTrades: Infinity }
  const [boot, randomEntry] = await Promise.all([
    bootstrap,
    startRandomEntryNull({ spec, hash: r.hash, lane, perCoin: coinSums(symbols, cols), nSymbols: symbols.length, simulations, limits: unlimited, seed, tradable }),
  ])
  return { pnlInExitOrder, sizing, bootstrap: boot, randomEntry }
}
