import { t } from 'elysia'
import { EXIT_REASONS } from '../../engine/types'
import { TIMEFRAMES } from '../../market/timeframe'

const DatePattern = '^\\d{4}-\\d{2}-\\d{2}$'
const Tree = t.Object({}, { additionalProperties: true, 'x-component': 'ConditionNode', description: 'condition tree: {type: AND|OR|NOT, conditions: [...]} or a leaf {field, op, value}' })
const NullableNumber = t.Union([t.Number(), t.Null()])

export const DateOrNull = t.Union([t.String({ pattern: DatePattern, description: 'YYYY-MM-DD (UTC day, inclusive)' }), t.Null()], { default: null })
export const Timeframe = t.UnionEnum([...TIMEFRAMES], { default: '1H' })

export const BacktestRequest = t.Object({
  name: t.String({ maxLength: 100, default: 'Custom Strategy' }),
  direction: t.Optional(t.Union([t.Literal('short'), t.Literal('long')], { description: 'default short (direction_source tells which applied)' })),
  indicators: t.Record(t.String(), t.Record(t.String(), t.Number()), {
    default: { bb: {}, ema: {}, volume: {}, candle: {} },
    description: 'indicator id -> params (empty object = defaults)',
  }),
  entry: Tree,
  exit_conditions: t.Optional(t.Union([Tree, t.Null()])),
  avoid_hours: t.Array(t.Integer({ minimum: 0, maximum: 23 }), { default: [], maxItems: 24 }),
  avoid_months: t.Union([t.Array(t.Integer({ minimum: 1, maximum: 12 }), { maxItems: 12 }), t.Null()], { default: null }),
  min_vol_regime: t.Union([t.Number({ minimum: 0, maximum: 100 }), t.Null()], { default: null, description: 'minimum ATR ratio (ATR(14) over its 14-bar mean) at the signal bar' }),
  sl_pct: t.Number({ minimum: 0.5, maximum: 50, default: 10 }),
  tp_pct: t.Number({ minimum: 0.5, maximum: 100, default: 8 }),
  tp_source: t.UnionEnum(['custom_pct', 'trailing'], { default: 'custom_pct' }),
  trailing_pct: t.Union([t.Number({ minimum: 0.5, maximum: 50 }), t.Null()], { default: null }),
  max_bars: t.Integer({ minimum: 1, maximum: 168, default: 48 }),
  top_n: t.Union([t.Integer({ minimum: 1, maximum: 535 }), t.Null()], { default: null, description: 'null = top 50' }),
  symbols: t.Union([t.Array(t.String({ minLength: 1, maxLength: 30 }), { minItems: 1, maxItems: 1000 }), t.Null()], { default: null }),
  include_stablecoins: t.Boolean({ default: false }),
  symbol: t.Union([t.String({ minLength: 1, maxLength: 30 }), t.Null()], { default: null }),
  start_date: DateOrNull,
  end_date: DateOrNull,
  timeframe: Timeframe,
  per_coin_usd: t.Number({ minimum: 1, maximum: 1_000_000, default: 60 }),
  leverage: t.Integer({ minimum: 1, maximum: 125, default: 1 }),
  max_concurrent_positions: t.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  compounding: t.Boolean({ default: false }),
})

export const EquityPoint = t.Object({ t: t.String({ format: 'date' }), equity_usd: t.Number(), return_pct: t.Number(), drawdown_pct: t.Number() })

export const TradeItem = t.Object({
  symbol: t.String(),
  direction: t.String(),
  entry_time: t.String({ format: 'date-time' }),
  exit_time: t.String({ format: 'date-time' }),
  entry_price: t.Number(),
  exit_price: t.Number(),
  bars_held: t.Integer(),
  exit_reason: t.UnionEnum([...EXIT_REASONS]),
  pnl_pct: t.Number({ description: 'net, % of margin' }),
  pnl_usd: t.Number(),
  fee_pct: t.Number({ description: 'entry + exit fee, % of margin' }),
  funding_pct: t.Number({ description: 'funding paid (+) or received (−), % of margin' }),
  sl_tp_same_bar: t.Boolean(),
})

export const ReliabilityCheck = t.Object({
  axis_id: t.String(),
  verdict: t.UnionEnum(['pass', 'fail', 'not_evaluated']),
  value: NullableNumber,
  threshold: NullableNumber,
  message: t.Union([t.String(), t.Null()]),
})

export const PeriodStat = t.Object({ period: t.String(), trades: t.Integer(), win_rate: t.Number(), profit_factor: t.Number(), return_pct: t.Number() })

