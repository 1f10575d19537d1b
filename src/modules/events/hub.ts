/**
 * The open event streams of this process (docs/events.md): one reader of the events table
 * for all of them, a fan-out to each stream by its filters, and each stream's replay from
 * its resume point.
 *
 * - New events are found by reading the table after the newest id fanned out: at once when
 *   a transaction of this process appended some (the records' post-commit wake-up), and by
 *   a slow poll every `pollMs`, which also finds events another process wrote to the same
 *   database. One read per wake-up serves every stream; each page of events is encoded
 *   once per filter (streams of one filter share the bytes) and written as one chunk per
 *   stream, a slice of streams per turn of the event loop (a socket write per stream is
 *   the fan-out's cost, so a burst to many streams never holds the request loop long).
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
import type { Logger } from '../../log'
import { DAY_MS } from '../../time'
import { eventsAfter, eventWakeups, latestEventId, matchesFilter, oldestKeptId, type EventFilter, type EventRow } from '../../records/events'
import { TooManyStreams } from '../../runs/errors'
import { sseComment, sseMessage, sseRetry } from '../../sse-framing'

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
  /** the filter as a key: streams with the same key want the same events */
  filterKey: string
  ctl: ReadableStreamDefaultController<Uint8Array>
}

const frameOf = (e: EventRow) => sseMessage({ id: e.id, event: e.kind, data: e.payload })
const ENCODER = new TextEncoder()
/** streams written between two turns of the event loop */
const WRITE_SLICE = 100
const nextTurn = () => new Promise<void>(resolve => setImmediate(resolve))
const filterKey = (f: EventFilter) => JSON.stringify([f.kinds, f.strategies, f.coins, f.statuses].map(l => (l ? [...l].sort() : null)))

export class EventHub {
  private readonly streams = new Set<Stream>()
  private readonly perClient = new Map<string, number>()
  /** the newest id fanned out to the live streams */
  private lastId = 0
  private timer: ReturnType<typeof setInterval> | null = null
  private pumping = false
  private pumpAgain = false
  /** streams being opened (their resume point read): counted against the limits */
  private opening = 0
  private readonly wake = () => this.pump()

