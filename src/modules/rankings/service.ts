/**
 * GET /rankings/daily, /rankings/files/{date} and /rankings/criteria: projections of the
 * published day files (nothing is computed per request but the headline, a few filters
 * over the stored rows).
 */
import type { Clock } from '../../clock'
import type { Db } from '../../db'
import type { CandleStore } from '../../market/candle-store'
import { InvalidRequest, NotFound } from '../../runs/errors'
import { STATUS_DEFINITIONS } from '../../strategies/status'
import { configurations, GROUPS, MIN_TRADES, pointInTimeRules, rcScope, simulateBodyOf, unrankableReason, type Configuration, type Group, type Period } from '../../records/rankings/configurations'
import { DayFiles, type StoredDayFile } from '../../records/rankings/day-files'
import { eligibleList, headlineOf, heldBack, top3, worst3, type EligibleRow, type RankedRow, type WeeklyRow } from '../../records/rankings/rank'
import { SCHEMA_VERSION, storesEligibleRanks } from '../../records/rankings/versions'
import { roundTo } from '../../round'
import { compactDay, isoDay, isoInstant, parseCompactDay, parseDay } from '../../time'

export interface DailyQuery {
  date?: string
  period: Period
  group: Group
  strict_date: boolean
  selection: boolean
}

export const CRITERIA_URL = '/rankings/criteria'

const round2 = (x: number) => roundTo(x, 2)

/** YYYYMMDD → YYYY-MM-DD, or null when not a calendar date. */
export function dayOfParam(s: string): string | null {
  const ms = parseCompactDay(s)
  return ms === null ? null : isoDay(ms)
}

/** A row of the ranked list as the response shows it (figures rounded to 2 decimals; raw ones are in `selection`). */
export function publicRow(r: EligibleRow) {
  return {
    rank: r.rank,
    overall_rank: r.overall_rank,
    name_en: r.name_en,
    name_ko: r.name_ko,
    strategy: r.strategy,
    direction: r.direction,
    win_rate: round2(r.win_rate),
    profit_factor: round2(r.profit_factor),
    total_return: round2(r.total_return_pct),
    total_trades: r.total_trades,
    sharpe: round2(r.sharpe_ratio),
    max_drawdown: round2(r.max_drawdown_pct),
    // day files of rules v1 did not record ruin: the key is left out rather than guessed
    ...(r.ruined_at === undefined ? {} : { ruined_at: r.ruined_at }),
    rank_change: r.rank_change,
    streak: r.streak,
    configuration_id: r.configuration_id,
    timeframe: r.timeframe,
    sl_pct: r.sl_pct,
    tp_pct: r.tp_pct,
    max_bars: r.max_bars,
    status: r.status,
    pf_capped: r.pf_capped,
  }
}

/** A held-back row: what a ranked row shows but the ranked list's rank fields (its overall rank stays), and why it is not ranked. */
function heldBackRow(r: RankedRow) {
  const { rank: _rank, rank_change: _change, streak: _streak, ...shown } = publicRow({ ...r, overall_rank: r.rank })
  return {
    ...shown,
    reason: 'min_trades' as const,
    why: `${r.total_trades} trade${r.total_trades === 1 ? '' : 's'}, fewer than the ${MIN_TRADES} a ranked configuration needs`,
  }
}

const rawFigures = (r: RankedRow) => ({
  total_trades: r.total_trades,
  win_rate: r.win_rate,
  profit_factor: r.profit_factor,
  profit_factor_capped: r.pf_capped,
  total_return_pct: r.total_return_pct,
  sharpe_ratio: r.sharpe_ratio,
  max_drawdown_pct: r.max_drawdown_pct,
  ...(r.ruined_at === undefined ? {} : { ruined_at: r.ruined_at }),
})

export class RankingsService {
  readonly files: DayFiles
  private configsById: Map<string, Configuration> | null = null

  /** `reach`: the store and clock that say whether the candles reach the dates the job ranks (absent: not checked) */
  constructor(db: Db, private readonly reach?: { store: Pick<CandleStore, 'newestCandleMs'>; clock: Clock }) {
    this.files = new DayFiles(db)
  }

  /** Before the first day file: why there is none (the store's candles end before the dates ranked), or "being computed". */
  private notYet(): NotFound {
    const why = this.reach ? unrankableReason(this.reach.store.newestCandleMs(), this.reach.clock.now()) : null
    if (why !== null) return new NotFound(`No daily ranking has been published, and none will be by the daily job: ${why}.`)
    return new NotFound('No daily ranking has been published yet: the first one is being computed (at start-up, then daily at 00:30 UTC). Retry in a minute.')
  }

