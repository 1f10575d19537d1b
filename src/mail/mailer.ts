/**
 * The mail service: queues mails in the outbox, builds each one when it is sent (signed
 * links, the week's frozen digest, the recipient's language) and hands it to the
 * transport, retrying with backoff. One delivery runs at a time per process.
 */
import { eq } from 'drizzle-orm'
import type { Lang } from '../cards/labels'
import type { Clock } from '../clock'
import type { Config } from '../config'
import { join } from 'node:path'
import type { Db } from '../db'
import type { Logger } from '../log'
import { subscriber } from '../records/subscribers'
import { isoWeek } from './iso-week'
import { confirmationMail, weeklyMail, type MailContent } from './messages'
import { BACKOFF_MS, Outbox, type OutboxRow } from './outbox'
import { CONFIRM_TTL_DAYS, linkSecret, LinkTokens } from './tokens'
import { mailTransport, SendFailed, type MailTransport } from './transport'
import type { DigestRow, WeeklyDigest } from './weekly-digest'

export interface MailerDeps {
  db: Db
  clock: Clock
  transport: MailTransport
  /** origin of the links in mails, e.g. https://perpsim.example.org */
  baseUrl: string
  log: Logger
}

export interface DeliveryReport {
  sent: number
  retrying: number
  failed: number
  cancelled: number
  /** claimed but not attempted: the server could not be reached (they wait for the next delivery) */
  postponed: number
}

const BATCH = 200

export class Mailer {
  readonly outbox: Outbox
  private linkTokens: Promise<LinkTokens> | null = null
  private delivering: Promise<DeliveryReport> | null = null

  constructor(private readonly deps: MailerDeps) {
    this.outbox = new Outbox(deps.db, deps.clock)
  }

  /** The signer of the mails' links, over the key the database keeps (read, or made, on first use). */
  tokens(): Promise<LinkTokens> {
    this.linkTokens ??= linkSecret(this.deps.db, this.deps.clock.now()).then(
      key => new LinkTokens(key),
      e => {
        this.linkTokens = null // a failed read is tried again
        throw e
      },
    )
    return this.linkTokens
  }

  close(): void {
    this.deps.transport.close()
  }

  get transportDescription(): string {
    return this.deps.transport.description
  }

  private link(path: string, email: string, token: string): string {
    return `${this.deps.baseUrl}${path}?${new URLSearchParams({ email, token })}`
  }

  async confirmUrl(email: string): Promise<string> {
    return this.link('/api/subscribe/confirm', email, (await this.tokens()).sign('confirm', email, this.deps.clock.now()))
  }

  async unsubscribeUrl(email: string): Promise<string> {
    return this.link('/api/unsubscribe', email, (await this.tokens()).sign('unsubscribe', email, this.deps.clock.now()))
  }

  shareUrl(row: DigestRow, lang: Lang): string {
    return `${this.deps.baseUrl}/share?${new URLSearchParams({ ...row.share, lang })}`
  }

  /** Queue the confirmation mail (at most one per address and week: repeats change nothing). */
  async queueConfirmation(email: string, lang: Lang): Promise<boolean> {
    return (await this.outbox.enqueue([{ kind: 'confirm', recipient: email, week: isoWeek(this.deps.clock.now()), lang }])) > 0
  }

  /**
   * Start a delivery in the background unless one is running (errors are logged). It starts
   * on a later turn of the event loop, so a request that queued a mail is answered first
   * (and no faster or slower for it).
   */
  kick(): void {
    setTimeout(() => this.deliverDue().catch(e => this.deps.log.error(`mail delivery failed: ${(e as Error)?.stack ?? e}`)), 0)
  }

  /** Send every due mail; a second call while one runs joins it. */
  deliverDue(): Promise<DeliveryReport> {
    this.delivering ??= this.deliver().finally(() => (this.delivering = null))
    return this.delivering
  }

