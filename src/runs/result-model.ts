/**
 * The schema of a run's result body: what /backtest and /simulate answer (and what the
 * run pipeline builds in present.ts). It lives here, below the modules, so the body is
 * built as this schema's static type (no cast on the way out) and each module's model
 * re-uses it. Plain TypeBox: the run pipeline does not import Elysia.
 */
import { Type, type Static } from '@sinclair/typebox'
import { EXIT_REASONS } from '../engine/types'

/** One of the given strings (a union of literals, typed as the union of the strings). */
const OneOf = <const T extends readonly [string, ...string[]]>(values: T) => Type.Unsafe<T[number]>(Type.Union(values.map(v => Type.Literal(v))))
const NullableNumber = Type.Union([Type.Number(), Type.Null()])
const NullableInteger = Type.Union([Type.Integer(), Type.Null()])

/** A run's `execution`, `costs` and `capacity` (built by execution-report.ts; docs/api.md "Execution"). */
export const ExecutionInfo = Type.Object({
  slippage: Type.Union([Type.Literal('impact'), Type.Literal('none')]),
  impact_k: Type.Number(),
  tp_order: Type.Union([Type.Literal('market'), Type.Literal('limit')]),
  maker_fee_pct: Type.Number({ description: 'maker fee per side on notional, percent (a limit take profit)' }),
  liquidation_fee_pct: Type.Number({ description: "fee on a liquidated position's notional, percent (margin 'brackets')" }),
  margin: Type.Union([Type.Literal('brackets'), Type.Literal('flat')]),
  position_notional_usd: Type.Number({ description: 'the notional every trade was priced at for slippage and its bracket: per_coin_usd (with compounding: initial capital / max_concurrent_positions) × leverage' }),
  liquidation_price_source: Type.Union([Type.Literal('last'), Type.Literal('mark'), Type.Literal('mixed')], {
    description: "the candles liquidation is tested on: 'mark' where every coin of the run has mark-price candles in the store, 'last' where none has (or on spot), 'mixed' otherwise (coins_mark_price names the coins on the mark)",
  }),
  coins_mark_price: Type.Array(Type.String(), { description: "coins whose liquidation was tested on the mark price's candles (the rest on the last price's)" }),
  coins_with_brackets: Type.Integer(),
  coins_flat_margin: Type.Array(Type.String(), { description: "coins priced at the flat 0.5 % maintenance rate: no brackets in the store (all coins when margin is 'flat' or on spot)" }),
  fills_without_estimate: Type.Integer({ description: 'market fills with fewer than 5 days of candles before them: no slippage charged' }),
})

export const CostBreakdown = Type.Object({
  traded_notional_usd: Type.Number({ description: 'Σ over the trades taken of entry notional + exit notional' }),
  fees_usd: Type.Number(),
  funding_usd: Type.Number({ description: 'positive = paid' }),
  slippage_usd: Type.Number(),
  fees_pct: Type.Number({ description: '% of traded_notional_usd' }),
  funding_pct: Type.Number({ description: '% of traded_notional_usd' }),
  slippage_pct: Type.Number({ description: '% of traded_notional_usd' }),
})

export const CapacityInfo = Type.Object({
  curve: Type.Array(
    Type.Object({
      multiple: Type.Number(),
      per_coin_usd: Type.Number(),
      total_return_pct: Type.Number(),
      profit_factor: Type.Number(),
      liquidations: Type.Integer(),
      leverage_allowed: Type.Boolean({ description: "false: at this size some coin's bracket does not allow the run's leverage (Binance would refuse the position)" }),
    }),
  ),
  size_at_half_edge_usd: NullableNumber,
})

/** a run's `execution`, `costs` and `capacity`: /simulate/coin and validate carry them beside their own fields, compare per strategy (its `costs` and `capacity`) */
export const executionFields = {
  execution: Type.Optional(Type.Union([ExecutionInfo, Type.Null()], { description: 'null for a run stored before execution settings existed' })),
  costs: Type.Optional(CostBreakdown),
  capacity: Type.Optional(Type.Union([CapacityInfo, Type.Null()])),
}

export type ExecutionBlock = Static<typeof ExecutionInfo>
export type CostsBlock = Static<typeof CostBreakdown>
export type CapacityBlock = Static<typeof CapacityInfo>

