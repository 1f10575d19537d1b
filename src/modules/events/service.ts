/**
 * GET /events: check the filters and the resume point, then open a stream on the hub
 * (./hub.ts) and answer it as Server-Sent Events (docs/events.md).
 */
import type { Clock } from '../../clock'
import type { Db } from '../../db'
import type { Logger } from '../../log'
import type { Universe } from '../../market/universe'
import { EVENT_KINDS, type EventFilter } from '../../records/events'
import { InvalidRequest, type Problem } from '../../runs/errors'
import { listStrategies } from '../../strategies/registry'
import { STATUSES } from '../../strategies/status'
import { EventHub, type StreamLimits } from './hub'
import type { EventsQuery } from './model'

export interface EventsServiceDeps {
  db: Db
  clock: Clock
  universe: Universe
  shutdown?: AbortSignal
  log?: Logger
}

const RESUME_ID = /^[0-9]{1,15}$/

export class EventsService {
  readonly hub: EventHub

  constructor(private readonly deps: EventsServiceDeps, limits: StreamLimits) {
    this.hub = new EventHub(deps, limits)
  }

  /** The stream, or a 422 naming every unknown filter value and a malformed Last-Event-ID. */
  async open(query: typeof EventsQuery.static, lastEventIdHeader: string | undefined, client: string): Promise<Response> {
    const problems: Problem[] = []
    const pick = (name: keyof typeof query, known: readonly string[], normalise = (s: string) => s) => {
      const raw = query[name]
      if (raw === undefined) return undefined
      const values = raw.split(',').map(s => normalise(s.trim()))
      const bad = values.filter(v => !known.includes(v))
      if (bad.length) problems.push({ loc: ['query', name], msg: `unknown value${bad.length === 1 ? '' : 's'} ${bad.map(v => `'${v}'`).join(', ')}: expected comma-separated values of ${known.length > 12 ? `${known.slice(0, 12).join(', ')}, … (${known.length} in all)` : known.join(', ')}`, input: raw })
      return [...new Set(values)]
    }
    const filter: EventFilter = {
      kinds: pick('types', EVENT_KINDS),
      strategies: pick('strategies', listStrategies().map(s => s.id)),
      coins: pick('coins', this.deps.universe.all().map(c => c.meta.symbol), s => s.toUpperCase()),
      statuses: pick('status', STATUSES),
    }
    let resumeAfter: number | null = query.last_event_id === undefined ? null : Number(query.last_event_id)
    if (lastEventIdHeader !== undefined) {
      // the header wins: an EventSource reconnects to the same URL (its original
      // last_event_id included) with the header set to the last id it received
      if (RESUME_ID.test(lastEventIdHeader.trim())) resumeAfter = Number(lastEventIdHeader.trim())
      else problems.push({ loc: ['header', 'last-event-id'], msg: 'an event id this feed sent: an integer of up to 15 digits', input: lastEventIdHeader })
    }
    if (problems.length) throw new InvalidRequest(problems)
    const body = await this.hub.open({ client, filter, resumeAfter })
    return new Response(body, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        // reverse proxies (nginx) buffer responses unless told not to
        'x-accel-buffering': 'no',
      },
    })
  }
}
