/**
 * Serialised answers kept for a while on the injected clock: the contract caches signals
 * for 5 minutes, and a 72-hour history is megabytes of JSON, so the text is kept, not just
 * the objects (serialising and encoding it again would be most of a request's time).
 */
import type { Clock } from '../../clock'

export class JsonCache {
  private readonly entries = new Map<string, { bytes: Uint8Array; until: number }>()

  constructor(private readonly clock: Clock, private readonly ttlMs: number, private readonly maxEntries = 64) {}

  /** The cached UTF-8 JSON of `key`, or `make()` serialised (and kept until now + ttl). */
  bytes(key: string, make: () => unknown): Uint8Array {
    const now = this.clock.now()
    const hit = this.entries.get(key)
    if (hit && hit.until > now) return hit.bytes
    // encoded once: a response body of bytes is not re-encoded per request
    const bytes = new TextEncoder().encode(JSON.stringify(make()))
    this.entries.delete(key)
    this.entries.set(key, { bytes, until: now + this.ttlMs })
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
    return bytes
  }

  response(key: string, make: () => unknown): Response {
    return new Response(this.bytes(key, make), { headers: { 'content-type': 'application/json' } })
  }
}
