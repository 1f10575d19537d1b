/**
 * The one road to the workers: every compute path (module services, jobs and live steps)
 * goes through a named operation of the run service, and the service alone talks to the
 * transport under it (transport.ts; tests/import-graph.test.ts). The operations: `run` one
 * spec (cached by result hash, identical runs in flight shared), `batch` several small runs
 * over the same coins (compare, the hot strategies), `nestedRuns` (the rankings' nested
 * coin groups), `signalScan` (the live scan's masks), `gridSearch` (optimize's SL/TP
 * grid), `validation` (a run with its trade bootstrap and random-entry null), the bots'
 * `dcaBot`, `gridBot` and `botZip`, and the research sweeps' `sweepTrials`, `overfitting`
 * and `stitchedRun` (walk-forward). Each is cut into tasks here and answers a typed result.
 *
 * Each counts as one run against QUEUE_MAX: one more is shed with Overloaded (503).
 * Scheduled jobs pass `background: true`: their tasks wait behind every request's on the
 * workers, and their runs neither count against QUEUE_MAX nor are shed, so job work never
 * makes a request wait in the queue or answer 503.
 *
 * A run: its universe, its coins' trades computed in chunks on the workers
 * (runCoinTrades), the chunks merged, the trades chosen by the portfolio and booked here
 * (engine/run.ts), presented (present.ts), its statistics (statistics.ts), and the result
 * kept (result-store.ts).
 */
import type { Clock } from '../clock'
import type { Db } from '../db'
import { acceptSteps } from '../engine/portfolio'
import { bookSteps, daySpan, markOver, type HeadlineFigures } from '../engine/run'
import { MergeColumns, mergeCoinTables, type TradeTable } from '../engine/trade-table'
import type { CandleStore } from '../market/candle-store'
import { RankHistory } from '../market/rank-history'
import type { Universe } from '../market/universe'
import { prepareStrategy } from '../strategies/compile'
import { conditionsCount, type StrategySpec } from '../strategies/conditions'
import { runDcaBot, runGridBot, runPackBot } from './compute/bot-tasks'
import { membershipsOf } from '../engine/tradable-windows'
import { runCoinTrades, runTwinRows, runWholeRuns, type CoinOutcome, type CoinTradesPayload, type RunMetricsResult, type TwinRows, type WholeRunsPayload } from './compute/coin-tasks'
import { runTwinFigures } from './compute/twin-tasks'
import { runNestedRuns, type NestedRunsPayload } from './compute/nested-runs'
import type { GridCell } from './compute/research-tasks'
import { runScanSignals, type CoinScan, type ScanPayload } from './compute/signal-tasks'
import { runCscv, runSweepTrials, type SweepTrialOutcome } from './compute/sweep-tasks'
import { cscvPossible, cscvSplits, pboOf, type BlockStats, type PboResult } from '../engine/statistics-pbo'
import { concatFoldTables, foldsHash } from './stitch'
import { Overloaded } from './errors'
import { chunkCount } from './fan-out'
import { assembledOf, type RunOutcome, type RunResult } from './present'
import { checkDetailRequired, intrabarBlock, mergeIntrabar, type RunIntrabar } from './intrabar-summary'
import { gridSearch, runMonteCarlo, type GridSearchResult, type RunMonteCarlo } from './research'
import { ResultStore } from './result-store'
import { checkMargin } from './margin-check'
import { DEFAULT_TOP_N, portfolioOptionsOf, resolveUniverse, resultHash, type RunSpec, type UniverseAccounting } from './spec'
import { delistedAmong, planUniverse, survivorshipLists, withUniverse, type Survivorship, type UniverseFields, type UniversePlan } from './universe-plan'
import { DAY_MS, parseDay } from '../time'
import { computeStatistics, startTradeStatistics, type TradeStatisticsJobs } from './statistics'
import { columnsDigest, seedOfHash, tradeColumns } from './statistics-inputs'
import { laneOf, type Lane, type TaskPayload, type TaskResult, type Transport } from './transport'
import { stepped, yieldToLoop } from './yield'

/** trial × split evaluations per CSCV task (about 100 ms): 12,870 splits of 1,000 trials make ~13 tasks */
const CSCV_TASK_WORK = 1_000_000

export interface RunOptions {
  /** compute again even when the result is cached or in flight */
  noCache?: boolean
  /** false: skip the research statistics (added later if the same result is asked for with them) */
  statistics?: boolean
  /** a scheduled job's run: its tasks wait behind requests' on the workers; not counted against QUEUE_MAX */
  background?: boolean
}

export interface AdmitOptions {
  /** a scheduled job's work: its tasks wait behind requests' on the workers; not counted against QUEUE_MAX, never shed */
  background?: boolean
}

