import { t } from 'elysia'
import { nullable, SourceLabel } from '../../model/shared'

export const RegimeResponse = t.Object({
  regime: nullable(t.String({ description: 'Extreme Fear < 25; Fear 25-44; Neutral 45-59; Greed 60-79; Extreme Greed >= 80' })),
  fear_greed_index: nullable(t.Number()),
  band: nullable(t.Object({ min: t.Number(), max: t.Number() })),
  recommended_strategies: t.Array(t.Object({ id: t.String(), name: t.String(), direction: t.String() })),
  proxy: t.Boolean({ description: 'the value is the local proxy, not the published index' }),
  source: nullable(t.String()),
  as_of: nullable(t.String()),
  stale: t.Boolean(),
  label: SourceLabel,
  missing_sources: t.Array(t.String()),
  bands: t.Array(t.Object({ name: t.String(), min: t.Number(), max: t.Number(), strategies: t.Array(t.String()) })),
})
