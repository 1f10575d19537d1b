/**
 * The push endpoints (docs/events.md "Webhooks"): registered by the admin routes, read and
 * kept healthy by the push outbox (src/push/). Health is written here by every attempt: the
 * last success and failure, failures since the last success, deliveries given up on.
 */
import { and, eq, isNull, sql } from 'drizzle-orm'
import { schema, type Db } from '../db'
import { latestEventId } from './events'

export type PushEndpointRow = typeof schema.pushEndpoints.$inferSelect
export type SinkKind = 'webhook' | 'telegram' | 'discord'
export const SINK_KINDS: readonly SinkKind[] = ['webhook', 'telegram', 'discord']

export interface NewPushEndpoint {
  sink: SinkKind
  url: string | null
  secret: string | null
  telegramBotToken: string | null
  telegramChatId: string | null
  lang: 'en' | 'ko'
  kinds: string[]
  strategies: string[]
  coins: string[]
  statuses: string[]
}

/**
 * Register an endpoint; it is sent the events committed after this moment (the newest
 * event id is read in the same transaction as the insert).
 */
export function addEndpoint(db: Db, nowMs: number, e: NewPushEndpoint): PushEndpointRow {
  return db.transaction(tx => {
    const after = latestEventId(tx as unknown as Db)
    return tx.insert(schema.pushEndpoints).values({ ...e, createdAtMs: nowMs, afterEventId: after }).returning().get()
  })
}

/** Endpoints that are not removed, oldest first. */
export function activeEndpoints(db: Db): PushEndpointRow[] {
  const t = schema.pushEndpoints
  return db.select().from(t).where(isNull(t.disabledAtMs)).orderBy(t.id).all()
}

export function endpointById(db: Db, id: number): PushEndpointRow | undefined {
  return db.select().from(schema.pushEndpoints).where(eq(schema.pushEndpoints.id, id)).get()
}

/** A Discord webhook URL with its token part (the last path segment) replaced. */
export function redactDiscordUrl(url: string): string {
  return url.replace(/\/webhooks\/(\d+)\/[^/?#]+/, '/webhooks/$1/…')
}

/**
 * Remove an endpoint: deleted when no delivery refers to it, else disabled with its
 * credentials erased (its deliveries stay as the record of what was sent; pending ones are
 * cancelled by the caller's outbox). Returns what was done, or null for an unknown or
 * already removed endpoint.
 */
export function removeEndpoint(db: Db, nowMs: number, id: number, referenced: (tx: Db) => boolean): 'deleted' | 'disabled' | null {
  const t = schema.pushEndpoints
  return db.transaction(txn => {
    const tx = txn as unknown as Db
    const row = tx.select().from(t).where(and(eq(t.id, id), isNull(t.disabledAtMs))).get()
    if (!row) return null
    if (!referenced(tx)) {
      tx.delete(t).where(eq(t.id, id)).run()
      return 'deleted'
    }
    tx.update(t)
      .set({ disabledAtMs: nowMs, secret: null, telegramBotToken: null, url: row.sink === 'discord' && row.url ? redactDiscordUrl(row.url) : row.url })
      .where(eq(t.id, id))
      .run()
    return 'disabled'
  })
}

/** A delivery reached the endpoint. */
export function recordSuccess(db: Db, id: number, nowMs: number): void {
  const t = schema.pushEndpoints
  db.update(t).set({ lastSuccessAtMs: nowMs, consecutiveFailures: 0 }).where(eq(t.id, id)).run()
}

/** An attempt failed; `givenUp`: the delivery was marked failed for good. */
export function recordFailure(db: Db, id: number, nowMs: number, error: string, givenUp: boolean): void {
  const t = schema.pushEndpoints
  db.update(t)
    .set({
      lastFailureAtMs: nowMs,
      lastError: error.slice(0, 500),
      consecutiveFailures: sql`${t.consecutiveFailures} + 1`,
      failedDeliveries: givenUp ? sql`${t.failedDeliveries} + 1` : t.failedDeliveries,
    })
    .where(eq(t.id, id))
    .run()
}

/** A delivery given up on without an attempt of its own (it outlived the maximum age waiting). */
export function recordGivenUp(db: Db, id: number, nowMs: number, error: string): void {
  const t = schema.pushEndpoints
  db.update(t).set({ lastFailureAtMs: nowMs, lastError: error.slice(0, 500), failedDeliveries: sql`${t.failedDeliveries} + 1` }).where(eq(t.id, id)).run()
}

/** The receiver asked for a pause (a 429, an exhausted rate-limit bucket): nothing goes to it before `untilMs`. */
export function pauseEndpoint(db: Db, id: number, untilMs: number): void {
  const t = schema.pushEndpoints
  db.update(t).set({ pausedUntilMs: sql`max(${t.pausedUntilMs}, ${untilMs})` }).where(eq(t.id, id)).run()
}