export const EquityPoint = Type.Object({
  t: Type.String({ format: 'date' }),
  equity_usd: Type.Number(),
  return_pct: Type.Number(),
  drawdown_pct: Type.Number({ minimum: 0, maximum: 100, description: 'fall from the running peak, % of that peak (equity below zero counts as zero)' }),
})

export const TradeItem = Type.Object({
  symbol: Type.String(),
  direction: Type.String(),
  entry_time: Type.String({ format: 'date-time' }),
  exit_time: Type.String({ format: 'date-time' }),
  entry_price: Type.Number(),
  exit_price: Type.Number(),
  bars_held: Type.Integer(),
  exit_reason: OneOf(EXIT_REASONS),
  pnl_pct: Type.Number({ description: 'net, % of margin' }),
  pnl_usd: Type.Number(),
  fee_pct: Type.Number({ description: 'entry + exit fee, % of margin' }),
  funding_pct: Type.Number({ description: 'funding paid (+) or received (−), % of margin' }),
  sl_tp_same_bar: Type.Boolean(),
  exit_resolution: Type.Unsafe<'detail' | 'bar'>(Type.Union([Type.Literal('detail'), Type.Literal('bar')], { description: "'detail': the exit was found by replaying its bar minute by minute; 'bar': by the bar rule" })),
  slippage_pct: Type.Optional(Type.Number({ description: 'slippage of both fills, % of margin (docs/metrics.md §1)' })),
})

/** A run's total_return_pct, win_rate and profit_factor under one way of resolving bars. */
export const RuleFigures = Type.Object({ total_return_pct: Type.Number(), win_rate: Type.Number(), profit_factor: Type.Number() })

/** How the run resolved exits inside bars (docs/metrics.md §1 "Minute detail", docs/api.md). */
export const IntrabarInfo = Type.Object(
  {
    mode: OneOf(['detail', 'bar', 'detail_required']),
    detail_timeframe: Type.Union([Type.Literal('1m'), Type.Null()], { description: "the detail's timeframe; null with mode 'bar'" }),
    bars_replayed: Type.Integer({ description: 'bars replayed minute by minute: the ones whose outcome depends on the path inside them' }),
    bars_left_to_rule: Type.Integer({ description: 'bars that needed detail but had no minutes (the bar rule decided them)' }),
    trades_changed: Type.Integer({ description: "trades of the run whose exit (reason, price or time) differs from the bar rule's" }),
    coins_without_detail: Type.Integer({ description: 'coins of the run with no minute detail at all' }),
    rule_bias: Type.Union(
      [Type.Object({ bar: RuleFigures, detail: RuleFigures }), Type.Null()],
      { description: "the same run under the bar rule beside the detail's figures: how much the usual guess flatters or hurts this strategy; null with mode 'bar'" },
    ),
  },
  { description: 'how exits inside a bar were found' },
)

export const ReliabilityCheck = Type.Object({
  axis_id: Type.String(),
  verdict: OneOf(['pass', 'fail', 'not_evaluated']),
  value: NullableNumber,
  threshold: NullableNumber,
  message: Type.Union([Type.String(), Type.Null()]),
})

export const PeriodStat = Type.Object({ period: Type.String(), trades: Type.Integer(), win_rate: Type.Number(), profit_factor: Type.Number(), return_pct: Type.Number() })

/**
 * Trades by the reason they closed: one count per exit reason, so they add up to the
 * trades (docs/metrics.md §3, "Exit counts").
 */
export const exitCountFields = {
  tp_count: Type.Integer({ description: 'exits at the take profit' }),
  sl_count: Type.Integer({ description: 'exits at the hard stop' }),
  timeout_count: Type.Integer({ description: 'exits after max_bars' }),
  trailing_count: Type.Integer({ description: 'exits at the trailing stop' }),
  signal_count: Type.Integer({ description: 'exits by exit_conditions' }),
  liquidation_count: Type.Integer({ description: 'liquidations' }),
  end_of_data_count: Type.Integer({ description: 'trades closed at the last bar of the window' }),
  delisted_count: Type.Integer({ description: "trades closed at a delisted coin's last candle (its market closed while they were open)" }),
}