  private dateParam(raw: string, loc: (string | number)[]): string {
    const d = dayOfParam(raw)
    if (!d) throw new InvalidRequest([{ loc, msg: 'date must be a calendar date written YYYYMMDD (eight digits)', input: raw }])
    return d
  }

  /** The stored day file for exact date YYYYMMDD (its bytes are the response). */
  async dayFile(raw: string): Promise<StoredDayFile> {
    const date = this.dateParam(raw, ['path', 'date'])
    const f = await this.files.get(date)
    if (!f) {
      if ((await this.files.latest()) === null) throw this.notYet()
      throw new NotFound(`No day file for ${raw}: rankings are published for the dates GET /rankings/daily serves`)
    }
    return f
  }

  async daily(q: DailyQuery) {
    const requested = q.date === undefined ? null : this.dateParam(q.date, ['query', 'date'])
    const latest = await this.files.latest()
    if (latest === null) throw this.notYet()
    let served: string | null
    if (requested === null) served = latest
    else if (q.strict_date) {
      served = (await this.files.get(requested)) ? requested : null
      if (!served) throw new NotFound(`No ranking for ${q.date} (strict_date=true asks for that exact day); the newest on or before it is ${(await this.files.latestOnOrBefore(requested)) ?? 'none'}`)
    } else {
      served = await this.files.latestOnOrBefore(requested)
      if (!served) throw new NotFound(`No ranking on or before ${q.date}: the rankings start later`)
    }
    const stored = (await this.files.get(served))!
    const file = stored.file
    const window = file.periods[q.period]
    const g = window.groups[q.group]
    const rows = g.rows
    const list = await this.rankedList(stored, q.period, q.group)
    const held = heldBack(rows)
    const top = top3(list)
    const worst = worst3(list)
    const headline = headlineOf(list, (GROUPS as readonly string[]).includes(q.group), held)
    const byId = new Map(list.map(r => [r.configuration_id, r]))
    // a stored day file's date is a real YYYY-MM-DD
    const dateMs = parseDay(served)!
    const citationUrl = `/rankings/daily?date=${compactDay(dateMs)}&period=${q.period}&group=${q.group}&strict_date=true`
    const reverify = (which: 'top3' | 'worst3') => (r: EligibleRow) => ({
      list: which,
      configuration_id: r.configuration_id,
      rank: r.rank,
      overall_rank: r.overall_rank,
      request: { method: 'POST', path: '/simulate', body: simulateBodyOf(this.configuration(r), dateMs, q.period, q.group) },
      // the same run with the group's coins listed: it reproduces the figures even after the universe's order has changed;
      // none for a point-in-time group (rules v3 on), whose coins change over the period
      request_with_symbols: pointInTimeRules(r.configuration_id) && q.group !== 'btc' ? null : { method: 'POST', path: '/simulate', body: { ...simulateBodyOf(this.configuration(r), dateMs, q.period, q.group), top_n: null, symbols: g.symbols } },
      expected: rawFigures(r),
    })
    return {
      // the layout of this answer; the file's own version is citation.schema_version
      schema_version: SCHEMA_VERSION,
      date: served,
      requested_date: requested,
      date_substituted: requested !== null && requested !== served,
      // files of rankings-1 wrote milliseconds: the answer writes every instant in whole seconds
      generated_at: isoInstant(Date.parse(file.generated_at)),
      written_by: file.written_by,
      period: q.period,
      group: q.group,
      start_date: window.start_date,
      end_date: window.end_date,
      // later than start_date when the store's candles begin inside the period (null in files written before the field)
      data_start_date: g.data_start_date ?? null,
      coins: g.symbols.length,
      eligible_universe: g.eligible_universe,
      ranked_count: list.length,
      held_back_count: held.length,
      min_trades: MIN_TRADES,
      top3: top.map(publicRow),
      worst3: worst.map(publicRow),
      weekly_best3: g.weekly_best3.map(w => this.weeklyRow(w, byId.get(w.configuration_id) ?? null)),
      held_back: held.map(heldBackRow),
      citation: {
        url: citationUrl,
        date: served,
        day_file_url: `/rankings/files/${compactDay(dateMs)}`,
        day_file_sha256: stored.sha256,
        schema_version: file.schema_version,
        rules_version: file.rules_version,
        engine_version: file.engine_version,
        data_version: file.data_version,
      },
      how_to_reverify: {
        steps: [
          `GET /rankings/files/${compactDay(dateMs)} and compute the sha256 of the exact response bytes: it equals citation.day_file_sha256 (${stored.sha256}).`,
          `In that file, periods["${q.period}"].groups["${q.group}"].rows holds every ranked configuration with its raw figures, in rank order.`,
          'For any row, POST /simulate with the body listed here (or built the same way: its strategy, sl_pct, tp_pct, max_bars, timeframe, the period\'s start_date/end_date, and top_n or symbols of the group, and from rules v3 on universe "point_in_time" for the top-N groups): total_trades, win_rate, profit_factor, total_return_pct, sharpe_ratio, max_drawdown_pct and ruined_at of the answer equal the row\'s raw figures, on a store whose candles up to end_date and coin order are those of citation.data_version.',
          `Re-sort the rows by profit_factor, win_rate, total_trades (descending) and configuration_id (ascending) to get the overall ranks (each row's rank in the file); leave out the rows with fewer than ${MIN_TRADES} trades (held_back) and number the rest 1, 2, 3, …: those are the ranks shown (each row's eligible_rank in files of rankings-2).`,
        ],
        rows: [...top.map(reverify('top3')), ...worst.map(reverify('worst3'))],
      },
      research_status_definitions: STATUS_DEFINITIONS,
      criteria_url: CRITERIA_URL,
      rc_scope: rcScope(Number(file.rules.configurations), Number(file.rules.strategies)),
      ...headline,
      ...(q.selection
        ? {
            selection: {
              day_file_sha256: stored.sha256,
              rows: list.map(r => ({ rank: r.rank, overall_rank: r.overall_rank, configuration_id: r.configuration_id, ...rawFigures(r), rank_change: r.rank_change, streak: r.streak })),
              held_back: held.map(r => ({ overall_rank: r.rank, configuration_id: r.configuration_id, ...rawFigures(r) })),
              previous_day: {
                date: file.previous_date,
                // previous_rank: the eligible rank on that day (the input of rank_change)
                ranks: list
                  .filter(r => r.previous_eligible_rank !== null || r.previous_streak !== null)
                  .map(r => ({ configuration_id: r.configuration_id, previous_rank: r.previous_eligible_rank ?? null, previous_streak: r.previous_streak })),
              },
            },
          }
        : {}),
    }
  }

