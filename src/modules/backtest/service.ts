/**
 * POST /backtest: the request as a normalised RunSpec, run by the run service, and the
 * contract's "invalid strategy" answer (HTTP 200, executed false, placeholder zeros).
 */
import { backtestSpec } from '../../runs/backtest-spec'
import { asSpelled, InvalidRequest } from '../../runs/errors'
import { responseBody } from '../../runs/present'
import type { RunService } from '../../runs/service'
import { checkDates } from '../../runs/spec'
import { statisticsFields } from '../../runs/statistics'
import { conditionsCount, type StrategySpec } from '../../strategies/conditions'
import { lookAheadProblems, validateStrategy } from '../../strategies/validate'
import type { BacktestRequest, BacktestResponse } from './model'

export type BacktestBody = typeof BacktestRequest.static
type BacktestAnswer = typeof BacktestResponse.static

/** The figures an invalid strategy reports as 0 (nothing ran). */
const ZERO_FIELDS = ['total_trades', 'wins', 'losses', 'win_rate', 'total_return_pct', 'profit_factor', 'avg_win_pct', 'avg_loss_pct', 'max_drawdown_pct', 'max_consecutive_losses', 'tp_count', 'sl_count', 'timeout_count', 'trailing_count', 'signal_count', 'liquidation_count', 'end_of_data_count', 'delisted_count', 'coins_used', 'total_fees_pct', 'total_funding_pct', 'sharpe_ratio', 'sortino_ratio', 'calmar_ratio', 'initial_capital_usd', 'total_return_usd', 'total_return_pct_portfolio', 'max_drawdown_usd', 'expectancy', 'recovery_factor', 'payoff_ratio', 'btc_hold_return_pct', 'eth_hold_return_pct', 'var_95', 'cvar_95', 'avg_bars_held', 'median_bars_held', 'positions_skipped', 'compute_time_ms'] as const

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
    universe_mode: null,
    rebalance: null,
    survivorship: null,
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
  // parsing: a tree that would read later bars is refused (422), never run (docs/conditions.md)
  const lookAhead = [...lookAheadProblems(body.entry, ['body', 'entry']), ...lookAheadProblems(body.exit_conditions, ['body', 'exit_conditions'])]
  if (lookAhead.length) throw new InvalidRequest(lookAhead)
  checkDates(body.start_date, body.end_date)
  const spec = runs.withUniverse(backtestSpec(body), body)
  const errors = validateStrategy(spec.strategy as StrategySpec)
  if (errors.length) return invalidBacktest(body, errors)
  // an unknown symbol is the 404 of every route that takes one, named as the request spelled it
  const run = await runs.run(spec, { noCache }).catch(asSpelled(body.symbol ? [body.symbol] : (body.symbols ?? [])))
  // the body is built by runs/present.ts as the result schema's type; the response schema checks it on the way out
  return responseBody(run)
}
