/**
 * Where a figure came from and how old it is. Every market-context answer carries one
 * label per part (`sources`), plus the oldest `as_of` and an overall `stale` flag.
 */
import type { CacheRead } from './swr-cache'
import { HOUR_MS, isoInstant } from '../time'

export const LOCAL_SOURCE = 'local'
export const LOCAL_PROXY_SOURCE = 'local-proxy'
/** local figures are stale once the store's newest candle closed this long ago */
export const LOCAL_STALE_MS = 2 * HOUR_MS

export interface Label {
  /** upstream name, "local" (derived from the candle store), "local-proxy", or null (nothing) */
  source: string | null
  /** when the figure was fetched (upstream) or the candle it comes from closed (local); ISO 8601 */
  as_of: string | null
  age_seconds: number | null
  stale: boolean
  /** true for a locally derived stand-in of an upstream index (fear & greed proxy) */
  proxy: boolean
  /** why the newest upstream attempt failed (null when it did not) */
  error: string | null
}

export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : isoInstant(ms)
}

function ageSeconds(asOfMs: number, nowMs: number): number {
  return Math.max(0, Math.round((nowMs - asOfMs) / 1000))
}

/** Label of an upstream read that is being served. */
export function upstreamLabel(read: CacheRead<unknown>, nowMs: number): Label {
  return {
    source: read.value === null ? null : read.source,
    as_of: isoOrNull(read.fetchedAtMs),
    age_seconds: read.fetchedAtMs === null ? null : ageSeconds(read.fetchedAtMs, nowMs),
    stale: read.stale,
    proxy: false,
    error: read.error,
  }
}

/** Label of a figure derived from the candle store; `upstreamError` says why the upstream was not used. */
export function localLabel(asOfMs: number, nowMs: number, upstreamError: string | null, proxy = false): Label {
  return {
    source: proxy ? LOCAL_PROXY_SOURCE : LOCAL_SOURCE,
    as_of: isoInstant(asOfMs),
    age_seconds: ageSeconds(asOfMs, nowMs),
    stale: nowMs - asOfMs >= LOCAL_STALE_MS,
    proxy,
    error: upstreamError,
  }
}

/** Label of a part that has no value from anywhere. */
export function missingLabel(upstreamError: string | null): Label {
  return { source: null, as_of: null, age_seconds: null, stale: true, proxy: false, error: upstreamError ?? 'no value fetched yet' }
}

/**
 * Serve the upstream value unless it is stale and the local figure is newer: a fresh
 * upstream answer always wins; a stale one only loses to a more recent candle.
 */
export function preferUpstream(read: CacheRead<unknown>, localAsOfMs: number | null): boolean {
  if (read.value === null) return false
  if (!read.stale || localAsOfMs === null) return true
  return (read.fetchedAtMs ?? 0) >= localAsOfMs
}

/** The oldest as_of among the labels that have one, and whether any part is stale or missing. */
export function summarize(labels: Label[]): { as_of: string | null; stale: boolean } {
  let oldest: string | null = null
  for (const l of labels) if (l.as_of !== null && (oldest === null || l.as_of < oldest)) oldest = l.as_of
  return { as_of: oldest, stale: labels.some(l => l.stale) }
}
