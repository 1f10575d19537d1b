/**
 * POST /backtest as a service: request -> normalised RunSpec -> SimulationService, and
 * the "invalid strategy" answer (HTTP 200, executed false, placeholder zeros).
 */
import { DEFAULT_FEE_FRAC } from '../engine/types'
import { unprocessable, type ValidationDetail } from '../http/errors'
import type { Timeframe } from '../market/timeframe'
import { conditionsCount, type ConditionNode, type StrategySpec } from '../strategies/conditions'
import { validateStrategy } from '../strategies/validate'
import type { RunSpec } from './run-spec'
import { dateProblems, UnknownSymbols, type RunResult, type SimulationService } from './simulation'
import { statisticsFields } from './run-statistics'

export interface BacktestBody {
  name: string
  direction?: 'short' | 'long'
  indicators: Record<string, Record<string, number>>
  entry: Record<string, unknown>
  exit_conditions?: Record<string, unknown> | null
  avoid_hours: number[]
  avoid_months: number[] | null
  min_vol_regime: number | null
  sl_pct: number
  tp_pct: number
  tp_source: 'custom_pct' | 'trailing'
  trailing_pct: number | null
  max_bars: number
  top_n: number | null
  symbols: string[] | null
  include_stablecoins: boolean
  symbol: string | null
  start_date: string | null
  end_date: string | null
  timeframe: Timeframe
  per_coin_usd: number
  leverage: number
  max_concurrent_positions: number
  compounding: boolean
}

const sortedUnique = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b)

/** 422 details for what the schema cannot check (dates; explicit symbols). */
export function requestProblems(start: string | null, end: string | null): ValidationDetail[] {
  return dateProblems(start, end).map(p => ({ type: 'value_error', loc: ['body', p.loc], msg: p.msg, input: p.input }))
}

export function backtestSpec(body: BacktestBody): RunSpec {
  const symbols = body.symbol ? [body.symbol] : body.symbols
  return {
    kind: 'backtest',
    name: body.name,
    strategyId: null,
    direction: body.direction ?? 'short',
    directionSource: body.direction ? 'request' : 'default_short',
    strategy: { indicators: body.indicators, entry: body.entry as unknown as ConditionNode, exit_conditions: (body.exit_conditions ?? null) as ConditionNode | null },
    avoidHours: sortedUnique(body.avoid_hours),
    avoidMonths: body.avoid_months ? sortedUnique(body.avoid_months) : null,
    minVolRegime: body.min_vol_regime,
    slPct: body.sl_pct,
    tpPct: body.tp_pct,
    tpSource: body.tp_source,
    trailingPct: body.tp_source === 'trailing' ? body.trailing_pct : null,
    maxBars: body.max_bars,
    marketType: 'futures',
    leverage: body.leverage,
    feeFrac: DEFAULT_FEE_FRAC.futures,
    timeframe: body.timeframe,
    startDate: body.start_date,
    endDate: body.end_date,
    topN: symbols ? null : body.top_n,
    symbols: symbols ? [...new Set(symbols.map(s => s.toUpperCase()))] : null,
    includeStablecoins: symbols ? false : body.include_stablecoins,
    perCoinUsd: body.per_coin_usd,
    maxConcurrent: body.max_concurrent_positions,
    compounding: body.compounding,
  }
}

/** The contract's answer for a strategy that failed validation: nothing ran. */
export function invalidBacktest(body: BacktestBody, errors: string[]) {
  const zeros = Object.fromEntries(
    ['total_trades', 'wins', 'losses', 'win_rate', 'total_return_pct', 'profit_factor', 'avg_win_pct', 'avg_loss_pct', 'max_drawdown_pct', 'max_consecutive_losses', 'tp_count', 'sl_count', 'timeout_count', 'coins_used', 'total_fees_pct', 'total_funding_pct', 'sharpe_ratio', 'sortino_ratio', 'calmar_ratio', 'initial_capital_usd', 'total_return_usd', 'total_return_pct_portfolio', 'max_drawdown_usd', 'expectancy', 'recovery_factor', 'payoff_ratio', 'btc_hold_return_pct', 'eth_hold_return_pct', 'var_95', 'cvar_95', 'avg_bars_held', 'median_bars_held', 'positions_skipped', 'compute_time_ms'].map(k => [k, 0]),
  )
  const symbols = body.symbol ? [body.symbol] : body.symbols
  return {
    name: body.name,
    direction: body.direction ?? 'short',
    direction_source: body.direction ? 'request' : 'default_short',
    executed: false,
    is_valid: false,
    validation_errors: errors,
    sl_pct: body.sl_pct,
    tp_pct: body.tp_pct,
    max_bars: body.max_bars,
    indicators_used: [],
    conditions_count: safeCount(body.entry),
    ...zeros,
    data_range: '',
    equity_curve: [],
    reliability_checks: [],
    reliability_warning: 'strategy failed validation; nothing ran',
    compounding: body.compounding,
    per_coin_usd: body.per_coin_usd,
    leverage: body.leverage,
    ruin_index: null,
    top_n_requested: symbols ? null : (body.top_n ?? 50),
    eligible_universe: null,
    universe_capped: null,
    coins_missing_data: null,
    coin_results: [],
    trades: [],
    btc_hold_curve: [],
    eth_hold_curve: [],
    warnings: [],
    pnl_distribution: [],
    pnl_buckets: [],
    yearly_stats: [],
    monthly_stats: [],
    ...statisticsFields(null),
    result_hash: null,
  }
}

function safeCount(tree: unknown): number {
  try {
    return conditionsCount(tree)
  } catch {
    return 0
  }
}

/** The response body of a finished run (cached results get their own compute time). */
export function runBody(r: RunResult, extra: Record<string, unknown> = {}) {
  return { ...r.assembled.body, ...r.statistics, ...extra, compute_time_ms: r.computeMs, result_hash: r.hash }
}

export async function runBacktest(sim: SimulationService, body: BacktestBody, noCache: boolean) {
  const problems = requestProblems(body.start_date, body.end_date)
  if (problems.length) throw unprocessable(problems)
  const spec = backtestSpec(body)
  const errors = validateStrategy(spec.strategy as StrategySpec)
  if (errors.length) return invalidBacktest(body, errors)
  try {
    return runBody(await sim.run(spec, { noCache }))
  } catch (e) {
    if (e instanceof UnknownSymbols)
      throw unprocessable(e.symbols.map(s => ({ type: 'value_error', loc: ['body', body.symbol ? 'symbol' : 'symbols'], msg: `unknown symbol '${s}' (see GET /coins)`, input: s })))
    throw e
  }
}
