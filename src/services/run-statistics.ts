/**
 * The statistical fields of a run (edge p-value, deflated Sharpe, Monte Carlo, bootstrap
 * CIs, walk-forward, alpha, regimes, grade), computed from the run's accepted trades and
 * daily equity curve. `statisticsFields(null)` is the empty set an unexecuted run reports.
 * How each field is computed for a run (inputs, seeds, n_trials): docs/statistics.md,
 * "Statistics of a run".
 */
import { dailyReturns, type BacktestMetrics } from '../engine/metrics'
import type { PortfolioResult } from '../engine/portfolio'
import { deriveSeed } from '../engine/random'
import {
  bootstrapCI,
  btcRegimeLabels,
  deflatedSharpe,
  dsrHaircutPct,
  edgePValue,
  jensensAlpha,
  mcPValue,
  regimeAt,
  regimePerformance,
  strategyGrade,
  TREND_SMA_DAYS,
  walkForward,
  type DeflatedSharpeInfo,
  type MetricCI,
  type RegimePerformance,
} from '../engine/statistics'
import { holdCurve } from '../engine/hold-curve'
import { lastCloseAt } from '../engine/equity-curve'
import type { Bars } from '../market/types'
import { DAY_MS } from '../market/types'
import { listStrategies } from '../strategies/registry'
import type { Executor } from './executor'
import { randomEntryTotals, seedOfHash } from './research-run'
import type { RunSpec } from './run-spec'

export interface StatisticsFields {
  edge_p_value: number | null
  walk_forward_consistency: number | null
  walk_forward_details: string
  deflated_sharpe: DeflatedSharpeInfo | null
  dsr_haircut_pct: number | null
  mc_p_value: number | null
  mc_percentile: number | null
  jensens_alpha: number | null
  profit_factor_ci: MetricCI | null
  sharpe_ci: MetricCI | null
  regime_performance: RegimePerformance | null
  strategy_grade: string
  grade_details: string
}

export function statisticsFields(s: Partial<StatisticsFields> | null): StatisticsFields {
  return {
    edge_p_value: null,
    walk_forward_consistency: null,
    walk_forward_details: '',
    deflated_sharpe: null,
    dsr_haircut_pct: null,
    mc_p_value: null,
    mc_percentile: null,
    jensens_alpha: null,
    profit_factor_ci: null,
    sharpe_ci: null,
    regime_performance: null,
    strategy_grade: '',
    grade_details: '',
    ...s,
  }
}

/**
 * Random-entry simulations per result. Each draws as many trades per coin as the run
 * took; a trade's outcome is computed once per entry bar and shared by the simulations,
 * so the cost is bounded by the window's bars (bench/research.ts). 100 resolves p-values
 * down to 1/101 ≈ 0.0099, inside the grade's best tier (≤ 0.01); /simulate/validate runs
 * as many as the request asks (default 1000).
 */
export const MC_SIMULATIONS = 100
/** Bootstrap resamples: 1000, fewer for very many trades so that resamples × trades stays within BOOTSTRAP_MAX_DRAWS. */
export const BOOTSTRAP_RESAMPLES = 1000
export const BOOTSTRAP_MIN_RESAMPLES = 200
export const BOOTSTRAP_MAX_DRAWS = 4_000_000

export function bootstrapResamples(n: number): number {
  return Math.max(BOOTSTRAP_MIN_RESAMPLES, Math.min(BOOTSTRAP_RESAMPLES, Math.floor(BOOTSTRAP_MAX_DRAWS / Math.max(1, n))))
}
export const WALK_FORWARD_FOLDS = 5
export const BENCHMARK_SYMBOL = 'BTCUSDT'

/**
 * The configurations the service exposes for the choice a result represents: every
 * registry strategy for /simulate (the user picked one of them), 1 for a custom /backtest
 * tree (the service offered nothing to pick from; the user's own tries are unknown, which
 * the DSR caveat and the sensitivity table cover). The SL/TP optimisation uses its grid size.
 */
export function nTrialsOf(spec: RunSpec): number {
  return spec.kind === 'simulate' ? listStrategies().length : 1
}

export interface StatisticsInput {
  spec: RunSpec
  /** the run's result hash: seeds every random stream (seedOfHash) */
  hash: string
  /** the run's coins, in universe order */
  symbols: readonly string[]
  portfolio: PortfolioResult
  metrics: BacktestMetrics
  /** candles for the BTC benchmark and regimes */
  bars(symbol: string): Bars | undefined
  executor: Executor
  /** default nTrialsOf(spec) */
  nTrials?: number
  /** default MC_SIMULATIONS */
  mcSimulations?: number
}

