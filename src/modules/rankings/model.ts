import { t } from 'elysia'
import { GROUPS, PERIODS } from '../../records/rankings/configurations'

export const DailyRankingQuery = t.Object({
  date: t.Optional(t.String({ pattern: '^[0-9]{8}$', description: 'ranking date YYYYMMDD; omitted = the latest' })),
  period: t.UnionEnum([...PERIODS], { default: '30d' }),
  group: t.UnionEnum([...GROUPS], { default: 'top50' }),
  strict_date: t.Boolean({ default: false, description: 'true: that exact day or 404; false: the newest day on or before it' }),
  selection: t.Boolean({ default: false, description: 'adds the ranked rows in raw values, the previous day’s rank inputs and the day file’s sha256' }),
})

export const DayFileParams = t.Object({
  date: t.String({ pattern: '^[0-9]{8}$', description: 'ranking date YYYYMMDD' }),
})

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()])

export const RankingRow = t.Object(
  {
    rank: t.Integer({ description: 'rank among the eligible rows (those with at least min_trades trades): 1, 2, 3 for the top' }),
    overall_rank: t.Integer({ description: 'rank in the whole population, held-back rows included (the day file’s `rank`)' }),
    name_en: t.String(),
    name_ko: Nullable(t.String()),
    strategy: t.String(),
    direction: t.String(),
    win_rate: t.Number(),
    profit_factor: t.Number(),
    total_return: t.Number(),
    total_trades: t.Integer(),
    sharpe: t.Number(),
    max_drawdown: t.Number(),
    ruined_at: t.Optional(Nullable(t.String({ format: 'date-time', description: "when the run's equity reached zero (null: never); absent on days ranked under rules v1" }))),
    rank_change: Nullable(t.Integer()),
    streak: t.Integer(),
    configuration_id: t.String(),
    timeframe: t.String(),
    sl_pct: t.Number(),
    tp_pct: t.Number(),
    max_bars: t.Integer(),
    status: t.String(),
    pf_capped: t.Boolean(),
  },
  { additionalProperties: true },
)

export const WeeklyRow = t.Object(
  {
    configuration_id: t.String(),
    rank: Nullable(t.Integer({ description: 'today’s rank among the eligible rows; null when not in today’s ranked list' })),
    days_ranked: t.Integer(),
    mean_profit_factor: t.Number(),
    mean_win_rate: t.Number(),
  },
  { additionalProperties: true },
)

/** A row held back from the ranked list: a ranking row's settings and figures, without the ranked list's rank fields, and why. */
export const HeldBackRow = t.Composite(
  [
    t.Omit(RankingRow, ['rank', 'rank_change', 'streak']),
    t.Object({
      reason: t.Literal('min_trades', { description: 'why the row is not ranked: fewer trades than min_trades' }),
      why: t.String({ description: 'the reason in words, with the row’s trade count' }),
    }),
  ],
  { additionalProperties: true },
)

export const DailyRankingResponse = t.Object(
  {
    schema_version: t.String(),
    date: t.String({ description: 'the ranking date served (YYYY-MM-DD)' }),
    generated_at: Nullable(t.String()),
    period: t.String(),
    group: t.String(),
    top3: t.Array(RankingRow),
    worst3: t.Array(RankingRow),
    weekly_best3: t.Array(WeeklyRow),
    held_back: t.Array(HeldBackRow, { description: 'rows left out of the ranked list for too few trades, in overall rank order' }),
    citation: t.Object({}, { additionalProperties: true }),
    how_to_reverify: t.Object({}, { additionalProperties: true }),
    research_status_definitions: t.Object({}, { additionalProperties: true }),
    criteria_url: t.String(),
    rc_scope: t.String(),
    headline_has_verified: t.Boolean(),
    verified_in_ranking: t.Array(t.Object({ configuration_id: t.String(), rank: t.Integer(), profit_factor: t.Number(), pf_capped: t.Boolean() })),
    headline_note: Nullable(t.Object({ en: t.String(), ko: t.String() })),
    headline_note_kind: Nullable(t.UnionEnum(['verified_below', 'verified_ranked_lower', 'no_verified_in_group', 'unknown'])),
  },
  { additionalProperties: true },
)

export const HotStrategy = t.Object(
  {
    strategy_id: t.String(),
    strategy_name: t.String(),
    direction: t.String(),
    status: t.String(),
    period: t.String(),
    profit_factor: t.Number(),
    win_rate: t.Number(),
    total_trades: t.Integer(),
    total_return_pct: t.Number(),
  },
  { additionalProperties: true },
)

export const HotStrategiesResponse = t.Object(
  { strategies: t.Array(HotStrategy), computed_at: t.String() },
  { additionalProperties: true },
)

