/**
 * Every answer, whatever produced it: a request id (the caller's X-Request-Id when it is a
 * short token, else a fresh one) returned as X-Request-Id; security headers; one JSON
 * access-log line (request id, method, route template, path, status, duration) at info;
 * the duration histogram and in-flight gauge of GET /metrics.
 */
import { Elysia } from 'elysia'
import type { Logger } from '../log'
import { roundTo } from '../round'
import { setInternalErrorSink } from './errors'
import type { HttpMetrics } from './metrics'

export const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
}

const CALLER_ID = /^[A-Za-z0-9._:-]{1,64}$/

interface Started {
  id: string
  at: number
}

export function requestContext(log: Logger | undefined, metrics: HttpMetrics) {
  const started = new WeakMap<Request, Started>()
  if (log) setInternalErrorSink((error, request) => log.error('unhandled error', { request_id: started.get(request)?.id, error: (error as Error)?.stack ?? String(error) }))
  return new Elysia({ name: 'request-context' })
    .onRequest(({ request, set }) => {
      const given = request.headers.get('x-request-id')
      const id = given && CALLER_ID.test(given) ? given : crypto.randomUUID()
      started.set(request, { id, at: performance.now() })
      metrics.inFlight.inc()
      Object.assign(set.headers, SECURITY_HEADERS)
      set.headers['x-request-id'] = id
    })
    .onAfterResponse({ as: 'global' }, ctx => {
      const s = started.get(ctx.request)
      if (!s) return
      started.delete(ctx.request)
      metrics.inFlight.dec()
      const response = (ctx as { responseValue?: unknown }).responseValue
      const status = response instanceof Response ? response.status : typeof ctx.set.status === 'number' ? ctx.set.status : 200
      const seconds = (performance.now() - s.at) / 1000
      const route = ctx.route || 'unmatched'
      metrics.observe(ctx.request.method, route, status, seconds)
      if (log?.enabled('info'))
        log.info('request', { request_id: s.id, method: ctx.request.method, route, path: new URL(ctx.request.url).pathname, status, duration_ms: roundTo(seconds * 1000, 1) })
    })
}
