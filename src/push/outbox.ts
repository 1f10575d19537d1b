/**
 * The push outbox (docs/events.md "Webhooks"), on the mail outbox's design: every delivery
 * is a row before anything is sent. `fanOut` reads the events after the cursor and writes
 * one row per (endpoint, event) the endpoint's filters let through, in the same
 * transaction as the cursor's move, so an event is either fanned out whole or not at all.
 * A row is claimed with a lease (claimed_until_ms, owner): a process killed mid-delivery
 * leaves its rows to expire, and the next delivery sends them again (at-least-once; the
 * event id is the `webhook-id`, the receiver's idempotency key).
 */
import { and, count, eq, inArray, isNull, lte, or } from 'drizzle-orm'
import type { Clock } from '../clock'
import { greatest, lockUntilCommit, type Db, type Queryable, type schema } from '../db'
import { eventsAfter, matchesFilter } from '../records/events'
import { activeEndpoints } from '../records/push-endpoints'
import { DAY_MS, HOUR_MS } from '../time'

export type DeliveryRow = typeof schema.pushDeliveries.$inferSelect

/** how long a claimed row is left alone before it counts as abandoned (a batch takes at most BATCH × the timeout) */
export const LEASE_MS = 5 * 60_000
/** rows claimed at once */
export const BATCH = 20
/** the first retry's step; each failure doubles it up to BACKOFF_CAP_MS */
export const BACKOFF_BASE_MS = 30_000
export const BACKOFF_CAP_MS = HOUR_MS
/** a delivery not made this long after its row was written is given up (failed), and the endpoint's health says so */
export const MAX_AGE_MS = DAY_MS
const CURSOR = 'deliveries'
/** events read per fan-out transaction */
const FAN_OUT_EVENTS = 500

/**
 * Wait before the attempt after `attempts` failures: exponential (base × 2^(attempts-1),
 * capped), with "equal jitter": half the step fixed and half drawn at random, so the
 * retries of many rows spread out and none comes sooner than half its step.
 */
export function backoffMs(attempts: number, random: () => number): number {
  const step = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1))
  return Math.round(step / 2 + (random() * step) / 2)
}

export class PushOutbox {
  constructor(private readonly db: Db, private readonly clock: Clock, readonly owner: string) {}

  /** The newest event whose deliveries are written (0 before the first). */
  async cursor(): Promise<number> {
    const c = this.db.t.pushCursor
    return (await this.db.orm.select().from(c).where(eq(c.name, CURSOR)))[0]?.eventId ?? 0
  }

  /**
   * Write the deliveries of every event after the cursor, moving the cursor with them in
   * one transaction per batch of events. Returns the rows written. The cursor is an event
   * id: safe on both databases because event ids are handed out in commit order
   * (src/records/events.ts).
   */
  async fanOut(): Promise<number> {
    const c = this.db.t.pushCursor
    const d = this.db.t.pushDeliveries
    let written = 0
    for (;;) {
      const n = await this.db.tx(async tx => {
        // Postgres: two processes fanning out take turns (the second then reads the moved cursor)
        await lockUntilCommit(tx, 'push_cursor')
        const from = (await tx.orm.select().from(c).where(eq(c.name, CURSOR)))[0]?.eventId ?? 0
        const events = await eventsAfter(tx, from, { limit: FAN_OUT_EVENTS })
        if (events.length === 0) return -1
        const endpoints = await activeEndpoints(tx)
        const now = this.clock.now()
        const rows: (typeof schema.pushDeliveries.$inferInsert)[] = []
        for (const e of events)
          for (const ep of endpoints)
            if (e.id > ep.afterEventId && matchesFilter(e, { kinds: ep.kinds, strategies: ep.strategies, coins: ep.coins, statuses: ep.statuses }))
              rows.push({ endpointId: ep.id, eventId: e.id, status: 'pending', attempts: 0, nextAttemptAtMs: now, createdAtMs: now })
        for (let i = 0; i < rows.length; i += 100) await tx.orm.insert(d).values(rows.slice(i, i + 100)).onConflictDoNothing()
        const last = events[events.length - 1]!.id
        // the larger: another process on the same database may have moved it further meanwhile
        await tx.orm.insert(c).values({ name: CURSOR, eventId: last }).onConflictDoUpdate({ target: c.name, set: { eventId: greatest(tx, c.eventId, last) } })
        return rows.length
      })
      if (n < 0) return written
      written += n
    }
  }

