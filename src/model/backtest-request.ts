/**
 * The body of POST /backtest: a custom condition tree with every setting of a run. In the
 * shared model because two areas take it: /backtest itself (src/modules/backtest/model.ts
 * re-exports it) and the research sweeps and walk-forward runs, whose `base` is this body
 * (src/modules/sweeps/model.ts), so a setting added here reaches them too.
 */
import { t } from 'elysia'
import { DateOrNull, ExecutionRequestFields, Timeframe, universeRequestFields } from './shared'

export const Tree = t.Object({}, { additionalProperties: true, 'x-component': 'ConditionNode', description: 'condition tree: {type: AND|OR|NOT, conditions: [...]} or a leaf {field, op, value}' })

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
  ...universeRequestFields,
  symbol: t.Union([t.String({ minLength: 1, maxLength: 30 }), t.Null()], { default: null }),
  start_date: DateOrNull,
  end_date: DateOrNull,
  timeframe: Timeframe,
  per_coin_usd: t.Number({ minimum: 1, maximum: 1_000_000, default: 60 }),
  leverage: t.Integer({ minimum: 1, maximum: 125, default: 1 }),
  max_concurrent_positions: t.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  compounding: t.Boolean({ default: false }),
  stop_at_ruin: t.Boolean({ default: true, description: "true: once the portfolio's equity has reached zero no trade is opened (ruined_at says when); false: trades go on as if fresh capital were added" }),
  ...ExecutionRequestFields,
})

