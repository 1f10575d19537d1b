/**
 * Where finished runs are kept: an in-memory LRU of results (and of compare's metrics), and
 * every run's normalised request in SQLite, so a result hash stays answerable after a
 * restart (/export/csv recomputes it from the stored request).
 */
import { eq, sql } from 'drizzle-orm'
import type { Clock } from '../clock'
import { schema, type Db } from '../db'
import type { RunMetricsResult } from './compute/coin-tasks'
import type { RunResult } from './present'
import type { RunSpec } from './spec'

export class ResultStore {
  private readonly results = new Map<string, RunResult>()
  private readonly metrics = new Map<string, RunMetricsResult>()
  private insertRequest: { run(values: Record<string, unknown>): unknown } | null = null
  private pruneRequests: { run(max: number): unknown } | null = null
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

  /** Keep a finished run: its request in SQLite (once per hash), its result in memory. */
  remember(result: RunResult, dataVersion: string): void {
    const { db, clock } = this.deps
    // prepared once: building the statement cost more than running it (compare stores 28 runs)
    this.insertRequest ??= db
      .insert(schema.resultRequests)
      .values({
        hash: sql.placeholder('hash'),
        kind: sql.placeholder('kind'),
        request: sql.placeholder('request'),
        dataVersion: sql.placeholder('dataVersion'),
        createdAtMs: sql.placeholder('createdAtMs'),
      })
      .onConflictDoNothing()
      .prepare()
    this.insertRequest.run({ hash: result.hash, kind: result.spec.kind, request: result.spec, dataVersion, createdAtMs: clock.now() })
    if (this.deps.indexMax) {
      // rowids grow with every insert, so at most indexMax rows lie above max(rowid) - indexMax
      this.pruneRequests ??= db.$client.prepare('DELETE FROM result_requests WHERE rowid <= (SELECT max(rowid) FROM result_requests) - ?')
      this.pruneRequests.run(this.deps.indexMax)
    }
    if (this.deps.size <= 0) return
    this.results.set(result.hash, result)
    while (this.results.size > this.deps.size) this.results.delete(this.results.keys().next().value!)
  }

  /** The normalised request stored for a hash, or null. */
  storedRequest(hash: string): RunSpec | null {
    const row = this.deps.db.select().from(schema.resultRequests).where(eq(schema.resultRequests.hash, hash)).get()
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
