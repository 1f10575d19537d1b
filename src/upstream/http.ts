/**
 * GET over fetch with one deadline for the whole exchange (headers AND body), so a server
 * that sends headers and then stalls is cut off too. Every failure becomes an
 * UpstreamError; the caller only sees text, parsed JSON, or that error.
 */
import { UpstreamError } from './errors'

export interface HttpGetOptions {
  /** source name used in errors and labels, e.g. "coingecko" */
  source: string
  timeoutMs: number
  headers?: Record<string, string>
}

/** Sent to every upstream: some (Yahoo, some feeds) refuse requests without a browser-like agent. */
export const USER_AGENT = 'Mozilla/5.0 (compatible; perpsim/0.3; +https://github.com/perpsim)'

export async function httpGetText(url: string, opts: HttpGetOptions): Promise<string> {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs)
  try {
    const res = await fetch(url, {
      signal: controller.signal,
      redirect: 'follow',
      headers: { 'user-agent': USER_AGENT, accept: 'application/json, application/xml, text/xml, */*', ...opts.headers },
    })
    const body = await res.text()
    if (res.status === 429 || res.status === 418) throw new UpstreamError(opts.source, 'rate_limited', snippet(body), res.status)
    if (!res.ok) throw new UpstreamError(opts.source, 'http_status', snippet(body), res.status)
    return body
  } catch (e) {
    if (e instanceof UpstreamError) throw e
    if (controller.signal.aborted) throw new UpstreamError(opts.source, 'timeout', `no complete answer within ${opts.timeoutMs} ms`)
    throw new UpstreamError(opts.source, 'network', (e as Error)?.message ?? String(e))
  } finally {
    clearTimeout(timer)
  }
}

export async function httpGetJson(url: string, opts: HttpGetOptions): Promise<unknown> {
  const text = await httpGetText(url, { ...opts, headers: { accept: 'application/json', ...opts.headers } })
  try {
    return JSON.parse(text)
  } catch {
    throw new UpstreamError(opts.source, 'malformed', `body is not JSON: ${snippet(text)}`)
  }
}

function snippet(body: string): string {
  const s = body.replace(/\s+/g, ' ').trim()
  return s.length > 160 ? `${s.slice(0, 160)}…` : s || '(empty body)'
}
