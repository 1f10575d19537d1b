/**
 * The paper-trading records (docs/paper-trading.md): the cycles, daily picks, positions and
 * equity history the paper trader (src/live/paper-trader.ts) writes and the /paper-trading
 * service reads, the pick rule both publish, closed paper trades as Merkle leaves
 * (docs/trust.md), and the execution figures of /trust/metrics and the real-mode checklist.
 */
import { and, asc, count, desc, eq, gte, inArray, lt, notInArray, or, sql } from 'drizzle-orm'
import type { paperCycles, paperHistory, paperPicks, paperPositions } from '../../db/schema'
import type { Db, Queryable } from '../db'
import type { CandleStore } from '../market/candle-store'
import type { SeriesCache } from '../market/series'
import { isTimeframe } from '../market/timeframe'
import { lastCompletedBar, firstBarAtOrAfter } from '../runs/compute/signal-tasks'
import { DAY_MS, HOUR_MS, isoDay, isoInstant, isoRecordInstant } from '../time'
import { appendEvents, type NewEvent } from './events'
import type { Leaf, LeafSource } from './merkle-leaves'
import { makeLeaf } from './merkle-leaves'
import { replaysMinutes, scoringExecutionItem } from './scoring-execution'

export type PaperCycleRow = typeof paperCycles.$inferSelect
export type PaperPositionRow = typeof paperPositions.$inferSelect
export type PaperPicksRow = typeof paperPicks.$inferSelect
export type PaperHistoryRow = typeof paperHistory.$inferSelect

/**
 * Why the paper trader cannot trade today (null: it can): the store's candles do not reach
 * today's start (an import of old data, or a feed stopped for over a day). No cycle is
 * opened, nor one ended and its successor opened, on days the store does not reach.
 */
export function paperWaitingReason(store: Pick<CandleStore, 'newestCandleMs'>, now: number): string | null {
  const newest = store.newestCandleMs()
  if (newest !== null && newest + HOUR_MS >= Math.floor(now / DAY_MS) * DAY_MS) return null
  return newest === null
    ? 'the store holds no candles: no paper cycle is opened'
    : `the store's candles end at ${isoInstant(newest + HOUR_MS)} (newest candle opens ${isoInstant(newest)}), before today ${isoDay(now)}: no paper cycle is opened or rolled on a day the store does not reach`
}

/** statuses that are not a trade (yet, or ever) */
const NOT_TRADES = ['pending', 'open', 'cancelled']

export function positionItem(p: PaperPositionRow) {
  return {
    id: p.id,
    cycle_id: p.cycleId,
    signal_id: p.signalId,
    configuration_id: p.configurationId,
    strategy: p.strategy,
    coin: p.coin,
    direction: p.direction,
    timeframe: p.timeframe,
    status: p.status,
    margin_usd: p.marginUsd,
    leverage: p.leverage,
    fee_frac: p.feeFrac,
    sl_pct: p.slPct,
    tp_pct: p.tpPct,
    max_bars: p.maxBars,
    reference_entry_price: p.referenceEntryPrice,
    entry_time: isoRecordInstant(p.entryTimeMs),
    entry_price: p.entryPrice,
    exit_reason: p.exitReason,
    exit_time: p.exitTimeMs === null ? null : isoRecordInstant(p.exitTimeMs),
    exit_price: p.exitPrice,
    bars_held: p.barsHeld,
    pnl_pct: p.pnlPct,
    pnl_usd: p.pnlUsd,
    mark_price: p.markPrice,
    unrealized_usd: p.unrealizedUsd,
    marked_through: isoRecordInstant(p.markedThroughMs),
    opened_at: isoRecordInstant(p.openedAtMs),
    closed_at: p.closedAtMs === null ? null : isoRecordInstant(p.closedAtMs),
    // only positions priced with the execution costs carry these keys: earlier ones (and their leaves) stay as published
    ...(p.engine ? { engine: p.engine, ...scoringExecutionItem(p.engine, p.leverage, p.marginUsd) } : {}),
    // positions of an engine that replays minutes say how their exit was found (null while open or cancelled)
    ...(replaysMinutes(p.engine) ? { exit_resolution: (p.exitResolution as 'detail' | 'bar' | null) ?? null } : {}),
  }
}

export const paperLeafSource: LeafSource = {
  async leaves(db: Queryable, fromMs: number, toMs: number): Promise<Leaf[]> {
    const { paperPositions } = db.t
    const rows = await db.orm
      .select()
      .from(paperPositions)
      .where(
        and(
          notInArray(paperPositions.status, NOT_TRADES),
          or(
            and(gte(paperPositions.exitTimeMs, fromMs), lt(paperPositions.exitTimeMs, toMs)),
            and(
              lt(paperPositions.exitTimeMs, fromMs),
              gte(paperPositions.closedAtMs, fromMs),
              lt(paperPositions.closedAtMs, toMs),
              sql`'paper_trade:' || ${paperPositions.id} NOT IN (SELECT record_id FROM day_leaves)`,
            ),
          ),
        ),
      )
    return rows.map(p => makeLeaf(`paper_trade:${p.id}`, p.exitTimeMs!, { kind: 'paper_trade', ...positionItem(p) }))
  },
  async pendingBefore(db: Queryable, dayEndMs: number): Promise<boolean> {
    const { paperPositions } = db.t
    const n = (await db.orm
      .select({ n: count() })
      .from(paperPositions)
      .where(and(inArray(paperPositions.status, ['pending', 'open']), lt(paperPositions.entryTimeMs, dayEndMs), lt(paperPositions.markedThroughMs, dayEndMs))))[0]?.n ?? 0
    return n > 0
  },
}

