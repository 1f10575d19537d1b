/**
 * The one booking step of a run: its coins' trades → the portfolio (which trades it takes,
 * their margins, the daily marks) → the metrics → the reliability checks. Every path that
 * books trades goes through `bookSteps`: /backtest and /simulate on the main thread
 * (pausing between the steps), compare's runs in a worker, validate's two parts,
 * optimize's cells, and `simulateAndBook` for tools and tests.
 */
import { type Bars } from '../market/types'
import { DAY_MS } from '../time'
import type { MarkToMarket } from './equity-curve'
import { metricsSteps, type BacktestMetrics } from './metrics'
import { pnlFigures, type PnlFigures } from './metrics-breakdown'
import { acceptSteps, acceptTrades, markPortfolio, sizeSteps, type AcceptInput, type Acceptance, type PortfolioOptions, type PortfolioResult } from './portfolio'
import { reliabilityChecks, reliabilityInput, reliabilityWarning, type ReliabilityCheck } from './reliability'
import { simulateCoin, type CoinSimInput } from './trade-model'
import { finish, type Steps } from './steps'
import { tradeTableOf, type TradeTable } from './trade-table'
import { effectiveLeverage, type Trade, type TradeParams } from './types'

/** A booked run: its portfolio, metrics and reliability checks. */
export interface Booked {
  portfolio: PortfolioResult
  metrics: BacktestMetrics
  checks: ReliabilityCheck[]
}

/** The days a run spans: from the first window bar of any coin to the last (UTC midnights). */
export interface DaySpan {
  fromDayMs: number
  toDayMs: number
}

/** Day span of a run's coins (each with its first and last window bar, null when none); null without any bar. */
export function daySpan(coins: readonly { fromMs: number | null; toMs: number | null }[]): DaySpan | null {
  let from = Infinity, to = -Infinity
  for (const c of coins) {
    if (c.fromMs !== null && c.fromMs < from) from = c.fromMs
    if (c.toMs !== null && c.toMs > to) to = c.toMs
  }
  if (!Number.isFinite(from)) return null
  return { fromDayMs: Math.floor(from / DAY_MS) * DAY_MS, toDayMs: Math.floor(to / DAY_MS) * DAY_MS }
}

/** Daily marking over a span (no span: no day is marked). */
export function markOver(span: DaySpan | null, barsOf: (symbol: string) => Bars | undefined): MarkToMarket {
  return { barsOf, fromDayMs: span?.fromDayMs ?? 0, toDayMs: span?.toDayMs ?? -DAY_MS }
}

/**
 * Trades → portfolio → metrics → checks, as steps that pause between them (the main thread
 * serves other requests at each pause; `book` runs them straight through). `acceptance`
 * when the caller already chose the trades (acceptSteps).
 */
export function* bookSteps(trades: TradeTable, opts: PortfolioOptions, mark: MarkToMarket, acceptance?: Acceptance): Steps<Booked> {
  const accepted = acceptance ?? (yield* acceptSteps(trades, opts))
  const sized = yield* sizeSteps(trades, accepted)
  yield
  const portfolio = markPortfolio(sized, accepted, opts, mark)
  yield
  const metrics = yield* metricsSteps({
    trades: portfolio.trades,
    entryOrder: portfolio.entryOrder,
    equityCurve: portfolio.equityCurve,
    initialCapitalUsd: portfolio.initialCapitalUsd,
  })
  const checks = reliabilityChecks(reliabilityInput(portfolio.trades, metrics.max_drawdown_pct, opts.leverage, portfolio.ruinedAtMs))
  return { portfolio, metrics, checks }
}

/** bookSteps without pausing. */
export function book(trades: TradeTable, opts: PortfolioOptions, mark: MarkToMarket): Booked {
  return finish(bookSteps(trades, opts, mark))
}

/** The four figures of a run a point-in-time run's survivorship block reports of its twin. */
export interface HeadlineFigures extends PnlFigures {
  total_trades: number
}

/**
 * total_return_pct, win_rate, profit_factor and total_trades of a run, the numbers `book`
 * gives, from the portfolio's choice alone: they are sums over the taken trades' net P&L,
 * which neither the sizing nor the daily marks change, so no marks are needed. The sums
 * run over the taken rows in input order, as the sized table `book` measures keeps them.
 */
export function headlineFigures(trades: AcceptInput, opts: PortfolioOptions): HeadlineFigures {
  const rows = acceptTrades(trades, opts).taken.slice().sort()
  return { ...pnlFigures(trades.pnlPct, rows), total_trades: rows.length }
}

export interface BacktestRun {
  /** the run's coins in universe order (ties of entry time go by this order) */
  coins: readonly CoinSimInput[]
  params: TradeParams
  perCoinUsd: number
  maxConcurrent: number
  compounding: boolean
  /** default true (PortfolioOptions.stopAtRuin) */
  stopAtRuin?: boolean
  mark: MarkToMarket
}

export interface BacktestResult {
  portfolio: PortfolioResult
  metrics: BacktestMetrics
  reliabilityChecks: ReliabilityCheck[]
  reliabilityWarning: string | null
  /** every simulated trade before the portfolio's cap (accepted ones are in portfolio.trades) */
  simulatedTrades: number
}

/** One backtest from masks to metrics in one call: simulate every coin, then book the trades. */
export function simulateAndBook(run: BacktestRun): BacktestResult {
  const all: Trade[] = []
  for (const coin of run.coins) for (const tr of simulateCoin(coin, run.params)) all.push(tr)
  const symbols = run.coins.map(c => c.symbol)
  const opts = { perCoinUsd: run.perCoinUsd, maxConcurrent: run.maxConcurrent, compounding: run.compounding, leverage: effectiveLeverage(run.params), coinCount: run.coins.length, stopAtRuin: run.stopAtRuin }
  const { portfolio, metrics, checks } = book(tradeTableOf(all, symbols, run.params.direction), opts, run.mark)
  return { portfolio, metrics, reliabilityChecks: checks, reliabilityWarning: reliabilityWarning(checks), simulatedTrades: all.length }
}
