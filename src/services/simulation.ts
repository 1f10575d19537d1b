/**
 * The simulation service: resolves a run's universe, fans its coins out to the executor
 * in chunks, merges the chunks into one result, and keeps results (in-memory LRU plus the
 * normalised request in SQLite, so /export/csv works after a restart). Identical
 * requests in flight share one computation.
 */
import { eq, sql } from 'drizzle-orm'
import type { Clock } from '../clock'
import { schema, type Db } from '../db'
import type { CandleStore } from '../market/candle-store'
import type { Universe } from '../market/universe'
import { conditionsCount } from '../strategies/conditions'
import { prepareStrategy } from '../strategies/compile'
import type { Executor } from './executor'
import { Overloaded } from './worker-pool'
import { acceptSteps } from '../engine/portfolio'
import { assembleRun, daySpan, portfolioOptionsOf, stepped, type AssembledRun, type RunOutcome, type UniverseAccounting } from './run-result'
import { parseDay, resultHash, type RunSpec } from './run-spec'
import { computeStatistics, startTradeStatistics, tradeColumns, type StatisticsFields, type TradeStatisticsJobs } from './run-statistics'
import { mergeCoinTables, type TradeTable } from '../engine/trade-table'
import type { CoinOutcome, RunMetricsResult } from './tasks'
import { chunkCount } from './research-run'
import { yieldToLoop } from './yield'

/** top_n when a request leaves it null */
export const DEFAULT_TOP_N = 50

export interface RunResult {
  hash: string
  spec: RunSpec
  symbols: string[]
  assembled: AssembledRun
  /** null until asked for: runs that only need metrics (compare, coin) skip them */
  statistics: StatisticsFields | null
  computeMs: number
}

export class UnknownSymbols extends Error {
  constructor(readonly symbols: string[]) {
    super(`unknown symbols: ${symbols.join(', ')}`)
  }
}

export class SimulationService {
  private readonly cache = new Map<string, RunResult>()
  private readonly inFlight = new Map<string, Promise<RunResult>>()
  private active = 0
  /** moving average of a run's duration, for Retry-After */
  private avgRunMs = 200
  /** result-cache lookups (GET /metrics) */
  private cacheHits = 0
  private cacheMisses = 0

  constructor(
    private readonly deps: {
      store: CandleStore
      universe: Universe
      executor: Executor
      db: Db
      clock: Clock
      cacheSize: number
      /** runs computing or waiting at once; one more is shed with 503 (QUEUE_MAX) */
      maxRuns?: number
      /** result_requests rows kept, newest first (RESULT_INDEX_MAX; docs/api.md) */
      resultIndexMax?: number
    },
  ) {}

  /** Coins of a run and the contract's universe accounting. */
  resolveUniverse(spec: RunSpec): { symbols: string[]; accounting: UniverseAccounting } {
    if (spec.symbols) {
      const unknown = spec.symbols.filter(s => !this.deps.store.bars(s))
      if (unknown.length) throw new UnknownSymbols(unknown)
      return { symbols: spec.symbols, accounting: { top_n_requested: null, eligible_universe: null, universe_capped: null, coins_missing_data: null } }
    }
    const topN = spec.topN ?? DEFAULT_TOP_N
    const eligible = this.deps.universe.eligible({ includeStablecoins: spec.includeStablecoins })
    const symbols = eligible.slice(0, topN).map(c => c.meta.symbol)
    return {
      symbols,
      accounting: {
        top_n_requested: topN,
        eligible_universe: eligible.length,
        universe_capped: eligible.length < topN,
        coins_missing_data: null, // filled once the window is known per coin
      },
    }
  }

  /** Runs in flight, result-cache hits and misses, and the worker pool's figures (GET /metrics). */
  runStats() {
    return { activeRuns: this.active, cacheHits: this.cacheHits, cacheMisses: this.cacheMisses, pool: this.deps.executor.stats?.() ?? null }
  }

  /** Work that bypasses run() (the optimize grid) counted as one run: admitted, then tracked. */
  async admitted<T>(work: () => Promise<T>): Promise<T> {
    this.admit()
    this.active++
    try {
      return await work()
    } finally {
      this.active--
    }
  }

  /** Shed a request that would start `runs` runs beyond QUEUE_MAX (throws Overloaded). */
  admit(runs = 1): void {
    const maxRuns = this.deps.maxRuns ?? Infinity
    if (this.active + runs > maxRuns && this.active > 0) {
      const perWorker = (this.active + runs) / Math.max(1, this.deps.executor.parallelism)
      throw new Overloaded(Math.max(1, Math.ceil((perWorker * this.avgRunMs) / 1000)))
    }
  }

