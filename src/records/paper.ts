/**
 * Paper-trading records as the trust layer and the /paper-trading service read them:
 * closed paper trades as Merkle leaves (docs/trust.md), and the execution figures of
 * /trust/metrics and the real-mode checklist.
 */
import { and, eq, gte, inArray, lt, notInArray, or, sql } from 'drizzle-orm'
import { paperCycles, paperPositions } from '../../db/schema'
import type { Db } from '../db'
import type { CandleStore } from '../market/candle-store'
import { DAY_MS, HOUR_MS, isoDay, isoInstant, isoRecordInstant as isoZ } from '../time'
import type { Leaf, LeafSource } from './merkle-leaves'
import { makeLeaf } from './merkle-leaves'

export type PaperPositionRow = typeof paperPositions.$inferSelect

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
    entry_time: isoZ(p.entryTimeMs),
    entry_price: p.entryPrice,
    exit_reason: p.exitReason,
    exit_time: p.exitTimeMs === null ? null : isoZ(p.exitTimeMs),
    exit_price: p.exitPrice,
    bars_held: p.barsHeld,
    pnl_pct: p.pnlPct,
    pnl_usd: p.pnlUsd,
    mark_price: p.markPrice,
    unrealized_usd: p.unrealizedUsd,
    marked_through: isoZ(p.markedThroughMs),
    opened_at: isoZ(p.openedAtMs),
    closed_at: p.closedAtMs === null ? null : isoZ(p.closedAtMs),
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
