/**
 * The paper-trading records (docs/paper-trading.md): the cycles, daily picks, positions and
 * equity history the paper trader (src/live/paper-trader.ts) writes and the /paper-trading
 * service reads, the pick rule both publish, closed paper trades as Merkle leaves
 * (docs/trust.md), and the execution figures of /trust/metrics and the real-mode checklist.
 */
import { and, asc, desc, eq, gte, inArray, lt, notInArray, or, sql } from 'drizzle-orm'
import { paperCycles, paperHistory, paperPicks, paperPositions, signals } from '../../db/schema'
import type { Db } from '../db'
import type { CandleStore } from '../market/candle-store'
import type { SeriesCache } from '../market/series'
import { isTimeframe } from '../market/timeframe'
import { lastCompletedBar, firstBarAtOrAfter } from '../runs/compute/signal-tasks'
import { DAY_MS, HOUR_MS, isoDay, isoInstant, isoRecordInstant } from '../time'
import { appendEvents, type NewEvent } from './events'
import type { Leaf, LeafSource } from './merkle-leaves'
import { makeLeaf } from './merkle-leaves'

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
  }
}

export const paperLeafSource: LeafSource = {
  leaves(db: Db, fromMs: number, toMs: number): Leaf[] {
    return db
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
      .all()
      .map(p => makeLeaf(`paper_trade:${p.id}`, p.exitTimeMs!, { kind: 'paper_trade', ...positionItem(p) }))
  },
  pendingBefore(db: Db, dayEndMs: number): boolean {
    const n = db
      .select({ n: sql<number>`count(*)` })
      .from(paperPositions)
      .where(and(inArray(paperPositions.status, ['pending', 'open']), lt(paperPositions.entryTimeMs, dayEndMs), lt(paperPositions.markedThroughMs, dayEndMs)))
      .get()?.n ?? 0
    return n > 0
  },
}

/** The paper-trading figures /trust/metrics and the real-mode checklist read. */
export interface PaperFigures {
  completedCycles(): number
  /** paper entry vs the signal's reference entry, % (one value per paper position) */
  slippagePct(sinceMs: number): number[]
  /** [positions with SL and TP set, all positions] */
  slTpSet(sinceMs: number): [number, number]
}