  /**
   * The ranked list of one period × group of a stored file (eligible rows, eligible ranks):
   * stored in rankings-2 files, derived for rankings-1 files from theirs and the previous day's.
   */
  async rankedList(stored: StoredDayFile, period: Period, group: Group): Promise<EligibleRow[]> {
    const f = stored.file
    const rows = f.periods[period].groups[group].rows
    if (storesEligibleRanks(f.schema_version)) return eligibleList(rows, null, true)
    const prev = f.previous_date === null ? null : ((await this.files.get(f.previous_date))?.file.periods[period]?.groups[group]?.rows ?? null)
    return eligibleList(rows, prev, false)
  }

  /**
   * For other services (signals, mail): the ranked rows of one period × group of the newest
   * day file on or before `date` (default: the newest), or null before the first ranking.
   */
  async rowsOf(period: Period, group: Group, date?: string): Promise<{ date: string; sha256: string; rows: readonly RankedRow[] } | null> {
    const served = date === undefined ? await this.files.latest() : await this.files.latestOnOrBefore(date)
    if (served === null) return null
    const stored = (await this.files.get(served))!
    return { date: served, sha256: stored.sha256, rows: stored.file.periods[period].groups[group].rows }
  }

  private weeklyRow(w: WeeklyRow, today: EligibleRow | null) {
    const c = this.configsById?.get(w.configuration_id) ?? this.lookup(w.configuration_id)
    return {
      ...(today ? publicRow(today) : { rank: null, configuration_id: w.configuration_id, strategy: c?.strategy ?? null, name_en: c?.name ?? null, direction: c?.direction ?? null, timeframe: c?.timeframe ?? null }),
      days_ranked: w.days_ranked,
      mean_profit_factor: round2(w.mean_profit_factor),
      mean_win_rate: round2(w.mean_win_rate),
    }
  }

  private lookup(id: string): Configuration | undefined {
    this.configsById ??= new Map(configurations().map(c => [c.id, c]))
    return this.configsById.get(id)
  }

  /** A row's configuration as the day file recorded it (its own fields, not today's registry). */
  private configuration(r: RankedRow): Configuration {
    return { id: r.configuration_id, strategy: r.strategy, name: r.name_en, direction: r.direction, status: r.status, timeframe: r.timeframe, sl_pct: r.sl_pct, tp_pct: r.tp_pct, max_bars: r.max_bars }
  }
}
