import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
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
      uptime_seconds: Math.round((deps.clock.now() - deps.startedAtMs) / 10) / 100,
    }),
    { response: HealthResponse, detail: { tags: ['market'], summary: 'Service health' } },
  )
}