  /**
   * Claim up to `limit` due rows for this owner: pending ones whose time has come, and ones
   * whose lease ran out (their process died mid-send), of endpoints that are neither removed
   * nor paused by a rate limit. One UPDATE … RETURNING, which re-checks the row's state: two
   * processes never claim one row (on Postgres the second's UPDATE waits for the first's
   * row lock and then finds the row no longer due).
   */
  async claim(limit = BATCH): Promise<DeliveryRow[]> {
    const now = this.clock.now()
    const d = this.db.t.pushDeliveries
    const e = this.db.t.pushEndpoints
    const isDue = or(and(eq(d.status, 'pending'), lte(d.nextAttemptAtMs, now)), and(eq(d.status, 'sending'), lte(d.claimedUntilMs, now)))
    const due = this.db.orm
      .select({ id: d.id })
      .from(d)
      .innerJoin(e, eq(e.id, d.endpointId))
      .where(and(isDue, isNull(e.disabledAtMs), lte(e.pausedUntilMs, now)))
      .orderBy(d.nextAttemptAtMs, d.id)
      .limit(limit)
    const rows = await this.db.orm
      .update(d)
      .set({ status: 'sending', claimedUntilMs: now + LEASE_MS, owner: this.owner })
      .where(and(inArray(d.id, due), isDue))
      .returning()
    return rows.sort((a, b) => a.id - b.id)
  }

  async delivered(row: DeliveryRow, status: number): Promise<void> {
    const d = this.db.t.pushDeliveries
    await this.db.orm
      .update(d)
      .set({ status: 'delivered', attempts: row.attempts + 1, deliveredAtMs: this.clock.now(), lastStatus: status, lastError: null, claimedUntilMs: null })
      .where(and(eq(d.id, row.id), eq(d.status, 'sending')))
  }

  /** A failed attempt, tried again at `nextAtMs`. */
  async retry(row: DeliveryRow, status: number | null, error: string, nextAtMs: number): Promise<void> {
    const d = this.db.t.pushDeliveries
    await this.db.orm
      .update(d)
      .set({ status: 'pending', attempts: row.attempts + 1, nextAttemptAtMs: nextAtMs, lastStatus: status, lastError: error.slice(0, 1000), claimedUntilMs: null })
      .where(and(eq(d.id, row.id), eq(d.status, 'sending')))
  }

  /** Given up: `attempted` says whether this call follows an attempt (counted) or none was made. */
  async failed(row: DeliveryRow, status: number | null, error: string, attempted: boolean): Promise<void> {
    const d = this.db.t.pushDeliveries
    await this.db.orm
      .update(d)
      .set({ status: 'failed', attempts: row.attempts + (attempted ? 1 : 0), lastStatus: status, lastError: error.slice(0, 1000), claimedUntilMs: null })
      .where(and(eq(d.id, row.id), eq(d.status, 'sending')))
  }

  /** Not attempted now (the receiver asked us to wait): back to pending at `untilMs`, no attempt counted. */
  async postpone(row: DeliveryRow, untilMs: number, reason: string): Promise<void> {
    const d = this.db.t.pushDeliveries
    await this.db.orm
      .update(d)
      .set({ status: 'pending', nextAttemptAtMs: untilMs, lastError: reason.slice(0, 1000), claimedUntilMs: null })
      .where(and(eq(d.id, row.id), eq(d.status, 'sending')))
  }

  /** A claimed row handed back unattempted (the process is stopping): due again at once, no attempt counted. */
  async release(row: DeliveryRow): Promise<void> {
    const d = this.db.t.pushDeliveries
    await this.db.orm.update(d).set({ status: 'pending', nextAttemptAtMs: this.clock.now(), claimedUntilMs: null }).where(and(eq(d.id, row.id), eq(d.status, 'sending'), eq(d.owner, this.owner)))
  }

  /** The waiting rows of a removed endpoint (one being sent right now may still arrive; its outcome is then not written). */
  static async cancelPending(db: Queryable, endpointId: number): Promise<number> {
    const d = db.t.pushDeliveries
    return (await db.orm.update(d).set({ status: 'cancelled' }).where(and(eq(d.endpointId, endpointId), inArray(d.status, ['pending', 'sending']))).returning({ id: d.id })).length
  }

  /** Whether any delivery refers to the endpoint (then it is disabled, not deleted). */
  static async referenced(db: Queryable, endpointId: number): Promise<boolean> {
    const d = db.t.pushDeliveries
    return (await db.orm.select({ id: d.id }).from(d).where(eq(d.endpointId, endpointId)).limit(1)).length > 0
  }

  /** Rows per endpoint and status (the endpoints' health in GET /admin/webhooks). */
  static async counts(db: Queryable): Promise<Map<number, Record<string, number>>> {
    const d = db.t.pushDeliveries
    const out = new Map<number, Record<string, number>>()
    for (const r of await db.orm.select({ endpointId: d.endpointId, status: d.status, n: count() }).from(d).groupBy(d.endpointId, d.status)) {
      const m = out.get(r.endpointId) ?? {}
      m[r.status] = r.n
      out.set(r.endpointId, m)
    }
    return out
  }
}