/** Daily closes of BTC (the close of the last bar closed by each day's end) over [fromDay, toDay]. */
function dayCloses(bars: Bars, fromDayMs: number, toDayMs: number): { days: Float64Array; closes: Float64Array } {
  const n = Math.max(0, Math.floor((toDayMs - fromDayMs) / DAY_MS) + 1)
  const days = new Float64Array(n)
  const closes = new Float64Array(n)
  for (let d = 0; d < n; d++) {
    days[d] = fromDayMs + d * DAY_MS
    closes[d] = lastCloseAt(bars, days[d] + DAY_MS)
  }
  return { days, closes }
}

function regimeOf(btc: Bars, portfolio: PortfolioResult, fromDayMs: number, toDayMs: number): RegimePerformance | null {
  // the trend needs 200 days of closes before the window's first day
  const { days, closes } = dayCloses(btc, fromDayMs - TREND_SMA_DAYS * DAY_MS, toDayMs)
  const labels = btcRegimeLabels(days, closes)
  return regimePerformance(portfolio.trades.map(t => ({ pnlPct: t.pnlPct, ...regimeAt(labels, days, t.entryTimeMs) })))
}

/** Summed net % of the run's trades, coin by coin in universe order (as the null's sums are added). */
function observedByCoin(symbols: readonly string[], portfolio: PortfolioResult): { symbol: string; trades: number; sum: number }[] {
  const bySymbol = new Map(symbols.map(s => [s, { symbol: s, trades: 0, sum: 0 }]))
  for (const t of portfolio.trades) {
    const c = bySymbol.get(t.symbol)!
    c.trades++
    c.sum += t.pnlPct
  }
  return symbols.map(s => bySymbol.get(s)!)
}

export async function computeStatistics(input: StatisticsInput): Promise<StatisticsFields> {
  const { spec, portfolio, metrics } = input
  const trades = portfolio.trades
  const curve = portfolio.equityCurve
  if (trades.length === 0 || curve.length === 0) return statisticsFields({ grade_details: 'not graded: no trades' })

  const seed = seedOfHash(input.hash)
  const simulations = input.mcSimulations ?? MC_SIMULATIONS
  const perCoin = observedByCoin(input.symbols, portfolio)
  // the null runs in the workers while this thread computes the rest
  const nullTotals = randomEntryTotals(input.executor, spec, perCoin, simulations, deriveSeed(seed, 'random-entry'))
  nullTotals.catch(() => {})

  const pnl = Float64Array.from(trades, t => t.pnlPct)
  const daily = dailyReturns(curve, portfolio.initialCapitalUsd)
  const nTrials = input.nTrials ?? nTrialsOf(spec)
  const fromDayMs = curve[0].tMs
  const toDayMs = curve[curve.length - 1].tMs

  const edge = edgePValue(pnl)
  const dsr = daily.length >= 2 ? deflatedSharpe(daily, nTrials) : null
  const pfCi = bootstrapCI(pnl, 'profit_factor', { resamples: bootstrapResamples(pnl.length), seed: deriveSeed(seed, 'profit_factor_ci') })
  const sharpeCi = bootstrapCI(daily, 'sharpe', { resamples: bootstrapResamples(daily.length), seed: deriveSeed(seed, 'sharpe_ci') })
  // the window's last day is whole: its last instant closes the last fold
  const wf = walkForward(trades, fromDayMs, toDayMs + DAY_MS - 1, WALK_FORWARD_FOLDS)
  const btc = input.bars(BENCHMARK_SYMBOL)
  let alphaPct: number | null = null
  let regimes: RegimePerformance | null = null
  if (btc && btc.n > 0) {
    const btcDaily = dailyReturns(holdCurve(btc, fromDayMs, toDayMs, portfolio.initialCapitalUsd), portfolio.initialCapitalUsd)
    const alpha = jensensAlpha(daily, btcDaily)
    alphaPct = alpha ? alpha.alpha_annualized * 100 : null
    regimes = regimeOf(btc, portfolio, fromDayMs, toDayMs)
  }

  const totals = await nullTotals
  let observed = 0
  for (const c of perCoin) observed += c.sum
  const mc = mcPValue(observed, totals)

  const grade = strategyGrade({
    trades: trades.length,
    profitFactor: metrics.profit_factor,
    edgePValue: edge,
    dsr: dsr?.dsr ?? null,
    mcPValue: mc?.p_value ?? null,
    walkForwardConsistency: wf?.consistency ?? null,
    maxDrawdownPct: metrics.max_drawdown_pct,
  })
  return statisticsFields({
    edge_p_value: edge,
    walk_forward_consistency: wf?.consistency ?? null,
    walk_forward_details: wf?.details ?? '',
    deflated_sharpe: dsr,
    dsr_haircut_pct: dsr ? dsrHaircutPct(dsr) : null,
    mc_p_value: mc?.p_value ?? null,
    mc_percentile: mc?.percentile ?? null,
    jensens_alpha: alphaPct,
    profit_factor_ci: pfCi,
    sharpe_ci: sharpeCi,
    regime_performance: regimes,
    strategy_grade: grade.grade,
    grade_details: grade.details,
  })
}