  private async deliver(): Promise<DeliveryReport> {
    const report: DeliveryReport = { sent: 0, retrying: 0, failed: 0, cancelled: 0, postponed: 0 }
    const digests = new Map<string, WeeklyDigest | null>()
    let unreachable = false
    while (!unreachable) {
      const rows = await this.outbox.claim(BATCH)
      if (rows.length === 0) break
      for (const [i, row] of rows.entries()) {
        try {
          const mail = await this.compose(row, digests)
          if (mail === null) {
            await this.outbox.cancelled(row.id)
            report.cancelled++
            continue
          }
          await this.deps.transport.send({ key: `${row.kind}-${row.week}-${row.id}`, to: row.recipient, ...mail })
          await this.outbox.sent(row.id)
          report.sent++
        } catch (e) {
          const error = String((e as Error)?.message ?? e)
          if (e instanceof SendFailed && e.unreachable) {
            // the server is not there: this row and the rest of the batch wait for the next
            // delivery, no attempt counted (an outage must not use up a mail's attempts)
            const waiting = rows.slice(i).map(r => r.id)
            await this.outbox.postpone(waiting, BACKOFF_MS[0], error)
            report.postponed += waiting.length
            this.deps.log.warn(`mail: ${this.deps.transport.description} unreachable (${error}); ${waiting.length} mail(s) wait for the next delivery`)
            unreachable = true
            break
          }
          const permanent = e instanceof SendFailed && e.permanent
          const outcome = await this.outbox.failed(row, error, permanent)
          if (outcome === 'failed') report.failed++
          else report.retrying++
          this.deps.log.warn(`mail ${row.kind} ${row.week} to row ${row.id}: ${outcome === 'failed' ? 'failed for good' : 'will retry'}: ${error}`)
        }
      }
      await new Promise<void>(r => setImmediate(r)) // let requests in between batches
    }
    if (report.sent + report.failed + report.retrying + report.postponed > 0)
      this.deps.log.info(`mail: ${report.sent} sent (${this.deps.transport.description}), ${report.retrying} to retry, ${report.postponed} postponed (server unreachable), ${report.failed} failed, ${report.cancelled} cancelled`)
    return report
  }

  /** The mail of an outbox row, or null when its recipient no longer wants it. */
  private async compose(row: OutboxRow, digests: Map<string, WeeklyDigest | null>): Promise<(MailContent & { unsubscribeUrl?: string }) | null> {
    const sub = await subscriber(this.deps.db, row.recipient)
    const lang: Lang = row.lang === 'ko' ? 'ko' : 'en'
    if (row.kind === 'confirm') {
      if (!sub || sub.status !== 'pending') return null
      return confirmationMail(lang, await this.confirmUrl(row.recipient), CONFIRM_TTL_DAYS)
    }
    if (!sub || sub.status !== 'active') return null
    if (!digests.has(row.week)) {
      const t = this.deps.db.t.weeklyDigests
      const d = (await this.deps.db.orm.select().from(t).where(eq(t.week, row.week)))[0]
      digests.set(row.week, (d?.payload as WeeklyDigest | undefined) ?? null)
    }
    const digest = digests.get(row.week)
    if (!digest) throw new Error(`no weekly digest stored for ${row.week}`)
    const unsubscribeUrl = await this.unsubscribeUrl(row.recipient)
    return { ...weeklyMail(digest, lang, { share: r => this.shareUrl(r, lang), unsubscribe: unsubscribeUrl }), unsubscribeUrl }
  }
}

/** The mailer the configuration describes: SMTP_URL or the file outbox, links on PUBLIC_URL (else localhost:PORT). */
export function mailerFor(config: Config, db: Db, clock: Clock, log: Logger): Mailer {
  const transport = mailTransport(config.mail, config.dataDir)
  const baseUrl = config.publicUrl ?? `http://localhost:${config.port}`
  if (!config.mail.smtpUrl) log.info(`mail: SMTP_URL is not set; mails are written as .eml files to ${join(config.dataDir, 'outbox')}`)
  if (!config.publicUrl) log.info(`mail: PUBLIC_URL is not set; links in mails point at ${baseUrl}`)
  return new Mailer({ db, clock, transport, baseUrl, log })
}
