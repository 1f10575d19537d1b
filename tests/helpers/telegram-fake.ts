/**
 * A Telegram Bot API on 127.0.0.1 that speaks `sendMessage` as the real one does
 * (https://core.telegram.org/bots/api): POST /bot<token>/sendMessage with a JSON body;
 * `{ok: true, result: Message}`, or `{ok: false, error_code, description}` (401 for an
 * unknown token, 400 for an unknown chat or an empty text) and, under flood control,
 * 429 with `parameters: {retry_after}` (seconds).
 */
export interface TelegramMessage {
  token: string
  chat_id: number | string
  text: string
  disable_web_page_preview?: boolean
  parse_mode?: string
}

export interface TelegramFake {
  /** the API origin, as TELEGRAM_API_URL */
  url: string
  sent: TelegramMessage[]
  /** every request, answered or refused */
  requests: number
  /** the next `times` sendMessage calls are refused with 429 and retry_after seconds */
  floodNext(retryAfterSec: number, times?: number): void
  close(): Promise<void>
}

export function startTelegramFake(opts: { tokens: string[]; chats: (number | string)[] }): TelegramFake {
  const sent: TelegramMessage[] = []
  const flood: number[] = []
  let messageId = 0
  const answer = (status: number, body: unknown) => Response.json(body, { status })
  const fake: TelegramFake = {
    url: '',
    sent,
    requests: 0,
    floodNext(retryAfterSec, times = 1) {
      for (let i = 0; i < times; i++) flood.push(retryAfterSec)
    },
    close: async () => server.stop(true),
  }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      fake.requests++
      const m = /^\/bot([^/]+)\/(\w+)$/.exec(new URL(req.url).pathname)
      if (!m) return answer(404, { ok: false, error_code: 404, description: 'Not Found' })
      const [, token, method] = m
      if (!opts.tokens.includes(token!)) return answer(401, { ok: false, error_code: 401, description: 'Unauthorized' })
      if (method !== 'sendMessage') return answer(404, { ok: false, error_code: 404, description: 'Not Found: method not found' })
      if (req.method !== 'POST' || !(req.headers.get('content-type') ?? '').includes('application/json'))
        return answer(400, { ok: false, error_code: 400, description: 'Bad Request: expected a JSON body' })
      const body = (await req.json()) as Omit<TelegramMessage, 'token'>
      if (flood.length) {
        const after = flood.shift()!
        return answer(429, { ok: false, error_code: 429, description: `Too Many Requests: retry after ${after}`, parameters: { retry_after: after } })
      }
      if (!opts.chats.includes(body.chat_id)) return answer(400, { ok: false, error_code: 400, description: 'Bad Request: chat not found' })
      if (typeof body.text !== 'string' || body.text.trim() === '') return answer(400, { ok: false, error_code: 400, description: 'Bad Request: message text is empty' })
      if (body.text.length > 4096) return answer(400, { ok: false, error_code: 400, description: 'Bad Request: message is too long' })
      sent.push({ token: token!, ...body })
      const chat = typeof body.chat_id === 'number' ? { id: body.chat_id, type: body.chat_id < 0 ? 'group' : 'private' } : { id: -1001, type: 'channel', username: String(body.chat_id).slice(1) }
      return answer(200, { ok: true, result: { message_id: ++messageId, date: Math.floor(Date.now() / 1000), chat, text: body.text } })
    },
  })
  fake.url = `http://127.0.0.1:${server.port}`
  return fake
}
