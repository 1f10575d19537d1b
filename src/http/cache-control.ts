/**
 * A request's Cache-Control: `no-cache` or `no-store` asks for a fresh computation, so the
 * run service recomputes instead of answering from its result cache (docs/api.md).
 */
export const noCache = (headers: Record<string, string | undefined>): boolean => /no-cache|no-store/i.test(headers['cache-control'] ?? '')
