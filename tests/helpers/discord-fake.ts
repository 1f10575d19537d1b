/**
 * Discord's webhook execution on 127.0.0.1 as the real API answers it
 * (https://discord.com/developers/docs/resources/webhook#execute-webhook and
 * .../topics/rate-limits): POST /api/webhooks/<id>/<token>[?wait=true] with `{content}`;
 * 200 with the message (wait=true) or 204; 404 `{message: 'Unknown Webhook', code: 10015}`;
 * 400 for an empty or too long content. Every answer carries the bucket's
 * X-RateLimit-Limit/-Remaining/-Reset/-Reset-After/-Bucket; a request past the bucket (or
 * one told to by `rateLimitNext`) gets 429 `{message, retry_after (seconds, a float),
 * global}` with Retry-After.
 */
export interface DiscordMessage {
  webhook: string
  content: string
  wait: boolean
  allowed_mentions?: unknown
}

export interface DiscordFake {
  /** the API base, as DISCORD_API_URL */
  apiUrl: string
  webhookUrl(id: string): string
  sent: DiscordMessage[]
  /** requests answered 429 */
  limited: number
  /** the next `times` requests get 429 with this retry_after (seconds) */
  rateLimitNext(retryAfterSec: number, times?: number): void
  close(): Promise<void>
}

export function startDiscordFake(opts: { webhooks: Record<string, string>; bucketLimit: number; resetAfterSec: number; now: () => number }): DiscordFake {
  const sent: DiscordMessage[] = []
  const forced: number[] = []
  let remaining = opts.bucketLimit
  let resetAtMs = opts.now() + opts.resetAfterSec * 1000
  let messageId = 1_000_000
  const fake: DiscordFake = {
    apiUrl: '',
    webhookUrl: id => `${fake.apiUrl}/webhooks/${id}/${opts.webhooks[id]}`,
    sent,
    limited: 0,
    rateLimitNext(retryAfterSec, times = 1) {
      for (let i = 0; i < times; i++) forced.push(retryAfterSec)
    },
    close: async () => server.stop(true),
  }
  const limitHeaders = () => {
    const after = Math.max(0, resetAtMs - opts.now()) / 1000
    return {
      'x-ratelimit-limit': String(opts.bucketLimit),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': ((resetAtMs) / 1000).toFixed(3),
      'x-ratelimit-reset-after': after.toFixed(3),
      'x-ratelimit-bucket': 'fake-bucket',
    }
  }
  const limited = (retryAfter: number, global = false) => {
    fake.limited++
    return Response.json({ message: 'You are being rate limited.', retry_after: retryAfter, global }, { status: 429, headers: { ...limitHeaders(), 'retry-after': String(Math.ceil(retryAfter)), 'x-ratelimit-scope': global ? 'global' : 'user' } })
  }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const u = new URL(req.url)
      const m = /^\/api\/webhooks\/(\d+)\/([^/]+)$/.exec(u.pathname)
      if (!m || req.method !== 'POST' || opts.webhooks[m[1]!] !== m[2]) return Response.json({ message: 'Unknown Webhook', code: 10015 }, { status: 404 })
      if (opts.now() >= resetAtMs) {
        remaining = opts.bucketLimit
        resetAtMs = opts.now() + opts.resetAfterSec * 1000
      }
      if (forced.length) return limited(forced.shift()!)
      if (remaining <= 0) return limited(Math.max(0, resetAtMs - opts.now()) / 1000)
      const body = (await req.json()) as { content?: string; allowed_mentions?: unknown }
      if (!body.content) return Response.json({ message: 'Cannot send an empty message', code: 50006 }, { status: 400, headers: limitHeaders() })
      if (body.content.length > 2000) return Response.json({ message: 'Invalid Form Body', code: 50035, errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } } }, { status: 400, headers: limitHeaders() })
      remaining--
      const wait = u.searchParams.get('wait') === 'true'
      sent.push({ webhook: m[1]!, content: body.content, wait, allowed_mentions: body.allowed_mentions })
      if (!wait) return new Response(null, { status: 204, headers: limitHeaders() })
      return Response.json({ id: String(++messageId), type: 0, content: body.content, channel_id: '900000000000000001', webhook_id: m[1], author: { id: m[1], username: 'perpsim', bot: true } }, { headers: limitHeaders() })
    },
  })
  fake.apiUrl = `http://127.0.0.1:${server.port}/api`
  return fake
}
