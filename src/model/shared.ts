/**
 * The TypeBox pieces several areas' models share, below every module so that no module
 * imports another (docs/architecture.md): the envelope labels of the market-context
 * answers, the dates and timeframe of a run request, the body of a run (/backtest,
 * /simulate and the research answers), the condition tree and indicator schemas (/strategies
 * and /builder), and the `{detail}` answer. A schema used by one area stays in its model.ts.
 */
import { type TLiteral, Type } from '@sinclair/typebox'
import { t, type TSchema } from 'elysia'
import { TIMEFRAMES } from '../market/timeframe'
import { INTRABAR_MODES } from '../engine/types'
import type { ConditionNode } from '../strategies/conditions'

export const nullable = <T extends TSchema>(s: T) => t.Union([s, t.Null()])

/** Where a figure came from and how old it is (docs/market-context.md, "Labels"). */
export const SourceLabel = t.Object({
  source: nullable(t.String({ description: 'upstream name, "local" (candle store), "local-proxy", or null when nothing is available' })),
  as_of: nullable(t.String({ description: 'fetch time (upstream) or close time of the candle used (local), ISO 8601' })),
  age_seconds: nullable(t.Number()),
  stale: t.Boolean({ description: 'older than its refresh interval, or missing' }),
  proxy: t.Boolean({ description: 'a locally derived stand-in for an upstream index' }),
  error: nullable(t.String({ description: 'why the newest upstream attempt failed' })),
})

const DatePattern = '^\\d{4}-\\d{2}-\\d{2}$'

export const DateOrNull = t.Union([t.String({ pattern: DatePattern, description: 'YYYY-MM-DD (UTC day, inclusive)' }), t.Null()], { default: null })
export const Timeframe = t.UnionEnum([...TIMEFRAMES], { default: '1H' })

/**
 * The universe fields of every request that takes top_n (docs/api.md "Universe"; decided
 * by src/runs/universe-plan.ts withUniverse). Optional and without a default, so a body
 * sent or published without them reads as before.
 */
export const universeRequestFields = {
  universe: t.Optional(
    t.Union([t.Literal('point_in_time'), t.Literal('current'), t.Null()], {
      description:
        "'point_in_time': the top N as it was known at the window's start and at each rebalance, delisted coins included; 'current': today's top N. null or absent: point_in_time when start_date lies more than 30 days before the store's last candle, else current",
    }),
  ),
  rebalance: t.Optional(
    t.Union([t.Literal('monthly'), t.Literal('weekly'), t.Literal('none'), t.Null()], {
      description: "when a point_in_time set is re-formed: the first day of each month (default), each Monday, or never after the window's start; only with point_in_time",
    }),
  ),
}
/** A run request's `intrabar` (docs/metrics.md §1, "Minute detail"; docs/api.md). */
export const Intrabar = t.UnionEnum([...INTRABAR_MODES], {
  default: 'detail',
  description:
    "how exits inside a bar are found: 'detail' replays the bars whose outcome depends on the path inside them minute by minute where the coin has 1m detail (the bar rule elsewhere, with a warning); 'bar' the bar rule everywhere (docs/metrics.md rules 1–7); 'detail_required' refuses (422) coins without detail",
})

// The body of a run (/backtest, /simulate and the research answers) is the run pipeline's own
// schema (src/runs/result-model.ts), so present.ts builds it as that schema's static type;
// the models read it from here like the other shared pieces.
export { CapacityInfo, CoinResult, CostBreakdown, DeflatedSharpeInfo, EquityPoint, executionFields, IntrabarInfo, MetricCI, PeriodStat, ReliabilityCheck, resultFields, RunResultBody, TradeItem } from '../runs/result-model'

/** A string from a fixed list (t.UnionEnum would also publish its first value as a default). */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T, description?: string) =>
  t.Union(values.map(v => t.Literal(v)) as unknown as { -readonly [K in keyof T]: TLiteral<T[K]> }, description ? { description } : {})

/**
 * A condition tree as served, typed as the one definition's static type (src/strategies/
 * condition-schema.ts). The response check stays a plain object: Elysia's response normaliser
 * cannot follow a recursive schema; every served tree is checked against ConditionNodeSchema
 * by tests/openapi-document.test.ts, and /openapi.json shows that schema in its place
 * (`x-component`, src/http/openapi.ts).
 */
export const ConditionTree = t.Unsafe<ConditionNode>(
  t.Object({}, { additionalProperties: true, 'x-component': 'ConditionNode', description: 'condition tree node (docs/conditions.md)' }),
)

export const IndicatorParamsSchema = t.Record(t.String(), t.Record(t.String(), t.Number()), {
  description: 'indicator id to params (merged over the defaults)',
})

export const Direction = oneOf(['short', 'long'])

const FieldDetail = t.Object({
  name: t.String(),
  type: oneOf(['number', 'boolean']),
  description: t.String(),
})

const ParamDetail = t.Object({
  default: t.Number(),
  min: t.Number(),
  max: t.Number(),
  integer: t.Boolean(),
  description: t.String(),
})

