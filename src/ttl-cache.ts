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

  get(key: string, make: () => V): V {
    const now = this.clock.now()
    const hit = this.entries.get(key)
    if (hit && hit.until > now) return hit.v
    const v = make()
    this.entries.delete(key)
    this.entries.set(key, { v, until: now + this.ttlMs })
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
    return v
  }
}

/** A JSON response per key, kept as its encoded bytes. */
export class JsonCache {
  private readonly cache: TtlCache<Uint8Array>

  constructor(clock: Clock, ttlMs: number, maxEntries = 64) {
    this.cache = new TtlCache(clock, ttlMs, maxEntries)
  }

  /** The cached UTF-8 JSON of `key`, or `make()` serialised (and kept until now + ttl). */
  bytes(key: string, make: () => unknown): Uint8Array {
    // encoded once: a response body of bytes is not re-encoded per request
    return this.cache.get(key, () => new TextEncoder().encode(JSON.stringify(make())))
  }

  response(key: string, make: () => unknown): Response {
    return new Response(this.bytes(key, make), { headers: { 'content-type': 'application/json' } })
  }
}
