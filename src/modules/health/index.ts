import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { health } from './service'
import { HealthResponse } from './model'

/** GET /health: answered from memory only, so it stays fast while workers are busy. */
export function healthModule(deps: AppDeps) {
  return new Elysia({ name: 'health' }).get(
    '/health',
    () => health(deps),
    { response: HealthResponse, detail: { tags: ['market'], summary: 'Service health' } },
  )
}