/** The paper-trading figures /trust/metrics and the real-mode checklist read. */
export interface PaperFigures {
  completedCycles(): Promise<number>
  /** paper entry vs the signal's reference entry, % (one value per paper position) */
  slippagePct(sinceMs: number): Promise<number[]>
  /** [positions with SL and TP set, all positions] */
  slTpSet(sinceMs: number): Promise<[number, number]>
}

export function paperFigures(db: Queryable): PaperFigures {
  const { paperCycles, paperPositions } = db.t
  return {
    completedCycles: async () => (await db.orm.select({ n: count() }).from(paperCycles).where(eq(paperCycles.status, 'complete')))[0]?.n ?? 0,
    slippagePct: async sinceMs =>
      (await db.orm.select({ e: paperPositions.entryPrice, r: paperPositions.referenceEntryPrice }).from(paperPositions).where(gte(paperPositions.openedAtMs, sinceMs)))
        .filter(x => x.e !== null)
        .map(x => ((x.e! - x.r) / x.r) * 100),
    slTpSet: async sinceMs => {
      const rows = await db.orm.select({ sl: paperPositions.slPct, tp: paperPositions.tpPct }).from(paperPositions).where(gte(paperPositions.openedAtMs, sinceMs))
      return [rows.filter(r => r.sl > 0 && r.tp > 0).length, rows.length]
    },
  }
}

/** The pick rule (docs/paper-trading.md): how many, from which ranking, above which figures. */
export const PICK_COUNT = 3
export const PICK_MIN_PF = 1.5
export const PICK_MIN_TRADES = 30
export const PICK_PERIOD = '30d'
export const PICK_GROUP = 'top50'
export const PICK_RULE =
  `the ${PICK_COUNT} best-ranked configurations of distinct strategies in the latest ${PICK_PERIOD} ${PICK_GROUP} ranking with profit factor ≥ ${PICK_MIN_PF} and ≥ ${PICK_MIN_TRADES} trades; ` +
  `when none qualifies, the current regime's recommended strategies on 1H with their own SL/TP/max bars`

/** statuses of a position still in play (waiting for its entry bar, or open) */
const OPEN_STATUSES = ['pending', 'open']

/** The cycle `id`, or the newest cycle when `id` is undefined; null when there is none. */
export async function paperCycle(db: Queryable, id?: number): Promise<PaperCycleRow | null> {
  const { paperCycles } = db.t
  const q = db.orm.select().from(paperCycles)
  return (id === undefined ? await q.orderBy(desc(paperCycles.id)).limit(1) : await q.where(eq(paperCycles.id, id)))[0] ?? null
}

export async function insertCycle(db: Queryable, cycle: PaperCycleRow): Promise<void> {
  await db.orm.insert(db.t.paperCycles).values(cycle)
}

export async function completeCycle(db: Queryable, id: number, v: { completedAtMs: number; finalEquity: number; processedThroughMs: number }): Promise<void> {
  const { paperCycles } = db.t
  await db.orm.update(paperCycles).set({ status: 'complete', ...v }).where(eq(paperCycles.id, id))
}

/** The cycle has taken the signals published up to `ms`. */
export async function setProcessedThrough(db: Queryable, id: number, ms: number): Promise<void> {
  const { paperCycles } = db.t
  await db.orm.update(paperCycles).set({ processedThroughMs: ms }).where(eq(paperCycles.id, id))
}

export async function picksOfDay(db: Queryable, cycleId: number, day: string): Promise<PaperPicksRow | undefined> {
  const { paperPicks } = db.t
  return (await db.orm.select().from(paperPicks).where(and(eq(paperPicks.cycleId, cycleId), eq(paperPicks.day, day))))[0]
}

/** A day's picks, written once (a second write of the day is ignored). */
export async function insertPicks(db: Queryable, picks: typeof paperPicks.$inferInsert): Promise<void> {
  await db.orm.insert(db.t.paperPicks).values(picks).onConflictDoNothing()
}

/** The cycle's picks, oldest first. */
export async function picksOfCycle(db: Queryable, cycleId: number): Promise<PaperPicksRow[]> {
  const { paperPicks } = db.t
  return db.orm.select().from(paperPicks).where(eq(paperPicks.cycleId, cycleId)).orderBy(asc(paperPicks.pickedAtMs))
}

export async function latestPicks(db: Queryable, cycleId: number): Promise<PaperPicksRow | null> {
  const { paperPicks } = db.t
  return (await db.orm.select().from(paperPicks).where(eq(paperPicks.cycleId, cycleId)).orderBy(desc(paperPicks.pickedAtMs)).limit(1))[0] ?? null
}

