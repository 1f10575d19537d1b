import type { AppDeps } from '../../deps'
import { roundTo } from '../../round'
import { VERSION } from '../../version'
import type { HealthResponse } from './model'

/**
 * The service's health, from memory only (no Redis or database round trip, so it answers at
 * once even while they hang): `degraded` with the reason when runs cannot reach a worker.
 * Still HTTP 200: the process serves its reads, and every API node of a fleet whose Redis
 * stopped would otherwise be taken out of its load balancer at once.
 */
export function health(deps: AppDeps): typeof HealthResponse.static {
  const reason = deps.runs.trouble()
  return {
    status: reason ? 'degraded' : 'ok',
    ...(reason ? { reason } : {}),
    version: VERSION,
    coins_loaded: deps.store.coinCount,
    uptime_seconds: roundTo((deps.clock.now() - deps.startedAtMs) / 1000, 2),
  }
}
