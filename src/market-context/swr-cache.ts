/**
 * One upstream value, cached stale-while-revalidate.
 *
 * - Ages are measured on the injected clock; waiting is measured in real time (a reader
 *   passes a wall-clock deadline), so a request never waits longer than its budget
 *   whatever the clock says.
 * - A read whose value is at least `refreshAfterMs` old starts a refresh and answers
 *   with what it has; only a value at least `waitAfterMs` old (or none at all) makes the
 *   read wait for the refresh, and never past its deadline.
 * - One refresh at a time (single flight); after a failed refresh the next attempt
 *   waits `min(refreshAfterMs, RETRY_AFTER_FAILURE_MS)`, so a dead upstream is not
 *   hammered and reads stop waiting on it.
 * - Every good value is written to SQLite (SnapshotStore) and read back on first use,
 *   so it survives a restart; OFFLINE=1 never calls `fetch`.
 */
import type { Clock } from '../clock'
import type { Logger } from '../log'
import { isUpstreamError } from '../upstream/errors'
import type { Snapshot, SnapshotStore } from './snapshot-store'

export const RETRY_AFTER_FAILURE_MS = 30_000

export interface ReadPolicy {
  /** a value at least this old is stale and a read starts a background refresh */
  refreshAfterMs: number
  /** a value at least this old (or none) makes the read wait for a fresh one, until its deadline */
  waitAfterMs: number
}

export interface CacheRead<T> {
  value: T | null
  source: string
  fetchedAtMs: number | null
  /** no value, or one at least `refreshAfterMs` old */
  stale: boolean
  /** why the newest refresh attempt failed, or 'offline (OFFLINE=1)'; null when it succeeded or none was made */
  error: string | null
}

export interface SwrCacheOptions<T> {
  /** snapshot key, e.g. "binance-spot:tickers" */
  key: string
  /** the upstream's name in labels, e.g. "binance-spot" */
  source: string
  clock: Clock
  snapshots: SnapshotStore | null
  offline: boolean
  /** fetch a fresh value; `prev` is the last good one (for merging) */
  fetch: (prev: Snapshot<T> | null) => Promise<T>
  log?: Logger
}

export class SwrCache<T> {
  private entry: Snapshot<T> | null = null
  private loaded = false
  private inflight: Promise<void> | null = null
  private lastFailureMs: number | null = null
  private lastError: string | null = null
  /** number of fetches started (tests and /metrics read it) */
  fetchCount = 0

  constructor(private readonly opts: SwrCacheOptions<T>) {}

  get key(): string {
    return this.opts.key
  }

  get source(): string {
    return this.opts.source
  }

  /** the last good value (after `load()`: the stored one until the first fetch) */
  peek(): Snapshot<T> | null {
    return this.entry
  }

  /** Read the stored snapshot on first use (once; a fetch that finished first wins). */
  private async load(): Promise<void> {
    if (this.loaded) return
    this.loaded = true
    const stored = (await this.opts.snapshots?.get<T>(this.opts.key)) ?? null
    this.entry ??= stored
  }

  ageMs(): number | null {
    const e = this.peek()
    return e ? Math.max(0, this.opts.clock.now() - e.fetchedAtMs) : null
  }

  /** Answer by `policy`, waiting for a refresh at most until `deadlineAt` (performance.now() ms). */
  async read(policy: ReadPolicy, deadlineAt: number): Promise<CacheRead<T>> {
    await this.load()
    const age = this.ageMs()
    if (this.shouldRefresh(policy.refreshAfterMs)) this.refresh()
    const mustWait = age === null || age >= policy.waitAfterMs
    if (mustWait && this.inflight) await waitUntil(this.inflight, deadlineAt)
    return this.snapshotRead(policy.refreshAfterMs)
  }

  /** The background job's entry: refresh when the value is `refreshMs` old (or missing). */
  async refreshIfDue(refreshMs: number): Promise<void> {
    await this.load()
    if (this.shouldRefresh(refreshMs)) await this.refresh()
    else if (this.inflight) await this.inflight
  }

  /** Start (or join) a refresh; resolves when it ends, never rejects. */
  refresh(): Promise<void> {
    if (this.opts.offline) return Promise.resolve()
    this.inflight ??= this.runFetch().finally(() => {
      this.inflight = null
    })
    return this.inflight
  }

  private shouldRefresh(refreshAfterMs: number): boolean {
    if (this.opts.offline || this.inflight) return false
    const age = this.ageMs()
    if (age !== null && age < refreshAfterMs) return false
    const now = this.opts.clock.now()
    if (this.lastFailureMs !== null && now - this.lastFailureMs < Math.min(refreshAfterMs, RETRY_AFTER_FAILURE_MS)) return false
    return true
  }

  private async runFetch(): Promise<void> {
    this.fetchCount++
    await this.load()
    const prev = this.peek()
    try {
      const value = await this.opts.fetch(prev)
      const snap: Snapshot<T> = { payload: value, source: this.opts.source, fetchedAtMs: this.opts.clock.now() }
      this.entry = snap
      this.lastFailureMs = null
      this.lastError = null
      try {
        await this.opts.snapshots?.put(this.opts.key, snap)
      } catch (e) {
        this.opts.log?.warn(`market-context: could not store snapshot ${this.opts.key}: ${(e as Error).message}`)
      }
    } catch (e) {
      const wasFailing = this.lastError !== null
      this.lastFailureMs = this.opts.clock.now()
      this.lastError = describeError(e)
      const line = `market-context: ${this.opts.key} refresh failed: ${(e as Error)?.message ?? e}`
      if (wasFailing) this.opts.log?.debug(line)
      else this.opts.log?.warn(line)
    }
  }

  private snapshotRead(refreshAfterMs: number): CacheRead<T> {
    const e = this.peek()
    const age = this.ageMs()
    return {
      value: e ? e.payload : null,
      source: this.opts.source,
      fetchedAtMs: e ? e.fetchedAtMs : null,
      stale: age === null || age >= refreshAfterMs,
      error: this.lastError ?? (this.opts.offline ? 'offline (OFFLINE=1)' : null),
    }
  }
}

function describeError(e: unknown): string {
  if (isUpstreamError(e)) return e.status !== null ? `${e.kind} (HTTP ${e.status})` : e.kind
  return 'error'
}

async function waitUntil(p: Promise<void>, deadlineAt: number): Promise<void> {
  const left = deadlineAt - performance.now()
  if (left <= 0) return
  let timer: ReturnType<typeof setTimeout> | undefined
  await Promise.race([p, new Promise<void>(r => (timer = setTimeout(r, left)))])
  clearTimeout(timer)
}