export function paperFigures(db: Db): PaperFigures {
  return {
    completedCycles: () => db.select({ n: sql<number>`count(*)` }).from(paperCycles).where(eq(paperCycles.status, 'complete')).get()?.n ?? 0,
    slippagePct: sinceMs =>
      db
        .select({ e: paperPositions.entryPrice, r: paperPositions.referenceEntryPrice })
        .from(paperPositions)
        .where(gte(paperPositions.openedAtMs, sinceMs))
        .all()
        .filter(x => x.e !== null)
        .map(x => ((x.e! - x.r) / x.r) * 100),
    slTpSet: sinceMs => {
      const rows = db.select({ sl: paperPositions.slPct, tp: paperPositions.tpPct }).from(paperPositions).where(gte(paperPositions.openedAtMs, sinceMs)).all()
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
export function paperCycle(db: Db, id?: number): PaperCycleRow | null {
  const q = db.select().from(paperCycles)
  return (id === undefined ? q.orderBy(desc(paperCycles.id)).limit(1).get() : q.where(eq(paperCycles.id, id)).get()) ?? null
}

export function insertCycle(db: Db, cycle: PaperCycleRow): void {
  db.insert(paperCycles).values(cycle).run()
}

export function completeCycle(db: Db, id: number, v: { completedAtMs: number; finalEquity: number; processedThroughMs: number }): void {
  db.update(paperCycles).set({ status: 'complete', ...v }).where(eq(paperCycles.id, id)).run()
}

/** The cycle has taken the signals published up to `ms`. */
export function setProcessedThrough(db: Db, id: number, ms: number): void {
  db.update(paperCycles).set({ processedThroughMs: ms }).where(eq(paperCycles.id, id)).run()
}

export function picksOfDay(db: Db, cycleId: number, day: string): PaperPicksRow | undefined {
  return db.select().from(paperPicks).where(and(eq(paperPicks.cycleId, cycleId), eq(paperPicks.day, day))).get()
}

/** A day's picks, written once (a second write of the day is ignored). */
export function insertPicks(db: Db, picks: typeof paperPicks.$inferInsert): void {
  db.insert(paperPicks).values(picks).onConflictDoNothing().run()
}

/** The cycle's picks, oldest first. */
export function picksOfCycle(db: Db, cycleId: number): PaperPicksRow[] {
  return db.select().from(paperPicks).where(eq(paperPicks.cycleId, cycleId)).orderBy(asc(paperPicks.pickedAtMs)).all()
}

export function latestPicks(db: Db, cycleId: number): PaperPicksRow | null {
  return db.select().from(paperPicks).where(eq(paperPicks.cycleId, cycleId)).orderBy(desc(paperPicks.pickedAtMs)).limit(1).get() ?? null
}

export function positionsOfCycle(db: Db, cycleId: number): PaperPositionRow[] {
  return db.select().from(paperPositions).where(eq(paperPositions.cycleId, cycleId)).all()
}

/** The cycle's pending and open positions, by entry time. */
export function openPositions(db: Db, cycleId: number): PaperPositionRow[] {
  return db.select().from(paperPositions).where(and(eq(paperPositions.cycleId, cycleId), inArray(paperPositions.status, OPEN_STATUSES))).orderBy(asc(paperPositions.entryTimeMs)).all()
}

/** The cycle's `limit` most recently closed positions (closed or cancelled), newest first. */
export function closedPositions(db: Db, cycleId: number, limit: number): PaperPositionRow[] {
  return db
    .select()
    .from(paperPositions)
    .where(and(eq(paperPositions.cycleId, cycleId), notInArray(paperPositions.status, OPEN_STATUSES)))
    .orderBy(desc(paperPositions.closedAtMs), desc(paperPositions.exitTimeMs), desc(paperPositions.id))
    .limit(limit)
    .all()
}

/** The P&L (USD) of the cycle's closed positions. */
export function realizedPnlUsd(db: Db, cycleId: number): number {
  return db.select({ p: paperPositions.pnlUsd }).from(paperPositions).where(and(eq(paperPositions.cycleId, cycleId), notInArray(paperPositions.status, OPEN_STATUSES))).all().reduce((s, r) => s + (r.p ?? 0), 0)
}

/** A new position (a signal already taken is not taken twice). */
export function insertPosition(db: Db, row: PaperPositionRow): void {
  db.insert(paperPositions).values(row).onConflictDoNothing().run()
}

/**
 * Changes to positions, in one transaction; a position no longer pending or open is left as
 * it is. A position that opens (pending → open) or closes (→ a final status) is announced
 * in the same transaction by the push feed's `paper` event (docs/events.md): the position
 * as /paper-trading serves it; one that goes from pending to final in one pass is announced
 * once, closed.
 */
export function updateOpenPositions(db: Db, updates: { id: string; set: Partial<PaperPositionRow> }[], nowMs: number): void {
  db.transaction(tx => {
    const announce: NewEvent[] = []
    for (const u of updates) {
      const before = tx.select({ status: paperPositions.status }).from(paperPositions).where(eq(paperPositions.id, u.id)).get()
      const after = tx.update(paperPositions).set(u.set).where(and(eq(paperPositions.id, u.id), inArray(paperPositions.status, OPEN_STATUSES))).returning().get()
      if (!before || !after || after.status === before.status) continue
      const action = OPEN_STATUSES.includes(after.status) ? 'opened' : 'closed'
      const status = tx.select({ status: signals.status }).from(signals).where(eq(signals.id, after.signalId)).get()?.status ?? null
      announce.push({ kind: 'paper', payload: { action, position: positionItem(after) }, strategy: after.strategy, coin: after.coin, status })
    }
    appendEvents(tx, nowMs, announce)
  })
}

/** The cycle's daily equity rows, oldest first. */
export function historyOf(db: Db, cycleId: number): PaperHistoryRow[] {
  return db.select().from(paperHistory).where(eq(paperHistory.cycleId, cycleId)).orderBy(asc(paperHistory.date)).all()
}

/** A day's equity row, written once. */
export function insertHistory(db: Db, row: PaperHistoryRow): void {
  db.insert(paperHistory).values(row).onConflictDoNothing().run()
}

/** Equity at an instant: capital + closed P&L by then + open positions marked at the last close by then. */
export function equityAt(deps: { db: Db; series: SeriesCache }, cycle: PaperCycleRow, atMs: number): { equity: number; open: number; closed: number } {
  const positions = positionsOfCycle(deps.db, cycle.id)
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