export async function positionsOfCycle(db: Queryable, cycleId: number): Promise<PaperPositionRow[]> {
  const { paperPositions } = db.t
  return db.orm.select().from(paperPositions).where(eq(paperPositions.cycleId, cycleId))
}

/** The cycle's pending and open positions, by entry time. */
export async function openPositions(db: Queryable, cycleId: number): Promise<PaperPositionRow[]> {
  const { paperPositions } = db.t
  return db.orm.select().from(paperPositions).where(and(eq(paperPositions.cycleId, cycleId), inArray(paperPositions.status, OPEN_STATUSES))).orderBy(asc(paperPositions.entryTimeMs))
}

/** The cycle's `limit` most recently closed positions (closed or cancelled), newest first. */
export async function closedPositions(db: Queryable, cycleId: number, limit: number): Promise<PaperPositionRow[]> {
  const { paperPositions } = db.t
  return db.orm
    .select()
    .from(paperPositions)
    .where(and(eq(paperPositions.cycleId, cycleId), notInArray(paperPositions.status, OPEN_STATUSES)))
    .orderBy(desc(paperPositions.closedAtMs), desc(paperPositions.exitTimeMs), desc(paperPositions.id))
    .limit(limit)
}

/** The P&L (USD) of the cycle's closed positions. */
export async function realizedPnlUsd(db: Queryable, cycleId: number): Promise<number> {
  const { paperPositions } = db.t
  const rows = await db.orm.select({ p: paperPositions.pnlUsd }).from(paperPositions).where(and(eq(paperPositions.cycleId, cycleId), notInArray(paperPositions.status, OPEN_STATUSES)))
  return rows.reduce((s, r) => s + (r.p ?? 0), 0)
}

/** A new position (a signal already taken is not taken twice). */
export async function insertPosition(db: Queryable, row: PaperPositionRow): Promise<void> {
  await db.orm.insert(db.t.paperPositions).values(row).onConflictDoNothing()
}

/**
 * Changes to positions, in one transaction; a position no longer pending or open is left as
 * it is. A position that opens (pending → open) or closes (→ a final status) is announced
 * in the same transaction by the push feed's `paper` event (docs/events.md): the position
 * as /paper-trading serves it; one that goes from pending to final in one pass is announced
 * once, closed.
 */
export async function updateOpenPositions(db: Db, updates: { id: string; set: Partial<PaperPositionRow> }[], nowMs: number): Promise<void> {
  const { paperPositions, signals } = db.t
  await db.tx(async tx => {
    const announce: NewEvent[] = []
    for (const u of updates) {
      const before = (await tx.orm.select({ status: paperPositions.status }).from(paperPositions).where(eq(paperPositions.id, u.id)))[0]
      const after = (await tx.orm.update(paperPositions).set(u.set).where(and(eq(paperPositions.id, u.id), inArray(paperPositions.status, OPEN_STATUSES))).returning())[0]
      if (!before || !after || after.status === before.status) continue
      const action = OPEN_STATUSES.includes(after.status) ? 'opened' : 'closed'
      const status = (await tx.orm.select({ status: signals.status }).from(signals).where(eq(signals.id, after.signalId)))[0]?.status ?? null
      announce.push({ kind: 'paper', payload: { action, position: positionItem(after) }, strategy: after.strategy, coin: after.coin, status })
    }
    await appendEvents(tx, nowMs, announce)
  })
}

/** The cycle's daily equity rows, oldest first. */
export async function historyOf(db: Queryable, cycleId: number): Promise<PaperHistoryRow[]> {
  const { paperHistory } = db.t
  return db.orm.select().from(paperHistory).where(eq(paperHistory.cycleId, cycleId)).orderBy(asc(paperHistory.date))
}

/** A day's equity row, written once. */
export async function insertHistory(db: Queryable, row: PaperHistoryRow): Promise<void> {
  await db.orm.insert(db.t.paperHistory).values(row).onConflictDoNothing()
}

/** Equity at an instant: capital + closed P&L by then + open positions marked at the last close by then. */
export async function equityAt(deps: { db: Queryable; series: SeriesCache }, cycle: PaperCycleRow, atMs: number): Promise<{ equity: number; open: number; closed: number }> {
  const positions = await positionsOfCycle(deps.db, cycle.id)
  let equity = cycle.startingCapital
  let open = 0
  let closed = 0
  for (const p of positions) {
    if (p.entryPrice === null || p.entryTimeMs > atMs) continue
    if (p.exitTimeMs !== null && p.exitTimeMs <= atMs) {
      equity += p.pnlUsd ?? 0
      closed++
      continue
    }
    open++
    const bars = isTimeframe(p.timeframe) ? deps.series.get(p.coin, p.timeframe) : undefined
    if (!bars) continue
    const k = lastCompletedBar(bars, atMs)
    if (k < firstBarAtOrAfter(bars, p.entryTimeMs)) continue
    equity += (p.direction === 'long' ? 1 : -1) * (bars.c[k] / p.entryPrice - 1) * p.leverage * p.marginUsd
  }
  return { equity, open, closed }
}
