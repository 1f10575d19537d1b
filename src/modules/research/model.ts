import { t } from 'elysia'
import { DateOrNull, DeflatedSharpeInfo, ExecutionRequestFields, executionFields, Timeframe, universeRequestFields } from '../../model/shared'

const Tree = t.Object({}, { additionalProperties: true, 'x-component': 'ConditionNode', description: 'condition tree: {type: AND|OR|NOT, conditions: [...]} or a leaf {field, op, value}' })
const NullableNumber = t.Union([t.Number(), t.Null()])

/** The run a research request describes: a registry `strategy` as /simulate, or a custom `entry` tree as /backtest. */
const researchFields = {
  strategy: t.Optional(t.String({ minLength: 1, maxLength: 100, description: 'registry id (GET /strategies); give this or `entry`' })),
  name: t.Optional(t.String({ maxLength: 100, description: 'name of a custom tree; default Custom Strategy' })),
  direction: t.Optional(t.Union([t.Literal('short'), t.Literal('long')], { description: 'custom tree only; default short' })),
  indicators: t.Optional(t.Record(t.String(), t.Record(t.String(), t.Number()), { description: 'custom tree only: indicator id -> params' })),
  entry: t.Optional(Tree),
  exit_conditions: t.Optional(t.Union([Tree, t.Null()])),
  avoid_hours: t.Optional(t.Array(t.Integer({ minimum: 0, maximum: 23 }), { maxItems: 24 })),
  avoid_months: t.Optional(t.Union([t.Array(t.Integer({ minimum: 1, maximum: 12 }), { maxItems: 12 }), t.Null()])),
  min_vol_regime: t.Optional(t.Union([t.Number({ minimum: 0, maximum: 100 }), t.Null()])),
  sl_pct: t.Optional(t.Number({ minimum: 0.5, maximum: 50, description: 'default: the strategy default (custom tree: 10)' })),
  tp_pct: t.Optional(t.Number({ minimum: 0.5, maximum: 100, description: 'default: the strategy default (custom tree: 8)' })),
  tp_source: t.Optional(t.UnionEnum(['custom_pct', 'trailing'])),
  trailing_pct: t.Optional(t.Union([t.Number({ minimum: 0.5, maximum: 50 }), t.Null()])),
  max_bars: t.Optional(t.Integer({ minimum: 1, maximum: 168, description: 'default: the strategy default (custom tree: 48)' })),
  market_type: t.UnionEnum(['futures', 'spot'], { default: 'futures' }),
  fee_pct: t.Union([t.Number({ minimum: 0, maximum: 0.01 }), t.Null()], {
    default: null,
    description: 'taker fee per side as a fraction (0.0005 = 0.05 %); null = the market type default',
  }),
  top_n: t.Union([t.Integer({ minimum: 1, maximum: 535 }), t.Null()], { default: null, description: 'null = top 50; at most 50 coins are computed (run_cap)' }),
  include_stablecoins: t.Boolean({ default: false }),
  ...universeRequestFields,
  timeframe: Timeframe,
  start_date: DateOrNull,
  end_date: DateOrNull,
  leverage: t.Integer({ minimum: 1, maximum: 125, default: 1 }),
  per_coin_usd: t.Number({ minimum: 1, maximum: 1_000_000, default: 60 }),
  max_concurrent_positions: t.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  compounding: t.Boolean({ default: false }),
  stop_at_ruin: t.Boolean({ default: true, description: "true: once the portfolio's equity has reached zero no trade is opened; false: trades go on as if fresh capital were added" }),
  ...ExecutionRequestFields,
}

const universeFields = {
  coins_used: t.Integer(),
  data_range: t.String(),
  top_n_requested: t.Integer(),
  eligible_universe: t.Integer(),
  universe_capped: t.Boolean(),
  universe_mode: t.Union([t.Literal('point_in_time'), t.Literal('current')], { description: "the universe the run used (docs/api.md \"Universe\")" }),
  rebalance: t.Union([t.Literal('monthly'), t.Literal('weekly'), t.Literal('none'), t.Null()]),
  run_cap: t.Union([t.Integer(), t.Null()], { description: 'the per-request coin limit of the cached research paths, when it bound' }),
  run_cap_reason: t.Union([t.Literal('indicator_cache'), t.Null()]),
}

export const ValidateRequest = t.Object({
  ...researchFields,
  oos_pct: t.Number({ minimum: 10, maximum: 50, default: 30, description: 'share of the window (days, at the end) held out of sample, %' }),
  n_simulations: t.Integer({ minimum: 1, maximum: 10_000, default: 1000 }),
  seed: t.Union([t.Integer({ minimum: 0, maximum: 4294967295 }), t.Null()], { default: null, description: 'null = the first 32 bits of the run’s result_hash' }),
})

