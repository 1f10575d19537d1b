/**
 * The push feed's events (docs/events.md): one row per announced record, appended by the
 * writer of that record inside the same transaction, so an event is committed exactly when
 * its record is (and rolled back with it). `GET /events` and the webhook outbox read them
 * here, in id order.
 *
 * Why the id is a resume point: the table's id is an AUTOINCREMENT rowid, and SQLite lets
 * one writer at a time hold the database (WAL or not), so a transaction that commits later
 * got its ids later; ids are never reused (AUTOINCREMENT keeps the high-water mark in
 * sqlite_sequence even across a crash), and the rows are append-only (triggers, migration
 * 0012_events_triggers). A reader that has seen every event up to id n therefore finds every
 * later event, and only those, with `id > n`: nothing lost, nothing twice.
 */
import { and, asc, gt, gte, inArray, max, min, sql, type SQL } from 'drizzle-orm'
import { EventEmitter } from 'node:events'
import { events } from '../../db/schema'
import type { Db } from '../db'
import { canonicalJson } from '../engine/canonical-json'

/** The kinds of event, in the words of docs/events.md (a sweep's progress has a stream of its own: GET /research/sweeps/{id}/events). */
export const EVENT_KINDS = ['signal', 'scored', 'day_root', 'ranking', 'paper'] as const
export type EventKind = (typeof EVENT_KINDS)[number]

export type EventRow = typeof events.$inferSelect

/** An event about to be appended: its record as the API serves it, and what the filters read. */
export interface NewEvent {
  kind: EventKind
  /** canonical JSON is written; the value is what the record's route answers */
  payload: unknown
  strategy?: string | null
  coin?: string | null
  /** the strategy's status (verified, testing, research) when the record was made */
  status?: string | null
}

/** Events a writer hands to the record function whose transaction must carry them. */
export interface Announcement {
  nowMs: number
  events: readonly NewEvent[]
}

/** Which events a reader wants: an empty or missing list lets every value through. */
export interface EventFilter {
  kinds?: readonly string[]
  strategies?: readonly string[]
  coins?: readonly string[]
  statuses?: readonly string[]
}

/** A transaction (or the database itself, for a writer that needs no more than one statement). */
type Tx = Pick<Db, 'insert'>

/**
 * Wake-ups for readers in this process: signalled once the synchronous transaction that
 * appended events has ended. bun:sqlite transactions run to their end before any queued
 * microtask, so the microtask runs after the COMMIT (or a ROLLBACK, which costs a reader
 * one poll that finds nothing). Readers in other processes find the rows by their slow poll.
 */
export const eventWakeups = new EventEmitter()
eventWakeups.setMaxListeners(0)
let wakeQueued = false

function queueWakeup(): void {
  if (wakeQueued) return
  wakeQueued = true
  queueMicrotask(() => {
    wakeQueued = false
    eventWakeups.emit('appended')
  })
}

/**
 * Append events inside the caller's transaction (the one writing the records they announce);
 * returns their ids, in order.
 */
export function appendEvents(tx: Tx, nowMs: number, list: readonly NewEvent[]): number[] {
  if (list.length === 0) return []
  const ids: number[] = []
  // SQLite's bound-variable limit over a row's 6 bound columns, rounded down
  for (let i = 0; i < list.length; i += 150) {
    const rows = list.slice(i, i + 150).map(e => ({
      kind: e.kind,
      createdAt: nowMs,
      strategy: e.strategy ?? null,
      coin: e.coin ?? null,
      status: e.status ?? null,
      payload: canonicalJson(e.payload),
    }))
    for (const r of tx.insert(events).values(rows).returning({ id: events.id }).all()) ids.push(r.id)
  }
  queueWakeup()
  return ids
}

function filterSql(f: EventFilter): SQL[] {
  const where: SQL[] = []
  if (f.kinds?.length) where.push(inArray(events.kind, [...f.kinds]))
  if (f.strategies?.length) where.push(inArray(events.strategy, [...f.strategies]))
  if (f.coins?.length) where.push(inArray(events.coin, [...f.coins]))
  if (f.statuses?.length) where.push(inArray(events.status, [...f.statuses]))
  return where
}

/**
 * Does an event pass a filter? The same rule as `eventsAfter`'s SQL: every given list must
 * hold the event's value, so an event that is about no strategy (a day root, a ranking
 * file) does not pass a strategy filter.
 */
export function matchesFilter(e: Pick<EventRow, 'kind' | 'strategy' | 'coin' | 'status'>, f: EventFilter): boolean {
  const ok = (list: readonly string[] | undefined, v: string | null) => !list?.length || (v !== null && list.includes(v))
  return ok(f.kinds, e.kind) && ok(f.strategies, e.strategy) && ok(f.coins, e.coin) && ok(f.statuses, e.status)
}

/**
 * Events after `afterId` (exclusive), oldest first, at most `limit`, that pass the filter;
 * `throughId` (inclusive) bounds the read from above.
 */
export function eventsAfter(db: Db, afterId: number, opts: EventFilter & { limit: number; throughId?: number }): EventRow[] {
  const where = [gt(events.id, afterId), ...filterSql(opts)]
  if (opts.throughId !== undefined) where.push(sql`${events.id} <= ${opts.throughId}`)
  return db.select().from(events).where(and(...where)).orderBy(asc(events.id)).limit(opts.limit).all()
}

/** The newest event id (0 before the first event). */
export function latestEventId(db: Db): number {
  return db.select({ m: max(events.id) }).from(events).get()?.m ?? 0
}

/**
 * The oldest event the feed still replays: the first one created at or after `sinceMs`
 * (the kept window's start), or null when none is. The table itself keeps every event
 * (append-only); the window is what `GET /events` promises to replay.
 */
export function oldestKeptId(db: Db, sinceMs: number): number | null {
  return db.select({ m: min(events.id) }).from(events).where(gte(events.createdAt, sinceMs)).get()?.m ?? null
}

export function eventCount(db: Db): number {
  return db.select({ n: sql<number>`count(*)` }).from(events).get()?.n ?? 0
}