/**
 * The most rows a run's merged table keeps its columns for: 1,048,576 rows, about 130 MB at
 * 124 bytes a row. The kept set is a quarter larger than the largest table merged so far: over
 * the 535-coin store about 30 MB after heikin-ashi (196,464 rows) and 85 MB after
 * volume-profile-short (547,217 rows), the largest of the registry.
 */
const MERGE_ROWS_KEPT = 1 << 20

export class RunService {
  private readonly results: ResultStore
  private readonly inFlight = new Map<string, Promise<RunResult>>()
  private readonly statsInFlight = new WeakMap<RunResult, Promise<void>>()
  private active = 0
  /** scheduled jobs' runs in flight (not counted in `active`: they never make a request shed) */
  private activeBackground = 0
  /** the transport at each priority: a request's tasks, and a scheduled job's (behind every request's) */
  private readonly interactiveLane: Lane
  private readonly backgroundLane: Lane
  /** moving average of a run's duration, for Retry-After */
  private avgRunMs = 200
  /** each day's universe as known that day (point-in-time runs) */
  readonly rankHistory: RankHistory
  /** point-in-time plans by store version and the spec fields that decide them */
  private readonly plans = new Map<string, UniversePlan>()
  /**
   * indicators_used of the strategies booked lately, by their JSON text: compiling a
   * strategy again on this thread (its validation and plan) only to read this list cost
   * about 1 ms a run
   */
  private readonly indicatorsByStrategy = new Map<string, readonly string[]>()
  /** a run's merged table of every candidate trade, its columns kept for the next run (trade-table.ts MergeColumns) */
  private readonly mergeColumns = new MergeColumns(MERGE_ROWS_KEPT)

  constructor(
    private readonly deps: {
      store: CandleStore
      universe: Universe
      /** how tasks reach the workers (transport.ts): the worker pool by default */
      transport: Transport
      db: Db
      clock: Clock
      cacheSize: number
      /** runs computing or waiting at once; one more is shed with 503 (QUEUE_MAX) */
      maxRuns?: number
      /** result_requests rows kept (RESULT_INDEX_MAX) */
      resultIndexMax?: number
    },
  ) {
    this.interactiveLane = laneOf(deps.transport, 'interactive')
    this.backgroundLane = laneOf(deps.transport, 'background')
    this.results = new ResultStore({ db: deps.db, clock: deps.clock, size: deps.cacheSize, indexMax: deps.resultIndexMax })
    this.rankHistory = new RankHistory(deps.store)
  }

  /**
   * The spec with the request's `universe` and `rebalance` decided (universe-plan.ts
   * withUniverse: the default depends on how far start_date lies before the store's last
   * candle). Every service whose request takes top_n calls it before running.
   */
  withUniverse(spec: RunSpec, fields: UniverseFields): RunSpec {
    return withUniverse(spec, fields, this.deps.store.newestCandleMs())
  }

  /** A point-in-time spec's plan (null for a run on today's universe or on explicit symbols); the last few kept per store version. */
  planOf(spec: RunSpec): UniversePlan | null {
    if (spec.universe !== 'point_in_time' || spec.symbols) return null
    const key = `${this.deps.store.version}|${spec.topN}|${spec.includeStablecoins}|${spec.startDate}|${spec.endDate}|${spec.rebalance}`
    let plan = this.plans.get(key)
    if (!plan) {
      plan = planUniverse(spec, this.deps.store, this.rankHistory)
      if (this.plans.size >= 32) this.plans.delete(this.plans.keys().next().value!)
      this.plans.set(key, plan)
    }
    return plan
  }

  /**
   * The coins of a run, its universe accounting and what its tasks need of its universe:
   * a point-in-time run's coins are every coin of its sets, with their membership intervals;
   * the accounting keeps its meaning for the window's start.
   */
  runUniverse(spec: RunSpec): { symbols: string[]; accounting: UniverseAccounting; plan: UniversePlan | null; delisted: string[] } {
    const plan = this.planOf(spec)
    if (!plan) {
      const r = this.resolveUniverse(spec)
      return { ...r, plan, delisted: delistedAmong(r.symbols, this.deps.store) }
    }
    const topN = spec.topN ?? DEFAULT_TOP_N
    return {
      symbols: plan.symbols,
      accounting: { top_n_requested: topN, eligible_universe: plan.eligibleAtStart, universe_capped: plan.eligibleAtStart < topN, coins_missing_data: null },
      plan,
      delisted: delistedAmong(plan.symbols, this.deps.store),
    }
  }

