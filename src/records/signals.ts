/**
 * The signal records in the database: recorded signals, scan watermarks and scored
 * results. The scanner and scorer jobs write through here; the signals service reads.
 * Append-only rules are the database's (db/migrations/0004_signals_trust_triggers.sql).
 */
import { and, asc, desc, eq, gt, gte, inArray, lt, lte, max, ne, or, sql, type SQL } from 'drizzle-orm'
import { scoredSignals, signalScans, signals } from '../../db/schema'
import type { Db } from '../db'
import { appendEvents, type Announcement, type NewEvent } from './events'
import { signalItem } from './signal-item'

export type SignalRow = typeof signals.$inferSelect
export type ScoredRow = typeof scoredSignals.$inferSelect
export type ScanRow = typeof signalScans.$inferSelect

// v3: the execution costs of issue 25 (scoring-execution.ts); rows of v2 keep their model
export const ENGINE_LABEL = 'reference-engine-v3'
export const FINAL_STATUSES = ['tp', 'sl', 'timeout', 'liquidation', 'unscoreable'] as const
export type ScoredStatus = (typeof FINAL_STATUSES)[number] | 'open'

/** `v1:<strategy>:<timeframe>:<coin>:<signal bar open time, ms>` */
export function signalId(strategy: string, timeframe: string, coin: string, signalBarMs: number): string {
  return `v1:${strategy}:${timeframe}:${coin}:${signalBarMs}`
}

/** SQLite's bound-variable limit divided by a row's columns, rounded down generously */
const INSERT_CHUNK = 400

/** Insert signals not recorded yet; returns how many were new. */
export function insertSignals(db: Db, rows: SignalRow[]): number {
  let added = 0
  db.transaction(tx => {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      const chunk = rows.slice(i, i + INSERT_CHUNK)
      const fresh = new Set(tx.insert(signals).values(chunk).onConflictDoNothing().returning({ id: signals.id }).all().map(r => r.id))
      added += fresh.size
      // the push feed announces each new signal in the transaction that records it (docs/events.md)
      const recorded = chunk.filter(r => fresh.has(r.id))
      if (recorded.length) appendEvents(tx, Math.max(...recorded.map(r => r.publishedAtMs)), recorded.map(signalEvent))
    }
  })
  return added
}

/** The `signal` event: the /signals/history item. */
function signalEvent(r: SignalRow): NewEvent {
  return { kind: 'signal', payload: signalItem(r), strategy: r.strategy, coin: r.coin, status: r.status }
}

export function recordScan(db: Db, scan: ScanRow): void {
  db.insert(signalScans).values(scan).onConflictDoNothing().run()
}

/** The newest signal bar scanned on a timeframe, or null before the first scan. */
export function scanWatermark(db: Db, timeframe: string): number | null {
  const r = db.select({ m: max(signalScans.signalBarMs) }).from(signalScans).where(eq(signalScans.timeframe, timeframe)).get()
  return r?.m ?? null
}

export function latestScan(db: Db, timeframe: string): ScanRow | undefined {
  return db.select().from(signalScans).where(eq(signalScans.timeframe, timeframe)).orderBy(desc(signalScans.signalBarMs)).limit(1).get()
}

export function scanCount(db: Db): number {
  return db.select({ n: sql<number>`count(*)` }).from(signalScans).get()?.n ?? 0
}

/** Signals of one timeframe and signal bar. */
export function signalsOfBar(db: Db, timeframe: string, signalBarMs: number): SignalRow[] {
  return db.select().from(signals).where(and(eq(signals.timeframe, timeframe), eq(signals.signalBarMs, signalBarMs))).all()
}

/** Signals whose signal time is at or after `sinceMs`, newest first. */
export function signalsSince(db: Db, sinceMs: number): SignalRow[] {
  return db.select().from(signals).where(gte(signals.signalTimeMs, sinceMs)).orderBy(desc(signals.signalTimeMs), signals.id).all()
}

/**
 * One page of the signals whose signal time lies in [fromMs, toMs], newest first (then by
 * id): the `limit` after the keyset `after` (the last row of the previous page), and how
 * many the window holds. The keyset rides the signals_time index; a page never shifts when
 * newer signals are recorded between two requests.
 */
export function signalsPage(db: Db, q: { fromMs: number; toMs: number; after: { signalTimeMs: number; id: string } | null; limit: number }): { rows: SignalRow[]; total: number } {
  const window = and(gte(signals.signalTimeMs, q.fromMs), lte(signals.signalTimeMs, q.toMs))
  const after = q.after === null ? undefined : or(lt(signals.signalTimeMs, q.after.signalTimeMs), and(eq(signals.signalTimeMs, q.after.signalTimeMs), gt(signals.id, q.after.id)))
  const rows = db.select().from(signals).where(and(window, after)).orderBy(desc(signals.signalTimeMs), signals.id).limit(q.limit).all()
  const total = db.select({ n: sql<number>`count(*)` }).from(signals).where(window).get()?.n ?? 0
  return { rows, total }
}