export const PartMetrics = t.Object({
  date_range: t.String(),
  days: t.Integer(),
  total_trades: t.Integer(),
  wins: t.Integer(),
  losses: t.Integer(),
  win_rate: t.Number(),
  profit_factor: t.Number(),
  total_return_pct: t.Number({ description: 'sum of per-trade net %' }),
  avg_trade_pct: t.Number({ description: 'mean net % per trade' }),
  total_return_pct_portfolio: t.Number(),
  max_drawdown_pct: t.Number({ minimum: 0, maximum: 100, description: "the part's portfolio: fall from its peak, % of that peak" }),
  ruined_at: t.Union([t.String({ format: 'date-time' }), t.Null()], { description: "when the part's equity reached zero (stop_at_ruin: nothing opened after it); null when it never did" }),
  sharpe_ratio: t.Number(),
  sortino_ratio: t.Number(),
  calmar_ratio: t.Number(),
})

const PercentileTable = t.Union([t.Record(t.String(), t.Number(), { description: 'p5, p25, p50, p75, p95' }), t.Null()])

export const OosReport = t.Object({
  split_date: t.Union([t.String({ format: 'date' }), t.Null()], { description: 'first out-of-sample day; trades entering before it are in sample' }),
  is_metrics: t.Union([PartMetrics, t.Null()]),
  oos_metrics: t.Union([PartMetrics, t.Null()]),
  degradation_ratio: t.Union([t.Number(), t.Null()], { description: 'out-of-sample avg_trade_pct / in-sample avg_trade_pct; null without an in-sample edge' }),
  verdict: t.UnionEnum(['robust', 'degraded', 'overfit', 'no_in_sample_edge', 'insufficient_data']),
  risk: t.UnionEnum(['low', 'medium', 'high', 'unknown']),
  message: t.String(),
  thresholds: t.Object({ min_trades_per_part: t.Integer(), robust_ratio: t.Number(), overfit_ratio: t.Number() }),
})

export const MonteCarloReport = t.Object(
  {
    method: t.Literal('trade_bootstrap'),
    description: t.String(),
    runs: t.Integer(),
    seed: t.Integer(),
    trades_per_run: t.Integer(),
    final_return_pct: PercentileTable,
    max_drawdown_pct: PercentileTable,
    probability_positive: NullableNumber,
    observed: t.Object({ final_return_pct: t.Number(), max_drawdown_pct: t.Number() }),
    equity_bands: t.Object(
      { steps: t.Array(t.Integer(), { description: 'trades taken' }), observed: t.Array(t.Number()) },
      { additionalProperties: true, description: 'p5, p25, p50, p75, p95: return % of the paths after each step; observed: the run in exit order' },
    ),
    random_entry: t.Object({
      method: t.Literal('random_entry'),
      description: t.String(),
      runs: t.Integer(),
      p_value: NullableNumber,
      percentile: NullableNumber,
      observed_total_return_pct: t.Number(),
      null_total_return_pct: PercentileTable,
    }),
  },
  { additionalProperties: true },
)

export const ValidateResponse = t.Object(
  {
    strategy: t.String({ description: 'registry id, or the custom tree’s name' }),
    strategy_name: t.String(),
    direction: t.String(),
    sl_pct: t.Number(),
    tp_pct: t.Number(),
    max_bars: t.Integer(),
    timeframe: t.String(),
    leverage: t.Number(),
    ...universeFields,
    total_trades: t.Integer(),
    oos_pct: t.Number(),
    oos: OosReport,
    monte_carlo: MonteCarloReport,
    // the whole-window run's execution settings, costs and capacity, as /simulate answers them
    ...executionFields,
    result_hash: t.String({ description: 'the whole-window run (GET /export/csv?hash=)' }),
    compute_time_ms: t.Integer(),
  },
  { additionalProperties: true },
)

export const OptimizeRequest = t.Object({
  ...researchFields,
  sl_values: t.Array(t.Number({ minimum: 0.5, maximum: 50 }), { minItems: 1, maxItems: 36, description: 'stop-loss candidates, %' }),
  tp_values: t.Array(t.Number({ minimum: 0.5, maximum: 100 }), {
    minItems: 1,
    maxItems: 36,
    description: 'take-profit candidates, % (the trail distance with tp_source trailing); at most 36 cells in all',
  }),
  objective: t.UnionEnum(['profit_factor', 'sharpe', 'total_return', 'calmar'], { default: 'sharpe' }),
})