/** A point-in-time run against today's universe (docs/api.md "Universe"). */
export const SurvivorshipBlock = Type.Object({
  coins_today_not_then: Type.Array(Type.String(), { description: "coins of today's top N that were in no set of the window" }),
  coins_then_not_today: Type.Array(Type.String(), { description: "coins of the window's sets that are not in today's top N" }),
  delisted_in_window: Type.Array(Type.String(), { description: "coins of the window's sets whose market closed inside the window" }),
  current_universe_result: Type.Object(
    { total_return_pct: Type.Number(), win_rate: Type.Number(), profit_factor: Type.Number(), total_trades: Type.Integer() },
    { description: "the same run on today's top N" },
  ),
})

export const CoinResult = Type.Object({
  symbol: Type.String(),
  trades: Type.Integer(),
  wins: Type.Integer(),
  losses: Type.Integer(),
  win_rate: Type.Number(),
  profit_factor: Type.Number(),
  total_return_pct: Type.Number(),
  avg_pnl_pct: Type.Number(),
  ...exitCountFields,
})

export const MetricCI = Type.Object({ low: Type.Number(), high: Type.Number(), level: Type.Number(), method: Type.String(), resamples: Type.Integer() })

export const DeflatedSharpeInfo = Type.Object({
  dsr: Type.Number(),
  sharpe_annualized: Type.Number(),
  n_trials: Type.Integer(),
  n_obs: Type.Integer(),
  skew: Type.Number(),
  kurtosis_raw: Type.Number(),
  sensitivity: Type.Record(Type.String(), Type.Number()),
  caveat: Type.String(),
})

const RegimeStats = Type.Object({ trades: Type.Integer(), win_rate: Type.Number(), profit_factor: Type.Number(), total_return_pct: Type.Number() })

/** The run's trades split by the BTC regime at entry (engine/statistics-regime.ts). */
export const RegimePerformance = Type.Object({
  btc_up: RegimeStats,
  btc_down: RegimeStats,
  high_vol: RegimeStats,
  low_vol: RegimeStats,
  up_high_vol: RegimeStats,
  up_low_vol: RegimeStats,
  down_high_vol: RegimeStats,
  down_low_vol: RegimeStats,
  unlabelled_trades: Type.Integer(),
  definition: Type.String(),
})

/** The statistical fields of a run (runs/statistics.ts), null or empty until computed. */
export const statisticsFieldsSchema = {
  edge_p_value: NullableNumber,
  walk_forward_consistency: NullableNumber,
  walk_forward_details: Type.String(),
  deflated_sharpe: Type.Union([Type.Number(), Type.Null()], { description: 'the deflated Sharpe ratio (DSR); the whole computation is deflated_sharpe_info' }),
  deflated_sharpe_info: Type.Union([DeflatedSharpeInfo, Type.Null()]),
  dsr_haircut_pct: NullableNumber,
  mc_p_value: NullableNumber,
  mc_percentile: NullableNumber,
  jensens_alpha: NullableNumber,
  profit_factor_ci: Type.Union([MetricCI, Type.Null()]),
  sharpe_ci: Type.Union([MetricCI, Type.Null()]),
  regime_performance: Type.Union([RegimePerformance, Type.Null()]),
  strategy_grade: Type.String(),
  grade_details: Type.String(),
}

