import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { adminPaths } from '../../http/admin-auth'
import { created } from '../../http/created'
import { Detail, ValidationErrors } from '../../model/shared'
import type { Pusher } from '../../push/pusher'
import { CreatedEndpoint, CreateEndpoint, EndpointList, EndpointParams, PingAnswer, Removed, TooManyEndpoints } from './model'
import { WebhooksService } from './service'

const refusals = { 401: Detail, 403: Detail, 503: Detail }
// hidden from /openapi.json like the other admin routes (docs/api.md documents them)

/** POST/GET /admin/webhooks, DELETE /admin/webhooks/{id}, POST /admin/webhooks/{id}/ping (X-Admin-Key). */
export function webhooksModule(deps: AppDeps, pusher: Pusher) {
  const service = new WebhooksService({ db: deps.db, clock: deps.clock, config: deps.config.push, pusher })
  return new Elysia({ name: 'webhooks' })
    .use(adminPaths(deps.config.adminKey, '/admin/webhooks'))
    .post('/admin/webhooks', async ({ body }) => created(await service.create(body)), {
      body: CreateEndpoint,
      response: { 201: CreatedEndpoint, 400: TooManyEndpoints, 422: ValidationErrors, ...refusals },
      detail: { hide: true, summary: 'Register a webhook, Telegram or Discord endpoint for the push feed (the secret is shown once)' },
    })
    .get('/admin/webhooks', () => service.list(), {
      response: { 200: EndpointList, ...refusals },
      detail: { hide: true, summary: 'The registered endpoints and their health (no secrets)' },
    })
    .delete('/admin/webhooks/:id', ({ params }) => service.remove(params.id), {
      params: EndpointParams,
      response: { 200: Removed, 404: Detail, 422: ValidationErrors, ...refusals },
      detail: { hide: true, summary: 'Remove an endpoint (disabled, not deleted, once deliveries refer to it)' },
    })
    .post('/admin/webhooks/:id/ping', ({ params }) => service.ping(params.id), {
      params: EndpointParams,
      response: { 200: PingAnswer, 404: Detail, 422: ValidationErrors, ...refusals },
      detail: { hide: true, summary: 'Send a signed ping to an endpoint now and answer with what the receiver said' },
    })
}
