import { t } from 'elysia'

export const HealthResponse = t.Object({
  status: t.String({ description: '`ok` when healthy' }),
  version: t.String(),
  coins_loaded: t.Integer(),
  uptime_seconds: t.Number(),
})
