/**
 * The WHATWG Server-Sent Events framing (HTML Living Standard, "Server-sent events"): a
 * message is `field: value` lines ended by a blank line; `data` may span lines (one `data:`
 * line each, which the client joins with "\n"); a line starting with ':' is a comment the
 * client ignores (our heartbeat); `retry:` sets the client's reconnection delay. Ids and
 * event names never hold a line break, or the client would read a second field.
 */

export interface SseMessage {
  id?: number | string
  event?: string
  data: string
}

const oneLine = (field: string, v: string) => {
  if (/[\r\n]/.test(v)) throw new Error(`an SSE ${field} cannot hold a line break: ${JSON.stringify(v)}`)
  return v
}

/** One message, ready to write. */
export function sseMessage(m: SseMessage): string {
  let out = ''
  if (m.id !== undefined) out += `id: ${oneLine('id', String(m.id))}\n`
  if (m.event !== undefined) out += `event: ${oneLine('event', m.event)}\n`
  for (const line of m.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`
  return `${out}\n`
}

/** A comment line (heartbeats): keeps proxies and the idle timeout from closing a quiet stream. */
export function sseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`
}

/** The reconnection delay the client should use, sent once at the stream's start. */
export function sseRetry(ms: number): string {
  return `retry: ${Math.round(ms)}\n\n`
}
