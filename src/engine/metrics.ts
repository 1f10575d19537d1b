/**
 * Every metric of a backtest, computed in one place from the accepted trades and the
 * daily equity curve (backtesting.py's compute_stats idea). The keys are the contract's
 * response names, so a controller can spread them. Formulas: docs/metrics.md.
 */
import { finish, type Steps } from './steps'
import { entryOrderOf } from './entry-order'
import type { EquityPoint } from './equity-curve'
import {
  coinResults,
  exitCountsOf,
  monthlyStats,
  pnlDistribution,
  PNL_BUCKET_LABELS,
  profitFactor,
  yearlyStats,
  type CoinResult,
  type ExitCounts,
  type PeriodStat,
} from './metrics-breakdown'
import type { SizedTradeTable } from './trade-table'
import { DAYS_PER_YEAR } from './calendar'
import { EXIT_REASONS } from './types'

export interface MetricsInput {
  /**
   * The trades the portfolio took, in any order: only max_consecutive_losses depends on
   * an order, and it sorts by entry time itself (ties in the given order). coin_results
   * lists the table's coins in its order, those without trades too.
   */
  trades: SizedTradeTable
  /** the trades' rows in entry order, when known (the portfolio's entryOrder); else sorted here */
  entryOrder?: Int32Array
  equityCurve: readonly EquityPoint[]
  initialCapitalUsd: number
}

export interface BacktestMetrics extends ExitCounts {
  total_trades: number
  wins: number
  losses: number
  win_rate: number
  total_return_pct: number
  total_return_pct_portfolio: number
  total_return_usd: number
  profit_factor: number
  profit_factor_capped: boolean
  avg_win_pct: number
  avg_loss_pct: number
  max_drawdown_pct: number
  max_drawdown_usd: number
  max_consecutive_losses: number
  total_fees_pct: number
  total_funding_pct: number
  funding_events: number
  funding_events_real: number
  /** real / charged funding events × 100; null when no event was charged */
  funding_coverage_pct: number | null
  sharpe_ratio: number
  sortino_ratio: number
  annualized_return_pct: number
  calmar_ratio: number
  expectancy: number
  recovery_factor: number
  payoff_ratio: number
  var_95: number
  cvar_95: number
  avg_bars_held: number
  median_bars_held: number
  pnl_distribution: number[]
  pnl_buckets: string[]
  yearly_stats: PeriodStat[]
  monthly_stats: PeriodStat[]
  coin_results: CoinResult[]
}

/** Empirical quantile with linear interpolation between order statistics (numpy's default). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return 0
  const h = (sorted.length - 1) * q
  const lo = Math.floor(h)
  const hi = Math.min(lo + 1, sorted.length - 1)
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo])
}

export function median(sorted: ArrayLike<number>): number {
  return quantile(sorted, 0.5)
}

/** Day-over-day returns of the curve; the first is against the initial capital. */
export function dailyReturns(curve: readonly EquityPoint[], initialCapitalUsd: number): Float64Array {
  const r = new Float64Array(curve.length)
  let prev = initialCapitalUsd
  for (let d = 0; d < curve.length; d++) {
    const eq = curve[d].equityUsd
    r[d] = prev > 0 ? eq / prev - 1 : 0
    prev = eq
  }
  return r
}

export interface RiskRatios {
  sharpe: number
  sortino: number
  annualizedReturnPct: number
  calmar: number
  maxDrawdownPct: number
  maxDrawdownUsd: number
}

/** Sharpe, Sortino, Calmar and the drawdowns of a daily equity curve (0 where undefined). */
export function riskRatios(curve: readonly EquityPoint[], initialCapitalUsd: number): RiskRatios {
  const n = curve.length
  let maxDrawdownPct = 0
  let maxDrawdownUsd = 0
  let peak = initialCapitalUsd
  for (const p of curve) {
    if (p.equityUsd > peak) peak = p.equityUsd
    if (p.drawdownPct > maxDrawdownPct) maxDrawdownPct = p.drawdownPct
    if (peak - p.equityUsd > maxDrawdownUsd) maxDrawdownUsd = peak - p.equityUsd
  }
  const r = dailyReturns(curve, initialCapitalUsd)
  let mean = 0
  for (let d = 0; d < n; d++) mean += r[d]
  mean = n > 0 ? mean / n : 0
  let ss = 0
  let downSs = 0
  for (let d = 0; d < n; d++) {
    ss += (r[d] - mean) ** 2
    if (r[d] < 0) downSs += r[d] * r[d]
  }
  const sd = n > 1 ? Math.sqrt(ss / (n - 1)) : 0
  const downDev = n > 0 ? Math.sqrt(downSs / n) : 0
  const annual = Math.sqrt(DAYS_PER_YEAR)
  // 1e-12: a flat curve's rounding noise is not volatility
  const sharpe = sd > 1e-12 ? (mean / sd) * annual : 0
  const sortino = downDev > 1e-12 ? (mean / downDev) * annual : 0
  const finalUsd = n > 0 ? curve[n - 1].equityUsd : initialCapitalUsd
  const growth = finalUsd / initialCapitalUsd
  const annualizedReturnPct = n === 0 ? 0 : growth <= 0 ? -100 : (growth ** (DAYS_PER_YEAR / n) - 1) * 100
  const calmar = maxDrawdownPct > 0 ? annualizedReturnPct / maxDrawdownPct : 0
  return { sharpe, sortino, annualizedReturnPct, calmar, maxDrawdownPct, maxDrawdownUsd }
}