/** Signals with no scored row yet, or an open one: the scorer's work list. */
/**
 * Signals without a scored row. A scoring pass writes a row for every signal it reads, in one
 * transaction, and signals are only ever inserted (their rowids rise with each insert), so
 * these are exactly the signals after the newest one that has a row: the condition walks
 * back from the newest signal to the first scored one instead of joining every signal ever
 * recorded, which a year of records (millions of rows, read every hour) made a stall of
 * seconds on the event loop.
 */
function unscored(db: Db): SQL {
  const newest = db
    .select({ k: sql<number>`${signals}.rowid` })
    .from(signals)
    .where(sql`EXISTS (SELECT 1 FROM ${scoredSignals} WHERE ${scoredSignals.signalId} = ${signals.id})`)
    .orderBy(sql`${signals}.rowid DESC`)
    .limit(1)
    .get()
  return sql`${signals}.rowid > ${newest?.k ?? 0}`
}

export function signalsToScore(db: Db): { signal: SignalRow; scored: ScoredRow | null }[] {
  const open = db
    .select()
    .from(scoredSignals)
    .innerJoin(signals, eq(scoredSignals.signalId, signals.id))
    .where(eq(scoredSignals.status, 'open'))
    .all()
    .map(r => ({ signal: r.signals, scored: r.scored_signals as ScoredRow | null }))
  const fresh = db.select().from(signals).where(unscored(db)).all().map(signal => ({ signal, scored: null }))
  return [...open, ...fresh]
}

const MUTABLE_COLUMNS = [
  ['status', 'status'], ['exit_reason', 'exitReason'], ['reason', 'reason'], ['pnl_pct', 'pnlPct'], ['gross_pct', 'grossPct'],
  ['fee_pct', 'feePct'], ['funding_pct', 'fundingPct'], ['exit_price', 'exitPrice'], ['exit_time_ms', 'exitTimeMs'],
  ['bars_held', 'barsHeld'], ['sl_tp_same_bar', 'slTpSameBar'], ['funding_events', 'fundingEvents'],
  ['funding_events_real', 'fundingEventsReal'], ['marked_through_ms', 'markedThroughMs'], ['updated_at_ms', 'updatedAtMs'],
  ['finalized_at_ms', 'finalizedAtMs'],
] as const satisfies readonly (readonly [string, keyof ScoredRow])[]

/**
 * Write scored rows: new ones inserted, open ones updated in their mutable columns (a
 * final row refuses, by trigger), all in one transaction. Prepared statements: a pass
 * writes thousands of rows every hour.
 */
export function saveScored(db: Db, rows: { row: ScoredRow; existed: boolean }[], announce?: Announcement): void {
  const set = MUTABLE_COLUMNS.map(([c]) => `${c} = ?`).join(', ')
  const update = db.$client.prepare(`UPDATE scored_signals SET ${set} WHERE signal_id = ? AND status = 'open'`)
  const value = (v: unknown) => (typeof v === 'boolean' ? Number(v) : (v as string | number | null))
  db.transaction(tx => {
    for (const { row, existed } of rows) {
      if (existed) update.run(...MUTABLE_COLUMNS.map(([, k]) => value(row[k])), row.signalId)
      else tx.insert(scoredSignals).values(row).run()
    }
    // the `scored` events of the rows this pass finalized (src/records/scored-event.ts), in
    // the transaction that finalizes them
    if (announce) appendEvents(tx, announce.nowMs, announce.events)
  })
}

export interface ScoredJoined {
  signal: SignalRow
  scored: ScoredRow
}

/** Scored rows by published-at window (newest first, at most `limit`), or by exact ids. */
export function scoredRows(db: Db, opts: { sinceMs: number; limit: number } | { ids: string[] }): ScoredJoined[] {
  const q = db.select().from(scoredSignals).innerJoin(signals, eq(scoredSignals.signalId, signals.id))
  const rows = 'ids' in opts
    ? q.where(inArray(signals.id, opts.ids)).orderBy(desc(signals.signalTimeMs), signals.id).all()
    : q.where(gte(signals.publishedAtMs, opts.sinceMs)).orderBy(desc(signals.signalTimeMs), signals.id).limit(opts.limit).all()
  return rows.map(r => ({ signal: r.signals, scored: r.scored_signals }))
}

/**
 * Final scored rows that are leaves of the day [fromMs, toMs) (docs/trust.md): those whose
 * exit (unscoreable: finalization) falls in it, and those from an earlier day that became
 * final in it after their own day was sealed (not among any sealed day's leaves).
 */
