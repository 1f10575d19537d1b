import { t } from 'elysia'

const list = (what: string) => t.Optional(t.String({ description: `comma-separated ${what}; omitted: all` }))

/** GET /events: filters and a resume point for clients that cannot set Last-Event-ID. */
export const EventsQuery = t.Object({
  types: list('event kinds (signal, scored, day_root, ranking, paper)'),
  strategies: list('strategy ids (GET /strategies)'),
  coins: list('coin symbols (GET /coins), e.g. BTCUSDT'),
  status: list('strategy statuses (verified, testing, research)'),
  last_event_id: t.Optional(t.String({ pattern: '^[0-9]{1,15}$', description: 'resume after this event id, as the Last-Event-ID header does (the header wins when both are given); 0 replays the kept window' })),
})

export const EventsHeaders = t.Object({
  'last-event-id': t.Optional(t.String({ description: 'the id of the last event received: the stream resumes after it' })),
})
