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
 *
 * On Postgres ids are taken at insert and become visible at commit, so two writers could
 * commit out of id order and a reader could move past a row not yet visible (the pitfall of
 * an id cursor). `appendEvents` therefore takes a transaction-scoped advisory lock first
 * (EVENTS_LOCK, released at COMMIT or ROLLBACK): event writers run one at a time from their
 * first event to their commit, so ids are again handed out in commit order and the rule
 * above holds on both databases. The writers are a handful of hourly steps and admin
 * actions; the wait costs nothing that matters.
 */
import { and, asc, count, gt, gte, inArray, max, min, sql, type SQL } from 'drizzle-orm'
import { EventEmitter } from 'node:events'
import type { events } from '../../db/schema'
import { lockUntilCommit, type Queryable } from '../db'
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

/** The advisory lock event writers hold on Postgres from their first event to their commit. */
export const EVENTS_LOCK = 'events'

/**
 * Wake-ups for readers in this process: signalled once the transaction that appended events
 * has committed (`afterCommit`; a ROLLBACK signals nothing). Readers in other processes find
 * the rows by their slow poll.
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
export async function appendEvents(tx: Queryable, nowMs: number, list: readonly NewEvent[]): Promise<number[]> {
  if (list.length === 0) return []
  const { events } = tx.t
  // Postgres: ids in commit order (see the top of this file); SQLite has one writer anyway
  await lockUntilCommit(tx, EVENTS_LOCK)
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
    for (const r of await tx.orm.insert(events).values(rows).returning({ id: events.id })) ids.push(r.id)
  }
  tx.afterCommit(queueWakeup)
  return ids
}

function filterSql(events: Queryable['t']['events'], f: EventFilter): SQL[] {
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
export async function eventsAfter(db: Queryable, afterId: number, opts: EventFilter & { limit: number; throughId?: number }): Promise<EventRow[]> {
  const { events } = db.t
  const where = [gt(events.id, afterId), ...filterSql(events, opts)]
  if (opts.throughId !== undefined) where.push(sql`${events.id} <= ${opts.throughId}`)
  return db.orm.select().from(events).where(and(...where)).orderBy(asc(events.id)).limit(opts.limit)
}

/** The newest event id (0 before the first event). */
export async function latestEventId(db: Queryable): Promise<number> {
  const { events } = db.t
  return (await db.orm.select({ m: max(events.id) }).from(events))[0]?.m ?? 0
}

/**
 * The oldest event the feed still replays: the first one created at or after `sinceMs`
 * (the kept window's start), or null when none is. The table itself keeps every event
 * (append-only); the window is what `GET /events` promises to replay.
 */
export async function oldestKeptId(db: Queryable, sinceMs: number): Promise<number | null> {
  const { events } = db.t
  return (await db.orm.select({ m: min(events.id) }).from(events).where(gte(events.createdAt, sinceMs)))[0]?.m ?? null
}

export async function eventCount(db: Queryable): Promise<number> {
  const { events } = db.t
  return (await db.orm.select({ n: count() }).from(events))[0]?.n ?? 0
}
