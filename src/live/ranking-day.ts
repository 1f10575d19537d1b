/**
 * The daily ranking's step: every configuration × period × group run through the run
 * pipeline exactly as POST /simulate runs it (the row's published body goes through
 * simulateSpec, src/runs/simulate-spec.ts: the /simulate service's own body → spec step),
 * ranked, and published as one append-only day file. The `rankings` job
 * (src/jobs/rankings.ts) calls it at 00:30 UTC and for the days it catches up; `cli jobs
 * run rankings --date` and the benchmarks reach it through that job or call it directly.
 */
import type { Clock } from '../clock'
import type { Db } from '../db'
import type { CandleStore } from '../market/candle-store'
// the one mapping from a /simulate body to its RunSpec (the /simulate service calls it too):
// a row's run is, by construction, the run /simulate makes of the body the row publishes
import { simulateSpec } from '../runs/simulate-spec'
import { Overloaded } from '../runs/errors'
import type { RunService } from '../runs/service'
import type { RunMetricsResult } from '../runs/compute/coin-tasks'
import type { NestedRunsPayload } from '../runs/compute/nested-runs'
import {
  configurations,
  COSTS,
  GROUP_TOP_N,
  GROUPS,
  MIN_TRADES,
  PERIODS,
  periodWindow,
  PF_CAP,
  RULES_VERSION,
  SCHEMA_VERSION,
  simulateBodyOf,
  STREAK_TOP,
  WEEKLY_DAYS,
  WEEKLY_MIN_DAYS,
  type Configuration,
  type Group,
  type Period,
} from '../records/rankings/configurations'
import { DayFiles, type DayFile, type GroupRanking } from '../records/rankings/day-files'
import { koreanName } from '../records/rankings/names-ko'
import { rankPopulation, weeklyBest3, type RankedRow, type RowFigures } from '../records/rankings/rank'
import { ENGINE_VERSION } from '../records/rankings/versions'
import { DAY_MS, HOUR_MS, isoDay, isoInstant, parseDay } from '../time'

/** What the step needs of the run that drives it (a job's context, or a caller of its own). */
export interface RankingStepContext {
  /** a line of progress (shown by `cli jobs run`) */
  progress(message: string): void
  /** a turn of the event loop between pieces of work */
  yield(): Promise<void>
  /** who asked, written into the day file (`manual` also reports every group's progress) */
  trigger: DayFile['written_by']
}

export interface RankingDeps {
  clock: Clock
  db: Db
  store: CandleStore
  runs: RunService
}


/**
 * A batch of background work; should the pool's backstop bound on waiting job tasks be
 * reached (Overloaded), the job waits the Retry-After it was given and asks again, instead
 * of failing the day.
 */
async function whenAdmitted<T>(work: () => Promise<T>, yieldStep: () => Promise<void>): Promise<T> {
  for (;;) {
    try {
      return await work()
    } catch (e) {
      if (!(e instanceof Overloaded)) throw e
      await new Promise(r => setTimeout(r, e.retryAfterSec * 1000))
      await yieldStep()
    }
  }
}

interface GroupFigures {
  symbols: string[]
  accounting: { top_n_requested: number | null; eligible_universe: number | null }
  rows: RowFigures[]
}

/**
 * The figures of every group of one period: for each configuration, each group's run as
 * /simulate runs its body (simulateSpec; the group's coins resolved by the run pipeline's
 * own universe rule), every coin simulated once over the groups' union (nested-runs.ts).
 * The configurations split over the workers by strategy, so each worker keeps its own
 * strategies' signal masks between presets, periods and days.
 */
