import { t } from 'elysia'
import { ConditionTree, Direction, IndicatorInfoFields, IndicatorParamsSchema } from '../../model/shared'

export const BuilderIndicator = t.Object({ id: t.String(), ...IndicatorInfoFields })

export const BuilderIndicatorList = t.Array(BuilderIndicator)

export const PresetListItem = t.Object({
  id: t.String(),
  name: t.String(),
  direction: Direction,
  indicators: t.Array(t.String(), { description: 'ids of the indicators the preset uses' }),
  conditions_count: t.Integer({ description: 'leaves of the entry tree' }),
  sl_pct: t.Number(),
  tp_pct: t.Number(),
})

export const PresetList = t.Array(PresetListItem)

export const Preset = t.Object({
  id: t.String(),
  name: t.String(),
  direction: Direction,
  indicators: IndicatorParamsSchema,
  entry: ConditionTree,
  exit_conditions: t.Union([ConditionTree, t.Null()], { description: 'exit signal tree; null when exits are SL/TP/timeout only' }),
  sl_pct: t.Number(),
  tp_pct: t.Number(),
  max_bars: t.Integer(),
})

export const PresetParams = t.Object({ preset_id: t.String() })
