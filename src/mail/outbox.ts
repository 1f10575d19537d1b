/**
 * The outbox: every mail to send is a row (kind, recipient, week) before anything is
 * sent, and each row moves pending → sending → sent (or failed after MAX_ATTEMPTS, or at
 * once on a permanent SMTP refusal). A row being sent holds a lease; a process that dies
 * mid-send leaves it to expire, and the row is sent by the next delivery. The unique
 * (kind, recipient, week) key means a rerun queues nothing twice.
 */
import { and, count, eq, inArray, lte, or, sql } from 'drizzle-orm'
import type { Clock } from '../clock'
import { schema, type Db } from '../db'
import { HOUR_MS } from '../time'

export type MailKind = 'confirm' | 'weekly'
export type OutboxRow = typeof schema.mailOutbox.$inferSelect

export const MAX_ATTEMPTS = 6
/** wait before attempt n+1 after n failures (the last value repeats) */
export const BACKOFF_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * HOUR_MS, 12 * HOUR_MS]
/** how long a claimed row is left alone before it counts as abandoned */
export const LEASE_MS = 10 * 60_000

export interface NewMail {
  kind: MailKind
  recipient: string
  week: string
  lang: string
}

export class Outbox {
  constructor(private readonly db: Db, private readonly clock: Clock) {}

  /** Queue mails (in one transaction); rows already queued are left as they are. Returns how many were new. */
  async enqueue(mails: NewMail[]): Promise<number> {
    const now = this.clock.now()
    const t = this.db.t.mailOutbox
    let added = 0
    await this.db.tx(async tx => {
      for (let i = 0; i < mails.length; i += 500) {
        const res = await tx.orm
          .insert(t)
          .values(mails.slice(i, i + 500).map(m => ({ ...m, status: 'pending', attempts: 0, nextAttemptAtMs: now, createdAtMs: now })))
          .onConflictDoNothing()
          .returning({ id: t.id })
        added += res.length
      }
    })
    return added
  }

  /** Claim up to `limit` due rows (pending, or sending with an expired lease) for this delivery. */
  async claim(limit: number): Promise<OutboxRow[]> {
    const now = this.clock.now()
    const t = this.db.t.mailOutbox
    return this.db.tx(async tx => {
      // FOR UPDATE on Postgres: a second process's claim waits for this one and then skips
      // what it took (SQLite's IMMEDIATE transaction already lets one claimer in at a time)
      const q = tx.orm
        .select()
        .from(t)
        .where(and(or(eq(t.status, 'pending'), eq(t.status, 'sending')), lte(t.nextAttemptAtMs, now)))
        .orderBy(t.nextAttemptAtMs, t.id)
        .limit(limit)
      const due = tx.dialect === 'postgres' ? await (q as unknown as { for(s: 'update'): typeof q }).for('update') : await q
      if (due.length) await tx.orm.update(t).set({ status: 'sending', nextAttemptAtMs: now + LEASE_MS }).where(inArray(t.id, due.map(r => r.id)))
      return due
    })
  }

  async sent(id: number): Promise<void> {
    const t = this.db.t.mailOutbox
    await this.db.orm.update(t).set({ status: 'sent', attempts: sql`${t.attempts} + 1`, sentAtMs: this.clock.now(), lastError: null }).where(eq(t.id, id))
  }

  /** A failed attempt: retried after its backoff, or failed for good. */
  async failed(row: OutboxRow, error: string, permanent: boolean): Promise<'retry' | 'failed'> {
    const attempts = row.attempts + 1
    const final = permanent || attempts >= MAX_ATTEMPTS
    const t = this.db.t.mailOutbox
    await this.db.orm
      .update(t)
      .set({
        status: final ? 'failed' : 'pending',
        attempts,
        lastError: error.slice(0, 1000),
        nextAttemptAtMs: this.clock.now() + BACKOFF_MS[Math.min(attempts - 1, BACKOFF_MS.length - 1)],
      })
      .where(eq(t.id, row.id))
    return final ? 'failed' : 'retry'
  }

  /**
   * Claimed rows that could not be attempted (the server could not be reached): back to
   * pending after `delayMs`, no attempt counted, the reason kept.
   */
  async postpone(ids: number[], delayMs: number, error: string): Promise<void> {
    if (ids.length === 0) return
    const t = this.db.t.mailOutbox
    await this.db.orm.update(t).set({ status: 'pending', nextAttemptAtMs: this.clock.now() + delayMs, lastError: error.slice(0, 1000) }).where(inArray(t.id, ids))
  }

  /** A row with nothing to send any more (its recipient left before it went out). */
  async cancelled(id: number): Promise<void> {
    const t = this.db.t.mailOutbox
    await this.db.orm.update(t).set({ status: 'cancelled' }).where(eq(t.id, id))
  }

  async counts(week?: string): Promise<Record<string, number>> {
    const t = this.db.t.mailOutbox
    const rows = await this.db.orm
      .select({ status: t.status, n: count() })
      .from(t)
      .where(week ? eq(t.week, week) : undefined)
      .groupBy(t.status)
    return Object.fromEntries(rows.map(r => [r.status, r.n]))
  }
}
