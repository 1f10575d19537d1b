import { t } from 'elysia'
import { CapacityInfo, CostBreakdown, DateOrNull, ExecutionRequestFields, executionFields, IntrabarInfo, resultFields, Timeframe, TradeItem, universeRequestFields } from '../../model/shared'
import { exitCountFields } from '../../runs/result-model'

const MarketType = t.UnionEnum(['futures', 'spot'], { default: 'futures' })
const FeeFrac = t.Union([t.Number({ minimum: 0, maximum: 0.01 }), t.Null()], {
  default: null,
  description: 'taker fee per side as a fraction (0.0005 = 0.05 %); null = the market type default (futures 0.0005, spot 0.001)',
})

export const SimulateRequest = t.Object({
  strategy: t.String({ minLength: 1, maxLength: 100, description: 'registry id (GET /strategies)' }),
  sl_pct: t.Optional(t.Number({ minimum: 0.5, maximum: 50, description: 'default: the strategy default' })),
  tp_pct: t.Optional(t.Number({ minimum: 0.5, maximum: 100, description: 'default: the strategy default' })),
  max_bars: t.Optional(t.Integer({ minimum: 1, maximum: 168, description: 'default: the strategy default' })),
  market_type: MarketType,
  top_n: t.Union([t.Integer({ minimum: 1, maximum: 535 }), t.Null()], { default: null, description: 'null = top 50' }),
  symbols: t.Optional(t.Union([t.Array(t.String({ minLength: 1, maxLength: 30 }), { minItems: 1, maxItems: 535 }), t.Null()], { description: 'explicit symbols instead of the top-N universe (top_n is then ignored); the btc ranking group publishes ["BTCUSDT"]' })),
  include_stablecoins: t.Boolean({ default: false }),
  ...universeRequestFields,
  timeframe: Timeframe,
  start_date: DateOrNull,
  end_date: DateOrNull,
  leverage: t.Integer({ minimum: 1, maximum: 125, default: 1 }),
  fee_pct: FeeFrac,
  per_coin_usd: t.Number({ minimum: 1, maximum: 1_000_000, default: 60 }),
  max_concurrent_positions: t.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  compounding: t.Boolean({ default: false }),
  stop_at_ruin: t.Boolean({ default: true, description: "true: once the portfolio's equity has reached zero no trade is opened (ruined_at says when); false: trades go on as if fresh capital were added" }),
  ...ExecutionRequestFields,
})

export const SimulateResponse = t.Object(
  { ...resultFields, strategy: t.String(), strategy_name: t.String(), status: t.String() },
  { additionalProperties: true },
)

export const CoinSimRequest = t.Object({
  symbol: t.String({ minLength: 1, maxLength: 30 }),
  fee_pct: FeeFrac,
  sl_pct: t.Number({ minimum: 1, maximum: 50, default: 10 }),
  tp_pct: t.Number({ minimum: 1, maximum: 50, default: 8 }),
  max_bars: t.Integer({ minimum: 1, maximum: 168, default: 48 }),
  direction: t.Optional(t.Union([t.Literal('short'), t.Literal('long')], { description: "default: the strategy's direction, else short" })),
  market_type: MarketType,
  start_date: DateOrNull,
  end_date: DateOrNull,
  timeframe: Timeframe,
  strategy: t.Union([t.String({ minLength: 1, maxLength: 100 }), t.Null()], { default: null, description: 'registry id; null = bb-squeeze-<direction>' }),
  leverage: t.Number({ minimum: 1, maximum: 125, default: 1 }),
  stop_at_ruin: t.Boolean({ default: true, description: "true: once the position's equity has reached zero no trade is opened; false: trades go on as if fresh capital were added" }),
  ...ExecutionRequestFields,
})

