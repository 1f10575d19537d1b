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
  async subscribe(rawEmail: string, lang: Lang): Promise<void> {
    const email = normaliseEmail(rawEmail)
    const now = this.deps.clock.now()
    const pending = await requestSubscription(this.deps.db, email, lang, now)
    if (pending && (await this.deps.mailer.queueConfirmation(email, lang))) this.deps.mailer.kick()
  }

  async confirm(rawEmail: string, token: string): Promise<LinkOutcome> {
    const email = normaliseEmail(rawEmail)
    const now = this.deps.clock.now()
    if (!(await this.deps.mailer.tokens()).verify('confirm', email, token, now)) return 'forbidden'
    const row = await subscriber(this.deps.db, email)
    if (!row || row.status === 'unsubscribed') return 'forbidden'
    if (row.status === 'active') return 'already'
    await activateSubscriber(this.deps.db, email, now)
    return 'done'
  }

  async unsubscribe(rawEmail: string, token: string): Promise<LinkOutcome> {
    const email = normaliseEmail(rawEmail)
    const now = this.deps.clock.now()
    if (!(await this.deps.mailer.tokens()).verify('unsubscribe', email, token, now)) return 'forbidden'
    const row = await subscriber(this.deps.db, email)
    if (!row || row.status === 'unsubscribed') return 'already'
    await unsubscribeSubscriber(this.deps.db, email, now)
    return 'done'
  }

  /** the language an address asked for (for the answer pages); en when unknown */
  async langOf(rawEmail: string): Promise<Lang> {
    const row = await subscriber(this.deps.db, normaliseEmail(rawEmail))
    return row?.lang === 'ko' ? 'ko' : 'en'
  }
}
