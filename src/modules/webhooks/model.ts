import { t } from 'elysia'
import { EVENT_KINDS } from '../../records/events'

const Lang = t.UnionEnum(['en', 'ko'], { default: 'en', description: 'the language of a Telegram or Discord message' })
const Names = (what: string) => t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 200, description: `${what}; empty or absent: every one` })

const Filters = t.Object(
  {
    strategies: t.Optional(Names('strategy ids')),
    coins: t.Optional(Names('coins (e.g. BTC)')),
    status: t.Optional(t.Array(t.UnionEnum(['verified', 'testing', 'research']), { maxItems: 3, description: "the strategies' status; empty or absent: every one" })),
  },
)

export const CreateEndpoint = t.Object(
  {
    sink: t.UnionEnum(['webhook', 'telegram', 'discord'], { default: 'webhook', description: 'webhook: a signed POST (Standard Webhooks); telegram: a bot message to a chat; discord: a Discord webhook' }),
    url: t.Optional(t.String({ maxLength: 2048, description: "webhook: the receiver's http(s) URL (public addresses only unless WEBHOOK_ALLOW_PRIVATE=1); discord: the channel's webhook URL" })),
    bot_token: t.Optional(t.String({ maxLength: 200, description: "telegram: the bot's token from @BotFather (123456:ABC…)" })),
    chat_id: t.Optional(t.String({ maxLength: 100, description: 'telegram: the chat id (a number, negative for groups) or @channel' })),
    lang: t.Optional(Lang),
    kinds: t.Optional(t.Array(t.UnionEnum([...EVENT_KINDS]), { maxItems: EVENT_KINDS.length, description: 'event kinds to deliver; empty or absent: every kind' })),
    filters: t.Optional(Filters),
  },
)
export type CreateEndpoint = typeof CreateEndpoint.static

export const EndpointParams = t.Object({ id: t.Integer({ minimum: 1, description: 'the endpoint id' }) })

const Iso = t.Union([t.String(), t.Null()])

export const EndpointView = t.Object({
  id: t.Integer(),
  sink: t.String(),
  url: t.Union([t.String({ description: "a Discord URL's token part is shown as …" }), t.Null()]),
  telegram: t.Union([t.Object({ chat_id: t.String(), bot_token: t.String({ description: "the token's bot id and last 4 characters" }) }), t.Null()]),
  lang: t.String(),
  kinds: t.Array(t.String()),
  filters: t.Object({ strategies: t.Array(t.String()), coins: t.Array(t.String()), status: t.Array(t.String()) }),
  created_at: t.String(),
  health: t.Object({
    state: t.UnionEnum(['new', 'healthy', 'failing']),
    last_success_at: Iso,
    last_failure_at: Iso,
    last_error: t.Union([t.String(), t.Null()]),
    consecutive_failures: t.Integer({ description: 'failed attempts since the last success' }),
    failed_deliveries: t.Integer({ description: 'deliveries given up on (past the maximum age, or refused for good)' }),
    pending_deliveries: t.Integer(),
    delivered: t.Integer(),
    paused_until: t.Union([t.String({ description: 'the receiver asked us to wait (a rate limit) until then' }), t.Null()]),
  }),
})

export const CreatedEndpoint = t.Composite([
  EndpointView,
  t.Object({ secret: t.Union([t.String({ description: 'webhook: the signing secret (whsec_…), shown this once' }), t.Null()]) }),
])

export const EndpointList = t.Object({ endpoints: t.Array(EndpointView) })

export const Removed = t.Object({
  id: t.Integer(),
  removed: t.UnionEnum(['deleted', 'disabled'], { description: 'deleted: nothing was ever delivered to it; disabled: its deliveries are kept, its credentials erased' }),
  cancelled_deliveries: t.Integer(),
})

export const PingAnswer = t.Object({
  delivered: t.Boolean(),
  status: t.Union([t.Integer(), t.Null()], { description: "the receiver's HTTP status (null: no answer)" }),
  error: t.Union([t.String(), t.Null()]),
  webhook_id: t.String(),
})

/** 400: the endpoint limit is reached (OverLimit). */
export const TooManyEndpoints = t.Object({ detail: t.Object({ error: t.String(), endpoints: t.Integer(), max_endpoints: t.Integer() }) })
