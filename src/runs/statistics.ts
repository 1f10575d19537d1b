/**
 * The statistical fields of a run (edge p-value, deflated Sharpe, Monte Carlo, bootstrap
 * CIs, walk-forward, alpha, regimes, grade), computed from the run's accepted trades and
 * daily equity curve: which run on the workers, started when, and how they are put
 * together (what each is computed on: statistics-inputs.ts). `statisticsFields(null)` is
 * the empty set an unexecuted run reports. How each field is computed for a run (inputs,
 * seeds, n_trials): docs/statistics.md, "Statistics of a run".
 */
import { dailyReturns, type BacktestMetrics } from '../engine/metrics'
import type { PortfolioResult } from '../engine/portfolio'
import { deriveSeed } from '../engine/random'
import {
  deflatedSharpe,
  dsrHaircutPct,
  edgePValue,
  jensensAlpha,
  mcPValue,
  strategyGrade,
  walkForward,
  type DeflatedSharpeInfo,
  type McPValue,
  type MetricCI,
  type RegimePerformance,
} from '../engine/statistics'
import { holdCurve } from '../engine/hold-curve'
import { BENCHMARK_SYMBOL } from '../engine/regime-split'
import type { Bars } from '../market/types'
import { DAY_MS } from '../time'
import { runBootstrap, runRegimes } from './compute/research-tasks'
import { randomEntryTotals } from './fan-out'
import type { RunSpec } from './spec'
import {
  bootstrapResamples,
  coinSums,
  mcCoins,
  MC_MAX_COINS,
  MC_MAX_TRADES,
  MC_SIMULATIONS,
  nTrialsOf,
  profitFactorCiPayload,
  seedOfHash,
  tradeColumns,
  WALK_FORWARD_FOLDS,
  type CoinSum,
  type TradeColumns,
} from './statistics-inputs'
import type { Lane } from './transport'
import { yieldToLoop } from './yield'

export interface StatisticsFields {
  edge_p_value: number | null
  walk_forward_consistency: number | null
  walk_forward_details: string
  /** the contract's nullable number: the DSR */
  deflated_sharpe: number | null
  /** the whole computation behind it (n_trials, skew, kurtosis, sensitivity, caveat) */
  deflated_sharpe_info: DeflatedSharpeInfo | null
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
    deflated_sharpe_info: null,
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
  lane: Lane
  /** the jobs on the workers if the caller started them earlier (startTradeStatistics); else started here */
  jobs?: TradeStatisticsJobs
  /** default nTrialsOf(spec) */
  nTrials?: number
  /** a point-in-time run's membership intervals (UniversePlan.tradable): the random-entry null draws inside them */
  tradable?: Record<string, number[]>
}

export interface RandomEntryInput {
  spec: RunSpec
  hash: string
  lane: Lane
  /** the run's coins in universe order (index = position in the run's symbols), their trade counts and summed net % */
  perCoin: readonly CoinSum[]
  /** the run's coin count (for the workers' chunks) */
  nSymbols: number
  /** default MC_SIMULATIONS */
  simulations?: number
  /** defaults MC_MAX_COINS, MC_MAX_TRADES */
  limits?: { maxCoins: number; maxTrades: number }
  /** default seedOfHash(hash) */
  seed?: number
  /** a point-in-time run's membership intervals: entries are drawn only while a coin is in the set */
  tradable?: Record<string, number[]>
}

export interface RandomEntryOutcome {
  /** p-value and percentile of the observed sum among the simulations' */
  test: McPValue | null
  /** summed net % of the tested coins' trades */
  observed: number
  /** each simulation's summed net % */
  totals: Float64Array
  coinsTested: number
}

/**
 * The random-entry Monte Carlo of a run: the p-value and percentile of the tested coins'
 * summed net return among the simulations'. Null without trades.
 */
export function startRandomEntryNull(input: RandomEntryInput): Promise<RandomEntryOutcome | null> {
  const seed = input.seed ?? seedOfHash(input.hash)
  const perCoin = input.perCoin
  const tested = mcCoins(perCoin, input.limits ?? { maxCoins: MC_MAX_COINS, maxTrades: MC_MAX_TRADES }, deriveSeed(seed, 'mc-coins'))
  if (tested.length === 0) return Promise.resolve(null)
  const simulations = input.simulations ?? MC_SIMULATIONS
  const p = randomEntryTotals(input.lane, input.spec, tested, input.nSymbols, simulations, deriveSeed(seed, 'random-entry'), input.tradable).then(totals => {
    let observed = 0
    for (const c of tested) observed += c.sum
    return { test: mcPValue(observed, totals), observed, totals, coinsTested: tested.length }
  })
  // a run that fails before awaiting it must not leave an unhandled rejection behind
  p.catch(() => {})
  return p
}

