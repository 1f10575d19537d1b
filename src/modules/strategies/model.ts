import { t } from 'elysia'
import { ConditionTree, Direction, IndicatorInfoFields, IndicatorParamsSchema, oneOf } from '../../model/shared'
import { STATUSES } from '../../strategies/status'

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

export const IndicatorInfo = t.Object(IndicatorInfoFields)

export const IndicatorRegistry = t.Record(t.String(), IndicatorInfo, { description: 'keyed by indicator id' })