  /** Runs in flight, result-cache hits and misses, and the worker pool's figures (GET /metrics). */
  runStats() {
    return { activeRuns: this.active, backgroundRuns: this.activeBackground, cacheHits: this.results.hits, cacheMisses: this.results.misses, pool: this.deps.transport.stats() }
  }

  /** Why runs cannot reach a worker now (the queue's Redis is silent, no worker is connected), or null (GET /health). */
  trouble(): string | null {
    return this.deps.transport.trouble?.() ?? null
  }

  /** Tasks the workers run at once (how many of a sweep's tasks to keep in flight). */
  get parallelism(): number {
    return Math.max(1, this.deps.transport.parallelism)
  }

  /** Coins of a run and the contract's universe accounting (UnknownSymbols for explicit symbols not in the store). */
  resolveUniverse(spec: RunSpec): { symbols: string[]; accounting: UniverseAccounting } {
    const resolved = resolveUniverse(spec, this.deps.store, this.deps.universe)
    checkMargin(spec, resolved.symbols, s => this.deps.store.marginBrackets(s))
    return resolved
  }

  /** Shed a request that would start one run beyond QUEUE_MAX (throws Overloaded). */
  private admit(): void {
    const maxRuns = this.deps.maxRuns ?? Infinity
    if (this.active + 1 > maxRuns && this.active > 0) {
      const perWorker = (this.active + 1) / Math.max(1, this.deps.transport.parallelism)
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
   * Work on the workers as one admitted run (every named operation but `run`): shed with
   * Overloaded when QUEUE_MAX runs are in flight, else `work` gets the interactive lane and
   * counts while it lasts. `background: true` (scheduled jobs): `work` gets the background
   * lane, and is neither counted against QUEUE_MAX nor shed. Private: the operations below
   * are the only ways in (one road to the workers).
   */
  private admitted<T>(work: (lane: Lane) => Promise<T>, opts: AdmitOptions = {}): Promise<T> {
    if (opts.background) return this.countedBackground(() => work(this.backgroundLane))
    try {
      this.admit()
    } catch (e) {
      return Promise.reject(e)
    }
    return this.counted(() => work(this.interactiveLane))
  }

  /** Run (or fetch from cache) a backtest-shaped run, with its statistics unless `statistics: false`. */
  async run(spec: RunSpec, opts: RunOptions = {}): Promise<RunResult> {
    const withStatistics = opts.statistics !== false
    const background = opts.background === true
    const r = await this.runOnce(spec, opts.noCache === true, false, withStatistics, background)
    if (withStatistics && r.statistics === null) await this.addStatistics(r, this.laneFor(background))
    return r
  }

  private laneFor(background: boolean): Lane {
    return background ? this.backgroundLane : this.interactiveLane
  }

  /** `admitted`: the caller is an admitted operation already (validation): not admitted or counted again */
  private runOnce(spec: RunSpec, noCache: boolean, admitted: boolean, statistics: boolean, background: boolean): Promise<RunResult> {
    const hash = resultHash(spec, this.deps.store.dataVersion())
    if (!noCache) {
      const hit = this.results.get(hash)
      if (hit) return Promise.resolve(hit)
      const pending = this.inFlight.get(hash)
      if (pending) return pending
    }
    const compute = () => this.compute(spec, hash, statistics, this.laneFor(background), noCache)
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
  private addStatistics(r: RunResult, lane: Lane, jobs?: TradeStatisticsJobs, nTrials?: number): Promise<void> {
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
            lane,
            jobs,
            nTrials,
            tradable: this.planOf(r.spec)?.tradable,
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

  private async compute(spec: RunSpec, hash: string, statistics: boolean, lane: Lane, noCache = false): Promise<RunResult> {
    const started = performance.now()
    const { symbols, accounting, plan, delisted } = this.runUniverse(spec)
    checkDetailRequired(spec, symbols, this.deps.store)
    // a point-in-time run shows its bias against the same run on today's universe: its
    // twin, whose rows come from the run's coin tasks (a coin whose membership limited
    // nothing has the run's trades) and from tasks that simulate the others again
    // (coinOutcomes), and whose four figures come from the portfolio's choice alone
    // (compute/twin-tasks.ts), on the workers while this thread books the run
    const twin = plan ? this.twinOf(spec, noCache) : null
    const outcomes = this.coinOutcomes(spec, symbols, lane, { tradable: plan?.tradable, delisted, today: twin?.symbols }, twin !== null && !twin.cached, this.mergeColumns)
    // the survivorship lists read no trade: made while the workers run the coin tasks
    const lists = plan && twin ? survivorshipLists(plan, twin.symbols, this.deps.store, this.survivorshipWindow(spec, plan)) : null
    const { coins, trades, twinParts, intrabar } = await outcomes
    let universe: { plan: UniversePlan; survivorship: Promise<Survivorship> } | null = null
    if (plan && twin && lists) {
      const figures = twin.cached
        ? Promise.resolve(twin.cached)
        : twinParts!.then(parts => lane.run(runTwinFigures, { twin: twin.symbols, parts, opts: portfolioOptionsOf(twin.spec, twin.symbols.length) }))
      const survivorship = figures.then(m => ({ ...lists, current_universe_result: { total_return_pct: m.total_return_pct, win_rate: m.win_rate, profit_factor: m.profit_factor, total_trades: m.total_trades } }))
      // awaited once the run is booked; a booking that fails first must not leave it unhandled
      survivorship.catch(() => {})
      universe = { plan, survivorship }
    }
    let result: RunResult
    try {
      result = await this.bookOutcome(spec, hash, { symbols, accounting, coins, trades, intrabar, universe }, statistics, lane, started)
    } finally {
      // booked (or failed): the result keeps copies of the rows it reads, never the table's columns
      this.mergeColumns.giveBack(trades)
    }
    await this.results.remember(result, this.deps.store.dataVersion())
    return result
  }

  /**
   * A run's booking from its coins' trades: the portfolio's choice, the statistics started
   * on the workers, the booking, the body. `nTrials`: the trials behind the run, for its
   * deflated Sharpe (default nTrialsOf(spec)). `universe`: a point-in-time run's plan and
   * its twin on today's coins (the survivorship block).
   */
  private async bookOutcome(
    spec: RunSpec,
    hash: string,
    o: {
      symbols: string[]
      accounting: UniverseAccounting
      coins: CoinOutcome[]
      trades: TradeTable
      intrabar?: RunIntrabar | null
      universe?: { plan: UniversePlan; survivorship: Promise<Survivorship> } | null
    },
    statistics: boolean,
    lane: Lane,
    started: number,
    nTrials?: number,
  ): Promise<RunResult> {
    const { symbols, accounting, coins, trades } = o
    const intrabar = o.intrabar ?? null
    const plan = o.universe?.plan ?? null
    if (accounting.top_n_requested !== null) {
      // a point-in-time run's accounting is that of its first set (the window's start)
      const start = plan ? new Set(plan.sets[0] ?? []) : null
      accounting.coins_missing_data = Math.min(accounting.top_n_requested, accounting.eligible_universe!) - coins.filter(c => c.inWindow && (!start || start.has(c.symbol))).length
    }
    const outcome: RunOutcome = {
      spec,
      symbols,
      coins,
      accounting,
      indicatorsUsed: this.indicatorsUsedOf(spec.strategy),
      conditionsCount: conditionsCount(spec.strategy.entry),
      warnings: plan ? [...plan.warnings] : [],
      universe: null,
    }
    // the survivorship block is set before the body is built (assembledOf builds it when first read)
    const survivorship = async () => {
      const u = o.universe
      if (!u) return
      outcome.universe = { plan: u.plan, survivorship: await u.survivorship }
    }
    await yieldToLoop()
    const portfolio = portfolioOptionsOf(spec, plan ? plan.largestSet : symbols.length)
    // traced where a minute replay changed trades: the bar rule's choice may then be told from it (intrabarBlock)
    const acceptance = await stepped(acceptSteps(trades, portfolio, { trace: (intrabar?.changedCoins.size ?? 0) > 0 }))
    await yieldToLoop()
    // the statistics of the chosen trades start on the workers while this thread books them
    const span = daySpan(coins)
    const cols = statistics && span ? tradeColumns(trades, acceptance.taken) : null
    // a run computed again (no-cache) whose trades came out as those of the cached result of
    // its hash (same spec, same data) has that result's statistics: they are a function of
    // those inputs alone, seeds included, and the costliest part of a warm answer
    const tradesKey = cols ? `${nTrials ?? 'spec'}|${columnsDigest(cols)}` : undefined
    const prior = tradesKey ? this.results.peek(hash) : undefined
    const same = prior !== undefined && prior.tradesKey === tradesKey
    const known = same ? prior.statistics : null
    const jobs =
      cols && span && !known
        ? startTradeStatistics({
            spec,
            hash,
            symbols,
            lane,
            cols,
            fromDayMs: span.fromDayMs,
            toDayMs: span.toDayMs,
            bars: s => this.deps.store.bars(s),
            tradable: plan?.tradable,
          })
        : undefined
    await yieldToLoop() // let waiting requests (/health) in between the heavy steps
    // the booking (engine/run.ts) of the trades the portfolio chose; present.ts shapes the result
    const booked = await stepped(bookSteps(trades, portfolio, markOver(span, s => this.deps.store.bars(s)), acceptance))
    // the bar rule's figures (rule_bias) and the capacity curve of the same run's trades are the cached result's too
    const knownBar = same ? (prior.assembled.body.intrabar?.rule_bias?.bar ?? null) : null
    if (same && prior.assembled.body.capacity) outcome.knownCapacity = prior.assembled.body.capacity
    const ib = intrabarBlock(spec, symbols, this.deps.store, intrabar, trades, acceptance, booked.metrics, portfolio, knownBar)
    if (ib) {
      outcome.intrabar = ib.block
      if (ib.warning) outcome.warnings.push(ib.warning)
    }
    await survivorship()
    const assembled = assembledOf(outcome, booked, this.deps.store)
    const result: RunResult = { hash, spec, symbols, assembled, statistics: null, tradesKey, computeMs: 0 }
    if (statistics) {
      if (known) result.statistics = known
      else await this.addStatistics(result, lane, jobs, nTrials)
      // a full run is answered with its body: build it in steps of its own, not in the
      // response's (which still validates and serialises it)
      await result.assembled.prepareBody()
    }
    result.computeMs = Math.round(performance.now() - started)
    return result
  }

  /** The ids of the indicators a (valid) strategy reads: compiled once per strategy text, the last 64 kept. */
  private indicatorsUsedOf(strategy: StrategySpec): string[] {
    // its JSON text as it stands (a strategy written with its keys in another order is compiled again): the
    // canonical text sorts every object's keys, several times the cost
    const key = JSON.stringify(strategy)
    let used = this.indicatorsByStrategy.get(key)
    if (!used) {
      used = prepareStrategy(strategy).indicatorsUsed
      if (this.indicatorsByStrategy.size >= 64) this.indicatorsByStrategy.delete(this.indicatorsByStrategy.keys().next().value!)
      this.indicatorsByStrategy.set(key, used)
    }
    // a copy: the outcome's list is its own
    return [...used]
  }

  /** The days a point-in-time run's survivorship lists cover: its first set's to the window's end (the store's last day without an end_date). */
  private survivorshipWindow(spec: RunSpec, plan: UniversePlan): { startMs: number; endMs: number } {
    const startMs = plan.days[0] ?? (spec.startDate ? parseDay(spec.startDate)! : 0)
    const endMs = spec.endDate ? parseDay(spec.endDate)! : Math.floor((this.deps.store.newestCandleMs() ?? 0) / DAY_MS) * DAY_MS
    return { startMs, endMs }
  }

  /**
   * The same run on today's universe, for a point-in-time run's survivorship figures: its
   * spec and coins, and its figures when a result or the metrics of that run are
   * cached (not with no-cache); booked otherwise beside the run (compute).
   */
  private twinOf(spec: RunSpec, noCache: boolean): { spec: RunSpec; symbols: string[]; cached: HeadlineFigures | null } {
    const { universe: _u, rebalance: _r, ...twin } = spec
    let cached: HeadlineFigures | null = null
    if (!noCache) {
      const hash = resultHash(twin, this.deps.store.dataVersion())
      const m = this.results.peek(hash)?.assembled.metrics ?? this.results.metricsOf(hash)?.metrics
      if (m) cached = { total_return_pct: m.total_return_pct, win_rate: m.win_rate, profit_factor: m.profit_factor, total_trades: m.total_trades }
    }
    return { spec: twin, symbols: this.resolveUniverse(twin).symbols, cached }
  }

  /**
   * Trades of every coin, computed in chunks spread over the workers: one table in universe
   * order. `universe.today`: a point-in-time run's coins of today's universe, in its order:
   * each goes to the chunk (and the worker, whose caches hold it) it goes to in the run on
   * today's universe. `twin`: that run is made beside this one (a point-in-time run's twin):
   * each chunk hands back the run's rows of today's coins it did not limit; the others are
   * simulated again by a task per chunk on the chunk's worker (compute/coin-tasks.ts
   * runTwinRows), posted as soon as the chunk is back, so that it runs while this thread
   * merges and books the run; `twinParts`: all of the twin's rows.
   */
  private async coinOutcomes(
    spec: RunSpec,
    symbols: string[],
    lane: Lane,
    universe: { tradable?: Record<string, number[]>; delisted: string[]; today?: readonly string[] } = { delisted: [] },
    twin = false,
    /** where the merged table's columns are lent from (given back by the caller once booked); new columns without */
    columns?: MergeColumns,
  ): Promise<{ coins: CoinOutcome[]; trades: TradeTable; intrabar: RunIntrabar | null; twinParts: Promise<TwinRows[]> | null }> {
    // today's coins first; a twin's coins go with the run's: a coin of both is in one chunk, simulated once
    const today = universe.today
    const all = today ? [...new Set([...today, ...symbols])] : symbols
    const chunks = chunkCount(all.length, lane)
    const chunkOf = new Map(all.map((s, i) => [s, i % chunks])) // interleaved, so big and small coins spread evenly
    const parts: string[][] = Array.from({ length: chunks }, () => [])
    const twinParts: string[][] = Array.from({ length: chunks }, () => [])
    for (const s of symbols) parts[chunkOf.get(s)!].push(s)
    if (twin) for (const s of today!) twinParts[chunkOf.get(s)!].push(s)
    const payloadOf = (k: number): CoinTradesPayload => {
      const p = parts[k]
      const payload: CoinTradesPayload = { spec, symbols: p }
      if (universe.tradable) payload.memberships = membershipsOf(p, universe.tradable)
      const delisted = universe.delisted.filter(s => p.includes(s))
      if (delisted.length) payload.delisted = delisted
      if (twin) payload.twin = twinParts[k]
      return payload
    }
    const twinTasks: Promise<TwinRows>[] = []
    const results = await Promise.all(
      parts.map((_, k) =>
        lane.run(runCoinTrades, payloadOf(k), k).then(r => {
          const left = r.twin?.left ?? []
          if (left.length > 0) {
            const delisted = universe.delisted.filter(s => left.includes(s))
            const task = lane.run(runTwinRows, { spec, symbols: left, known: r.twin!.known, ...(delisted.length ? { delisted } : {}) }, k)
            // awaited with the others once every chunk is back; one that fails before must not go unhandled
            task.catch(() => {})
            twinTasks.push(task)
          }
          return r
        }),
      ),
    )
    await yieldToLoop() // the last chunk's message was decoded in this turn: merge in the next
    const bySymbol = new Map<string, CoinOutcome>()
    for (const r of results) for (const c of r.coins) bySymbol.set(c.symbol, c)
    const trades = mergeCoinTables(symbols, spec.direction, results.map(r => r.trades), columns)
    return {
      coins: symbols.map(s => bySymbol.get(s)!),
      trades,
      intrabar: mergeIntrabar(symbols, results.map(r => r.intrabar)),
      twinParts: twin ? Promise.all(twinTasks).then(rest => [...results.map(r => r.twin!.rows), ...rest]) : null,
    }
  }

  /**
   * The metrics of several runs over the same coins (compare's strategies), admitted as one
   * run, each done whole in a worker: the runs split over the workers by position (the
   * same strategy lands on the same worker every time, where its signal masks are cached).
   * Metrics are cached by result hash like results (a cached full result serves too). The
   * coins are the first spec's universe. `report`: each run's `intrabar`, `costs` and
   * `capacity` too (RunMetricsResult.report), built on the workers beside the metrics.
   */
  batch(specs: RunSpec[], opts: { noCache?: boolean; report?: boolean } & AdmitOptions = {}): Promise<{ symbols: string[]; accounting: UniverseAccounting; runs: RunMetricsResult[] }> {
    return this.admitted(
      async lane => {
        const { symbols, accounting, plan, delisted } = this.runUniverse(specs[0])
        for (const spec of specs) checkDetailRequired(spec, symbols, this.deps.store)
        const universe: Omit<WholeRunsPayload, 'specs' | 'symbols'> = {}
        if (plan) Object.assign(universe, { tradable: plan.tradable, coinCount: plan.largestSet })
        if (delisted.length) universe.delisted = delisted
        if (opts.report) universe.report = true
        return { symbols, accounting, runs: await this.batchMetrics(lane, specs, symbols, opts.noCache === true, universe) }
      },
      { background: opts.background },
    )
  }

  private async batchMetrics(lane: Lane, specs: RunSpec[], symbols: string[], noCache: boolean, universe: Omit<WholeRunsPayload, 'specs' | 'symbols'> = {}): Promise<RunMetricsResult[]> {
    const version = this.deps.store.dataVersion()
    const hashes = specs.map(s => resultHash(s, version))
    const out: (RunMetricsResult | undefined)[] = hashes.map(h => {
      if (noCache) return undefined
      const full = this.results.peek(h)
      if (full) {
        const curve = full.assembled.portfolio.equityCurve
        const m: RunMetricsResult = {
          metrics: full.assembled.metrics,
          span: curve.length ? { fromDayMs: curve[0].tMs, toDayMs: curve[curve.length - 1].tMs } : null,
          ruinedAtMs: full.assembled.portfolio.ruinedAtMs,
        }
        if (universe.report) {
          // the blocks of the full result's body (built on first read): the same code builds them on the workers
          const body = full.assembled.body
          if (!body.costs) return undefined
          m.report = { intrabar: body.intrabar ?? null, costs: body.costs, capacity: body.capacity ?? null }
        }
        return m
      }
      const cached = this.results.metricsOf(h)
      // metrics cached without the blocks (the hot strategies'): run again to get them
      return universe.report && cached && !cached.report ? undefined : cached
    })
    const todo = specs.map((_, i) => i).filter(i => out[i] === undefined)
    if (todo.length === 0) return out as RunMetricsResult[]
    const parallelism = Math.max(1, lane.parallelism)
    const parts = Array.from({ length: parallelism }, (_, k) => todo.filter(i => i % parallelism === k)).filter(p => p.length > 0)
    const results = await Promise.all(parts.map(p => lane.run(runWholeRuns, { specs: p.map(i => specs[i]), symbols, ...universe }, p[0] % parallelism)))
    parts.forEach((p, k) =>
      p.forEach((i, j) => {
        out[i] = results[k][j]
        this.results.rememberMetrics(hashes[i], results[k][j])
      }),
    )
    return out as RunMetricsResult[]
  }

  /**
   * The rankings' runs over nested coin groups (compute/nested-runs.ts): for each spec, the
   * metrics of each group's run (results[spec][group]). One task per spec: short tasks, so a
   * request's tasks, which go ahead of a job's on the workers, wait at most for the ones
   * already running. Specs with the same `sameWorker` key (a configuration's strategy) go
   * to one worker, always the same, where their signal masks stay cached between presets,
   * periods and days.
   */
  nestedRuns(payload: NestedRunsPayload & { sameWorker: readonly string[] }, opts: AdmitOptions = {}): Promise<RunMetricsResult[][]> {
    return this.admitted(async lane => {
      const workerOf = new Map<string, number>()
      for (const key of payload.sameWorker) if (!workerOf.has(key)) workerOf.set(key, workerOf.size)
      const answers = await Promise.all(
        payload.specs.map((spec, i) => {
          const { sameWorker: _w, specs: _s, ...rest } = payload
          return lane.run(runNestedRuns, { ...rest, specs: [spec] }, workerOf.get(payload.sameWorker[i])!)
        }),
      )
      return answers.map(a => a[0])
    }, opts)
  }

  /** The live scan's signal masks of `coins` (compute/signal-tasks.ts), in one chunk of coins per worker. */
  signalScan(coins: readonly string[], payload: (symbols: string[]) => ScanPayload, opts: AdmitOptions = {}): Promise<CoinScan[]> {
    return this.admitted(async lane => {
      const n = Math.max(1, lane.parallelism)
      const chunks = Array.from({ length: n }, (_, k) => coins.filter((_, i) => i % n === k)).filter(c => c.length > 0)
      const parts = await Promise.all(chunks.map((c, k) => lane.run(runScanSignals, payload(c), k)))
      return parts.flat()
    }, opts)
  }

  /** Optimize's SL/TP grid (research.ts): every coin's trades under every cell, each cell booked as a portfolio of its own. */
  gridSearch(spec: RunSpec, symbols: string[], cells: GridCell[], opts: AdmitOptions = {}): Promise<GridSearchResult> {
    // a point-in-time spec's coins (runUniverse) trade only while in its sets
    const plan = this.planOf(spec)
    const delisted = delistedAmong(symbols, this.deps.store)
    const universe = { ...(plan ? { tradable: plan.tradable, coinCount: plan.largestSet } : {}), ...(delisted.length ? { delisted } : {}) }
    return this.admitted(lane => gridSearch(lane, spec, symbols, cells, s => this.deps.store.bars(s), universe), opts)
  }

  /**
   * Validate's run (without the per-result statistics: the response has its own Monte
   * Carlo), its trade bootstrap and its random-entry null over every coin (research.ts), as
   * one admitted run. `seed` defaults to the run's (seedOfHash).
   */
  validation(spec: RunSpec, opts: { noCache?: boolean; simulations: number; seed?: number | null } & AdmitOptions): Promise<{ run: RunResult; seed: number } & RunMonteCarlo> {
    const background = opts.background === true
    return this.admitted(
      async lane => {
        const run = await this.runOnce(spec, opts.noCache === true, true, false, background)
        const seed = opts.seed ?? seedOfHash(run.hash)
        // a point-in-time run's null draws entries only while a coin was in the set, as the run entered
        return { run, seed, ...(await runMonteCarlo(lane, run, opts.simulations, seed, this.planOf(run.spec)?.tradable)) }
      },
      { background },
    )
  }

  /** A DCA bot over one coin's window (docs/bots.md). */
  dcaBot(payload: TaskPayload<'dcaBot'>, opts: AdmitOptions = {}): Promise<TaskResult<'dcaBot'>> {
    return this.admitted(lane => lane.run(runDcaBot, payload), opts)
  }

  /** A grid bot over one coin's window (docs/bots.md). */
  gridBot(payload: TaskPayload<'gridBot'>, opts: AdmitOptions = {}): Promise<TaskResult<'gridBot'>> {
    return this.admitted(lane => lane.run(runGridBot, payload), opts)
  }

  /** A generated bot's zip (bot-generator/pack.ts): its files and self-test candles. */
  botZip(payload: TaskPayload<'packBot'>, opts: AdmitOptions = {}): Promise<TaskResult<'packBot'>> {
    return this.admitted(lane => lane.run(runPackBot, payload), opts)
  }

  /**
   * Trials of a research sweep (or of a walk-forward fold's search), each run whole on a
   * worker and booked as a portfolio of its own (compute/sweep-tasks.ts): one short task,
   * in the background lane, so a request's tasks go first. A sweep keeps several in flight
   * and checks between them whether it was cancelled. `affinity`: a hint to keep trials
   * that share an entry rule where its signal masks are cached.
   */
  sweepTrials(specs: RunSpec[], symbols: string[], opts: { affinity?: number } = {}): Promise<SweepTrialOutcome[]> {
    return this.admitted(lane => lane.run(runSweepTrials, { specs, symbols }, opts.affinity), { background: true })
  }

  /**
   * The probability of backtest overfitting of a sweep's trials (CSCV over their blocks of
   * days, engine/statistics-pbo.ts) on the workers, its splits cut into tasks of about
   * CSCV_TASK_WORK trial-splits each; null when the blocks cannot be split.
   */
  overfitting(stats: BlockStats): Promise<PboResult | null> {
    if (!cscvPossible(stats)) return Promise.resolve(null)
    return this.admitted(
      async lane => {
        const n = cscvSplits(stats.blocks).length
        const per = Math.max(1, Math.floor(CSCV_TASK_WORK / stats.trials))
        const parts: Promise<Float64Array>[] = []
        for (let from = 0, k = 0; from < n; from += per, k++) parts.push(lane.run(runCscv, { stats, from, to: Math.min(n, from + per) }, k))
        const logits = await Promise.all(parts)
        const all = new Float64Array(n)
        let at = 0
        for (const l of logits) {
          all.set(l, at)
          at += l.length
        }
        return pboOf(stats, all)
      },
      { background: true },
    )
  }

  /**
   * A walk-forward run's out-of-sample parts stitched into one run: each fold's spec (its
   * chosen parameters over its out-of-sample days) computed on the workers, their trades
   * joined coin by coin and booked as one portfolio over `spec`'s window, with every
   * statistic of /backtest (its deflated Sharpe over `nTrials`). Not cached: the result
   * is no single request's, so `hash` is the folds' own and not stored for /export/csv.
   */
  stitchedRun(spec: RunSpec, folds: RunSpec[], opts: { nTrials: number }): Promise<RunResult> {
    return this.admitted(
      async lane => {
        const started = performance.now()
        const { symbols, accounting } = this.resolveUniverse(spec)
        const parts: { coins: CoinOutcome[]; trades: TradeTable }[] = []
        for (const f of folds) parts.push(await this.coinOutcomes(f, symbols, lane))
        const coins = symbols.map((symbol, i) => {
          const inWindow = parts.filter(p => p.coins[i].inWindow)
          return {
            symbol,
            inWindow: inWindow.length > 0,
            fromMs: inWindow.length ? Math.min(...inWindow.map(p => p.coins[i].fromMs!)) : null,
            toMs: inWindow.length ? Math.max(...inWindow.map(p => p.coins[i].toMs!)) : null,
          }
        })
        const trades = concatFoldTables(symbols, spec.direction, parts.map(p => p.trades))
        if (accounting.top_n_requested !== null)
          accounting.coins_missing_data = Math.min(accounting.top_n_requested, accounting.eligible_universe!) - coins.filter(c => c.inWindow).length
        const hash = foldsHash(folds, this.deps.store.dataVersion())
        return this.bookOutcome(spec, hash, { symbols, accounting, coins, trades }, true, lane, started, opts.nTrials)
      },
      { background: true },
    )
  }

  /** The result behind a hash: from memory, or recomputed from the stored request (null: never stored). */
  async byHash(hash: string): Promise<RunResult | null> {
    const hit = this.results.peek(hash)
    if (hit) return hit
    const spec = await this.results.storedRequest(hash)
    return spec ? this.run(spec, { statistics: false }) : null
  }
}
