import type { TLiteral } from '@sinclair/typebox'
import { t } from 'elysia'
import type { ConditionNode } from '../../strategies/conditions'
import { STATUSES } from '../../strategies/status'

/** A string from a fixed list (t.UnionEnum would also publish its first value as a default). */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T, description?: string) =>
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
