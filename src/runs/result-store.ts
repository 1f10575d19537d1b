/**
 * Where finished runs are kept: an in-memory LRU of results (and of compare's metrics), and
 * every run's normalised request in SQLite, so a result hash stays answerable after a
 * restart (/export/csv recomputes it from the stored request).
 */
import { eq, sql } from 'drizzle-orm'
import type { Clock } from '../clock'
import type { Db } from '../db'
import type { RunMetricsResult } from './compute/coin-tasks'
import type { RunResult } from './present'
import type { RunSpec } from './spec'

/** Postgres prunes the request index every this many inserts (see `prune`). */
export const PG_PRUNE_EVERY = 64

export class ResultStore {
  private readonly results = new Map<string, RunResult>()
  private readonly metrics = new Map<string, RunMetricsResult>()
  /** inserts since the last prune (Postgres prunes every PG_PRUNE_EVERY inserts) */
  private sincePrune = 0
  /** lookups of get() (GET /metrics) */
  hits = 0
  misses = 0

  constructor(
    private readonly deps: {
      db: Db
      clock: Clock
      /** results (and metrics) kept in memory; 0 keeps none */
      size: number
      /** result_requests rows kept, the newest (RESULT_INDEX_MAX; docs/api.md); absent: all */
      indexMax?: number
    },
  ) {}

  /** A result in memory (now the most recently used). */
  get(hash: string): RunResult | undefined {
    const hit = this.results.get(hash)
    if (hit) this.hits++
    else this.misses++
    if (hit) {
      this.results.delete(hash)
      this.results.set(hash, hit)
    }
    return hit
  }

  /** A result in memory, without touching its recency. */
  peek(hash: string): RunResult | undefined {
    return this.results.get(hash)
  }

  /** Keep a finished run: its request in the database (once per hash), its result in memory. */
  async remember(result: RunResult, dataVersion: string): Promise<void> {
    const { db, clock } = this.deps
    const t = db.t.resultRequests
    await db.orm.insert(t).values({ hash: result.hash, kind: result.spec.kind, request: result.spec, dataVersion, createdAtMs: clock.now() }).onConflictDoNothing()
    if (this.deps.indexMax) await this.prune(this.deps.indexMax)
    if (this.deps.size <= 0) return
    this.results.set(result.hash, result)
    while (this.results.size > this.deps.size) this.results.delete(this.results.keys().next().value!)
  }

  /**
   * Keep the newest `max` requests. SQLite: rowids grow with every insert and commit in that
   * order (one writer), so at most `max` rows lie above max(rowid) - max. Postgres has no
   * rowid, and an insertion order there is not a commit order: the newest are the `max`
   * latest by creation time (then hash), whichever transaction committed them, pruned every
   * PG_PRUNE_EVERY inserts (the ordered read is not free), so the index holds at most
   * `max` + PG_PRUNE_EVERY - 1 rows between prunes.
   */
  private async prune(max: number): Promise<void> {
    const { db } = this.deps
    if (db.dialect === 'sqlite') {
      await db.rows(sql`DELETE FROM result_requests WHERE rowid <= (SELECT max(rowid) FROM result_requests) - ${max}`)
      return
    }
    if (++this.sincePrune < PG_PRUNE_EVERY) return
    this.sincePrune = 0
    await db.rows(
      sql`DELETE FROM result_requests WHERE hash IN (SELECT hash FROM result_requests ORDER BY created_at_ms DESC, hash DESC OFFSET ${max})`,
    )
  }

  /** The normalised request stored for a hash, or null. */
  async storedRequest(hash: string): Promise<RunSpec | null> {
    const t = this.deps.db.t.resultRequests
    const row = (await this.deps.db.orm.select().from(t).where(eq(t.hash, hash)))[0]
    return row ? (row.request as RunSpec) : null
  }

  /** Metrics of a run done whole (compare), by result hash. */
  metricsOf(hash: string): RunMetricsResult | undefined {
    return this.metrics.get(hash)
  }

  rememberMetrics(hash: string, m: RunMetricsResult): void {
    if (this.deps.size <= 0) return
    this.metrics.set(hash, m)
    while (this.metrics.size > this.deps.size) this.metrics.delete(this.metrics.keys().next().value!)
  }
}
