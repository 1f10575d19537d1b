/**
 * The statistical fields of a run (edge p-value, deflated Sharpe, Monte Carlo, bootstrap
 * CIs, walk-forward, alpha, regimes, grade), computed from the run's accepted trades and
 * daily equity curve. `statisticsFields(null)` is the empty set an unexecuted run reports.
 * How each field is computed for a run (inputs, seeds, n_trials): docs/statistics.md,
 * "Statistics of a run".
 */
import { dailyReturns, type BacktestMetrics } from '../engine/metrics'
import type { PortfolioResult } from '../engine/portfolio'
import type { TradeTable } from '../engine/trade-table'
import { deriveSeed, Mulberry32 } from '../engine/random'
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
import { DAY_MS } from '../market/types'
import { listStrategies } from '../strategies/registry'
import type { Executor } from './compute/executor'
import { runBootstrap, runRegimes, type BootstrapPayload } from './compute/research-tasks'
import { randomEntryTotals } from './fan-out'
import type { RunSpec } from './spec'
import { yieldToLoop } from './yield'

/** The request seed of a result: the first 32 bits of its hash (docs/statistics.md, "Seeds"). */
export function seedOfHash(hash: string): number {
  return Number.parseInt(hash.slice(0, 8), 16) >>> 0
}

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
 * Random-entry simulations per result, on at most MC_MAX_COINS coins. Each simulation
 * draws as many trades per coin as the run took there; a trade's outcome is computed once
 * per entry bar and shared by the simulations, so the cost is about coins × min(bars,
 * simulations × trades per coin) trade walks (bench/research.ts). 100 resolves p-values
 * down to 1/101 ≈ 0.0099, inside the grade's best tier (≤ 0.01); /simulate/validate runs
 * as many as the request asks (default 1000).
 */
export const MC_SIMULATIONS = 100
/**
 * The null tests a seeded random sample of the run's coins with trades: coins in a random
 * order (fixed by the result hash) while their trades stay within MC_MAX_TRADES (the first
 * coin always), at most MC_MAX_COINS. The cost is about simulations × tested trades trade
 * walks; on all of a 535-coin run's trades it would cost several times the run itself.
 * 500 keeps the statistics of a 535-coin run within 30 % of the run's time on two cores
 * (issue 6; 1000 cost about 27 ms of CPU against 15 ms: docs/benchmarks.md); every
 * p-value still resolves to 1/101.
 */
export const MC_MAX_COINS = 50
export const MC_MAX_TRADES = 500
/**
 * Bootstrap resamples: 1000, fewer for very many values so that resamples × values stays
 * within BOOTSTRAP_MAX_DRAWS (never below BOOTSTRAP_MIN_RESAMPLES); MetricCI reports the
 * number used. Beyond BOOTSTRAP_MAX_DRAWS / BOOTSTRAP_MIN_RESAMPLES values (20,000 trades)
 * the profit factor's interval comes from the normal approximation of its two resampled
 * sums instead (profitFactorNormalCI, 1000 draws): accurate at that size, and a thousand
 * draws give steadier percentiles than a hundred resamples.
 */
export const BOOTSTRAP_RESAMPLES = 1000
export const BOOTSTRAP_MIN_RESAMPLES = 100
export const BOOTSTRAP_MAX_DRAWS = 2_000_000
export const NORMAL_SUMS_ABOVE = BOOTSTRAP_MAX_DRAWS / BOOTSTRAP_MIN_RESAMPLES

export function bootstrapResamples(n: number): number {
  return Math.max(BOOTSTRAP_MIN_RESAMPLES, Math.min(BOOTSTRAP_RESAMPLES, Math.floor(BOOTSTRAP_MAX_DRAWS / Math.max(1, n))))
}

/** The bootstrap task of a run's profit-factor interval (method and resamples by sample size). */
export function profitFactorCiPayload(pnlPct: Float64Array, seed: number): BootstrapPayload {
  const normal = pnlPct.length > NORMAL_SUMS_ABOVE
  return {
    values: pnlPct,
    statistic: 'profit_factor',
    resamples: normal ? BOOTSTRAP_RESAMPLES : bootstrapResamples(pnlPct.length),
    seed,
    method: normal ? 'normal-sums' : 'percentile',
  }
}
export const WALK_FORWARD_FOLDS = 5

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
  /** the jobs on the workers if the caller started them earlier (startTradeStatistics); else started here */
  jobs?: TradeStatisticsJobs
  /** default nTrialsOf(spec) */
  nTrials?: number
}