export const CoinSimResponse = t.Object(
  {
    symbol: t.String(),
    strategy: t.String(),
    direction: t.UnionEnum(['short', 'long']),
    market_type: t.UnionEnum(['futures', 'spot']),
    fee_pct: t.Number({ description: 'taker fee per side, fraction' }),
    leverage: t.Number(),
    total_trades: t.Integer(),
    win_rate: t.Number(),
    profit_factor: t.Number(),
    total_return_pct: t.Number(),
    max_drawdown_pct: t.Number({ minimum: 0, maximum: 100 }),
    ...exitCountFields,
    stop_at_ruin: t.Boolean(),
    ruined_at: t.Union([t.String({ format: 'date-time' }), t.Null()], { description: 'the instant the equity reached zero; null when it never did' }),
    sharpe_ratio: t.Number({ default: 0 }),
    sortino_ratio: t.Number({ default: 0 }),
    calmar_ratio: t.Number({ default: 0 }),
    total_fees_pct: t.Number(),
    total_funding_pct: t.Number(),
    funding_coverage_pct: t.Union([t.Number(), t.Null()]),
    data_range: t.String(),
    trades: t.Array(t.Composite([TradeItem, t.Object({ result: t.UnionEnum(['tp', 'sl', 'timeout']) })])),
    // the run's execution settings, where its edge went and how it scales with size, as /simulate answers them
    ...executionFields,
    result_hash: t.String(),
    compute_time_ms: t.Integer(),
  },
  { additionalProperties: true },
)

export const CompareRequest = t.Object({
  sl_pct: t.Number({ minimum: 1, maximum: 50, default: 10 }),
  tp_pct: t.Number({ minimum: 1, maximum: 50, default: 8 }),
  max_bars: t.Integer({ minimum: 1, maximum: 168, default: 48 }),
  top_n: t.Union([t.Integer({ minimum: 1, maximum: 535 }), t.Null()], { default: null, description: 'null = 5; 6 to 535 answers 400 (use /simulate)' }),
  ...universeRequestFields,
  // every strategy's run takes the execution settings, as /simulate's does
  ...ExecutionRequestFields,
})

export const CompareResponse = t.Object(
  {
    sl_pct: t.Number(),
    tp_pct: t.Number(),
    max_bars: t.Integer(),
    coins_used: t.Integer(),
    data_range: t.String(),
    top_n_requested: t.Union([t.Integer(), t.Null()]),
    eligible_universe: t.Union([t.Integer(), t.Null()]),
    universe_capped: t.Union([t.Boolean(), t.Null()]),
    universe_mode: t.Union([t.Literal('point_in_time'), t.Literal('current')], { description: "compare has no start_date: 'current' unless universe 'point_in_time' is sent (its sets then start on the first ranked day)" }),
    rebalance: t.Union([t.Literal('monthly'), t.Literal('weekly'), t.Literal('none'), t.Null()]),
    run_cap: t.Union([t.Integer(), t.Null()]),
    run_cap_reason: t.Union([t.UnionEnum(['indicator_cache', 'compare_max_coins']), t.Null()]),
    coins_not_computed: t.Array(t.String()),
    strategies: t.Array(
      t.Object(
        {
          strategy_id: t.String(),
          name: t.String(),
          win_rate: t.Number(),
          profit_factor: t.Number(),
          total_trades: t.Integer(),
          max_drawdown_pct: t.Optional(t.Number({ minimum: 0, maximum: 100 })),
          ruined_at: t.Optional(t.Union([t.String({ format: 'date-time' }), t.Null()])),
          // the strategy's run as /simulate answers these blocks for it (built by the same code: runs/intrabar-summary.ts, runs/execution-report.ts)
          intrabar: IntrabarInfo,
          costs: CostBreakdown,
          capacity: CapacityInfo,
        },
        { additionalProperties: true },
      ),
    ),
  },
  { additionalProperties: true },
)

export const CompareTooMany = t.Object({
  detail: t.Object({ error: t.String(), max_top_n: t.Integer(), requested: t.Integer(), alternative: t.String() }),
})

