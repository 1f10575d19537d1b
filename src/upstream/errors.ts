/**
 * The one error every upstream client throws. Callers (the market-context caches) only
 * need to know which source failed and how, to label what they serve instead; a client
 * never lets a raw fetch, JSON or library error escape.
 */
export type UpstreamErrorKind =
  /** no answer within the client's timeout */
  | 'timeout'
  /** HTTP 429 / 418: the upstream asks us to slow down */
  | 'rate_limited'
  /** any other non-2xx answer, or an error the upstream reported in its body */
  | 'http_status'
  /** connection refused, reset, DNS, TLS */
  | 'network'
  /** a 2xx answer whose body is not the documented shape */
  | 'malformed'

export class UpstreamError extends Error {
  constructor(
    readonly source: string,
    readonly kind: UpstreamErrorKind,
    detail: string,
    /** HTTP status when there was one */
    readonly status: number | null = null,
  ) {
    super(`${source}: ${kind}${status !== null ? ` (HTTP ${status})` : ''}: ${detail}`)
    this.name = 'UpstreamError'
  }
}

export function isUpstreamError(e: unknown): e is UpstreamError {
  return e instanceof UpstreamError
}