export const OptimizeCell = t.Object({
  sl_pct: t.Number(),
  tp_pct: t.Number(),
  total_trades: t.Integer(),
  win_rate: t.Number(),
  profit_factor: t.Number(),
  total_return_pct: t.Number(),
  total_return_pct_portfolio: t.Number(),
  avg_trade_pct: t.Number(),
  max_drawdown_pct: t.Number({ minimum: 0, maximum: 100, description: "the cell's portfolio: fall from its peak, % of that peak" }),
  ruined_at: t.Union([t.String({ format: 'date-time' }), t.Null()], { description: "when the cell's equity reached zero (stop_at_ruin: nothing opened after it); null when it never did" }),
  sharpe_ratio: t.Number(),
  sortino_ratio: t.Number(),
  calmar_ratio: t.Number(),
  objective_value: t.Union([t.Number(), t.Null()], { description: 'null for a cell without trades' }),
})

export const OptimizeResponse = t.Object(
  {
    strategy: t.String(),
    strategy_name: t.String(),
    direction: t.String(),
    objective: t.String(),
    max_bars: t.Integer(),
    timeframe: t.String(),
    leverage: t.Number(),
    ...universeFields,
    n_cells: t.Integer(),
    sl_values: t.Array(t.Number()),
    tp_values: t.Array(t.Number()),
    grid: t.Array(t.Array(OptimizeCell), { description: 'rows = sl_values, columns = tp_values' }),
    heatmap: t.Object({ rows: t.Literal('sl_pct'), cols: t.Literal('tp_pct'), metric: t.String(), values: t.Array(t.Array(t.Union([t.Number(), t.Null()]))) }),
    best: t.Union([OptimizeCell, t.Null()]),
    deflated_sharpe: t.Union([t.Number(), t.Null()], { description: "the best cell's deflated Sharpe ratio (DSR), as on /backtest and /simulate" }),
    deflated_sharpe_info: t.Union([DeflatedSharpeInfo, t.Null()], { description: 'the computation behind deflated_sharpe, of the best cell: n_trials = the grid size' }),
    dsr_haircut_pct: NullableNumber,
    significant: t.Boolean({ description: 'deflated Sharpe of the best cell ≥ 0.95' }),
    warning: t.Union([t.String(), t.Null()]),
    compute_time_ms: t.Integer(),
  },
  { additionalProperties: true },
)

const Time = t.Optional(t.Union([t.String({ maxLength: 40 }), t.Number(), t.Null()], { description: 'ISO 8601 (UTC when no zone is given) or Unix seconds' }))

export const SessionTradeItem = t.Object({
  direction: t.UnionEnum(['long', 'short']),
  // bounded so that no figure can overflow: a ratio of at most 1e24, times leverage and 100
  entry_price: t.Number({ minimum: 1e-12, maximum: 1e12 }),
  exit_price: t.Number({ minimum: 1e-12, maximum: 1e12 }),
  entry_time: Time,
  exit_time: Time,
  size_usd: t.Optional(t.Union([t.Number({ exclusiveMinimum: 0, maximum: 1e12 }), t.Null()], { description: 'margin in USD; USD figures need it on every trade' })),
  leverage: t.Optional(t.Union([t.Number({ minimum: 1, maximum: 125 }), t.Null()], { description: 'default 1' })),
  fee_pct: t.Optional(
    t.Union([t.Number({ minimum: 0, maximum: 1 }), t.Null()], { description: 'taker fee in PERCENT of notional per side (0.05 = 0.05 %), unlike /simulate’s fraction; default 0' }),
  ),
})

export const ScoreSessionRequest = t.Object({ trades: t.Array(SessionTradeItem, { minItems: 1, maxItems: 1000 }) })

export const ScoreSessionResponse = t.Object(
  {
    trades: t.Integer(),
    wins: t.Integer(),
    losses: t.Integer(),
    win_rate: t.Number(),
    profit_factor: t.Number(),
    max_drawdown_pct: t.Number({ description: 'percentage points of the summed-return path' }),
    total_return_pct: t.Number({ description: 'sum of the trades’ net % of margin' }),
    avg_win_pct: t.Number(),
    avg_loss_pct: t.Number(),
    expectancy: t.Number(),
    total_pnl_usd: NullableNumber,
    max_drawdown_usd: NullableNumber,
    liquidations: t.Integer(),
    trade_pnl_pct: t.Array(t.Number()),
    stored: t.Boolean(),
  },
  { additionalProperties: true },
)
