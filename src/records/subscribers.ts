/**
 * The weekly alert's subscribers (subscribers table): written by the subscription routes
 * (src/modules/subscribe/), read by the mail (src/mail/) when it queues and composes the
 * alert. An address is stored in its normalised form (trimmed, lower case).
 */
import { eq } from 'drizzle-orm'
import type { subscribers } from '../../db/schema'
import type { Db, Queryable } from '../db'

export type SubscriberRow = typeof subscribers.$inferSelect

export async function subscriber(db: Queryable, email: string): Promise<SubscriberRow | undefined> {
  const { subscribers } = db.t
  return (await db.orm.select().from(subscribers).where(eq(subscribers.email, email)))[0]
}

/**
 * A subscription request: a new address is stored pending, a pending or unsubscribed one
 * becomes pending again in `lang`; an active one is left as it is. True when the address
 * now waits for its confirmation.
 */
export async function requestSubscription(db: Db, email: string, lang: string, now: number): Promise<boolean> {
  const t = db.t.subscribers
  return db.tx(async tx => {
    const row = (await tx.orm.select().from(t).where(eq(t.email, email)))[0]
    if (!row) {
      await tx.orm.insert(t).values({ email, lang, status: 'pending', createdAtMs: now, updatedAtMs: now })
      return true
    }
    if (row.status === 'active') return false // nothing to confirm; the answer stays the same
    await tx.orm.update(t).set({ status: 'pending', lang, updatedAtMs: now }).where(eq(t.email, email))
    return true
  })
}

export async function activateSubscriber(db: Queryable, email: string, now: number): Promise<void> {
  const { subscribers } = db.t
  await db.orm.update(subscribers).set({ status: 'active', confirmedAtMs: now, updatedAtMs: now }).where(eq(subscribers.email, email))
}

export async function unsubscribeSubscriber(db: Queryable, email: string, now: number): Promise<void> {
  const { subscribers } = db.t
  await db.orm.update(subscribers).set({ status: 'unsubscribed', unsubscribedAtMs: now, updatedAtMs: now }).where(eq(subscribers.email, email))
}

export async function activeSubscribers(db: Queryable): Promise<{ email: string; lang: string }[]> {
  const { subscribers } = db.t
  return db.orm.select({ email: subscribers.email, lang: subscribers.lang }).from(subscribers).where(eq(subscribers.status, 'active'))
}
