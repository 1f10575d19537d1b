/**
 * Requests per minute per client, by the ROUTED path (the route template Elysia matched,
 * so `/backtest/` and `/backtest` count alike), in three classes (docs/api.md "Limits"):
 * - compute: /backtest, /simulate and everything under it, /ohlcv/{symbol}, /export/csv,
 *   /share…, /og…, /generate-bot (the contract's 120/min, RATE_LIMIT_PER_MIN);
 * - subscribe: /api/subscribe (RATE_LIMIT_SUBSCRIBE_PER_MIN, a few per minute);
 * - every other route (RATE_LIMIT_OTHER_PER_MIN); /health and /metrics are not limited.
 * A fixed one-minute window per client and class on the injected clock; counting is
 * synchronous, so it is exact however many requests arrive at once. The windows live in
 * an LRU map of at most `maxClients` entries: a flood of new addresses evicts the idlest
 * clients, never everyone's window. Beyond the limit: 429, JSON body and Retry-After.
 * The client is the socket address, or with TRUST_PROXY=n the address n hops from the right
 * of X-Forwarded-For (each trusted proxy appends the peer it saw).
 *
 * With REDIS_URL the windows live in Redis (rate-limiter-flexible's RateLimiterRedis, one
 * atomic increment per request), so the limit is exact across every API process of a fleet
 * behind one load balancer; they use Redis's time, not the injected clock. While Redis does
 * not answer, each process falls back to its own in-memory window (the insurance limiter).
 * Without REDIS_URL: the synchronous in-process counter above. Same 429 body either way.
 */
import { Elysia } from 'elysia'
import type { Clock } from '../clock'
import { HttpError } from './errors'

const WINDOW_MS = 60_000

export type LimitClass = 'compute' | 'subscribe' | 'other'

export interface RateLimits {
  computePerMin: number
  subscribePerMin: number
  otherPerMin: number
  /** trusted reverse-proxy hops in front of the service (0: the socket address is the client) */
  trustProxy: number
  /** most clients remembered at once (LRU) */
  maxClients: number
}

const COMPUTE = /^\/(backtest|simulate(\/.*)?|ohlcv\/.*|export\/csv|share(\/.*)?|og(\/.*)?|generate-bot|research\/(sweeps|walk-forward))$/
const UNLIMITED = /^\/(health|metrics)$/

/** The limit class of a route template, or null when the route is not limited. */
export function limitClassOf(route: string): LimitClass | null {
  const r = route.length > 1 ? route.replace(/\/+$/, '') : route
  if (UNLIMITED.test(r)) return null
  if (COMPUTE.test(r)) return 'compute'
  if (r === '/api/subscribe') return 'subscribe'
  return 'other'
}

/** Who the client is: the socket address, or the right X-Forwarded-For entry behind `hops` trusted proxies. */
export function clientOf(socketIp: string | undefined, forwardedFor: string | null, hops: number): string {
  if (hops > 0 && forwardedFor) {
    const chain = forwardedFor.split(',').map(s => s.trim()).filter(Boolean)
    if (chain.length) return chain[Math.max(0, chain.length - hops)]
  }
  return socketIp ?? 'local'
}

/** Fixed windows per key in an LRU map (re-inserted on every use, oldest evicted first). */
export class WindowCounter {
  private readonly windows = new Map<string, { startMs: number; count: number }>()
  constructor(private readonly maxKeys: number) {}

  get size(): number {
    return this.windows.size
  }

  /** Counts one request; returns the seconds to wait when it is over `limit`, else 0. */
  hit(key: string, limit: number, nowMs: number): number {
    let w = this.windows.get(key)
    if (w) this.windows.delete(key)
    if (!w || nowMs - w.startMs >= WINDOW_MS) w = { startMs: nowMs, count: 0 }
    this.windows.set(key, w)
    while (this.windows.size > this.maxKeys) this.windows.delete(this.windows.keys().next().value!)
    if (++w.count <= limit) return 0
    return Math.max(1, Math.ceil((w.startMs + WINDOW_MS - nowMs) / 1000))
  }
}