export interface RandomEntryInput {
  spec: RunSpec
  hash: string
  executor: Executor
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
}

export interface CoinSum {
  symbol: string
  index: number
  trades: number
  sum: number
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
  const p = randomEntryTotals(input.executor, input.spec, tested, input.nSymbols, simulations, deriveSeed(seed, 'random-entry')).then(totals => {
    let observed = 0
    for (const c of tested) observed += c.sum
    return { test: mcPValue(observed, totals), observed, totals, coinsTested: tested.length }
  })
  // a run that fails before awaiting it must not leave an unhandled rejection behind
  p.catch(() => {})
  return p
}

/** The columns of the run's accepted trades the statistics read, in entry order. */
export interface TradeColumns {
  pnlPct: Float64Array
  entryMs: Float64Array
  exitMs: Float64Array
  /** index of the trade's coin in the run's symbols */
  coin: Int32Array
}

/** The columns of table rows `entryOrder` (the accepted trades in entry order). */
export function tradeColumns(t: TradeTable, entryOrder: Int32Array): TradeColumns {
  const n = entryOrder.length
  const cols: TradeColumns = { pnlPct: new Float64Array(n), entryMs: new Float64Array(n), exitMs: new Float64Array(n), coin: new Int32Array(n) }
  for (let k = 0; k < n; k++) {
    const i = entryOrder[k]
    cols.pnlPct[k] = t.pnlPct[i]
    cols.entryMs[k] = t.entryMs[i]
    cols.exitMs[k] = t.exitMs[i]
    cols.coin[k] = t.coin[i]
  }
  return cols
}

/**
 * The coins the random-entry null tests: those with trades in a seeded random order
 * (Fisher–Yates), taken while their trades add up to at most maxTrades (the first always)
 * and at most maxCoins, returned in universe order.
 */
export function mcCoins<T extends { trades: number }>(perCoin: readonly T[], limits: { maxCoins: number; maxTrades: number }, seed: number): T[] {
  const withTrades = perCoin.filter(c => c.trades > 0)
  const order = withTrades.map((_, i) => i)
  const rng = new Mulberry32(seed)
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1))
    ;[order[i], order[j]] = [order[j], order[i]]
  }
  const picked: number[] = []
  let trades = 0
  for (const i of order) {
    if (picked.length >= limits.maxCoins) break
    if (picked.length > 0 && trades + withTrades[i].trades > limits.maxTrades) break
    picked.push(i)
    trades += withTrades[i].trades
  }
  return picked.sort((a, b) => a - b).map(i => withTrades[i])
}

/** Trades and summed net % per coin of the run, in universe order. */
export function coinSums(symbols: readonly string[], cols: TradeColumns): CoinSum[] {
  const out = symbols.map((symbol, index) => ({ symbol, index, trades: 0, sum: 0 }))
  for (let i = 0; i < cols.coin.length; i++) {
    const c = out[cols.coin[i]]
    if (!c) continue
    c.trades++
    c.sum += cols.pnlPct[i]
  }
  return out
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
  executor: Executor
  cols: TradeColumns
  /** the run's day span (the equity curve's first and last day) */
  fromDayMs: number
  toDayMs: number
  bars(symbol: string): Bars | undefined
}): TradeStatisticsJobs {
  const { cols, executor } = input
  const seed = seedOfHash(input.hash)
  if (cols.pnlPct.length === 0) return { cols, randomEntry: Promise.resolve(null), profitFactorCi: Promise.resolve(null), regimes: Promise.resolve(null) }
  // the null's chunks go first: they are short and bound to the workers that hold their
  // coins' signals, so they must not queue behind a bootstrap
  const randomEntry = startRandomEntryNull({ spec: input.spec, hash: input.hash, executor, perCoin: coinSums(input.symbols, cols), nSymbols: input.symbols.length })
  const profitFactorCi = executor.run(runBootstrap, profitFactorCiPayload(cols.pnlPct, deriveSeed(seed, 'profit_factor_ci')))
  const btc = input.bars(BENCHMARK_SYMBOL)
  const regimes =
    btc && btc.n > 0 ? executor.run(runRegimes, { entryMs: cols.entryMs, pnlPct: cols.pnlPct, fromDayMs: input.fromDayMs, toDayMs: input.toDayMs }) : Promise.resolve(null)
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
  const sharpeCi = input.executor.run(runBootstrap, { values: daily, statistic: 'sharpe', resamples: bootstrapResamples(daily.length), seed: deriveSeed(seed, 'sharpe_ci') })
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
    deflated_sharpe: dsr,
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