/** Longest run of losing trades (pnl ≤ 0) in entry order. */
function maxConsecutiveLosses(pnlPct: Float64Array, order: Int32Array): number {
  let run = 0
  let best = 0
  for (let k = 0; k < order.length; k++) {
    run = pnlPct[order[k]] > 0 ? 0 : run + 1
    if (run > best) best = run
  }
  return best
}

export function computeMetrics(input: MetricsInput): BacktestMetrics {
  return finish(metricsSteps(input))
}

/** computeMetrics, pausing between the trade figures and the breakdowns. */
/** Counts and sums of the trades in one pass: wins, win and loss sums, P&L, costs, funding events, bars, exits by reason. */
function tradeSums(t: SizedTradeTable) {
  const pnl = t.pnlPct
  let wins = 0
  let winSum = 0
  let lossSum = 0
  let sum = 0
  let usd = 0
  let fees = 0
  let funding = 0
  let fundingEvents = 0
  let fundingReal = 0
  let barsSum = 0
  const exits = new Float64Array(EXIT_REASONS.length)
  for (let i = 0; i < t.n; i++) {
    const x = pnl[i]
    if (x > 0) {
      wins++
      winSum += x
    } else lossSum += x
    sum += x
    usd += t.pnlUsd[i]
    fees += t.feePct[i]
    funding += t.fundingPct[i]
    fundingEvents += t.fundingEvents[i]
    fundingReal += t.fundingEventsReal[i]
    barsSum += t.barsHeld[i]
    exits[t.exitReason[i]]++
  }
  return { wins, winSum, lossSum, sum, usd, fees, funding, fundingEvents, fundingReal, barsSum, exits }
}

/** Value at risk (the 5 % quantile of net P&L) and the mean of the trades at or below it. */
function tailRisk(sortedPnl: Float64Array): { var95: number; cvar95: number } {
  const var95 = quantile(sortedPnl, 0.05)
  let tailSum = 0
  let tailN = 0
  for (const x of sortedPnl) {
    if (x > var95) break
    tailSum += x
    tailN++
  }
  return { var95, cvar95: tailN > 0 ? tailSum / tailN : 0 }
}

export function* metricsSteps(input: MetricsInput): Steps<BacktestMetrics> {
  const { trades: t, equityCurve, initialCapitalUsd } = input
  const n = t.n
  const pnl = t.pnlPct
  const { wins, winSum, lossSum, sum, usd, fees, funding, fundingEvents, fundingReal, barsSum, exits } = tradeSums(t)
  yield
  const losses = n - wins
  const avgWin = wins > 0 ? winSum / wins : 0
  const avgLoss = losses > 0 ? lossSum / losses : 0
  // typed arrays sort numerically without a comparator call per step
  const { var95, cvar95 } = tailRisk(pnl.slice().sort())
  const sortedBars = t.barsHeld.slice().sort()
  const pf = profitFactor(pnl)
  const risk = riskRatios(equityCurve, initialCapitalUsd)
  const maxLosses = maxConsecutiveLosses(pnl, input.entryOrder ?? entryOrderOf(t.entryMs))
  yield
  return {
    total_trades: n,
    wins,
    losses,
    win_rate: n > 0 ? (100 * wins) / n : 0,
    total_return_pct: sum,
    total_return_pct_portfolio: (usd / initialCapitalUsd) * 100,
    total_return_usd: usd,
    profit_factor: pf.value,
    profit_factor_capped: pf.capped,
    avg_win_pct: avgWin,
    avg_loss_pct: avgLoss,
    max_drawdown_pct: risk.maxDrawdownPct,
    max_drawdown_usd: risk.maxDrawdownUsd,
    max_consecutive_losses: maxLosses,
    ...exitCountsOf(exits),
    total_fees_pct: fees,
    total_funding_pct: funding,
    funding_events: fundingEvents,
    funding_events_real: fundingReal,
    funding_coverage_pct: fundingEvents > 0 ? (100 * fundingReal) / fundingEvents : null,
    sharpe_ratio: risk.sharpe,
    sortino_ratio: risk.sortino,
    annualized_return_pct: risk.annualizedReturnPct,
    calmar_ratio: risk.calmar,
    expectancy: n > 0 ? sum / n : 0,
    recovery_factor: risk.maxDrawdownUsd > 0 ? usd / risk.maxDrawdownUsd : 0,
    payoff_ratio: avgWin > 0 && avgLoss < 0 ? avgWin / -avgLoss : 0,
    var_95: var95,
    cvar_95: cvar95,
    avg_bars_held: n > 0 ? barsSum / n : 0,
    median_bars_held: median(sortedBars),
    pnl_distribution: pnlDistribution(pnl),
    pnl_buckets: [...PNL_BUCKET_LABELS],
    yearly_stats: yearlyStats(t),
    monthly_stats: monthlyStats(t),
    coin_results: coinResults(t),
  }
}
