/**
 * Subscriptions to the weekly alert: double opt-in (pending until the signed confirmation
 * link is followed), signed unsubscribe links (GET and RFC 8058 one-click POST). The
 * answer to a subscribe request is the same whatever the address's state, and the mail
 * itself goes out from the outbox after the answer, so neither body nor timing tells
 * whether an address was known.
 */
import type { Lang } from '../../cards/labels'
import type { Clock } from '../../clock'
import type { Db } from '../../db'
import type { Mailer } from '../../mail/mailer'
import { activateSubscriber, requestSubscription, subscriber, unsubscribeSubscriber } from '../../records/subscribers'

export type LinkOutcome = 'done' | 'already' | 'forbidden'

/** One address, one spelling: trimmed and in lower case (links are signed over this form). */
export const normaliseEmail = (email: string) => email.trim().toLowerCase()

export class SubscriptionService {
  constructor(private readonly deps: { db: Db; clock: Clock; mailer: Mailer }) {}

  /** (requests per client are limited by the HTTP layer's `subscribe` class, RATE_LIMIT_SUBSCRIBE_PER_MIN) */
  subscribe(rawEmail: string, lang: Lang): void {
    const email = normaliseEmail(rawEmail)
    const now = this.deps.clock.now()
    const pending = requestSubscription(this.deps.db, email, lang, now)
    if (pending && this.deps.mailer.queueConfirmation(email, lang)) this.deps.mailer.kick()
  }

  confirm(rawEmail: string, token: string): LinkOutcome {
    const email = normaliseEmail(rawEmail)
    const now = this.deps.clock.now()
    if (!this.deps.mailer.tokens.verify('confirm', email, token, now)) return 'forbidden'
    const row = subscriber(this.deps.db, email)
    if (!row || row.status === 'unsubscribed') return 'forbidden'
    if (row.status === 'active') return 'already'
    activateSubscriber(this.deps.db, email, now)
    return 'done'
  }

  unsubscribe(rawEmail: string, token: string): LinkOutcome {
    const email = normaliseEmail(rawEmail)
    const now = this.deps.clock.now()
    if (!this.deps.mailer.tokens.verify('unsubscribe', email, token, now)) return 'forbidden'
    const row = subscriber(this.deps.db, email)
    if (!row || row.status === 'unsubscribed') return 'already'
    unsubscribeSubscriber(this.deps.db, email, now)
    return 'done'
  }

  /** the language an address asked for (for the answer pages); en when unknown */
  langOf(rawEmail: string): Lang {
    const row = subscriber(this.deps.db, normaliseEmail(rawEmail))
    return row?.lang === 'ko' ? 'ko' : 'en'
  }
}
