import type { TLiteral } from '@sinclair/typebox'
import { t } from 'elysia'
import { type ConditionNode, OPS, STATS } from '../../strategies/conditions'
import { STATUSES } from '../../strategies/status'

/** A series: a field, optionally its mean / lowest / highest over `bars` bars, read `shift` bars back. */
const seriesFields = {
  field: t.String(),
  shift: t.Optional(t.Integer({ minimum: 0, maximum: 50 })),
  stat: t.Optional(t.Union(STATS.map(v => t.Literal(v)))),
  bars: t.Optional(t.Integer({ minimum: 1, maximum: 500 })),
}
const Term = t.Object({ ...seriesFields, mult: t.Optional(t.Number()) })

/** A comparison value: a number, a boolean, a list (in / not_in), or `mult × series + offset`. */
const ComparisonValue = t.Union([
  t.Number(),
  t.Boolean(),
  t.Array(t.Number()),
  t.Object({ ...seriesFields, mult: t.Optional(t.Number()), offset: t.Optional(t.Union([t.Number(), Term])) }),
])

/** A string from a fixed list (t.UnionEnum would also publish its first value as a default). */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T, description?: string) =>
  t.Union(values.map(v => t.Literal(v)) as unknown as { -readonly [K in keyof T]: TLiteral<T[K]> }, description ? { description } : {})

/** A child node: same shape as its parent (kept as a plain object so /openapi.json needs no self-reference). */
const ChildNode = t.Object({}, { additionalProperties: true, description: 'a condition tree node, same shape as its parent' })

/**
 * One node of the condition tree: an AND / OR group, a NOT, or a leaf {field, op, value,
 * shift?}. Documents the shape in /openapi.json; the full rules (field names, types,
 * depth) are checked by validateStrategy, whose messages are more precise than a schema's.
 */
const ConditionTreeSchema = t.Object(
  {
    type: t.Optional(oneOf(['AND', 'OR', 'NOT', 'ANY_PRIOR'], 'group node; absent on a leaf')),
    conditions: t.Optional(t.Array(ChildNode, { description: 'children of AND / OR (NOT, ANY_PRIOR: exactly one)' })),
    condition: t.Optional(ChildNode),
    field: t.Optional(t.String({ description: 'leaf: indicator or candle field, e.g. close, bb_upper, rsi' })),
    op: t.Optional(oneOf(OPS)),
    value: t.Optional(ComparisonValue),
    value_bool: t.Optional(t.Boolean({ description: 'legacy form of a boolean value' })),
    shift: t.Optional(t.Integer({ minimum: 0, maximum: 50, description: 'read the field this many bars back' })),
    stat: t.Optional(oneOf(STATS, 'leaf: compare the mean / lowest / highest of the field over `bars` bars')),
    bars: t.Optional(t.Integer({ minimum: 1, maximum: 500, description: 'leaf: bars of the stat window; ANY_PRIOR: prior bars searched' })),
  },
  { description: 'condition tree node (docs/conditions.md)' },
)

/** the schema above, typed as the compiler's own ConditionNode */
export const ConditionTree = t.Unsafe<ConditionNode>(ConditionTreeSchema)

export const IndicatorParamsSchema = t.Record(t.String(), t.Record(t.String(), t.Number()), {
  description: 'indicator id to params (merged over the defaults)',
})

export const Direction = oneOf(['short', 'long'])

export const StrategyInfo = t.Object({
  id: t.String({ description: '`<name>-<direction>`' }),
  name: t.String(),
  description: t.String({ description: 'what the strategy does, in plain words' }),
  default_params: t.Object({
    sl_pct: t.Number(),
    tp_pct: t.Number(),
    max_bars: t.Integer(),
    direction: Direction,
    status: oneOf(STATUSES, 'verified, testing or research; criteria in docs/strategies.md'),
    avoid_hours: t.Array(t.Integer({ minimum: 0, maximum: 23 }), { description: 'UTC hours of the entry bar it skips; already part of entry (next_hour not_in)' }),
  }),
  indicators: IndicatorParamsSchema,
  entry: ConditionTree,
  exit_conditions: t.Union([ConditionTree, t.Null()]),
})

export const StrategyList = t.Array(StrategyInfo)

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

export const IndicatorInfo = t.Object(IndicatorInfoFields)

export const IndicatorRegistry = t.Record(t.String(), IndicatorInfo, { description: 'keyed by indicator id' })