export const CoinResult = t.Object({
  symbol: t.String(),
  trades: t.Integer(),
  wins: t.Integer(),
  losses: t.Integer(),
  win_rate: t.Number(),
  profit_factor: t.Number(),
  total_return_pct: t.Number(),
  avg_pnl_pct: t.Number(),
  tp_count: t.Integer(),
  sl_count: t.Integer(),
  timeout_count: t.Integer(),
})

export const MetricCI = t.Object({ low: t.Number(), high: t.Number(), level: t.Number(), method: t.String(), resamples: t.Integer() })

export const DeflatedSharpeInfo = t.Object({
  dsr: t.Number(),
  sharpe_annualized: t.Number(),
  n_trials: t.Integer(),
  n_obs: t.Integer(),
  skew: t.Number(),
  kurtosis_raw: t.Number(),
  sensitivity: t.Record(t.String(), t.Number()),
  caveat: t.String(),
})

/** Every field of a backtest result; /simulate adds a few of its own. */
export const backtestFields = {
  name: t.String(),
  direction: t.String(),
  direction_source: t.Optional(t.UnionEnum(['request', 'default_short'])),
  executed: t.Boolean({ default: true }),
  is_valid: t.Boolean(),
  validation_errors: t.Array(t.String()),
  sl_pct: t.Number(),
  tp_pct: t.Number(),
  max_bars: t.Integer(),
  indicators_used: t.Array(t.String()),
  conditions_count: t.Integer(),
  total_trades: t.Integer(),
  wins: t.Integer(),
  losses: t.Integer(),
  win_rate: t.Number(),
  total_return_pct: t.Number({ description: 'sum of per-trade net % of margin' }),
  profit_factor: t.Number(),
  avg_win_pct: t.Number(),
  avg_loss_pct: t.Number(),
  max_drawdown_pct: t.Number(),
  max_consecutive_losses: t.Integer(),
  tp_count: t.Integer(),
  sl_count: t.Integer(),
  timeout_count: t.Integer(),
  coins_used: t.Integer(),
  data_range: t.String(),
  equity_curve: t.Array(EquityPoint),
  reliability_checks: t.Array(ReliabilityCheck),
  reliability_warning: t.Union([t.String(), t.Null()]),
  total_fees_pct: t.Number(),
  total_funding_pct: t.Number(),
  sharpe_ratio: t.Number(),
  sortino_ratio: t.Number(),
  calmar_ratio: t.Number(),
  initial_capital_usd: t.Number(),
  total_return_usd: t.Number(),
  total_return_pct_portfolio: t.Number(),
  max_drawdown_usd: t.Number(),
  expectancy: t.Number(),
  recovery_factor: t.Number(),
  payoff_ratio: t.Number(),
  btc_hold_return_pct: t.Number(),
  eth_hold_return_pct: t.Number(),
  var_95: t.Number(),
  cvar_95: t.Number(),
  avg_bars_held: t.Number(),
  median_bars_held: t.Number(),
  compounding: t.Boolean(),
  per_coin_usd: t.Number(),
  leverage: t.Number(),
  ruin_index: t.Union([t.Integer(), t.Null()]),
  top_n_requested: t.Union([t.Integer(), t.Null()]),
  eligible_universe: t.Union([t.Integer(), t.Null()]),
  universe_capped: t.Union([t.Boolean(), t.Null()]),
  coins_missing_data: t.Union([t.Integer(), t.Null()]),
  coin_results: t.Array(CoinResult),
  trades: t.Array(TradeItem),
  btc_hold_curve: t.Array(EquityPoint),
  eth_hold_curve: t.Array(EquityPoint),
  warnings: t.Array(t.String()),
  pnl_distribution: t.Array(t.Integer()),
  pnl_buckets: t.Array(t.String()),
  yearly_stats: t.Array(PeriodStat),
  monthly_stats: t.Array(PeriodStat),
  edge_p_value: NullableNumber,
  walk_forward_consistency: NullableNumber,
  deflated_sharpe: t.Union([DeflatedSharpeInfo, t.Null()]),
  dsr_haircut_pct: NullableNumber,
  mc_p_value: NullableNumber,
  mc_percentile: NullableNumber,
  jensens_alpha: NullableNumber,
  profit_factor_ci: t.Union([MetricCI, t.Null()]),
  sharpe_ci: t.Union([MetricCI, t.Null()]),
  regime_performance: t.Union([t.Record(t.String(), t.Unknown()), t.Null()]),
  strategy_grade: t.String(),
  grade_details: t.String(),
  walk_forward_details: t.String(),
  positions_skipped: t.Integer(),
  compute_time_ms: t.Integer(),
  result_hash: t.Union([t.String(), t.Null()], { description: 'sha256 of the normalised request and the data version; GET /export/csv?hash=' }),
}

export const BacktestResponse = t.Object(backtestFields, { additionalProperties: true })
