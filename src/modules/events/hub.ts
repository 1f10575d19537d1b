/**
 * The open event streams of this process (docs/events.md): one reader of the events table
 * for all of them, a fan-out to each stream by its filters, and each stream's replay from
 * its resume point.
 *
 * - New events are found by reading the table after the newest id fanned out: at once when
 *   a transaction of this process appended some (the records' post-commit wake-up), and by
 *   a slow poll every `pollMs`, which also finds events another process wrote to the same
 *   database. One read per wake-up serves every stream; a frame is built once per event.
 * - A stream that resumes replays from the table in pages, pulled as its client reads
 *   (ReadableStream `pull`), so a long replay never fills memory; it joins the live fan-out
 *   once it has read up to the newest id fanned out. Its `cursor` is the id up to which
 *   every event has been queued for it or left out by its filters: nothing after it is
 *   skipped, nothing up to it sent again.
 * - A client that cannot keep up (more than `bufferBytes` queued unread) is dropped: the
 *   stream ends with an `error` event naming the id to resume after, which is also its `id`,
 *   so an EventSource reconnects from there by itself.
 * - Heartbeat comments go to a stream idle for HEARTBEAT_MS by the injected clock, looked at
 *   on the slow poll's tick.
 */
import type { Clock } from '../../clock'
import type { EventsConfig } from '../../config'
import type { Db } from '../../db'
import { DAY_MS } from '../../market/types'
import { eventsAfter, eventWakeups, latestEventId, matchesFilter, oldestKeptId, type EventFilter, type EventRow } from '../../records/events'
import { TooManyStreams } from '../../runs/errors'
import { sseComment, sseMessage, sseRetry } from './framing'

/** how long a stream may stay silent before a heartbeat comment */
export const HEARTBEAT_MS = 15_000
/** the reconnection delay sent once (`retry:`) */
export const RETRY_MS = 3_000
/** how far back a resume point is replayed: events created in the last 7 days */
export const KEPT_WINDOW_MS = 7 * DAY_MS
/** the Retry-After of a refused stream (429/503) */
export const STREAM_RETRY_AFTER_S = 10
/** events read per page, for a replay and for the fan-out */
const PAGE = 200

/** the limits (config.events, README's table): streams per client and in all, the slow poll, the unread-bytes bound */
export type StreamLimits = EventsConfig

export interface OpenStream {
  client: string
  filter: EventFilter
  /** resume after this id (Last-Event-ID); null: only events committed from now on */
  resumeAfter: number | null
}

interface Stream {
  client: string
  filter: EventFilter
  cursor: number
  live: boolean
  closed: boolean
  lastWriteMs: number
  ctl: ReadableStreamDefaultController<string>
}

const frameOf = (e: EventRow) => sseMessage({ id: e.id, event: e.kind, data: e.payload })

export class EventHub {
  private readonly streams = new Set<Stream>()
  private readonly perClient = new Map<string, number>()
  /** the newest id fanned out to the live streams */
  private lastId = 0
  private timer: ReturnType<typeof setInterval> | null = null
  private readonly wake = () => this.pump()

  constructor(
    private readonly deps: { db: Db; clock: Clock; shutdown?: AbortSignal },
    private readonly limits: StreamLimits,
  ) {
    // on shutdown the streams end, so a graceful stop does not wait for them; clients
    // reconnect (after `retry`) to the next server with their Last-Event-ID
    deps.shutdown?.addEventListener('abort', () => this.closeAll())
  }

  /** open streams (for /metrics and tests) */
  get size(): number {
    return this.streams.size
  }