/** how long the first requests wait for the shared windows' Redis connection at start-up */
const FIRST_CONNECT_WAIT_MS = 2_000

/** The windows shared by a fleet's API processes (REDIS_URL, REDIS_PREFIX). */
export interface SharedLimits {
  url: string
  prefix: string
}

/** Counts one request of `client` in class `cls` in Redis; the seconds to wait when over the limit, else 0. */
function sharedCounter(shared: SharedLimits, perClass: Record<LimitClass, number>): (cls: LimitClass, client: string) => Promise<number> {
  // the Redis client and the limiter library are loaded by a fleet's API processes only
  const setup = (async () => {
    const [{ redisClient }, { RateLimiterMemory, RateLimiterRedis, RateLimiterRes }] = await Promise.all([import('../redis-client'), import('rate-limiter-flexible')])
    // no offline queue: a request is not held while Redis is down, the insurance limiter counts it
    const storeClient = redisClient(shared.url, msg => console.warn(`[rate-limit] ${msg}; counting per process until it answers`), { enableOfflineQueue: false, maxRetriesPerRequest: 1 })
    const limiters = new Map<LimitClass, InstanceType<typeof RateLimiterRedis>>()
    const limiterOf = (cls: LimitClass) => {
      let l = limiters.get(cls)
      if (!l) {
        const points = perClass[cls]
        l = new RateLimiterRedis({ storeClient, keyPrefix: `${shared.prefix}:rl:${cls}`, points, duration: WINDOW_MS / 1000, insuranceLimiter: new RateLimiterMemory({ points, duration: WINDOW_MS / 1000 }) })
        limiters.set(cls, l)
      }
      return l
    }
    // at start-up the connection is still being made: a request then waits for it (at most
    // FIRST_CONNECT_WAIT_MS) instead of being counted per process; once Redis has answered, an
    // outage falls to the per-process insurance limiter at once
    await new Promise<void>(resolve => {
      storeClient.once('ready', () => resolve())
      setTimeout(resolve, FIRST_CONNECT_WAIT_MS).unref?.()
    })
    return { limiterOf, RateLimiterRes }
  })()
  return async (cls, client) => {
    const { limiterOf, RateLimiterRes } = await setup
    try {
      await limiterOf(cls).consume(client)
      return 0
    } catch (r) {
      if (r instanceof RateLimiterRes) return Math.max(1, Math.ceil(r.msBeforeNext / 1000))
      throw r
    }
  }
}

export function rateLimit(limits: RateLimits, clock: Clock, shared: SharedLimits | null = null) {
  const counter = new WindowCounter(limits.maxClients)
  const perClass: Record<LimitClass, number> = { compute: limits.computePerMin, subscribe: limits.subscribePerMin, other: limits.otherPerMin }
  const fleet = shared ? sharedCounter(shared, perClass) : null
  return new Elysia({ name: 'rate-limit', seed: limits }).onTransform({ as: 'global' }, async ({ request, server, route }) => {
    const cls = limitClassOf(route)
    if (!cls || perClass[cls] <= 0) return
    const client = clientOf(server?.requestIP(request)?.address, request.headers.get('x-forwarded-for'), limits.trustProxy)
    const retry = fleet ? await fleet(cls, client) : counter.hit(`${cls} ${client}`, perClass[cls], clock.now())
    if (retry === 0) return
    throw new HttpError(
      429,
      {
        detail: `Rate limit exceeded: ${perClass[cls]} requests per minute per client on ${cls === 'other' ? 'this kind of' : cls} endpoint; do not retry before ${retry} s`,
        limit_per_minute: perClass[cls],
        retry_after_seconds: retry,
      },
      { 'retry-after': String(retry) },
    )
  })
}
