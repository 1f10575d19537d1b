/**
 * Schemas of the bot routes (docs/bots.md): POST /simulate/dca, POST /simulate/grid
 * (the contract's BotSimRequest, with `params` per bot kind) and POST /generate-bot.
 * Unknown keys inside `params` are refused (422 naming the key).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { t } from 'elysia'
import { TIMEFRAMES } from '../../market/timeframe'

const IsoInstant = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?(Z|[+-]\\d{2}:?\\d{2})?)?$'
const WindowBound = (which: string) =>
  t.Union([t.String({ pattern: IsoInstant, description: `ISO 8601 date or date-time (UTC unless it names an offset), inclusive; ${which}` }), t.Null()], { default: null })

const common = {
  symbol: t.String({ minLength: 5, maxLength: 16, description: '<BASE>USDT' }),
  start: WindowBound('null = from the first stored candle'),
  end: WindowBound('a bare date includes its whole UTC day; null = to the last stored candle'),
  taker_fee_pct: t.Union([t.Number({ minimum: 0, maximum: 1 }), t.Null()], { default: null, description: 'percent per fill on notional; null = 0.05' }),
}

// The `params` of each bot kind: plain TypeBox (strict integers, no string coercion),
// applied by the service with its defaults so that every key's range, default and the
// refusal of unknown keys are checked in one place (Elysia does not apply defaults inside
// a nested object the client sent).
const Num = (minimum: number, maximum: number, def: number | undefined, description?: string) =>
  Type.Number({ minimum, maximum, ...(def === undefined ? {} : { default: def }), ...(description ? { description } : {}) })
const Int = (minimum: number, maximum: number, def: number, description?: string) => Type.Integer({ minimum, maximum, default: def, ...(description ? { description } : {}) })
// 1e-9: below any traded price, and it keeps a geometric grid's upper/lower ratio finite
const Positive = (description: string) => Type.Number({ minimum: 1e-9, maximum: 1e9, description })
const OrNull = <T extends TSchema>(s: T, description: string) => Type.Union([s, Type.Null()], { default: null, description })

export const DcaParams = Type.Object(
  {
    direction: Type.Union([Type.Literal('long'), Type.Literal('short')], { default: 'long' }),
    base_order_usdt: Num(1, 1_000_000, 100, 'margin of the base order, USDT; notional = margin × leverage'),
    safety_order_usdt: Num(1, 1_000_000, 100, 'margin of the first safety order, USDT'),
    max_safety_orders: Int(0, 50, 5),
    price_deviation_pct: Num(0.1, 50, 1, "first safety order's distance from the deal's base price, %"),
    safety_step_scale: Num(0.1, 10, 1, 'each next step = previous step × scale'),
    safety_volume_scale: Num(0.1, 10, 1, 'each next safety order = previous × scale'),
    take_profit_pct: Num(0.1, 100, 1.5, 'from the average entry, %'),
    stop_loss_pct: OrNull(Num(0.1, 99, undefined), 'from the average entry, %; null = none'),
    leverage: Int(1, 125, 1),
    cooldown_bars: Int(0, 720, 0, '1H bars between the bar a deal closed in and the next deal'),
  },
  { additionalProperties: false },
)

export const GridParams = Type.Object(
  {
    lower_price: Positive('lowest grid line (required)'),
    upper_price: Positive('highest grid line, above lower_price (required)'),
    grid_count: Int(2, 200, 20, 'number of intervals: grid_count + 1 lines'),
    spacing: Type.Union([Type.Literal('arithmetic'), Type.Literal('geometric')], { default: 'arithmetic' }),
    investment_usdt: Num(10, 10_000_000, 1000, 'isolated margin of the grid, USDT'),
    leverage: Int(1, 20, 1),
    direction: Type.Union([Type.Literal('long'), Type.Literal('short'), Type.Literal('neutral')], { default: 'neutral' }),
    stop_loss_price: OrNull(Positive('price'), 'close everything when the price reaches it from the start side; null = none'),
    take_profit_price: OrNull(Positive('price'), 'close everything when the price reaches it from the start side; null = none'),
  },
  { additionalProperties: false },
)
export type DcaParams = Static<typeof DcaParams>
export type GridParams = Static<typeof GridParams>

// /openapi.json shows each kind's own params schema in place of the open record (`x-documented-as`, src/http/openapi.ts)
const ParamsObject = (what: string, params: TSchema) =>
  t.Record(t.String(), t.Unknown(), { description: `${what}; keys, ranges and defaults in docs/bots.md`, 'x-documented-as': params })

export const DcaSimRequest = t.Object({ ...common, params: t.Optional(ParamsObject('DCA bot settings (3Commas terms)', DcaParams)) })
export const GridSimRequest = t.Object({ ...common, params: ParamsObject('grid bot settings (Binance futures grid terms)', GridParams) })
export type DcaSimRequest = typeof DcaSimRequest.static
export type GridSimRequest = typeof GridSimRequest.static

const EquityPoint = t.Object({ t: t.String({ format: 'date', description: 'UTC day; equity at its last bar close' }), equity_usdt: t.Number() })
const Warnings = t.Array(t.String())
const windowFields = {
  symbol: t.String(),
  taker_fee_pct: t.Number(),
  maintenance_margin_pct: t.Number(),
  candles: t.Integer({ description: '1H candles in the window' }),
  data_range: t.String({ description: "first candle's open to last candle's close, ISO 8601 UTC" }),
  funding_events: t.Integer({ description: 'funding events charged on an open position' }),
  funding_coverage: t.Union([t.Number(), t.Null()], { description: 'share of those events from the real series; null when none' }),
  max_drawdown_pct: t.Number(),
  max_drawdown_usdt: t.Number(),
  equity_curve: t.Array(EquityPoint),
  warnings: Warnings,
}

export const DcaDeal = t.Object({
  open_time: t.String({ format: 'date-time' }),
  close_time: t.String({ format: 'date-time' }),
  exit_reason: t.UnionEnum(['take_profit', 'stop_loss', 'liquidation', 'end']),
  safety_orders_filled: t.Integer(),
  base_price: t.Number(),
  avg_entry_price: t.Number(),
  exit_price: t.Number(),
  quantity: t.Number(),
  margin_usdt: t.Number(),
  notional_usdt: t.Number(),
  fees_usdt: t.Number(),
  funding_usdt: t.Number({ description: 'paid (+) or received (−)' }),
  net_pnl_usdt: t.Number(),
  net_pnl_pct: t.Number({ description: '% of the deal margin' }),
})

export const DcaSimResponse = t.Object({
  ...windowFields,
  params: DcaParams,
  ladder: t.Array(t.Object({ k: t.Integer(), deviation_pct: t.Number(), margin_usdt: t.Number(), reachable: t.Boolean() })),
  deals: t.Array(DcaDeal),
  deals_closed: t.Integer({ description: 'deals ended by take profit, stop loss or liquidation' }),
  take_profit_count: t.Integer(),
  stop_loss_count: t.Integer(),
  liquidation_count: t.Integer(),
  open_deal_at_end: t.Boolean({ description: 'a deal was still open at the last close (marked there, exit_reason end)' }),
  net_profit_usdt: t.Number({ description: 'closed deals' }),
  unrealized_pnl_usdt: t.Number({ description: 'the deal open at the end, marked at the last close net of a closing fee' }),
  total_pnl_usdt: t.Number(),
  max_capital_required_usdt: t.Number({ description: 'base order + every reachable safety order (margin)' }),
  roi_pct: t.Number({ description: 'total_pnl / max_capital_required × 100' }),
  max_safety_orders_used: t.Integer(),
  max_floating_loss_usdt: t.Number(),
  avg_deal_hours: t.Union([t.Number(), t.Null()]),
  fees_usdt: t.Number(),
  funding_usdt: t.Number(),
})

export const GridSimResponse = t.Object({
  ...windowFields,
  params: GridParams,
  accuracy: t.Literal('approx'),
  accuracy_note: t.String(),
  levels: t.Array(t.Number()),
  qty_per_order: t.Number(),
  start_price: t.Number(),
  grid_profit_usdt: t.Number({ description: 'matched round trips, net of both fees' }),
  floating_pnl_usdt: t.Number({ description: 'lots open at the last close, marked there, net of their entry fees' }),
  closeout_pnl_usdt: t.Number({ description: 'lots closed by stop loss, take profit or liquidation' }),
  total_pnl_usdt: t.Number(),
  total_return_pct: t.Number({ description: 'total_pnl / investment × 100' }),
  apr_pct: t.Number({ description: 'total_return_pct × 365 / days run' }),
  round_trips: t.Integer(),
  fills: t.Integer(),
  buys: t.Integer(),
  sells: t.Integer(),
  fees_usdt: t.Number(),
  funding_usdt: t.Number(),
  exit_reason: t.UnionEnum(['take_profit', 'stop_loss', 'liquidation', 'end']),
  exit_time: t.String({ format: 'date-time' }),
  exit_price: t.Number(),
  final_position_qty: t.Number({ description: 'signed: + long, − short' }),
})

const Tree = t.Object({}, { additionalProperties: true, 'x-component': 'ConditionNode', description: 'condition tree, as in /backtest: {type: AND|OR|NOT, conditions: [...]} or a leaf {field, op, value}' })

export const GenerateBotRequest = t.Object({
  strategy: t.Optional(t.String({ minLength: 1, maxLength: 100, description: 'a registry strategy id (GET /strategies); or give indicators, entry and direction instead' })),
  name: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "the bot's name in its README and logs" })),
  direction: t.Optional(t.Union([t.Literal('long'), t.Literal('short')], { description: 'custom strategy: required; registry strategy: must match its own if given' })),
  indicators: t.Optional(t.Record(t.String(), t.Record(t.String(), t.Number()), { description: 'custom strategy: indicator id -> params' })),
  entry: t.Optional(Tree),
  exit_conditions: t.Optional(t.Union([Tree, t.Null()])),
  timeframe: t.UnionEnum([...TIMEFRAMES], { default: '1H' }),
  sl_pct: t.Union([t.Number({ minimum: 0.5, maximum: 50 }), t.Null()], { default: null, description: "null = the registry strategy's own, 10 for a custom one" }),
  tp_pct: t.Union([t.Number({ minimum: 0.5, maximum: 100 }), t.Null()], { default: null, description: "null = the registry strategy's own, 8 for a custom one" }),
  max_bars: t.Union([t.Integer({ minimum: 1, maximum: 168 }), t.Null()], { default: null, description: "null = the registry strategy's own, 48 for a custom one" }),
  leverage: t.Integer({ minimum: 1, maximum: 125, default: 1 }),
  position_size_usd: t.Number({ minimum: 1, maximum: 1_000_000, default: 100, description: 'margin per position, USDT' }),
  coins: t.Array(t.String({ pattern: '^[A-Z0-9]{1,24}USDT$' }), { minItems: 1, maxItems: 50, default: ['BTCUSDT'] }),
  avoid_hours: t.Array(t.Integer({ minimum: 0, maximum: 23 }), { maxItems: 24, default: [] }),
  exchange: t.String({ pattern: '^[a-z][a-z0-9]*$', maxLength: 40, default: 'binanceusdm', description: 'a ccxt exchange id' }),
  selftest_candles: t.Integer({ minimum: 100, maximum: 5000, default: 1000, description: 'latest candles per coin shipped in selftest/' }),
})
export type GenerateBotRequest = typeof GenerateBotRequest.static
