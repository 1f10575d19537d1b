/**
 * The three ways a delivery leaves: a signed webhook POST, Telegram's Bot API `sendMessage`,
 * a Discord webhook. Each returns what happened in the outbox's terms: delivered (with how
 * long the receiver asked us to wait before the next one, if it did), or failed, with the
 * wait the receiver asked for (429, Retry-After) and whether a retry could ever succeed.
 * No redirect is followed: a 3xx could point a delivery at an address the target check
 * refused.
 */
import { VERSION } from '../version'
import { signedHeaders } from './signing'

export type SendOutcome =
  | { ok: true; status: number; /** the receiver's rate limit is used up: wait this long before its next delivery */ pauseMs?: number }
  | { ok: false; status: number | null; error: string; /** the receiver said when to try again (429, Retry-After) */ retryAfterMs?: number; /** retrying cannot help (a bad token, an unknown chat) */ permanent: boolean }

const USER_AGENT = `perpsim-webhooks/${VERSION}`

async function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  })
}

const networkFailure = (e: unknown): SendOutcome => {
  const err = e as Error
  return { ok: false, status: null, error: err?.name === 'TimeoutError' ? 'timed out' : `no answer: ${err?.message ?? e}`, permanent: false }
}

/** Retry-After in seconds (RFC 9110 also allows an HTTP date) → ms, or undefined. */
export function retryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (header === null || header.trim() === '') return undefined
  const s = Number(header)
  if (Number.isFinite(s) && s >= 0) return Math.ceil(s * 1000)
  const at = Date.parse(header)
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : undefined
}

/** A Standard Webhooks delivery: `body` signed with the endpoint's secret under message id `id`. */
export async function sendWebhook(target: { url: string; secret: string }, id: string, body: string, nowMs: number, timeoutMs: number): Promise<SendOutcome> {
  let res: Response
  try {
    res = await post(target.url, { ...signedHeaders(target.secret, id, nowMs, body) }, body, timeoutMs)
  } catch (e) {
    return networkFailure(e)
  }
  await res.body?.cancel().catch(() => {}) // the answer's body is not read: only its status counts
  if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status }
  const wait = res.status === 429 || res.status === 503 ? retryAfterMs(res.headers.get('retry-after'), nowMs) : undefined
  const redirect = res.status >= 300 && res.status < 400 ? ` (redirects are not followed: register the final URL${res.headers.get('location') ? `, ${res.headers.get('location')}` : ''})` : ''
  return { ok: false, status: res.status, error: `HTTP ${res.status}${redirect}`, retryAfterMs: wait, permanent: false }
}

/**
 * Telegram Bot API sendMessage: `{ok: true, result}`, or `{ok: false, error_code,
 * description, parameters: {retry_after}}` (429: flood control, wait retry_after seconds).
 * A 4xx other than 429 (unknown chat, bot blocked or removed, bad token) will not heal by
 * retrying.
 */
export async function sendTelegram(apiUrl: string, sink: { botToken: string; chatId: string }, text: string, nowMs: number, timeoutMs: number): Promise<SendOutcome> {
  const chat = /^-?\d+$/.test(sink.chatId) ? Number(sink.chatId) : sink.chatId
  let res: Response
  try {
    res = await post(`${apiUrl}/bot${sink.botToken}/sendMessage`, {}, JSON.stringify({ chat_id: chat, text, disable_web_page_preview: true }), timeoutMs)
  } catch (e) {
    // the token is in the URL: an error that quotes the URL must not carry it to the log or the health
    const failed = networkFailure(e)
    return failed.ok ? failed : { ...failed, error: failed.error.replaceAll(sink.botToken, '<bot token>') }
  }
  const answer = (await res.json().catch(() => null)) as { ok?: boolean; error_code?: number; description?: string; parameters?: { retry_after?: number } } | null
  if (res.ok && answer?.ok === true) return { ok: true, status: res.status }
  const code = answer?.error_code ?? res.status
  const error = `Telegram ${code}: ${answer?.description ?? res.statusText}`
  if (code === 429) {
    const after = answer?.parameters?.retry_after
    return { ok: false, status: res.status, error, retryAfterMs: typeof after === 'number' && after >= 0 ? Math.ceil(after * 1000) : retryAfterMs(res.headers.get('retry-after'), nowMs), permanent: false }
  }
  return { ok: false, status: res.status, error, permanent: code >= 400 && code < 500 }
}

/**
 * A Discord webhook: POST `url?wait=true` `{content}` (200 with the message; 204 without
 * wait). 429 answers `{message, retry_after (seconds, a float), global}` with Retry-After;
 * every answer carries X-RateLimit-Remaining and X-RateLimit-Reset-After, and a success
 * that leaves none remaining asks us to wait out the reset before the next message.
 * Mentions are switched off: a message never pings @everyone.
 */
export async function sendDiscord(url: string, text: string, nowMs: number, timeoutMs: number): Promise<SendOutcome> {
  const target = new URL(url)
  target.searchParams.set('wait', 'true')
  let res: Response
  try {
    res = await post(target.toString(), {}, JSON.stringify({ content: text, allowed_mentions: { parse: [] } }), timeoutMs)
  } catch (e) {
    // the webhook's token is in the URL: keep it out of the log and the health
    const failed = networkFailure(e)
    const token = /\/webhooks\/\d+\/([^/?#]+)/.exec(url)?.[1]
    return failed.ok || !token ? failed : { ...failed, error: failed.error.replaceAll(token, '<token>') }
  }
  const answer = (await res.json().catch(() => null)) as { message?: string; retry_after?: number; global?: boolean } | null
  const resetMs = retryAfterMs(res.headers.get('x-ratelimit-reset-after'), nowMs)
  if (res.status >= 200 && res.status < 300) {
    const exhausted = res.headers.get('x-ratelimit-remaining') === '0'
    return { ok: true, status: res.status, pauseMs: exhausted ? resetMs : undefined }
  }
  const error = `Discord ${res.status}: ${answer?.message ?? res.statusText}${answer?.global ? ' (global rate limit)' : ''}`
  if (res.status === 429) {
    const after = typeof answer?.retry_after === 'number' && answer.retry_after >= 0 ? Math.ceil(answer.retry_after * 1000) : undefined
    return { ok: false, status: 429, error, retryAfterMs: after ?? retryAfterMs(res.headers.get('retry-after'), nowMs) ?? resetMs, permanent: false }
  }
  return { ok: false, status: res.status, error, permanent: res.status >= 400 && res.status < 500 }
}