  constructor(
    private readonly deps: { db: Db; clock: Clock; shutdown?: AbortSignal; log?: Logger },
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
  async open(req: OpenStream): Promise<ReadableStream<Uint8Array>> {
    // a stopping server takes no new stream (the stop would wait for it)
    if (this.deps.shutdown?.aborted) throw new TooManyStreams('stopping', this.limits.streamsMax, STREAM_RETRY_AFTER_S)
    const mine = this.perClient.get(req.client) ?? 0
    if (mine >= this.limits.streamsPerClient) throw new TooManyStreams('client', this.limits.streamsPerClient, STREAM_RETRY_AFTER_S)
    if (this.streams.size + this.opening >= this.limits.streamsMax) throw new TooManyStreams('service', this.limits.streamsMax, STREAM_RETRY_AFTER_S)
    // the place is held while the resume point is read, so streams opened at once count each other
    this.perClient.set(req.client, mine + 1)
    this.opening++
    try {
      return await this.openAt(req)
    } catch (e) {
      this.release(req.client)
      throw e
    } finally {
      this.opening--
    }
  }

  private async openAt(req: OpenStream): Promise<ReadableStream<Uint8Array>> {
    const { db, clock } = this.deps
    const latest = await latestEventId(db)
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
        const next = (await eventsAfter(db, cursor, { limit: 1 }))[0]
        if (next && next.createdAt < windowStart) {
          const kept = await oldestKeptId(db, windowStart)
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
    const body = new ReadableStream<Uint8Array>(
      {
        start: ctl => {
          stream = { client: req.client, filter: req.filter, filterKey: filterKey(req.filter), cursor, live: false, closed: false, lastWriteMs: clock.now(), ctl }
          ctl.enqueue(ENCODER.encode(prelude.join('')))
          this.start(latest)
          this.streams.add(stream)
        },
        pull: async () => {
          try {
            await this.replay(stream)
          } catch (e) {
            this.fail(e)
          }
        },
        cancel: () => this.remove(stream),
      },
      { highWaterMark: this.limits.bufferBytes, size: chunk => chunk?.byteLength ?? 0 },
    )
    return body
  }

  /** A page of a resuming stream's replay, read when its client has room for more. */
  private async replay(s: Stream): Promise<void> {
    if (s.live || s.closed) return
    const through = Math.max(this.lastId, s.cursor)
    const rows = await eventsAfter(this.deps.db, s.cursor, { ...s.filter, limit: PAGE, throughId: through })
    if (rows.length) this.write(s, ENCODER.encode(rows.map(frameOf).join('')))
    if (rows.length === PAGE) s.cursor = rows.at(-1)!.id
    else {
      // everything up to `through` is queued or filtered out: from here the fan-out serves it
      s.cursor = through
      s.live = true
    }
  }

  /**
   * Read the events after the newest fanned out and hand each live stream those it wants.
   * One pass at a time (a wake-up during a pass asks for one more); a turn of the event loop
   * between pages, so a burst of events (an hour's scan) fanned out to many streams never
   * holds the request loop for long.
   */
  pump(): void {
    if (this.pumping) {
      this.pumpAgain = true
      return
    }
    this.pumping = true
    void this.drain()
      .catch(e => this.fail(e))
      .finally(() => {
        this.pumping = false
        if (this.pumpAgain) {
          this.pumpAgain = false
          this.pump()
        }
      })
  }

  private async drain(): Promise<void> {
    while (this.streams.size > 0) {
      const rows = await eventsAfter(this.deps.db, this.lastId, { limit: PAGE })
      if (rows.length === 0) return
      const first = rows[0]!.id
      const last = rows.at(-1)!.id
      this.lastId = last
      // the live streams by filter: streams of one filter that have seen nothing of this page
      // get the same bytes, encoded once (the page's frames they want, as one chunk)
      const groups = new Map<string, Stream[]>()
      const own: Stream[] = []
      for (const s of this.streams) {
        if (!s.live) continue
        if (s.cursor >= first) own.push(s)
        else {
          const g = groups.get(s.filterKey)
          if (g) g.push(s)
          else groups.set(s.filterKey, [s])
        }
      }
      const frames = new Map<number, string>()
      const frame = (r: EventRow) => frames.get(r.id) ?? (frames.set(r.id, frameOf(r)), frames.get(r.id)!)
      const chunkFor = (f: EventFilter, after: number) => ENCODER.encode(rows.filter(r => r.id > after && matchesFilter(r, f)).map(frame).join(''))
      const writes: [Stream, Uint8Array][] = []
      for (const members of groups.values()) {
        const chunk = chunkFor(members[0]!.filter, 0)
        for (const s of members) writes.push([s, chunk])
      }
      for (const s of own) writes.push([s, chunkFor(s.filter, s.cursor)])
      // written a slice of streams at a time: a socket write per stream is the fan-out's cost
      for (let i = 0; i < writes.length; i += WRITE_SLICE) {
        if (i > 0) await nextTurn()
        for (const [s, chunk] of writes.slice(i, i + WRITE_SLICE)) {
          if (s.closed) continue
          if (chunk.byteLength > 0) {
            if (!this.fits(s, chunk.byteLength)) {
              this.drop(s)
              continue
            }
            this.write(s, chunk)
          }
          s.cursor = Math.max(s.cursor, last)
        }
      }
      if (rows.length < PAGE) return
      await nextTurn()
    }
  }

  /**
   * The table cannot be read (the database closed under us): the streams end, and their
   * clients reconnect with their Last-Event-ID to a server that can.
   */
  private fail(e: unknown): void {
    this.deps.log?.error(`event streams closed: ${e instanceof Error ? e.message : String(e)}`)
    this.closeAll()
  }

  /** The slow poll: events of other processes, and heartbeats for quiet streams. */
  tick(): void {
    this.pump()
    const now = this.deps.clock.now()
    for (const s of this.streams) {
      if (now - s.lastWriteMs < HEARTBEAT_MS) continue
      const beat = ENCODER.encode(sseComment('heartbeat'))
      if (this.fits(s, beat.byteLength)) this.write(s, beat)
      else this.drop(s)
    }
  }

  /** Room for `bytes` in the stream's unread bound; an empty queue takes any one chunk (a large day root). */
  private fits(s: Stream, bytes: number): boolean {
    const free = s.ctl.desiredSize ?? 0
    return free >= bytes || free >= this.limits.bufferBytes
  }

  private write(s: Stream, chunk: Uint8Array): void {
    s.ctl.enqueue(chunk)
    s.lastWriteMs = this.deps.clock.now()
  }

  /** End a stream whose client does not read fast enough, saying where to resume. */
  private drop(s: Stream): void {
    const detail = `this client read too slowly (more than ${this.limits.bufferBytes} bytes unread); reconnect with Last-Event-ID ${s.cursor}`
    s.ctl.enqueue(ENCODER.encode(sseMessage({ id: s.cursor, event: 'error', data: JSON.stringify({ error: 'too_slow', detail, resume_after: s.cursor }) })))
    s.ctl.close()
    this.remove(s)
  }

  private remove(s: Stream): void {
    if (s.closed) return
    s.closed = true
    this.streams.delete(s)
    this.release(s.client)
    if (this.streams.size === 0) this.stop()
  }

  /** A client's place given back (its stream ended, or never opened). */
  private release(client: string): void {
    const n = (this.perClient.get(client) ?? 1) - 1
    if (n > 0) this.perClient.set(client, n)
    else this.perClient.delete(client)
  }

  private closeAll(): void {
    for (const s of [...this.streams]) {
      s.ctl.close()
      this.remove(s)
    }
  }

  /** Listen only while a stream is open: an idle service (and every test without streams) polls nothing. */
  private start(latest: number): void {
    if (this.timer !== null) return
    // the newest event when the first stream opened: the fan-out serves what comes after
    this.lastId = latest
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
