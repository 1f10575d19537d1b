/**
 * The admin side of the push feed: register, list, remove and ping the endpoints that
 * webhooks, Telegram and Discord messages go to (docs/events.md "Webhooks").
 */
import type { Clock } from '../../clock'
import type { PushConfig } from '../../config'
import type { Db } from '../../db'
import { PushOutbox } from '../../push/outbox'
import type { Pusher } from '../../push/pusher'
import { newSecret } from '../../push/signing'
import { activeEndpoints, addEndpoint, endpointById, redactDiscordUrl, removeEndpoint, type PushEndpointRow } from '../../records/push-endpoints'
import { isoInstant } from '../../time'
import { InvalidRequest, NotFound, OverLimit, type Problem } from '../../runs/errors'
import type { CreatedEndpoint, CreateEndpoint, EndpointList, EndpointView, PingAnswer, Removed } from './model'

/** endpoints registered at once (each event is written once per endpoint) */
export const MAX_ENDPOINTS = 100

const TELEGRAM_TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/
const TELEGRAM_CHAT = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/

export interface WebhooksDeps {
  db: Db
  clock: Clock
  config: PushConfig
  pusher: Pusher
}

const iso = (ms: number | null) => (ms === null ? null : isoInstant(ms))
const maskToken = (token: string) => `${token.split(':')[0]}:…${token.slice(-4)}`

export class WebhooksService {
  constructor(private readonly deps: WebhooksDeps) {}

  async create(body: CreateEndpoint): Promise<typeof CreatedEndpoint.static> {
    const problems: Problem[] = []
    // a missing field's input is the body as sent (FastAPI's form), its bot token masked
    const sent = body.bot_token === undefined ? body : { ...body, bot_token: '…' }
    const at = (field: string, msg: string, input: unknown) => problems.push({ loc: ['body', field], msg, input })
    const unused = (field: 'url' | 'bot_token' | 'chat_id') => {
      if (body[field] !== undefined) at(field, `not used by a ${body.sink} sink`, field === 'bot_token' ? '…' : body[field])
    }
    if (body.sink === 'webhook') {
      unused('bot_token')
      unused('chat_id')
      if (body.url === undefined) at('url', 'required for a webhook sink', sent)
      else {
        const why = await this.deps.pusher.refusedTarget(body.url)
        if (why) at('url', `refused as a webhook target: ${why}`, body.url)
      }
    } else if (body.sink === 'telegram') {
      unused('url')
      if (body.bot_token === undefined) at('bot_token', 'required for a telegram sink', sent)
      else if (!TELEGRAM_TOKEN.test(body.bot_token)) at('bot_token', "expected a bot token as @BotFather gives it: '<bot id>:<secret>'", '…')
      if (body.chat_id === undefined) at('chat_id', 'required for a telegram sink', sent)
      else if (!TELEGRAM_CHAT.test(body.chat_id)) at('chat_id', "expected a numeric chat id (negative for a group) or '@channelname'", body.chat_id)
    } else {
      unused('bot_token')
      unused('chat_id')
      const prefix = `${this.deps.config.discordApiUrl}/webhooks/`
      if (body.url === undefined) at('url', 'required for a discord sink', sent)
      else if (!body.url.startsWith(prefix) || !/^\d+\/[A-Za-z0-9_-]+$/.test(body.url.slice(prefix.length)))
        at('url', `expected a Discord webhook URL: ${prefix}<id>/<token>`, redactDiscordUrl(body.url))
    }
    if (problems.length) throw new InvalidRequest(problems)
    const active = (await activeEndpoints(this.deps.db)).length
    if (active >= MAX_ENDPOINTS) throw new OverLimit(`at most ${MAX_ENDPOINTS} endpoints are registered at once: remove one first`, { endpoints: active, max_endpoints: MAX_ENDPOINTS })
    const secret = body.sink === 'webhook' ? newSecret() : null
    const row = await addEndpoint(this.deps.db, this.deps.clock.now(), {
      sink: body.sink,
      url: body.sink === 'telegram' ? null : body.url!,
      secret,
      telegramBotToken: body.sink === 'telegram' ? body.bot_token! : null,
      telegramChatId: body.sink === 'telegram' ? body.chat_id! : null,
      lang: body.lang ?? 'en',
      kinds: [...new Set(body.kinds ?? [])],
      strategies: [...new Set(body.filters?.strategies ?? [])],
      coins: [...new Set((body.filters?.coins ?? []).map(c => c.toUpperCase()))],
      statuses: [...new Set(body.filters?.status ?? [])],
    })
    return { ...this.view(row, new Map()), secret }
  }

  async list(): Promise<typeof EndpointList.static> {
    const counts = await PushOutbox.counts(this.deps.db)
    return { endpoints: (await activeEndpoints(this.deps.db)).map(r => this.view(r, counts)) }
  }

  async remove(id: number): Promise<typeof Removed.static> {
    const db = this.deps.db
    let cancelled = 0
    const removed = await removeEndpoint(db, this.deps.clock.now(), id, async tx => {
      const referenced = await PushOutbox.referenced(tx, id)
      if (referenced) cancelled = await PushOutbox.cancelPending(tx, id)
      return referenced
    })
    if (removed === null) throw new NotFound(`No webhook endpoint ${id}: see GET /admin/webhooks`)
    return { id, removed, cancelled_deliveries: cancelled }
  }

  async ping(id: number): Promise<typeof PingAnswer.static> {
    const row = await endpointById(this.deps.db, id)
    if (!row || row.disabledAtMs !== null) throw new NotFound(`No webhook endpoint ${id}: see GET /admin/webhooks`)
    return this.deps.pusher.ping(row)
  }

  private view(r: PushEndpointRow, counts: Map<number, Record<string, number>>): typeof EndpointView.static {
    const c = counts.get(r.id) ?? {}
    const now = this.deps.clock.now()
    const failing = r.consecutiveFailures > 0 || (r.lastFailureAtMs !== null && (r.lastSuccessAtMs === null || r.lastFailureAtMs > r.lastSuccessAtMs))
    return {
      id: r.id,
      sink: r.sink,
      url: r.url === null ? null : r.sink === 'discord' ? redactDiscordUrl(r.url) : r.url,
      telegram: r.sink === 'telegram' && r.telegramChatId ? { chat_id: r.telegramChatId, bot_token: r.telegramBotToken ? maskToken(r.telegramBotToken) : '…' } : null,
      lang: r.lang,
      kinds: r.kinds,
      filters: { strategies: r.strategies, coins: r.coins, status: r.statuses },
      created_at: isoInstant(r.createdAtMs),
      health: {
        state: failing ? 'failing' : r.lastSuccessAtMs === null ? 'new' : 'healthy',
        last_success_at: iso(r.lastSuccessAtMs),
        last_failure_at: iso(r.lastFailureAtMs),
        last_error: r.lastError,
        consecutive_failures: r.consecutiveFailures,
        failed_deliveries: r.failedDeliveries,
        pending_deliveries: (c.pending ?? 0) + (c.sending ?? 0),
        delivered: c.delivered ?? 0,
        paused_until: r.pausedUntilMs > now ? isoInstant(r.pausedUntilMs) : null,
      },
    }
  }
}