export function finalScoredForDay(db: Db, fromMs: number, toMs: number): ScoredJoined[] {
  const leafTime = sql<number>`coalesce(${scoredSignals.exitTimeMs}, ${scoredSignals.finalizedAtMs})`
  return db
    .select()
    .from(scoredSignals)
    .innerJoin(signals, eq(scoredSignals.signalId, signals.id))
    .where(
      and(
        // the candidates on the two time indexes; the conditions below pick the day's leaves among them
        or(and(gte(scoredSignals.exitTimeMs, fromMs), lt(scoredSignals.exitTimeMs, toMs)), and(gte(scoredSignals.finalizedAtMs, fromMs), lt(scoredSignals.finalizedAtMs, toMs))),
        ne(scoredSignals.status, 'open'),
        or(
          and(gte(leafTime, fromMs), lt(leafTime, toMs)),
          and(
            lt(leafTime, fromMs),
            gte(scoredSignals.finalizedAtMs, fromMs),
            lt(scoredSignals.finalizedAtMs, toMs),
            sql`'scored_signal:' || ${signals.id} NOT IN (SELECT record_id FROM day_leaves)`,
          ),
        ),
      ),
    )
    .all()
    .map(r => ({ signal: r.signals, scored: r.scored_signals }))
}

/**
 * Could a record still become final with a leaf time before `dayEndMs`? True while a
 * signal of that time is unscored, or an open row has not been marked through it.
 */
export function scoringPendingBefore(db: Db, dayEndMs: number): boolean {
  // the unscored are few (those since the last pass): read on the rowid range, compared here
  if (db.select({ t: signals.signalTimeMs }).from(signals).where(unscored(db)).all().some(r => r.t < dayEndMs)) return true
  const open = db
    .select({ n: sql<number>`count(*)` })
    .from(scoredSignals)
    .where(and(eq(scoredSignals.status, 'open'), lt(scoredSignals.markedThroughMs, dayEndMs)))
    .get()?.n ?? 0
  return open > 0
}

export function firstSignalTimeMs(db: Db): number | null {
  return db.select({ m: sql<number | null>`min(${signals.signalTimeMs})` }).from(signals).get()?.m ?? null
}

/** Ids of a timeframe's signals with a signal bar at or after `fromMs`. */
export function signalIdsSince(db: Db, timeframe: string, fromMs: number): Set<string> {
  const rows = db.select({ id: signals.id }).from(signals).where(and(eq(signals.timeframe, timeframe), gte(signals.signalBarMs, fromMs))).all()
  return new Set(rows.map(r => r.id))
}

/** How many signals were published at or after `sinceMs`. */
export function publishedCountSince(db: Db, sinceMs: number): number {
  return db.select({ n: sql<number>`count(*)` }).from(signals).where(gte(signals.publishedAtMs, sinceMs)).get()!.n
}

/** Signals published at or after `sinceMs`: publication and signal times, backfill, scored status (null: not scored). */
export function publicationsSince(db: Db, sinceMs: number): { pub: number; st: number; backfill: boolean; status: string | null }[] {
  return db
    .select({ pub: signals.publishedAtMs, st: signals.signalTimeMs, backfill: signals.backfill, status: scoredSignals.status })
    .from(signals)
    .leftJoin(scoredSignals, eq(scoredSignals.signalId, signals.id))
    .where(gte(signals.publishedAtMs, sinceMs))
    .all()
}

/** When the first signal was published, or null. */
export function firstPublishedMs(db: Db): number | null {
  return db.select({ m: sql<number | null>`min(${signals.publishedAtMs})` }).from(signals).get()?.m ?? null
}

/** Signals published after `afterMs` and up to `untilMs`, in publication order (then signal time, id). */
export function signalsPublishedBetween(db: Db, afterMs: number, untilMs: number): SignalRow[] {
  return db
    .select()
    .from(signals)
    .where(and(gt(signals.publishedAtMs, afterMs), lte(signals.publishedAtMs, untilMs)))
    .orderBy(asc(signals.publishedAtMs), asc(signals.signalTimeMs), asc(signals.id))
    .all()
}

/** statuses of a scored signal whose trade closed with a result (unscoreable rows have none) */
const CLOSED = ['tp', 'sl', 'timeout', 'liquidation']

/** The net results (% of margin) of the strategies' scored signals whose trade closed in [fromMs, toMs). */
export function closedResultsBetween(db: Db, fromMs: number, toMs: number, strategies: string[]): { strategy: string; pnlPct: number }[] {
  return db
    .select({ strategy: signals.strategy, pnlPct: scoredSignals.pnlPct })
    .from(scoredSignals)
    .innerJoin(signals, eq(scoredSignals.signalId, signals.id))
    .where(and(inArray(scoredSignals.status, CLOSED), gte(scoredSignals.exitTimeMs, fromMs), lt(scoredSignals.exitTimeMs, toMs), inArray(signals.strategy, strategies)))
    .all()
}