async function periodFigures(deps: RankingDeps, configs: readonly Configuration[], dateMs: number, period: Period, yieldStep: () => Promise<void>): Promise<Record<Group, GroupFigures>> {
  // each body as /simulate runs it: its universe decided by the run pipeline (v3: point-in-time top N)
  const specsOf = (group: Group) =>
    configs.map(c => {
      const body = simulateBodyOf(c, dateMs, period, group)
      return deps.runs.withUniverse(simulateSpec(body), body)
    })
  const resolved = GROUPS.map(group => {
    const specs = specsOf(group)
    if (GROUP_TOP_N[group] === null && !specs[0].symbols!.every(s => deps.store.bars(s))) return { group, symbols: [] as string[], accounting: { top_n_requested: null, eligible_universe: null }, specs, universe: null }
    const { symbols, accounting, plan, delisted } = deps.runs.runUniverse(specs[0])
    const universe = plan ? { tradable: plan.tradable, coinCount: plan.largestSet, ...(delisted.length ? { delisted } : {}) } : delisted.length ? { delisted } : null
    return { group, symbols, accounting: { top_n_requested: accounting.top_n_requested, eligible_universe: accounting.eligible_universe }, specs, universe }
  })
  const sameWorker = configs.map(c => c.strategy)
  // one task per configuration, a strategy's on one worker (its signal masks stay cached
  // there for the other presets, periods and days); scheduled work: behind every request
  // on the workers, and never counted against QUEUE_MAX
  const nested = (payload: NestedRunsPayload) => whenAdmitted(() => deps.runs.nestedRuns({ ...payload, sameWorker }, { background: true }), yieldStep)
  let results: (RunMetricsResult | null)[][]
  if (resolved.some(r => r.universe)) {
    // point-in-time groups (rules v3) do not nest in one order over the period: each group
    // booked over its own coins and membership, a coin with the same membership in several
    // groups simulated once (nested-runs.ts ownGroups)
    const live = resolved.filter(r => r.symbols.length > 0)
    const specs = live.reduce((a, b) => (b.symbols.length > a.symbols.length ? b : a)).specs
    const ownGroups = live.map(r => ({ symbols: r.symbols, coinCount: r.symbols.length, ...(r.universe ?? {}) }))
    const answers = await nested({ specs, symbols: [], groups: [], ownGroups })
    results = configs.map((_, i) => resolved.map(r => (r.symbols.length === 0 ? null : answers[i][live.indexOf(r)])))
  } else {
    // the union of the groups' coins in universe order (the widest group's first)
    const union: string[] = []
    const at = new Map<string, number>()
    for (const r of [...resolved].sort((a, b) => b.symbols.length - a.symbols.length))
      for (const s of r.symbols) if (!at.has(s)) at.set(s, union.push(s) - 1)
    const groups = resolved.map(r => r.symbols.map(s => at.get(s)!))
    // each group's coins must keep their own run's order inside the union (ascending indices)
    for (const g of groups) for (let k = 1; k < g.length; k++) if (g[k] < g[k - 1]) throw new Error('ranking groups do not nest in universe order')
    const unionSpecs = resolved.reduce((a, b) => (b.symbols.length > a.symbols.length ? b : a)).specs
    results = await nested({ specs: unionSpecs, symbols: union, groups })
  }
  const out = {} as Record<Group, GroupFigures>
  resolved.forEach((r, gi) => {
    const rows = r.symbols.length === 0 ? [] : configs.map((c, i): RowFigures => {
      const { metrics: m, ruinedAtMs } = results[i][gi]!
      return {
        configuration_id: c.id,
        strategy: c.strategy,
        name_en: c.name,
        name_ko: koreanName(c.strategy, c.direction),
        direction: c.direction,
        status: c.status,
        timeframe: c.timeframe,
        sl_pct: c.sl_pct,
        tp_pct: c.tp_pct,
        max_bars: c.max_bars,
        total_trades: m.total_trades,
        win_rate: m.win_rate,
        profit_factor: m.profit_factor,
        pf_capped: m.profit_factor_capped,
        total_return_pct: m.total_return_pct,
        sharpe_ratio: m.sharpe_ratio,
        max_drawdown_pct: m.max_drawdown_pct,
        ruined_at: ruinedAtMs === null ? null : isoInstant(ruinedAtMs),
      }
    })
    out[r.group] = { symbols: r.symbols, accounting: r.accounting, rows }
  })
  return out
}

/**
 * Coins of the widest group (top 100) that are live (a candle within the two days before
 * the ranking date) but lack the last hour before it: a sync still on its way. A coin
 * whose candles stopped earlier (delisted, halted) does not hold the ranking up.
 */
function laggingCoins(deps: RankingDeps, config: Configuration, dateMs: number): string[] {
  const { symbols } = deps.runs.resolveUniverse(simulateSpec(simulateBodyOf(config, dateMs, '7d', 'top100')))
  return symbols.filter(s => {
    const b = deps.store.bars(s)
    if (!b || b.n === 0) return false
    const last = b.t[b.n - 1]
    return last >= dateMs - 2 * DAY_MS && last < dateMs - HOUR_MS
  })
}

/**
 * Compute the day file of ranking date `date` (YYYY-MM-DD), or say why not yet: the store
 * does not hold the candles up to the end of the day before it (the job then fails and is
 * retried).
 */