/** Every field of a run's result body; /simulate adds a few of its own. */
export const resultFields = {
  name: Type.String(),
  direction: Type.String(),
  direction_source: Type.Optional(OneOf(['request', 'default_short'])),
  executed: Type.Boolean({ default: true }),
  is_valid: Type.Boolean(),
  validation_errors: Type.Array(Type.String()),
  sl_pct: Type.Number(),
  tp_pct: Type.Number(),
  tp_source: Type.Optional(OneOf(['custom_pct', 'trailing'])),
  trailing_pct: Type.Optional(NullableNumber),
  max_bars: Type.Integer(),
  timeframe: Type.Optional(Type.String()),
  market_type: Type.Optional(OneOf(['futures', 'spot'])),
  fee_pct: Type.Optional(Type.Number({ description: 'taker fee per side, fraction' })),
  indicators_used: Type.Array(Type.String()),
  conditions_count: Type.Integer(),
  total_trades: Type.Integer(),
  wins: Type.Integer(),
  losses: Type.Integer(),
  win_rate: Type.Number(),
  total_return_pct: Type.Number({ description: 'sum of per-trade net % of margin' }),
  profit_factor: Type.Number(),
  profit_factor_capped: Type.Optional(Type.Boolean()),
  avg_win_pct: Type.Number(),
  avg_loss_pct: Type.Number(),
  max_drawdown_pct: Type.Number({ minimum: 0, maximum: 100, description: "largest fall of the portfolio's daily equity from its peak, % of that peak" }),
  max_consecutive_losses: Type.Integer(),
  ...exitCountFields,
  coins_used: Type.Integer(),
  data_range: Type.String(),
  equity_curve: Type.Array(EquityPoint),
  reliability_checks: Type.Array(ReliabilityCheck),
  reliability_warning: Type.Union([Type.String(), Type.Null()]),
  total_fees_pct: Type.Number(),
  total_funding_pct: Type.Number(),
  funding_events: Type.Optional(Type.Integer()),
  funding_events_real: Type.Optional(Type.Integer()),
  funding_coverage_pct: Type.Optional(NullableNumber),
  sharpe_ratio: Type.Number(),
  sortino_ratio: Type.Number(),
  calmar_ratio: Type.Number(),
  annualized_return_pct: Type.Optional(Type.Number()),
  initial_capital_usd: Type.Number(),
  total_return_usd: Type.Number(),
  total_return_pct_portfolio: Type.Number(),
  max_drawdown_usd: Type.Number(),
  expectancy: Type.Number(),
  recovery_factor: Type.Number(),
  payoff_ratio: Type.Number(),
  btc_hold_return_pct: Type.Number(),
  eth_hold_return_pct: Type.Number(),
  var_95: Type.Number(),
  cvar_95: Type.Number(),
  avg_bars_held: Type.Number(),
  median_bars_held: Type.Number(),
  compounding: Type.Boolean(),
  per_coin_usd: Type.Number(),
  leverage: Type.Number(),
  max_concurrent_positions: Type.Optional(Type.Integer()),
  stop_at_ruin: Type.Boolean({ description: 'true: no trade is opened once the equity has reached zero' }),
  ruined_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: "the instant the portfolio's equity reached zero (ruin); null when it never did" }),
  ruin_index: NullableInteger,
  top_n_requested: NullableInteger,
  eligible_universe: NullableInteger,
  universe_capped: Type.Union([Type.Boolean(), Type.Null()]),
  coins_missing_data: NullableInteger,
  universe_mode: Type.Union([Type.Literal('point_in_time'), Type.Literal('current'), Type.Null()], {
    description: "the universe the run used: 'point_in_time' (the top N as known at the window's start and each rebalance) or 'current' (today's top N); null for explicit symbols",
  }),
  rebalance: Type.Union([Type.Literal('monthly'), Type.Literal('weekly'), Type.Literal('none'), Type.Null()], { description: 'when the point-in-time set was re-formed; null for a current universe' }),
  survivorship: Type.Union([SurvivorshipBlock, Type.Null()], { description: "a point-in-time run's survivorship bias against today's universe; null otherwise" }),
  condition_data_absent_bars: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'bars of the run (summed over its coins, inside the date window) where data a condition reads was absent (another coin, a higher timeframe, funding, basis, open interest), so those leaves were false there (docs/conditions.md); 0 when none',
    }),
  ),
  coin_results: Type.Array(CoinResult),
  trades: Type.Array(TradeItem),
  btc_hold_curve: Type.Array(EquityPoint),
  eth_hold_curve: Type.Array(EquityPoint),
  warnings: Type.Array(Type.String()),
  intrabar: Type.Optional(IntrabarInfo),
  pnl_distribution: Type.Array(Type.Integer()),
  pnl_buckets: Type.Array(Type.String()),
  yearly_stats: Type.Array(PeriodStat),
  monthly_stats: Type.Array(PeriodStat),
  ...statisticsFieldsSchema,
  positions_skipped: Type.Integer(),
  ...executionFields,
  compute_time_ms: Type.Integer(),
  result_hash: Type.Union([Type.String(), Type.Null()], { description: 'sha256 of the normalised request and the data version; GET /export/csv?hash=' }),
}

export const RunResultBody = Type.Object(resultFields, { additionalProperties: true })

/** A run's result body as /backtest and /simulate answer it. */
export type RunResultBody = Static<typeof RunResultBody>

/** A run's `intrabar` block. */
export type IntrabarBlock = Static<typeof IntrabarInfo>
