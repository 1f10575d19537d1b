/**
 * The live records of a few days, as the live-records job makes them hour by hour: a ranking
 * day file that gives the paper trader its picks, then scan → score → paper → seal each hour
 * on the harness's clock. Shared by the push-feed tests (events, webhooks).
 */
import { sealDays } from '../../src/live/day-roots'
import { runPaper } from '../../src/live/paper-trader'
import { scanSignals } from '../../src/live/signal-scan'
import { scoreSignals } from '../../src/live/signal-score'
import { HOUR_MS } from '../../src/time'
import { paperLeafSource } from '../../src/records/paper'
import { GROUPS, PERIODS, type Group, type Period } from '../../src/records/rankings/configurations'
import { DayFiles, type DayFile, type GroupRanking } from '../../src/records/rankings/day-files'
import type { RankedRow } from '../../src/records/rankings/rank'
import { getStrategy } from '../../src/strategies/registry'
import type { Harness } from './harness'

/** A ranked row of a registry strategy at its default settings (40 trades, PF 2.5), at `rank`. */
export function rankedRegistryRow(strategy: string, rank: number, over: Partial<RankedRow> = {}): RankedRow {
  const s = getStrategy(strategy)!
  return {
    configuration_id: `v1:${strategy}:1H:${s.sl_pct}-${s.tp_pct}-${s.max_bars}`, strategy, name_en: s.name, name_ko: null, direction: s.direction, status: s.status, timeframe: '1H',
    sl_pct: s.sl_pct, tp_pct: s.tp_pct, max_bars: s.max_bars, total_trades: 40, win_rate: 50, profit_factor: 2.5, pf_capped: false, total_return_pct: 1, sharpe_ratio: 1, max_drawdown_pct: 1,
    rank, eligible: true, previous_rank: null, previous_streak: null, rank_change: null, streak: 0,
    ...over,
  }
}

/** Publishes a (rankings-1) day file of `date` whose groups are empty but those `withRows` says, which hold `rows`. */
export async function publishPicksDay(h: Harness, date: string, rows: RankedRow[], withRows: (period: Period, group: Group) => boolean): Promise<void> {
  const empty: GroupRanking = { symbols: [], top_n_requested: null, eligible_universe: null, rows: [], weekly_best3: [] }
  await new DayFiles(h.deps.db).publish(
    {
      schema_version: 'rankings-1', rules_version: 'v1', date, generated_at: `${date}T00:30:00Z`, written_by: 'schedule', engine_version: 'x', data_version: 'x', previous_date: null, rules: {},
      periods: Object.fromEntries(PERIODS.map(p => [p, { start_date: date, end_date: date, groups: Object.fromEntries(GROUPS.map(g => [g, withRows(p, g) ? { ...empty, rows } : empty])) }])) as DayFile['periods'],
    },
    h.clock.now(),
  )
}

/** Each hour from `start` to `end`, 10 s past it: the live steps in the job's order, then `after` (if any). */
export async function runLiveHours(h: Harness, start: number, end: number, after?: () => Promise<unknown>): Promise<void> {
  for (let t = start; t <= end; t += HOUR_MS) {
    h.clock.set(t + 10_000)
    await scanSignals(h.deps)
    await scoreSignals(h.deps)
    await runPaper(h.deps)
    await sealDays({ ...h.deps, leafSources: [paperLeafSource] })
    if (after) await after()
  }
}
