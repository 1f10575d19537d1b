/**
 * The weekly alert (Monday 01:00 UTC): the week's digest is gathered once and frozen in
 * weekly_digests, one outbox row is queued per active subscriber (in one transaction,
 * unique per recipient and week), then the outbox delivers. A rerun of the same week
 * (a crash, `cli mail weekly`) reuses the frozen digest and queues nothing twice.
 */
import { eq } from 'drizzle-orm'
import type { Clock } from '../clock'
import type { Db } from '../db'
import type { Direction } from '../engine/types'
import { configurations, COSTS, GROUP_TOP_N, type Group, type Period } from '../records/rankings/configurations'
import { koreanName } from '../records/rankings/names-ko'
import { DayFiles } from '../records/rankings/day-files'
import { activeSubscribers } from '../records/subscribers'
import { eligibleList, top3, type RankedRow, type WeeklyRow } from '../records/rankings/rank'
import { isoWeek, weekStartMs } from './iso-week'
import type { DeliveryReport, Mailer } from './mailer'
import { weeklyMail, type MailContent } from './messages'
import type { DigestRow, DigestSignals, WeeklyDigest } from './weekly-digest'
import { DAY_MS, isoDay } from '../time'

/** the ranking the mail quotes: the contract's default group; the week's best from the 7-day period, the top 3 from the 30-day one */
export const DIGEST_GROUP: Group = 'top50'
export const WEEKLY_PERIOD: Period = '7d'
export const TOP_PERIOD: Period = '30d'

/** The verified strategies' scored signals closed in [fromMs, toMs), per strategy; null: not available on this service. */
export type WeeklySignalsSource = (fromMs: number, toMs: number) => Promise<DigestSignals[] | null>

export interface WeeklyMailDeps {
  db: Db
  clock: Clock
  mailer: Mailer
  signals?: WeeklySignalsSource
}


interface RowConfiguration {
  strategy: string
  name: string
  nameKo: string | null
  direction: Direction
  timeframe: string
  sl_pct: number
  tp_pct: number
  max_bars: number
}

function digestRow(c: RowConfiguration, rank: number, today: RankedRow | null, weekly: WeeklyRow | null, window: { start_date: string; end_date: string }): DigestRow {
  return {
    rank,
    strategyId: c.strategy,
    name: c.name,
    nameKo: c.nameKo,
    direction: c.direction,
    timeframe: c.timeframe,
    slPct: c.sl_pct,
    tpPct: c.tp_pct,
    maxBars: c.max_bars,
    figures: today
      ? {
          winRatePct: today.win_rate,
          profitFactor: today.profit_factor,
          totalReturnPct: today.total_return_pct,
          maxDrawdownPct: today.max_drawdown_pct,
          trades: today.total_trades,
          ruinedOn: today.ruined_at ? today.ruined_at.slice(0, 10) : null,
        }
      : null,
    weekly: weekly ? { daysRanked: weekly.days_ranked, meanProfitFactor: weekly.mean_profit_factor, meanWinRatePct: weekly.mean_win_rate } : null,
    // the /share settings that recompute exactly this configuration over the period (same costs as the rankings)
    share: {
      preset: c.strategy,
      dir: c.direction,
      sl: String(c.sl_pct),
      tp: String(c.tp_pct),
      topN: String(GROUP_TOP_N[DIGEST_GROUP]),
      lev: String(COSTS.leverage),
      fee: String(Number((COSTS.fee_pct * 100).toPrecision(12))),
      from: window.start_date,
      to: window.end_date,
      tf: c.timeframe,
      bars: String(c.max_bars),
    },
  }
}

const fromRow = (r: RankedRow): RowConfiguration => ({ ...r, name: r.name_en, nameKo: r.name_ko })

/** a weekly_best3 configuration not ranked on the day itself: its settings from the configuration list */
function fromConfiguration(id: string): RowConfiguration | null {
  const c = configurations().find(x => x.id === id)
  return c ? { ...c, nameKo: koreanName(c.strategy, c.direction) } : null
}