export async function computeDayFile(
  deps: RankingDeps,
  date: string,
  ctx: RankingStepContext,
  files: DayFiles = new DayFiles(deps.db),
): Promise<DayFile | { incomplete: string }> {
  const dateMs = parseDay(date)
  if (dateMs === null) throw new Error(`not a calendar day: ${date}`)
  const last = deps.store.newestCandleMs()
  if (last === null || last < dateMs - HOUR_MS)
    return { incomplete: `the store's candles end ${last === null ? 'nowhere (empty store)' : isoInstant(last)}, before the last hour of ${isoDay(dateMs - DAY_MS)}` }
  const configs = configurations()
  const lagging = laggingCoins(deps, configs[0], dateMs)
  if (lagging.length > 0)
    return { incomplete: `${lagging.length} live coin(s) of the top 100 lack the candle of the last hour of ${isoDay(dateMs - DAY_MS)} (${lagging.slice(0, 5).join(', ')}${lagging.length > 5 ? ', …' : ''})` }
  const previousDate = isoDay(dateMs - DAY_MS)
  // the six days before (parsed once, kept by `files`): one parse per turn of the event loop
  const week: (DayFile | null)[] = []
  for (let k = 1; k < WEEKLY_DAYS; k++) {
    week.push((await files.get(isoDay(dateMs - k * DAY_MS)))?.file ?? null)
    await ctx.yield()
  }
  const previous = week[0]
  const periods = {} as DayFile['periods']
  const started = performance.now()
  for (const period of PERIODS) {
    const groups = {} as Record<Group, GroupRanking>
    await ctx.yield()
    const figures = await periodFigures(deps, configs, dateMs, period, ctx.yield)
    for (const group of GROUPS) {
      await ctx.yield()
      const { symbols, accounting, rows } = figures[group]
      const ranked = rankPopulation(rows, previous?.periods[period]?.groups[group]?.rows ?? null)
      const days: RankedRow[][] = [ranked, ...week.flatMap(f => (f ? [f.periods[period]?.groups[group]?.rows ?? []] : []))]
      groups[group] = { symbols, ...accounting, data_start_date: dataStartDate(deps, symbols, periodWindow(dateMs, period).start_date), rows: ranked, weekly_best3: weeklyBest3(days) }
      if (ctx.trigger === 'manual') ctx.progress(`${date} ${period} ${group}: ${ranked.length} ranked of ${configs.length} configurations on ${symbols.length} coins (${((performance.now() - started) / 1000).toFixed(1)} s)`)
    }
    periods[period] = { ...periodWindow(dateMs, period), groups }
  }
  return {
    schema_version: SCHEMA_VERSION,
    rules_version: RULES_VERSION,
    date,
    generated_at: isoInstant(deps.clock.now()),
    written_by: ctx.trigger,
    engine_version: ENGINE_VERSION,
    data_version: deps.store.dataVersion(),
    previous_date: previous ? previousDate : null,
    rules: { min_trades: MIN_TRADES, pf_cap: PF_CAP, streak_top: STREAK_TOP, weekly_days: WEEKLY_DAYS, weekly_min_days: WEEKLY_MIN_DAYS, costs: COSTS, configurations: configs.length, strategies: new Set(configs.map(c => c.strategy)).size },
    periods,
  }
}

/** The first day of the period that the coins' candles cover (GroupRanking.data_start_date). */
function dataStartDate(deps: RankingDeps, symbols: string[], startDate: string): string | null {
  let first = Infinity
  for (const s of symbols) {
    const t0 = deps.store.bars(s)?.t[0]
    if (t0 !== undefined && t0 < first) first = t0
  }
  if (!Number.isFinite(first)) return null
  const day = isoDay(Math.floor(first / DAY_MS) * DAY_MS)
  return day > startDate ? day : startDate
}

/** What publishing a ranking day did: published with its rows, or skipped and why. */
export type RankingDayReport = { skipped: string } | { counts: { rows: number; configurations: number } }

/**
 * The day file of `date` (YYYY-MM-DD) computed and published, unless it is already (by this
 * or another run); throws when the store cannot rank that date yet, so the job is retried.
 */
export async function publishRankingDay(deps: RankingDeps, date: string, ctx: RankingStepContext, files: DayFiles = new DayFiles(deps.db)): Promise<RankingDayReport> {
  if (await files.get(date)) return { skipped: `the day file of ${date} is already published` }
  const started = performance.now()
  const file = await computeDayFile(deps, date, ctx, files)
  if ('incomplete' in file) throw new Error(`cannot rank ${date} yet: ${file.incomplete}`)
  const { published, sha256 } = await files.publish(file, deps.clock.now())
  if (!published) return { skipped: `the day file of ${date} was published by another run meanwhile` }
  let rows = 0
  for (const p of PERIODS) for (const g of GROUPS) rows += file.periods[p].groups[g].rows.length
  ctx.progress(`published the day file of ${date} (${ctx.trigger}): ${rows} ranked rows in ${((performance.now() - started) / 1000).toFixed(1)} s, sha256 ${sha256}`)
  return { counts: { rows, configurations: file.rules.configurations as number } }
}