  /**
   * Run (or fetch from cache) a backtest-shaped run. `statistics: false` skips the
   * research statistics (they are added later if the same result is asked for with them);
   * `admitted`: the caller already passed admit() for a batch of runs (compare).
   */
  async run(spec: RunSpec, opts: { noCache?: boolean; admitted?: boolean; statistics?: boolean } = {}): Promise<RunResult> {
    const r = await this.runMetrics(spec, { ...opts, statistics: opts.statistics !== false })
    if (opts.statistics !== false && r.statistics === null) await this.addStatistics(r)
    return r
  }

  private readonly statsInFlight = new WeakMap<RunResult, Promise<void>>()

  /** Compute a result's statistics once (with the jobs its run started early, if any). */
  private addStatistics(r: RunResult, jobs?: TradeStatisticsJobs): Promise<void> {
    let p = this.statsInFlight.get(r)
    if (!p) {
      p = yieldToLoop().then(() => computeStatistics({
        spec: r.spec,
        hash: r.hash,
        symbols: r.symbols,
        portfolio: r.assembled.portfolio,
        metrics: r.assembled.metrics,
        bars: s => this.deps.store.bars(s),
        executor: this.deps.executor,
        jobs,
      })).then(stats => {
        r.statistics = stats
      })
      p.catch(() => this.statsInFlight.delete(r))
      this.statsInFlight.set(r, p)
    }
    return p
  }

  private runMetrics(spec: RunSpec, opts: { noCache?: boolean; admitted?: boolean; statistics: boolean }): Promise<RunResult> {
    const hash = resultHash(spec, this.deps.store.dataVersion())
    if (!opts.noCache) {
      const hit = this.cache.get(hash)
      if (hit) this.cacheHits++
      else this.cacheMisses++
      if (hit) {
        this.cache.delete(hash)
        this.cache.set(hash, hit)
        return Promise.resolve(hit)
      }
      const pending = this.inFlight.get(hash)
      if (pending) return pending
    }
    if (!opts.admitted) {
      try {
        this.admit()
      } catch (e) {
        return Promise.reject(e)
      }
    }
    this.active++
    const started = performance.now()
    const p = this.compute(spec, hash, opts.statistics).finally(() => {
      this.active--
      this.avgRunMs = this.avgRunMs * 0.8 + (performance.now() - started) * 0.2
      if (this.inFlight.get(hash) === p) this.inFlight.delete(hash)
    })
    if (!opts.noCache) this.inFlight.set(hash, p)
    return p
  }

  private async compute(spec: RunSpec, hash: string, statistics: boolean): Promise<RunResult> {
    const started = performance.now()
    const compiled = prepareStrategy(spec.strategy)
    const { symbols, accounting } = this.resolveUniverse(spec)
    const { coins, trades } = await this.coinOutcomes(spec, symbols)
    if (accounting.top_n_requested !== null)
      accounting.coins_missing_data = Math.min(accounting.top_n_requested, accounting.eligible_universe!) - coins.filter(c => c.inWindow).length
    const outcome: RunOutcome = {
      spec,
      symbols,
      coins,
      trades,
      accounting,
      indicatorsUsed: compiled.indicatorsUsed,
      conditionsCount: conditionsCount(spec.strategy.entry),
      warnings: [],
    }
    await yieldToLoop()
    const acceptance = await stepped(acceptSteps(trades, portfolioOptionsOf(spec, symbols.length)))
    await yieldToLoop()
    // the statistics of the chosen trades start on the workers while this thread books them
    const span = daySpan(coins)
    const jobs =
      statistics && span
        ? startTradeStatistics({
            spec,
            hash,
            symbols,
            executor: this.deps.executor,
            cols: tradeColumns(trades, acceptance.taken),
            fromDayMs: span.fromDayMs,
            toDayMs: span.toDayMs,
            bars: s => this.deps.store.bars(s),
          })
        : undefined
    await yieldToLoop() // let waiting requests (/health) in between the heavy steps
    const assembled = await assembleRun(outcome, this.deps.store, acceptance)
    const result: RunResult = { hash, spec, symbols, assembled, statistics: null, computeMs: 0 }
    if (statistics) {
      await this.addStatistics(result, jobs)
      // a full run is answered with its body: build it in steps of its own, not in the
      // response's (which still validates and serialises it)
      await result.assembled.prepareBody()
    }
    result.computeMs = Math.round(performance.now() - started)
    this.remember(result)
    return result
  }

  private readonly metricsCache = new Map<string, RunMetricsResult>()

