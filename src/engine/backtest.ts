/**
 * One backtest from masks to metrics: simulate every coin, put the trades on one
 * timeline, mark the portfolio daily, compute the metrics and the reliability checks.
 * The caller (worker / service) prepares the bars, the filtered entry masks, the exit
 * masks and the window of each coin.
 */
import type { MarkToMarket } from './equity-curve'
import { computeMetrics, type BacktestMetrics } from './metrics'
import { runPortfolio, type PortfolioResult } from './portfolio'
import { reliabilityChecks, reliabilityInput, reliabilityWarning, type ReliabilityCheck } from './reliability'
import { simulateCoin, type CoinSimInput } from './simulate-coin'
import { tradeTableOf } from './trade-table'
import { effectiveLeverage, type Trade, type TradeParams } from './types'

export interface BacktestRun {
  /** the run's coins in universe order (ties of entry time go by this order) */
  coins: readonly CoinSimInput[]
  params: TradeParams
  perCoinUsd: number
  maxConcurrent: number
  compounding: boolean
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

export function runBacktest(run: BacktestRun): BacktestResult {
  const all: Trade[] = []
  for (const coin of run.coins) for (const tr of simulateCoin(coin, run.params)) all.push(tr)
  const leverage = effectiveLeverage(run.params)
  const symbols = run.coins.map((c) => c.symbol)
  const portfolio = runPortfolio(
    tradeTableOf(all, symbols, run.params.direction),
    { perCoinUsd: run.perCoinUsd, maxConcurrent: run.maxConcurrent, compounding: run.compounding, leverage, coinCount: run.coins.length },
    run.mark,
  )
  const metrics = computeMetrics({
    trades: portfolio.trades,
    entryOrder: portfolio.entryOrder,
    equityCurve: portfolio.equityCurve,
    initialCapitalUsd: portfolio.initialCapitalUsd,
  })
  const checks = reliabilityChecks(reliabilityInput(portfolio.trades, metrics.max_drawdown_pct, leverage))
  return {
    portfolio,
    metrics,
    reliabilityChecks: checks,
    reliabilityWarning: reliabilityWarning(checks),
    simulatedTrades: all.length,
  }
}