export const IndicatorInfoFields = {
  name: t.String(),
  fields: t.Array(t.String(), { description: 'field names usable in conditions' }),
  default_params: t.Record(t.String(), t.Number()),
  field_info: t.Array(FieldDetail, { description: 'type (number or boolean) and meaning of each field' }),
  param_info: t.Record(t.String(), ParamDetail, { description: 'default and allowed range of each param' }),
}

// The error bodies of every route: services never name them (they throw the domain errors of
// src/runs/errors.ts); controllers name them in their `response` maps, src/http/errors.ts,
// rate-limit.ts and load-shedding.ts write them, and /openapi.json publishes them on every
// operation that can answer them (src/http/openapi.ts; tests/openapi-document.test.ts checks
// real answers against them). Their integers are TypeBox's plain `Type.Integer`: Elysia's
// `t.Integer` also accepts numeric strings, which is for reading requests, not for describing answers.
/** `{detail: "..."}`: a 404 (NotFound and its kinds: what was not found, and where to look), 401/403 for the admin key. */
export const Detail = t.Object({ detail: t.String({ description: 'what went wrong; for a 404, what was not found and where to look' }) }, { title: 'Detail' })

/** One entry of a 422: where (`loc`), which rule (`type`, `msg`) and the value as sent (`input`, bounded). */
export const ValidationErrorItem = t.Object(
  {
    type: t.String({ description: 'the rule broken: missing, int_type, range, enum, pattern, bool_parsing, dict_type, value_error, json_invalid, …' }),
    loc: t.Array(t.Union([t.String(), Type.Integer()]), { description: "where: body, query, path or header, then the field path, e.g. ['body', 'entry']" }),
    msg: t.String({ description: 'the rule in words, e.g. "Input should be an integer from 1 to 535"' }),
    input: t.Optional(t.Unknown({ description: 'the value as sent (long ones cut, large ones summarised)' })),
  },
  { title: 'ValidationErrorItem' },
)

/** The 422 body: every problem found, as FastAPI writes it. */
export const ValidationErrors = t.Object({ detail: t.Array(ValidationErrorItem, { minItems: 1 }) }, { title: 'ValidationErrors', description: 'one entry per field that broke a rule' })

/** 429 from the rate limit (src/http/rate-limit.ts), with Retry-After. */
export const RateLimited = t.Object({
  detail: t.String(),
  limit_per_minute: Type.Integer({ description: 'requests per minute per client for this kind of endpoint' }),
  retry_after_seconds: Type.Integer({ minimum: 1, description: 'the same as the Retry-After header' }),
})

/** 503 from load shedding or a full run queue (src/http/load-shedding.ts, errors.ts), with Retry-After. */
export const Overloaded = t.Object({
  detail: t.String(),
  retry_after_seconds: Type.Integer({ minimum: 1, description: 'the same as the Retry-After header' }),
})

/**
 * The execution settings of a run request (issue 25 §2–3; docs/metrics.md §1 "Execution",
 * docs/api.md): on /backtest, /simulate, /simulate/coin, /simulate/compare and the
 * research endpoints, each with its default.
 */
export const ExecutionRequestFields = {
  slippage: t.UnionEnum(['impact', 'none'], { default: 'impact', description: "'impact': each market fill pays half the estimated spread plus k·σ·sqrt(notional/ADV); 'none': no slippage (the model before it)" }),
  impact_k: t.Number({ minimum: 0, maximum: 5, default: 1, description: "the square-root law's prefactor k (docs/metrics.md §1)" }),
  tp_order: t.UnionEnum(['market', 'limit'], { default: 'market', description: "'market': the take profit is a market order (taker fee, slippage); 'limit': a resting limit order (maker fee, no slippage) that fills only when the price trades through its level" }),
  maker_fee_pct: t.Number({ minimum: 0, maximum: 1, default: 0.02, description: 'maker fee per side on notional, in percent (0.02 = 0.02 %); a limit take profit pays it' }),
  liquidation_fee_pct: t.Number({ minimum: 0, maximum: 5, default: 1.25, description: "fee on a liquidated position's notional, in percent (margin 'brackets')" }),
  intrabar: Intrabar,
  margin: t.UnionEnum(['brackets', 'flat'], { default: 'brackets', description: "'brackets': Binance's maintenance-margin brackets where the store has them (the flat rate elsewhere, named in execution.coins_flat_margin); 'flat': 0.5 % for every coin and size, no liquidation fee (the model before it)" }),
}

/**
 * The execution settings a live record (a scored signal, a paper position) is priced with,
 * frozen by its engine label (docs/signals.md, docs/paper-trading.md): the published form of
 * src/records/scoring-execution.ts. `sized`: what its notional is.
 */
export const FrozenExecution = (sized: string, description: string) =>
  t.Object(
    {
      slippage: t.String(),
      impact_k: t.Number(),
      tp_order: t.String(),
      liquidation_fee_pct: t.Number(),
      margin: t.String(),
      position_notional_usd: t.Number({ description: `${sized}: the size slippage and the bracket are priced at` }),
      intrabar: t.Optional(t.Literal('detail', { description: "reference-engine-v4 on: ambiguous bars replayed by the coin's minutes where it has them, as /simulate's default" })),
    },
    { description },
  )