  /**
   * The metrics of several runs over the same coins (compare's strategies), each done whole
   * in a worker: the runs split over the workers by position (the same strategy lands on
   * the same worker every time, where its signal masks are cached). Counts as one run for
   * QUEUE_MAX; metrics are cached by result hash like results (a cached full result serves too).
   */
  async batchMetrics(specs: RunSpec[], symbols: string[], opts: { noCache?: boolean } = {}): Promise<RunMetricsResult[]> {
    const version = this.deps.store.dataVersion()
    const hashes = specs.map(s => resultHash(s, version))
    const out: (RunMetricsResult | undefined)[] = hashes.map(h => {
      if (opts.noCache) return undefined
      const full = this.cache.get(h)
      if (full) {
        const curve = full.assembled.portfolio.equityCurve
        return { metrics: full.assembled.metrics, span: curve.length ? { fromDayMs: curve[0].tMs, toDayMs: curve[curve.length - 1].tMs } : null }
      }
      return this.metricsCache.get(h)
    })
    const todo = specs.map((_, i) => i).filter(i => out[i] === undefined)
    if (todo.length > 0) {
      const parallelism = Math.max(1, this.deps.executor.parallelism)
      const parts = Array.from({ length: parallelism }, (_, k) => todo.filter(i => i % parallelism === k)).filter(p => p.length > 0)
      this.active++
      try {
        const results = await Promise.all(parts.map(p => this.deps.executor.run('wholeRuns', { specs: p.map(i => specs[i]), symbols }, p[0] % parallelism)))
        parts.forEach((p, k) =>
          p.forEach((i, j) => {
            out[i] = results[k][j]
            if (this.deps.cacheSize > 0) this.metricsCache.set(hashes[i], results[k][j])
          }),
        )
        while (this.metricsCache.size > this.deps.cacheSize) this.metricsCache.delete(this.metricsCache.keys().next().value!)
      } finally {
        this.active--
      }
    }
    return out as RunMetricsResult[]
  }

  /** Where tasks run (research services fan their own tasks out through it). */
  get executor(): Executor {
    return this.deps.executor
  }

  /** Trades of every coin, computed in chunks spread over the executor: one table in universe order. */
  async coinOutcomes(spec: RunSpec, symbols: string[]): Promise<{ coins: CoinOutcome[]; trades: TradeTable }> {
    const chunks = chunkCount(symbols.length, this.deps.executor.parallelism)
    const parts: string[][] = Array.from({ length: chunks }, () => [])
    // interleaved, so big and small coins spread evenly
    symbols.forEach((s, i) => parts[i % chunks].push(s))
    const results = await Promise.all(parts.map((p, k) => this.deps.executor.run('coinTrades', { spec, symbols: p }, k)))
    await yieldToLoop() // the last chunk's message was decoded in this turn: merge in the next
    const bySymbol = new Map<string, CoinOutcome>()
    for (const r of results) for (const c of r.coins) bySymbol.set(c.symbol, c)
    return {
      coins: symbols.map(s => bySymbol.get(s)!),
      trades: mergeCoinTables(symbols, spec.direction, results.map(r => r.trades)),
    }
  }

  private insertRequest: { run(values: Record<string, unknown>): unknown } | null = null
  private pruneRequests: { run(max: number): unknown } | null = null

  private remember(result: RunResult): void {
    const { db, clock, store } = this.deps
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
    this.insertRequest.run({ hash: result.hash, kind: result.spec.kind, request: result.spec, dataVersion: store.dataVersion(), createdAtMs: clock.now() })
    if (this.deps.resultIndexMax) {
      // rowids grow with every insert, so at most resultIndexMax rows lie above max - resultIndexMax
      this.pruneRequests ??= db.$client.prepare('DELETE FROM result_requests WHERE rowid <= (SELECT max(rowid) FROM result_requests) - ?')
      this.pruneRequests.run(this.deps.resultIndexMax)
    }
    if (this.deps.cacheSize <= 0) return
    this.cache.set(result.hash, result)
    while (this.cache.size > this.deps.cacheSize) this.cache.delete(this.cache.keys().next().value!)
  }

  /** The result behind a hash: from memory, or recomputed from the stored request. */
  async byHash(hash: string): Promise<RunResult | null> {
    const hit = this.cache.get(hash)
    if (hit) return hit
    const row = this.deps.db.select().from(schema.resultRequests).where(eq(schema.resultRequests.hash, hash)).get()
    if (!row) return null
    return this.run(row.request as RunSpec, { statistics: false })
  }
}

/** Checks that need more than a schema: real dates, start not after end. */
export function dateProblems(start: string | null, end: string | null): { loc: string; msg: string; input: string }[] {
  const out: { loc: string; msg: string; input: string }[] = []
  const s = start ? parseDay(start) : null
  const e = end ? parseDay(end) : null
  if (start && s === null) out.push({ loc: 'start_date', msg: 'not a calendar date (YYYY-MM-DD)', input: start })
  if (end && e === null) out.push({ loc: 'end_date', msg: 'not a calendar date (YYYY-MM-DD)', input: end })
  if (s !== null && e !== null && s > e) out.push({ loc: 'end_date', msg: 'end_date is before start_date', input: end! })
  return out
}
