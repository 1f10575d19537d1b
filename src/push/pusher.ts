/**
 * The push delivery: fans the new events out into the outbox, then sends every due row
 * through its endpoint's sink (a signed webhook, Telegram, Discord), retrying with backoff
 * and jitter until the row's maximum age, honouring each receiver's rate limit (a 429's
 * wait pauses the whole endpoint, so nothing hammers it meanwhile). Endpoints are served
 * side by side, each one's rows one after another. One delivery runs at a time per process;
 * several processes share the outbox through its leases.
 */
import { randomUUID } from 'node:crypto'
import type { Lang } from '../cards/labels'
import type { Clock } from '../clock'
import type { PushConfig } from '../config'
import type { Db } from '../db'
import { compactDay, HOUR_MS, isoInstant } from '../time'
import type { Logger } from '../log'
import { gatherDigest } from '../mail/weekly'
import { eventsAfter, type EventRow } from '../records/events'
import { endpointById, pauseEndpoint, recordFailure, recordGivenUp, recordSuccess, type PushEndpointRow } from '../records/push-endpoints'
import { sealedDayOf, sealedRoot } from '../records/merkle-leaves'
import { canonicalJson } from '../engine/canonical-json'
import { eventText, isoDate, pingText, type MessageLinks, type RankingPayload, type ScoredPayload } from './messages'
import { backoffMs, MAX_AGE_MS, PushOutbox, type DeliveryRow } from './outbox'
import { sendDiscord, sendTelegram, sendWebhook, type SendOutcome } from './sinks'
import { refusedTarget, systemResolver, type Resolver } from './targets'

export interface PusherDeps {
  db: Db
  clock: Clock
  config: PushConfig
  /** the service's public origin for the links in messages */
  baseUrl: string
  log: Logger
  /** host name resolution for the target check (tests: made-up names without DNS) */
  resolve?: Resolver
  /** the jitter's source (tests: a fixed value) */
  random?: () => number
}

export interface PushReport {
  fannedOut: number
  delivered: number
  retrying: number
  failed: number
  /** not attempted: the receiver had asked us to wait */
  postponed: number
}

export interface PingResult {
  delivered: boolean
  /** the receiver's HTTP status (null: no answer) */
  status: number | null
  error: string | null
  webhook_id: string
}

const dayKeyOfMs = compactDay

/** The body of a webhook delivery: the event as the stream serves it, in canonical JSON. */
export function webhookBody(e: Pick<EventRow, 'id' | 'kind' | 'createdAt' | 'payload'>): string {
  return canonicalJson({ id: e.id, type: e.kind, timestamp: isoInstant(e.createdAt), data: JSON.parse(e.payload) })
}

export class Pusher {
  readonly outbox: PushOutbox
  private delivering: Promise<PushReport> | null = null
  private stopping = false
  private readonly resolve: Resolver
  private readonly random: () => number

  constructor(private readonly deps: PusherDeps) {
    this.outbox = new PushOutbox(deps.db, deps.clock, `${process.pid}:${randomUUID().slice(0, 8)}`)
    this.resolve = deps.resolve ?? systemResolver
    this.random = deps.random ?? Math.random
  }

  /** Why `url` may not be a webhook target now, or null (docs/events.md "Webhooks": no request forgery). */
  refusedTarget(url: string): Promise<string | null> {
    return refusedTarget(url, { allowPrivate: this.deps.config.allowPrivate, resolve: this.resolve })
  }

  /**
   * Stop (the service is shutting down): no new batch is claimed, the rows claimed and not
   * yet attempted are handed back (so a restart need not wait out their lease), and the
   * attempts in flight finish. Resolves when the delivery has ended.
   */
  async stop(): Promise<void> {
    this.stopping = true
    await this.delivering?.catch(() => undefined)
  }

  /** Fan out and send every due delivery; a second call while one runs joins it. */
  deliverDue(): Promise<PushReport> {
    if (this.stopping) return Promise.resolve({ fannedOut: 0, delivered: 0, retrying: 0, failed: 0, postponed: 0 })
    this.delivering ??= this.deliver().finally(() => (this.delivering = null))
    return this.delivering
  }

