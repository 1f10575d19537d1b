/**
 * Subscriptions to the weekly alert: double opt-in (pending until the signed confirmation
 * link is followed), signed unsubscribe links (GET and RFC 8058 one-click POST). The
 * answer to a subscribe request is the same whatever the address's state, and the mail
 * itself goes out from the outbox after the answer, so neither body nor timing tells
 * whether an address was known.
 */
import { eq } from 'drizzle-orm'
import type { Lang } from '../../cards/labels'
import type { Clock } from '../../clock'
import { schema, type Db } from '../../db'
import type { Mailer } from '../../mail/mailer'

export type LinkOutcome = 'done' | 'already' | 'forbidden'

/** One address, one spelling: trimmed and in lower case (links are signed over this form). */
export const normaliseEmail = (email: string) => email.trim().toLowerCase()

export class SubscriptionService {
  constructor(private readonly deps: { db: Db; clock: Clock; mailer: Mailer }) {}

  /** (requests per client are limited by the HTTP layer's `subscribe` class, RATE_LIMIT_SUBSCRIBE_PER_MIN) */
  subscribe(rawEmail: string, lang: Lang): void {
    const email = normaliseEmail(rawEmail)
    const now = this.deps.clock.now()
    const t = schema.subscribers
    const pending = this.deps.db.transaction(tx => {
      const row = tx.select().from(t).where(eq(t.email, email)).get()
      if (!row) {
        tx.insert(t).values({ email, lang, status: 'pending', createdAtMs: now, updatedAtMs: now }).run()
        return true
      }
      if (row.status === 'active') return false // nothing to confirm; the answer stays the same
      tx.update(t).set({ status: 'pending', lang, updatedAtMs: now }).where(eq(t.email, email)).run()
      return true
    })
    if (pending && this.deps.mailer.queueConfirmation(email, lang)) this.deps.mailer.kick()
  }

  confirm(rawEmail: string, token: string): LinkOutcome {
    const email = normaliseEmail(rawEmail)
    const now = this.deps.clock.now()
    if (!this.deps.mailer.tokens.verify('confirm', email, token, now)) return 'forbidden'
    const t = schema.subscribers
    const row = this.deps.db.select().from(t).where(eq(t.email, email)).get()
    if (!row || row.status === 'unsubscribed') return 'forbidden'
    if (row.status === 'active') return 'already'
    this.deps.db.update(t).set({ status: 'active', confirmedAtMs: now, updatedAtMs: now }).where(eq(t.email, email)).run()
    return 'done'
  }

  unsubscribe(rawEmail: string, token: string): LinkOutcome {
    const email = normaliseEmail(rawEmail)
    const now = this.deps.clock.now()
    if (!this.deps.mailer.tokens.verify('unsubscribe', email, token, now)) return 'forbidden'
    const t = schema.subscribers
    const row = this.deps.db.select().from(t).where(eq(t.email, email)).get()
    if (!row || row.status === 'unsubscribed') return 'already'
    this.deps.db.update(t).set({ status: 'unsubscribed', unsubscribedAtMs: now, updatedAtMs: now }).where(eq(t.email, email)).run()
    return 'done'
  }

  /** the language an address asked for (for the answer pages); en when unknown */
  langOf(rawEmail: string): Lang {
    const row = this.deps.db.select({ lang: schema.subscribers.lang }).from(schema.subscribers).where(eq(schema.subscribers.email, normaliseEmail(rawEmail))).get()
    return row?.lang === 'ko' ? 'ko' : 'en'
  }
}
