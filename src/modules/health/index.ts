import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { roundTo } from '../../round'
import { VERSION } from '../../version'
import { HealthResponse } from './model'

/** GET /health: answered from memory only, so it stays fast while workers are busy. */
export function healthModule(deps: AppDeps) {
  return new Elysia({ name: 'health' }).get(
    '/health',
    () => ({
      status: 'ok',
      version: VERSION,
      coins_loaded: deps.store.coinCount,
      uptime_seconds: roundTo((deps.clock.now() - deps.startedAtMs) / 1000, 2),
    }),
    { response: HealthResponse, detail: { tags: ['market'], summary: 'Service health' } },
  )
}