  private async deliver(): Promise<PushReport> {
    const report: PushReport = { fannedOut: await this.outbox.fanOut(), delivered: 0, retrying: 0, failed: 0, postponed: 0 }
    while (!this.stopping) {
      const rows = await this.outbox.claim()
      if (rows.length === 0) break
      const byEndpoint = new Map<number, DeliveryRow[]>()
      for (const r of rows) byEndpoint.set(r.endpointId, [...(byEndpoint.get(r.endpointId) ?? []), r])
      await Promise.all([...byEndpoint].map(([id, list]) => this.deliverTo(id, list, report)))
      await new Promise<void>(r => setImmediate(r)) // let requests in between batches
    }
    if (report.delivered + report.failed + report.retrying + report.postponed > 0)
      this.deps.log.info(`push: ${report.delivered} delivered, ${report.retrying} to retry, ${report.postponed} postponed (rate limited), ${report.failed} failed`)
    return report
  }

  /** One endpoint's claimed rows, in order; after a rate limit the rest wait with it. */
  private async deliverTo(endpointId: number, rows: DeliveryRow[], report: PushReport): Promise<void> {
    for (const row of rows) {
      if (this.stopping) {
        await this.outbox.release(row)
        continue
      }
      const ep = await endpointById(this.deps.db, endpointId)
      const now = this.deps.clock.now()
      if (!ep || ep.disabledAtMs !== null) continue // removed meanwhile: its rows were cancelled
      if (ep.pausedUntilMs > now) {
        await this.outbox.postpone(row, ep.pausedUntilMs, `rate limited by the receiver until ${isoInstant(ep.pausedUntilMs)}`)
        report.postponed++
        continue
      }
      if (now - row.createdAtMs > MAX_AGE_MS) {
        const error = `not delivered within ${MAX_AGE_MS / HOUR_MS} h${row.lastError ? ` (last: ${row.lastError})` : ''}`
        await this.outbox.failed(row, row.lastStatus, error, false)
        await recordGivenUp(this.deps.db, ep.id, now, error)
        report.failed++
        continue
      }
      const event = (await eventsAfter(this.deps.db, row.eventId - 1, { limit: 1, throughId: row.eventId }))[0]
      if (!event) throw new Error(`push delivery ${row.id}: event ${row.eventId} is missing (events are append-only)`)
      const payload: unknown = JSON.parse(event.payload)
      // the links a chat message needs from the records, read before it is written (sinks with text only)
      const links = ep.sink === 'webhook' ? null : await this.links(event.kind, payload)
      const outcome = await this.send(ep, String(event.id), () => webhookBody(event), lang => eventText({ id: event.id, kind: event.kind, payload }, lang, links!))
      await this.settle(ep, row, outcome, report)
    }
  }

  /** Write the outcome of one attempt into the row and the endpoint's health. */
  private async settle(ep: PushEndpointRow, row: DeliveryRow, o: SendOutcome, report: PushReport): Promise<void> {
    const now = this.deps.clock.now()
    const db = this.deps.db
    if (o.ok) {
      await this.outbox.delivered(row, o.status)
      await recordSuccess(db, ep.id, now)
      if (o.pauseMs) await pauseEndpoint(db, ep.id, now + o.pauseMs)
      report.delivered++
      return
    }
    if (o.status === 429) {
      // a rate limit is not the receiver failing: wait what it asked (a backoff step when it named no time), count no attempt
      const until = now + (o.retryAfterMs ?? backoffMs(1, this.random))
      await pauseEndpoint(db, ep.id, until)
      await this.outbox.postpone(row, until, o.error)
      report.postponed++
      this.deps.log.warn(`push endpoint ${ep.id} (${ep.sink}): rate limited, nothing sent to it before ${isoInstant(until)}`)
      return
    }
    const next = now + Math.max(backoffMs(row.attempts + 1, this.random), o.retryAfterMs ?? 0)
    const givenUp = o.permanent || next - row.createdAtMs > MAX_AGE_MS
    if (givenUp) {
      await this.outbox.failed(row, o.status, o.error, true)
      report.failed++
    } else {
      await this.outbox.retry(row, o.status, o.error, next)
      report.retrying++
    }
    await recordFailure(db, ep.id, now, o.error, givenUp)
    this.deps.log.warn(`push delivery ${row.id} (event ${row.eventId}) to endpoint ${ep.id} (${ep.sink}): ${givenUp ? 'failed for good' : 'will retry'}: ${o.error}`)
  }

