/**
 * The run API every compute path goes through (module services and jobs alike):
 * `run` one spec (cached by result hash, identical runs in flight shared), `batch` several
 * small runs over the same coins (compare), `admitted` for any other work on the workers
 * (validate's and optimize's tasks). Each counts against QUEUE_MAX: one more is shed with
 * Overloaded (503). Scheduled jobs pass `background: true`: their tasks wait behind every
 * request's on the workers, and their runs neither count against QUEUE_MAX nor are shed,
 * so job work never makes a request wait in the queue or answer 503.
 *
 * A run: its universe, its coins' trades computed in chunks on the executor
 * (runCoinTrades), the chunks merged, the trades booked (engine/run.ts) and presented
 * (present.ts), its statistics (statistics.ts), and the result kept (result-store.ts).
 */
import type { Clock } from '../clock'
import type { Db } from '../db'
import { acceptSteps } from '../engine/portfolio'
import { daySpan } from '../engine/run'
import { mergeCoinTables, type TradeTable } from '../engine/trade-table'
import type { CandleStore } from '../market/candle-store'
import type { Universe } from '../market/universe'
import { prepareStrategy } from '../strategies/compile'
import { conditionsCount } from '../strategies/conditions'
import { runCoinTrades, runWholeRuns, type CoinOutcome, type RunMetricsResult } from './compute/coin-tasks'
import { inBackground, type Executor } from './compute/executor'
import { Overloaded } from './errors'
import { chunkCount } from './fan-out'
import { assembleRun, type RunOutcome, type RunResult } from './present'
import { ResultStore } from './result-store'
import { portfolioOptionsOf, resolveUniverse, resultHash, type RunSpec, type UniverseAccounting } from './spec'
import { computeStatistics, startTradeStatistics, type TradeStatisticsJobs } from './statistics'
import { tradeColumns } from './statistics-inputs'
import { stepped, yieldToLoop } from './yield'

export interface RunOptions {
  /** compute again even when the result is cached or in flight */
  noCache?: boolean
  /** false: skip the research statistics (added later if the same result is asked for with them) */
  statistics?: boolean
  /** the caller runs inside `admitted` already: not admitted or counted again */
  admitted?: boolean
  /** a scheduled job's run: its tasks wait behind requests' on the workers; not counted against QUEUE_MAX */
  background?: boolean
}

export interface AdmitOptions {
  /** a scheduled job's work: its tasks wait behind requests' on the workers; not counted against QUEUE_MAX, never shed */
  background?: boolean
}

