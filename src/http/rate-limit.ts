/**
 * Requests per minute per client IP on the compute endpoints (the contract's 120/min):
 * a fixed one-minute window on the injected clock. Beyond it: 429 with Retry-After and
 * a JSON detail (clients must not retry blindly). 0 disables the limit.
 */
import { Elysia } from 'elysia'
import type { Clock } from '../clock'

const WINDOW_MS = 60_000
/** the routes the limit applies to (simulation and candle reads) */
export const RATE_LIMITED = /^\/(backtest|simulate(\/.*)?|ohlcv\/.*)$/

export function rateLimit(perMinute: number, clock: Clock) {
  const windows = new Map<string, { startMs: number; count: number }>()
  return new Elysia({ name: 'rate-limit', seed: perMinute }).onRequest(({ request, server }) => {
    if (perMinute <= 0) return
    const path = new URL(request.url).pathname
    if (!RATE_LIMITED.test(path)) return
    const ip = server?.requestIP(request)?.address ?? 'local'
    const now = clock.now()
    let w = windows.get(ip)
    if (!w || now - w.startMs >= WINDOW_MS) {
      if (windows.size > 10_000) windows.clear() // forget idle clients rather than grow
      w = { startMs: now, count: 0 }
      windows.set(ip, w)
    }
    if (++w.count <= perMinute) return
    const retry = Math.max(1, Math.ceil((w.startMs + WINDOW_MS - now) / 1000))
    return new Response(JSON.stringify({ detail: `Rate limit exceeded: ${perMinute} requests per minute per client on compute endpoints; do not retry before ${retry} s` }), {
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': String(retry), 'access-control-allow-origin': '*' },
    })
  })
}