  /** Send one message through the endpoint's sink: the webhook body signed as `id`, or the sink's text. */
  private async send(ep: PushEndpointRow, id: string, body: () => string, text: (lang: Lang) => string): Promise<SendOutcome> {
    const { config, clock } = this.deps
    const lang: Lang = ep.lang === 'ko' ? 'ko' : 'en'
    if (ep.sink === 'webhook') {
      if (!ep.url || !ep.secret) return { ok: false, status: null, error: 'endpoint has no URL or secret', permanent: true }
      // checked again at every delivery: the name may resolve elsewhere than at registration
      const refused = await this.refusedTarget(ep.url)
      if (refused) return { ok: false, status: null, error: `target refused: ${refused}`, permanent: true }
      return sendWebhook({ url: ep.url, secret: ep.secret }, id, body(), clock.now(), config.timeoutMs)
    }
    if (ep.sink === 'telegram') {
      if (!ep.telegramBotToken || !ep.telegramChatId) return { ok: false, status: null, error: 'endpoint has no bot token or chat id', permanent: true }
      return sendTelegram(config.telegramApiUrl, { botToken: ep.telegramBotToken, chatId: ep.telegramChatId }, text(lang), clock.now(), config.timeoutMs)
    }
    if (ep.sink === 'discord') {
      if (!ep.url) return { ok: false, status: null, error: 'endpoint has no Discord webhook URL', permanent: true }
      return sendDiscord(ep.url, text(lang), clock.now(), config.timeoutMs)
    }
    return { ok: false, status: null, error: `unknown sink ${ep.sink}`, permanent: true }
  }

  /**
   * Send a signed `ping` to an endpoint now, outside the outbox (nothing is retried): an
   * operator's check that the receiver is reachable and verifies the signature.
   */
  async ping(ep: PushEndpointRow): Promise<PingResult> {
    const now = this.deps.clock.now()
    const id = `ping_${randomUUID()}`
    const body = canonicalJson({ id, type: 'ping', timestamp: isoInstant(now), data: { endpoint_id: ep.id, message: 'perpsim webhook test' } })
    const o = await this.send(ep, id, () => body, lang => pingText(lang, ep.id))
    if (o.ok) await recordSuccess(this.deps.db, ep.id, this.deps.clock.now())
    else await recordFailure(this.deps.db, ep.id, this.deps.clock.now(), `ping: ${o.error}`, false)
    if (!o.ok && o.status === 429 && o.retryAfterMs) await pauseEndpoint(this.deps.db, ep.id, this.deps.clock.now() + o.retryAfterMs)
    return { delivered: o.ok, status: o.status, error: o.ok ? null : o.error, webhook_id: id }
  }

  /**
   * The links of one event's message, on the service's public origin: what the records say
   * is read here (the ranking's top row of a `ranking` event, the proof's day of a `scored`
   * one), so the message is then written without the database.
   */
  private async links(kind: string, payload: unknown): Promise<MessageLinks> {
    const db = this.deps.db
    let top: ReturnType<MessageLinks['rankingTop']> = null
    let proofDay: string | null = null
    if (kind === 'ranking') {
      const date = isoDate((payload as RankingPayload).date)
      const row = (await gatherDigest(db, Date.parse(`${date}T12:00:00Z`))).top30d[0]
      if (row?.figures) top = { name: row.name, nameKo: row.nameKo, direction: row.direction, winRatePct: row.figures.winRatePct, profitFactor: row.figures.profitFactor, totalReturnPct: row.figures.totalReturnPct, share: row.share }
    }
    if (kind === 'scored') {
      const p = payload as ScoredPayload
      // sealed already: the day it was sealed under. Not yet: the day it closed, unless that
      // day is sealed without it, then the day it became final (finalScoredForDay, src/records/signals.ts)
      proofDay = await sealedDayOf(db, p.record_id)
      if (!proofDay) {
        const s = p.scored
        const finalMs = s.finalized_at ? Date.parse(s.finalized_at) : this.deps.clock.now()
        const exitDay = dayKeyOfMs(s.exit_time ? Date.parse(s.exit_time) : finalMs)
        proofDay = (await sealedRoot(db, exitDay)) ? dayKeyOfMs(finalMs) : exitDay
      }
    }
    return {
      baseUrl: this.deps.baseUrl,
      rankingTop: () => top,
      proofDay: () => proofDay!,
    }
  }
}

/** The pusher the configuration describes: links on PUBLIC_URL (else localhost:PORT, as the mails). */
export function pusherFor(config: { push: PushConfig; publicUrl: string | null; port: number }, db: Db, clock: Clock, log: Logger): Pusher {
  return new Pusher({ db, clock, config: config.push, baseUrl: config.publicUrl ?? `http://localhost:${config.port}`, log })
}
