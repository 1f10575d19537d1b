/**
 * The push endpoints (docs/events.md "Webhooks"): registered by the admin routes, read and
 * kept healthy by the push outbox (src/push/). Health is written here by every attempt: the
 * last success and failure, failures since the last success, deliveries given up on.
 */
import { and, eq, isNull, sql } from 'drizzle-orm'
import { greatest, schema, type Db, type Queryable } from '../db'
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
export async function addEndpoint(db: Db, nowMs: number, e: NewPushEndpoint): Promise<PushEndpointRow> {
  return db.tx(async tx => {
    const after = await latestEventId(tx)
    return (await tx.orm.insert(tx.t.pushEndpoints).values({ ...e, createdAtMs: nowMs, afterEventId: after }).returning())[0]!
  })
}

/** Endpoints that are not removed, oldest first. */
export async function activeEndpoints(db: Queryable): Promise<PushEndpointRow[]> {
  const t = db.t.pushEndpoints
  return db.orm.select().from(t).where(isNull(t.disabledAtMs)).orderBy(t.id)
}

export async function endpointById(db: Queryable, id: number): Promise<PushEndpointRow | undefined> {
  const t = db.t.pushEndpoints
  return (await db.orm.select().from(t).where(eq(t.id, id)))[0]
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
export async function removeEndpoint(db: Db, nowMs: number, id: number, referenced: (tx: Queryable) => Promise<boolean>): Promise<'deleted' | 'disabled' | null> {
  const t = db.t.pushEndpoints
  return db.tx(async tx => {
    const row = (await tx.orm.select().from(t).where(and(eq(t.id, id), isNull(t.disabledAtMs))))[0]
    if (!row) return null
    if (!(await referenced(tx))) {
      await tx.orm.delete(t).where(eq(t.id, id))
      return 'deleted'
    }
    await tx.orm
      .update(t)
      .set({ disabledAtMs: nowMs, secret: null, telegramBotToken: null, url: row.sink === 'discord' && row.url ? redactDiscordUrl(row.url) : row.url })
      .where(eq(t.id, id))
    return 'disabled'
  })
}

/** A delivery reached the endpoint. */
export async function recordSuccess(db: Queryable, id: number, nowMs: number): Promise<void> {
  const t = db.t.pushEndpoints
  await db.orm.update(t).set({ lastSuccessAtMs: nowMs, consecutiveFailures: 0 }).where(eq(t.id, id))
}

/** An attempt failed; `givenUp`: the delivery was marked failed for good. */
export async function recordFailure(db: Queryable, id: number, nowMs: number, error: string, givenUp: boolean): Promise<void> {
  const t = db.t.pushEndpoints
  await db.orm
    .update(t)
    .set({
      lastFailureAtMs: nowMs,
      lastError: error.slice(0, 500),
      consecutiveFailures: sql`${t.consecutiveFailures} + 1`,
      failedDeliveries: givenUp ? sql`${t.failedDeliveries} + 1` : t.failedDeliveries,
    })
    .where(eq(t.id, id))
}

/** A delivery given up on without an attempt of its own (it outlived the maximum age waiting). */
export async function recordGivenUp(db: Queryable, id: number, nowMs: number, error: string): Promise<void> {
  const t = db.t.pushEndpoints
  await db.orm.update(t).set({ lastFailureAtMs: nowMs, lastError: error.slice(0, 500), failedDeliveries: sql`${t.failedDeliveries} + 1` }).where(eq(t.id, id))
}

/** The receiver asked for a pause (a 429, an exhausted rate-limit bucket): nothing goes to it before `untilMs`. */
export async function pauseEndpoint(db: Queryable, id: number, untilMs: number): Promise<void> {
  const t = db.t.pushEndpoints
  await db.orm.update(t).set({ pausedUntilMs: greatest(db, t.pausedUntilMs, untilMs) }).where(eq(t.id, id))
}