export class RunService {
  private readonly results: ResultStore
  private readonly inFlight = new Map<string, Promise<RunResult>>()
  private readonly statsInFlight = new WeakMap<RunResult, Promise<void>>()
  private active = 0
  /** scheduled jobs' runs in flight (not counted in `active`: they never make a request shed) */
  private activeBackground = 0
  /** the executor as jobs' work sees it: every task at background priority */
  private readonly backgroundExecutor: Executor
  /** moving average of a run's duration, for Retry-After */
  private avgRunMs = 200

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
      /** result_requests rows kept (RESULT_INDEX_MAX) */
      resultIndexMax?: number
    },
  ) {
    this.backgroundExecutor = inBackground(deps.executor)
    this.results = new ResultStore({ db: deps.db, clock: deps.clock, size: deps.cacheSize, indexMax: deps.resultIndexMax })
  }

  /** Runs in flight, result-cache hits and misses, and the worker pool's figures (GET /metrics). */
  runStats() {
    return { activeRuns: this.active, backgroundRuns: this.activeBackground, cacheHits: this.results.hits, cacheMisses: this.results.misses, pool: this.deps.executor.stats?.() ?? null }
  }

  /** Coins of a run and the contract's universe accounting (UnknownSymbols for explicit symbols not in the store). */
  resolveUniverse(spec: RunSpec): { symbols: string[]; accounting: UniverseAccounting } {
    return resolveUniverse(spec, this.deps.store, this.deps.universe)
  }

  /** Shed a request that would start one run beyond QUEUE_MAX (throws Overloaded). */
  private admit(): void {
    const maxRuns = this.deps.maxRuns ?? Infinity
    if (this.active + 1 > maxRuns && this.active > 0) {
      const perWorker = (this.active + 1) / Math.max(1, this.deps.executor.parallelism)
      throw new Overloaded(Math.max(1, Math.ceil((perWorker * this.avgRunMs) / 1000)))
    }
  }

  /** Count `work` as one run in flight while it lasts. */
  private async counted<T>(work: () => Promise<T>): Promise<T> {
    this.active++
    const started = performance.now()
    try {
      return await work()
    } finally {
      this.active--
      this.avgRunMs = this.avgRunMs * 0.8 + (performance.now() - started) * 0.2
    }
  }

  /** Count `work` as one background run while it lasts (metrics only: never admitted or shed). */
  private async countedBackground<T>(work: () => Promise<T>): Promise<T> {
    this.activeBackground++
    try {
      return await work()
    } finally {
      this.activeBackground--
    }
  }

  /**
   * Work on the executor as one admitted run (validate, optimize): shed with Overloaded when
   * QUEUE_MAX runs are in flight, else `work` gets the executor and counts while it lasts.
   * Runs it starts pass `admitted: true`. `background: true` (scheduled jobs): `work` gets
   * the executor at background priority, and is neither counted against QUEUE_MAX nor shed.
   */
  admitted<T>(work: (executor: Executor) => Promise<T>, opts: AdmitOptions = {}): Promise<T> {
    if (opts.background) return this.countedBackground(() => work(this.backgroundExecutor))
    try {
      this.admit()
    } catch (e) {
      return Promise.reject(e)
    }
    return this.counted(() => work(this.deps.executor))
  }

  /** Run (or fetch from cache) a backtest-shaped run, with its statistics unless `statistics: false`. */
  async run(spec: RunSpec, opts: RunOptions = {}): Promise<RunResult> {
    const withStatistics = opts.statistics !== false
    const background = opts.background === true
    const r = await this.runOnce(spec, opts.noCache === true, opts.admitted === true, withStatistics, background)
    if (withStatistics && r.statistics === null) await this.addStatistics(r, this.executorFor(background))
    return r
  }

  private executorFor(background: boolean): Executor {
    return background ? this.backgroundExecutor : this.deps.executor
  }

  private runOnce(spec: RunSpec, noCache: boolean, admitted: boolean, statistics: boolean, background: boolean): Promise<RunResult> {
    const hash = resultHash(spec, this.deps.store.dataVersion())
    if (!noCache) {
      const hit = this.results.get(hash)
      if (hit) return Promise.resolve(hit)
      const pending = this.inFlight.get(hash)
      if (pending) return pending
    }
    const compute = () => this.compute(spec, hash, statistics, this.executorFor(background))
    let p: Promise<RunResult>
    if (admitted) p = compute()
    else if (background) p = this.countedBackground(compute)
    else {
      try {
        this.admit()
      } catch (e) {
        return Promise.reject(e)
      }
      p = this.counted(compute)
    }
    // a request must not join a job's run (its tasks wait in the job's lane): not shared in flight
    if (noCache || background) return p
    const shared = p.finally(() => {
      if (this.inFlight.get(hash) === shared) this.inFlight.delete(hash)
    })
    this.inFlight.set(hash, shared)
    return shared
  }

  /** Compute a result's statistics once (with the jobs its run started early, if any). */
  private addStatistics(r: RunResult, executor: Executor, jobs?: TradeStatisticsJobs): Promise<void> {
    let p = this.statsInFlight.get(r)
    if (!p) {
      p = yieldToLoop()
        .then(() =>
          computeStatistics({
            spec: r.spec,
            hash: r.hash,
            symbols: r.symbols,
            portfolio: r.assembled.portfolio,
            metrics: r.assembled.metrics,
            bars: s => this.deps.store.bars(s),
            executor,
            jobs,
          }),
        )
        .then(stats => {
          r.statistics = stats
        })
      p.catch(() => this.statsInFlight.delete(r))
      this.statsInFlight.set(r, p)
    }
    return p
  }

  private async compute(spec: RunSpec, hash: string, statistics: boolean, executor: Executor): Promise<RunResult> {
    const started = performance.now()
    const compiled = prepareStrategy(spec.strategy)
    const { symbols, accounting } = this.resolveUniverse(spec)
    const { coins, trades } = await this.coinOutcomes(spec, symbols, executor)
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
            executor,
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
      await this.addStatistics(result, executor, jobs)
      // a full run is answered with its body: build it in steps of its own, not in the
      // response's (which still validates and serialises it)
      await result.assembled.prepareBody()
    }
    result.computeMs = Math.round(performance.now() - started)
    this.results.remember(result, this.deps.store.dataVersion())
    return result
  }

  /** Trades of every coin, computed in chunks spread over the executor: one table in universe order. */
  private async coinOutcomes(spec: RunSpec, symbols: string[], executor: Executor): Promise<{ coins: CoinOutcome[]; trades: TradeTable }> {
    const chunks = chunkCount(symbols.length, executor.parallelism)
    const parts: string[][] = Array.from({ length: chunks }, () => [])
    // interleaved, so big and small coins spread evenly
    symbols.forEach((s, i) => parts[i % chunks].push(s))
    const results = await Promise.all(parts.map((p, k) => executor.run(runCoinTrades, { spec, symbols: p }, k)))
    await yieldToLoop() // the last chunk's message was decoded in this turn: merge in the next
    const bySymbol = new Map<string, CoinOutcome>()
    for (const r of results) for (const c of r.coins) bySymbol.set(c.symbol, c)
    return {
      coins: symbols.map(s => bySymbol.get(s)!),
      trades: mergeCoinTables(symbols, spec.direction, results.map(r => r.trades)),
    }
  }

  /**
   * The metrics of several runs over the same coins (compare's strategies), admitted as one
   * run, each done whole in a worker: the runs split over the workers by position (the
   * same strategy lands on the same worker every time, where its signal masks are cached).
   * Metrics are cached by result hash like results (a cached full result serves too). The
   * coins are the first spec's universe.
   */
  batch(specs: RunSpec[], opts: { noCache?: boolean } & AdmitOptions = {}): Promise<{ symbols: string[]; accounting: UniverseAccounting; runs: RunMetricsResult[] }> {
    return this.admitted(
      async executor => {
        const { symbols, accounting } = this.resolveUniverse(specs[0])
        return { symbols, accounting, runs: await this.batchMetrics(executor, specs, symbols, opts.noCache === true) }
      },
      { background: opts.background },
    )
  }

  private async batchMetrics(executor: Executor, specs: RunSpec[], symbols: string[], noCache: boolean): Promise<RunMetricsResult[]> {
    const version = this.deps.store.dataVersion()
    const hashes = specs.map(s => resultHash(s, version))
    const out: (RunMetricsResult | undefined)[] = hashes.map(h => {
      if (noCache) return undefined
      const full = this.results.peek(h)
      if (full) {
        const curve = full.assembled.portfolio.equityCurve
        return {
          metrics: full.assembled.metrics,
          span: curve.length ? { fromDayMs: curve[0].tMs, toDayMs: curve[curve.length - 1].tMs } : null,
          ruinedAtMs: full.assembled.portfolio.ruinedAtMs,
        }
      }
      return this.results.metricsOf(h)
    })
    const todo = specs.map((_, i) => i).filter(i => out[i] === undefined)
    if (todo.length === 0) return out as RunMetricsResult[]
    const parallelism = Math.max(1, executor.parallelism)
    const parts = Array.from({ length: parallelism }, (_, k) => todo.filter(i => i % parallelism === k)).filter(p => p.length > 0)
    const results = await Promise.all(parts.map(p => executor.run(runWholeRuns, { specs: p.map(i => specs[i]), symbols }, p[0] % parallelism)))
    parts.forEach((p, k) =>
      p.forEach((i, j) => {
        out[i] = results[k][j]
        this.results.rememberMetrics(hashes[i], results[k][j])
      }),
    )
    return out as RunMetricsResult[]
  }

  /** The result behind a hash: from memory, or recomputed from the stored request (null: never stored). */
  async byHash(hash: string): Promise<RunResult | null> {
    const hit = this.results.peek(hash)
    if (hit) return hit
    const spec = this.results.storedRequest(hash)
    return spec ? this.run(spec, { statistics: false }) : null
  }
}
