import { t } from 'elysia'

export const HealthResponse = t.Object({
  status: t.String({ description: '`ok` when healthy; `degraded` when runs cannot reach a worker (REDIS_URL: the queue\'s Redis does not answer, or no `perpsim worker` is connected): the reads are still served, runs are answered 503' }),
  reason: t.Optional(t.String({ description: 'with `degraded` only: why, e.g. "the queue\'s Redis at 10.0.0.5:6379 does not answer (connection reconnecting)"' })),
  version: t.String(),
  coins_loaded: t.Integer(),
  uptime_seconds: t.Number(),
})