/** The statistics that need only the accepted trades, running on the workers. */
export interface TradeStatisticsJobs {
  /** the accepted trades' columns, in entry order */
  cols: TradeColumns
  randomEntry: Promise<RandomEntryOutcome | null>
  profitFactorCi: Promise<MetricCI | null>
  regimes: Promise<RegimePerformance | null>
}

/**
 * Start the statistics of the accepted trades on the workers (the random-entry null, the
 * profit-factor bootstrap and the regime split) as soon as the portfolio has chosen its
 * trades: they run while this thread books the equity curve and the metrics.
 */
export function startTradeStatistics(input: {
  spec: RunSpec
  hash: string
  symbols: readonly string[]
  lane: Lane
  cols: TradeColumns
  /** the run's day span (the equity curve's first and last day) */
  fromDayMs: number
  toDayMs: number
  bars(symbol: string): Bars | undefined
  /** a point-in-time run's membership intervals (the random-entry null's) */
  tradable?: Record<string, number[]>
}): TradeStatisticsJobs {
  const { cols, lane } = input
  const seed = seedOfHash(input.hash)
  if (cols.pnlPct.length === 0) return { cols, randomEntry: Promise.resolve(null), profitFactorCi: Promise.resolve(null), regimes: Promise.resolve(null) }
  // the null's chunks go first: they are short and bound to the workers that hold their
  // coins' signals, so they must not queue behind a bootstrap
  const randomEntry = startRandomEntryNull({ spec: input.spec, hash: input.hash, lane, perCoin: coinSums(input.symbols, cols), nSymbols: input.symbols.length, tradable: input.tradable })
  const profitFactorCi = lane.run(runBootstrap, profitFactorCiPayload(cols.pnlPct, deriveSeed(seed, 'profit_factor_ci')))
  const btc = input.bars(BENCHMARK_SYMBOL)
  const regimes =
    btc && btc.n > 0 ? lane.run(runRegimes, { entryMs: cols.entryMs, pnlPct: cols.pnlPct, fromDayMs: input.fromDayMs, toDayMs: input.toDayMs }) : Promise.resolve(null)
  // a run that fails before awaiting them must not leave unhandled rejections behind
  profitFactorCi.catch(() => {})
  regimes.catch(() => {})
  return { cols, randomEntry, profitFactorCi, regimes }
}

export async function computeStatistics(input: StatisticsInput): Promise<StatisticsFields> {
  const { spec, portfolio, metrics } = input
  const curve = portfolio.equityCurve
  if (portfolio.trades.n === 0 || curve.length === 0) return statisticsFields({ grade_details: 'not graded: no trades' })

  const seed = seedOfHash(input.hash)
  const fromDayMs = curve[0].tMs
  const toDayMs = curve[curve.length - 1].tMs
  const jobs =
    input.jobs ??
    startTradeStatistics({ ...input, cols: tradeColumns(portfolio.trades, portfolio.entryOrder), fromDayMs, toDayMs })
  const { cols } = jobs
  const pnl = cols.pnlPct
  const daily = dailyReturns(curve, portfolio.initialCapitalUsd)
  const sharpeCi = input.lane.run(runBootstrap, { values: daily, statistic: 'sharpe', resamples: bootstrapResamples(daily.length), seed: deriveSeed(seed, 'sharpe_ci') })
  sharpeCi.catch(() => {})
  const btc = input.bars(BENCHMARK_SYMBOL)

  const nTrials = input.nTrials ?? nTrialsOf(spec)

  const edge = edgePValue(pnl)
  const dsr = daily.length >= 2 ? deflatedSharpe(daily, nTrials) : null
  await yieldToLoop()
  // the window's last day is whole: its last instant closes the last fold
  const wf = walkForward(cols, fromDayMs, toDayMs + DAY_MS - 1, WALK_FORWARD_FOLDS)
  await yieldToLoop()
  let alphaPct: number | null = null
  if (btc && btc.n > 0) {
    const btcDaily = dailyReturns(holdCurve(btc, fromDayMs, toDayMs, portfolio.initialCapitalUsd), portfolio.initialCapitalUsd)
    const alpha = jensensAlpha(daily, btcDaily)
    alphaPct = alpha ? alpha.alpha_annualized * 100 : null
  }

  const [profitFactorCi, sharpeRatioCi, regimePerformance] = await Promise.all([jobs.profitFactorCi, sharpeCi, jobs.regimes])
  const mc = (await jobs.randomEntry)?.test ?? null

  const grade = strategyGrade({
    trades: portfolio.trades.n,
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
    deflated_sharpe: dsr?.dsr ?? null,
    deflated_sharpe_info: dsr,
    dsr_haircut_pct: dsr ? dsrHaircutPct(dsr) : null,
    mc_p_value: mc?.p_value ?? null,
    mc_percentile: mc?.percentile ?? null,
    jensens_alpha: alphaPct,
    profit_factor_ci: profitFactorCi,
    sharpe_ci: sharpeRatioCi,
    regime_performance: regimePerformance,
    strategy_grade: grade.grade,
    grade_details: grade.details,
  })
}
