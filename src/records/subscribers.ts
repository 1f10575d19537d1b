/**
 * The weekly alert's subscribers (subscribers table): written by the subscription routes
 * (src/modules/subscribe/), read by the mail (src/mail/) when it queues and composes the
 * alert. An address is stored in its normalised form (trimmed, lower case).
 */
import { eq } from 'drizzle-orm'
import { subscribers } from '../../db/schema'
import type { Db } from '../db'

export type SubscriberRow = typeof subscribers.$inferSelect

export function subscriber(db: Db, email: string): SubscriberRow | undefined {
  return db.select().from(subscribers).where(eq(subscribers.email, email)).get()
}

/**
 * A subscription request: a new address is stored pending, a pending or unsubscribed one
 * becomes pending again in `lang`; an active one is left as it is. True when the address
 * now waits for its confirmation.
 */
export function requestSubscription(db: Db, email: string, lang: string, now: number): boolean {
  const t = subscribers
  return db.transaction(tx => {
    const row = tx.select().from(t).where(eq(t.email, email)).get()
    if (!row) {
      tx.insert(t).values({ email, lang, status: 'pending', createdAtMs: now, updatedAtMs: now }).run()
      return true
    }
    if (row.status === 'active') return false // nothing to confirm; the answer stays the same
    tx.update(t).set({ status: 'pending', lang, updatedAtMs: now }).where(eq(t.email, email)).run()
    return true
  })
}

export function activateSubscriber(db: Db, email: string, now: number): void {
  db.update(subscribers).set({ status: 'active', confirmedAtMs: now, updatedAtMs: now }).where(eq(subscribers.email, email)).run()
}

export function unsubscribeSubscriber(db: Db, email: string, now: number): void {
  db.update(subscribers).set({ status: 'unsubscribed', unsubscribedAtMs: now, updatedAtMs: now }).where(eq(subscribers.email, email)).run()
}

export function activeSubscribers(db: Db): { email: string; lang: string }[] {
  return db.select({ email: subscribers.email, lang: subscribers.lang }).from(subscribers).where(eq(subscribers.status, 'active')).all()
}
