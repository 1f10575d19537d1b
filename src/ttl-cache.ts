/**
 * Answers kept for a while on the injected clock (the contract's 5-minute signal cache, the
 * trust metrics' minute, sealed days' leaves). `JsonCache` keeps the serialised UTF-8 text,
 * not just the objects: a 72-hour signal history is megabytes of JSON, and serialising and
 * encoding it again would be most of a request's time.
 */
import type { Clock } from './clock'

/** A value per key until `ttlMs` after it was made; the least recently made dropped beyond `maxEntries`. */
export class TtlCache<V> {
  private readonly entries = new Map<string, { v: V; until: number }>()

  constructor(private readonly clock: Clock, private readonly ttlMs: number, private readonly maxEntries = 256) {}

  get(key: string, make: () => V, made?: V): V {
    const now = this.clock.now()
    const hit = made === undefined ? this.entries.get(key) : undefined
    if (hit && hit.until > now) return hit.v
    const v = made === undefined ? make() : made
    this.entries.delete(key)
    this.entries.set(key, { v, until: now + this.ttlMs })
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
    return v
  }

  /**
   * The same for a value made asynchronously (a database read): made again on a miss; two
   * misses at once both make it, and the later one is kept (a failed make keeps nothing).
   */
  async getAsync(key: string, make: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key)
    if (hit && hit.until > this.clock.now()) return hit.v
    return this.get(key, () => undefined as V, await make())
  }
}

/** A JSON response per key, kept as its encoded bytes. */
export class JsonCache {
  private readonly cache: TtlCache<Uint8Array>

  constructor(clock: Clock, ttlMs: number, maxEntries = 64) {
    this.cache = new TtlCache(clock, ttlMs, maxEntries)
  }

  /** The cached UTF-8 JSON of `key`, or what `make()` resolves to serialised (and kept until now + ttl). */
  bytes(key: string, make: () => Promise<unknown>): Promise<Uint8Array> {
    // encoded once: a response body of bytes is not re-encoded per request
    return this.cache.getAsync(key, async () => new TextEncoder().encode(JSON.stringify(await make())))
  }

  async response(key: string, make: () => Promise<unknown>): Promise<Response> {
    return new Response(await this.bytes(key, make), { headers: { 'content-type': 'application/json' } })
  }
}