/** The digest of the week holding `atMs`, from the newest ranking day file on or before that day. */
export async function gatherDigest(db: Db, atMs: number, signals?: WeeklySignalsSource): Promise<WeeklyDigest> {
  const week = isoWeek(atMs)
  const files = new DayFiles(db)
  const date = await files.latestOnOrBefore(isoDay(atMs))
  // the signals of the last complete week (Monday to Monday, UTC)
  const weekStart = weekStartMs(atMs)
  const sig = signals ? await signals(weekStart - 7 * DAY_MS, weekStart) : null
  if (!date) return { week, rankingDate: null, rankingScope: `${DIGEST_GROUP}`, weeklyBest: [], top30d: [], signals: sig }
  const file = (await files.get(date))!.file
  const weekly = file.periods[WEEKLY_PERIOD]
  const top = file.periods[TOP_PERIOD]
  const weeklyGroup = weekly.groups[DIGEST_GROUP]
  const byId = new Map(weeklyGroup.rows.map(r => [r.configuration_id, r]))
  const weeklyBest: DigestRow[] = []
  for (const w of weeklyGroup.weekly_best3) {
    const today = byId.get(w.configuration_id) ?? null
    const c = today ? fromRow(today) : fromConfiguration(w.configuration_id)
    if (c) weeklyBest.push(digestRow(c, weeklyBest.length + 1, today, w, weekly))
  }
  // ranks among the eligible rows, as /rankings/daily shows them (held-back rows are not in the list)
  const top30d = top3(eligibleList(top.groups[DIGEST_GROUP].rows, null, false)).map(r => digestRow(fromRow(r), r.rank, r, null, top))
  return { week, rankingDate: date, rankingScope: `${DIGEST_GROUP}, ${WEEKLY_PERIOD} / ${TOP_PERIOD}`, weeklyBest, top30d, signals: sig }
}

/** The week's frozen digest: stored on first use, read back ever after. */
async function frozenDigest(deps: WeeklyMailDeps, atMs: number): Promise<WeeklyDigest> {
  const week = isoWeek(atMs)
  const t = deps.db.t.weeklyDigests
  const stored = (await deps.db.orm.select().from(t).where(eq(t.week, week)))[0]
  if (stored) return stored.payload as WeeklyDigest
  const digest = await gatherDigest(deps.db, atMs, deps.signals)
  await deps.db.orm.insert(t).values({ week, payload: digest, createdAtMs: deps.clock.now() }).onConflictDoNothing()
  return (await deps.db.orm.select().from(t).where(eq(t.week, week)))[0]!.payload as WeeklyDigest
}

export interface WeeklyRun {
  week: string
  subscribers: number
  queued: number
  delivery: DeliveryReport | null
  /** dry run: the mail each language would get (to the first active subscriber, or a placeholder address) */
  samples?: Record<'en' | 'ko', MailContent>
}

/** Run the weekly alert for the week holding `atMs`; `dryRun` stores and sends nothing. */
export async function runWeeklyMail(deps: WeeklyMailDeps, atMs: number, opts: { dryRun?: boolean } = {}): Promise<WeeklyRun> {
  const week = isoWeek(atMs)
  const subs = await activeSubscribers(deps.db)
  if (opts.dryRun) {
    const digest = await gatherDigest(deps.db, atMs, deps.signals)
    const unsubscribe = await deps.mailer.unsubscribeUrl(subs[0]?.email ?? 'subscriber@example.org')
    const sample = (lang: 'en' | 'ko') => weeklyMail(digest, lang, { share: r => deps.mailer.shareUrl(r, lang), unsubscribe })
    return { week, subscribers: subs.length, queued: 0, delivery: null, samples: { en: sample('en'), ko: sample('ko') } }
  }
  // nobody to write to: nothing is frozen, so a week's digest is only fixed when it is mailed
  if (subs.length === 0) return { week, subscribers: 0, queued: 0, delivery: null }
  await frozenDigest(deps, atMs)
  const queued = await deps.mailer.outbox.enqueue(subs.map(s => ({ kind: 'weekly', recipient: s.email, week, lang: s.lang })))
  const delivery = await deps.mailer.deliverDue()
  return { week, subscribers: subs.length, queued, delivery }
}
