import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { clientOf } from '../../http/rate-limit'
import { ValidationErrors } from '../../model/shared'
import { EventsHeaders, EventsQuery } from './model'
import { EventsService } from './service'

/** GET /events: the push feed as Server-Sent Events (docs/events.md). */
export function eventsModule(deps: AppDeps) {
  const service = new EventsService(deps, deps.config.events)
  return new Elysia({ name: 'events' }).get(
    '/events',
    ({ query, headers, request, server }) =>
      service.open(query, headers['last-event-id'], clientOf(server?.requestIP(request)?.address, request.headers.get('x-forwarded-for'), deps.config.trustProxy)),
    {
      query: EventsQuery,
      headers: EventsHeaders,
      response: { 422: ValidationErrors },
      detail: {
        tags: ['events'],
        summary: 'The push feed: signals, scored results, day roots, ranking files and paper positions as they are recorded (Server-Sent Events; resumes with Last-Event-ID)',
      },
    },
  )
}
