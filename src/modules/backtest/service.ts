/**
 * POST /backtest: the request as a normalised RunSpec, run by the run service, and the
 * contract's "invalid strategy" answer (HTTP 200, executed false, placeholder zeros).
 */
import { DEFAULT_FEE_FRAC } from '../../engine/types'
import { InvalidRequest, UnknownSymbols } from '../../runs/errors'
import { responseBody } from '../../runs/present'
import type { RunService } from '../../runs/service'
import { checkDates, type RunSpec } from '../../runs/spec'
import { statisticsFields } from '../../runs/statistics'
import { conditionsCount, type ConditionNode, type StrategySpec } from '../../strategies/conditions'
import { validateStrategy } from '../../strategies/validate'
import type { BacktestRequest, BacktestResponse } from './model'

export type BacktestBody = typeof BacktestRequest.static
type BacktestAnswer = typeof BacktestResponse.static

const sortedUnique = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b)

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
    stopAtRuin: body.stop_at_ruin,
  }
}

/** The figures an invalid strategy reports as 0 (nothing ran). */
const ZERO_FIELDS = ['total_trades', 'wins', 'losses', 'win_rate', 'total_return_pct', 'profit_factor', 'avg_win_pct', 'avg_loss_pct', 'max_drawdown_pct', 'max_consecutive_losses', 'tp_count', 'sl_count', 'timeout_count', 'trailing_count', 'signal_count', 'liquidation_count', 'end_of_data_count', 'coins_used', 'total_fees_pct', 'total_funding_pct', 'sharpe_ratio', 'sortino_ratio', 'calmar_ratio', 'initial_capital_usd', 'total_return_usd', 'total_return_pct_portfolio', 'max_drawdown_usd', 'expectancy', 'recovery_factor', 'payoff_ratio', 'btc_hold_return_pct', 'eth_hold_return_pct', 'var_95', 'cvar_95', 'avg_bars_held', 'median_bars_held', 'positions_skipped', 'compute_time_ms'] as const

/** The contract's answer for a strategy that failed validation: nothing ran. */
export function invalidBacktest(body: BacktestBody, errors: string[]) {
  const zeros = Object.fromEntries(ZERO_FIELDS.map(k => [k, 0])) as Record<(typeof ZERO_FIELDS)[number], number>
  const symbols = body.symbol ? [body.symbol] : body.symbols
  return {
    name: body.name,
    direction: body.direction ?? 'short',
    direction_source: body.direction ? ('request' as const) : ('default_short' as const),
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
    stop_at_ruin: body.stop_at_ruin,
    ruined_at: null,
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
    regime_performance: null,
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

export async function runBacktest(runs: RunService, body: BacktestBody, noCache: boolean): Promise<BacktestAnswer> {
  checkDates(body.start_date, body.end_date)
  const spec = backtestSpec(body)
  const errors = validateStrategy(spec.strategy as StrategySpec)
  if (errors.length) return invalidBacktest(body, errors)
  try {
    // the body is built by runs/present.ts as the result schema's type; the response schema checks it on the way out
    return responseBody(await runs.run(spec, { noCache }))
  } catch (e) {
    if (e instanceof UnknownSymbols)
      throw new InvalidRequest(e.symbols.map(s => ({ loc: ['body', body.symbol ? 'symbol' : 'symbols'], msg: `unknown symbol '${s}' (see GET /coins)`, input: s })))
    throw e
  }
}