  /** Open a stream; throws TooManyStreams past the limits. */
  open(req: OpenStream): ReadableStream<string> {
    // a stopping server takes no new stream (the stop would wait for it)
    if (this.deps.shutdown?.aborted) throw new TooManyStreams('service', 0, STREAM_RETRY_AFTER_S)
    const mine = this.perClient.get(req.client) ?? 0
    if (mine >= this.limits.streamsPerClient) throw new TooManyStreams('client', this.limits.streamsPerClient, STREAM_RETRY_AFTER_S)
    if (this.streams.size >= this.limits.streamsMax) throw new TooManyStreams('service', this.limits.streamsMax, STREAM_RETRY_AFTER_S)
    this.start()
    const { db, clock } = this.deps
    const latest = latestEventId(db)
    const prelude = [sseRetry(RETRY_MS)]
    let cursor = latest
    if (req.resumeAfter !== null) {
      cursor = req.resumeAfter
      if (cursor > latest) {
        // an id this database never gave (another database, or a client's invention): said, not guessed
        prelude.push(sseMessage({ id: latest, event: 'error', data: JSON.stringify({ error: 'resume_point_unknown', detail: `no event ${cursor} was ever sent: the newest is ${latest}; continuing after it`, last_event_id: cursor, resume_after: latest }) }))
        cursor = latest
      } else {
        const windowStart = clock.now() - KEPT_WINDOW_MS
        const next = eventsAfter(db, cursor, { limit: 1 })[0]
        if (next && next.createdAt < windowStart) {
          const kept = oldestKeptId(db, windowStart)
          const resumeAfter = kept === null ? latest : kept - 1
          prelude.push(
            sseMessage({
              id: resumeAfter,
              event: 'error',
              data: JSON.stringify({ error: 'resume_point_expired', detail: `events after ${cursor} up to ${resumeAfter} are older than the ${KEPT_WINDOW_MS / DAY_MS}-day window this feed replays; continuing after ${resumeAfter}`, last_event_id: cursor, resume_after: resumeAfter, kept_window_days: KEPT_WINDOW_MS / DAY_MS }),
            }),
          )
          cursor = resumeAfter
        }
      }
    }
    let stream!: Stream
    const body = new ReadableStream<string>(
      {
        start: ctl => {
          stream = { client: req.client, filter: req.filter, cursor, live: false, closed: false, lastWriteMs: clock.now(), ctl }
          for (const p of prelude) ctl.enqueue(p)
          this.streams.add(stream)
          this.perClient.set(req.client, mine + 1)
        },
        pull: () => this.replay(stream),
        cancel: () => this.remove(stream),
      },
      { highWaterMark: this.limits.bufferBytes, size: chunk => chunk?.length ?? 0 },
    )
    return body
  }

  /** A page of a resuming stream's replay, read when its client has room for more. */
  private replay(s: Stream): void {
    if (s.live || s.closed) return
    const through = Math.max(this.lastId, s.cursor)
    const rows = eventsAfter(this.deps.db, s.cursor, { ...s.filter, limit: PAGE, throughId: through })
    for (const r of rows) this.write(s, frameOf(r))
    if (rows.length === PAGE) s.cursor = rows.at(-1)!.id
    else {
      // everything up to `through` is queued or filtered out: from here the fan-out serves it
      s.cursor = through
      s.live = true
    }
  }

  /** Read the events after the newest fanned out and hand each live stream those it wants. */
  pump(): void {
    if (this.streams.size === 0) return
    for (;;) {
      const rows = eventsAfter(this.deps.db, this.lastId, { limit: PAGE })
      for (const r of rows) {
        let frame: string | null = null
        for (const s of this.streams) {
          if (!s.live || r.id <= s.cursor) continue
          if (matchesFilter(r, s.filter)) {
            frame ??= frameOf(r)
            if (!this.fits(s, frame)) {
              this.drop(s)
              continue
            }
            this.write(s, frame)
          }
          s.cursor = r.id
        }
        this.lastId = r.id
      }
      if (rows.length < PAGE) return
    }
  }

  /** The slow poll: events of other processes, and heartbeats for quiet streams. */
  tick(): void {
    this.pump()
    const now = this.deps.clock.now()
    for (const s of this.streams) {
      if (now - s.lastWriteMs < HEARTBEAT_MS) continue
      const beat = sseComment('heartbeat')
      if (this.fits(s, beat)) this.write(s, beat)
      else this.drop(s)
    }
  }

  private fits(s: Stream, chunk: string): boolean {
    return (s.ctl.desiredSize ?? 0) >= chunk.length
  }

  private write(s: Stream, chunk: string): void {
    s.ctl.enqueue(chunk)
    s.lastWriteMs = this.deps.clock.now()
  }

  /** End a stream whose client does not read fast enough, saying where to resume. */
  private drop(s: Stream): void {
    const detail = `this client read too slowly (more than ${this.limits.bufferBytes} bytes unread); reconnect with Last-Event-ID ${s.cursor}`
    s.ctl.enqueue(sseMessage({ id: s.cursor, event: 'error', data: JSON.stringify({ error: 'too_slow', detail, resume_after: s.cursor }) }))
    s.ctl.close()
    this.remove(s)
  }

  private remove(s: Stream): void {
    if (s.closed) return
    s.closed = true
    this.streams.delete(s)
    const n = (this.perClient.get(s.client) ?? 1) - 1
    if (n > 0) this.perClient.set(s.client, n)
    else this.perClient.delete(s.client)
    if (this.streams.size === 0) this.stop()
  }

  private closeAll(): void {
    for (const s of [...this.streams]) {
      s.ctl.close()
      this.remove(s)
    }
  }

  /** Listen only while a stream is open: an idle service (and every test without streams) polls nothing. */
  private start(): void {
    if (this.timer !== null) return
    this.lastId = latestEventId(this.deps.db)
    eventWakeups.on('appended', this.wake)
    this.timer = setInterval(() => this.tick(), this.limits.pollMs)
  }

  private stop(): void {
    if (this.timer === null) return
    clearInterval(this.timer)
    this.timer = null
    eventWakeups.off('appended', this.wake)
  }
}
