/**
 * The signal records in the database: recorded signals, scan watermarks and scored
 * results. The scanner and scorer jobs write through here; the signals service reads.
 * Append-only rules are the database's (db/migrations/0004_signals_trust_triggers.sql).
 */
import { and, asc, count, desc, eq, gt, gte, inArray, lt, lte, max, min, ne, or, sql, type Placeholder, type SQL } from 'drizzle-orm'
import type { scoredSignals, signalScans, signals } from '../../db/schema'
import type { Db, Queryable } from '../db'
import { DAY_MS } from '../time'
import { appendEvents, type Announcement, type NewEvent } from './events'
import { EXECUTION_ENGINE } from './scoring-execution'
import { signalItem } from './signal-item'

export type SignalRow = typeof signals.$inferSelect
export type ScoredRow = typeof scoredSignals.$inferSelect
export type ScanRow = typeof signalScans.$inferSelect

/** the label a scored row gets when first written (scoring-execution.ts: v4, minute detail); rows of earlier labels keep theirs */
export const ENGINE_LABEL = EXECUTION_ENGINE
export const FINAL_STATUSES = ['tp', 'sl', 'timeout', 'liquidation', 'unscoreable'] as const
export type ScoredStatus = (typeof FINAL_STATUSES)[number] | 'open'

/** `v1:<strategy>:<timeframe>:<coin>:<signal bar open time, ms>` */
export function signalId(strategy: string, timeframe: string, coin: string, signalBarMs: number): string {
  return `v1:${strategy}:${timeframe}:${coin}:${signalBarMs}`
}

/** SQLite's bound-variable limit divided by a row's columns, rounded down generously */
const INSERT_CHUNK = 400

/** Insert signals not recorded yet; returns how many were new. */
export async function insertSignals(db: Db, rows: SignalRow[]): Promise<number> {
  const { signals } = db.t
  let added = 0
  await db.tx(async tx => {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      const chunk = rows.slice(i, i + INSERT_CHUNK)
      const fresh = new Set((await tx.orm.insert(signals).values(chunk).onConflictDoNothing().returning({ id: signals.id })).map(r => r.id))
      added += fresh.size
      // the push feed announces each new signal in the transaction that records it (docs/events.md)
      const recorded = chunk.filter(r => fresh.has(r.id))
      if (recorded.length) await appendEvents(tx, Math.max(...recorded.map(r => r.publishedAtMs)), recorded.map(signalEvent))
    }
  })
  return added
}

/** The `signal` event: the /signals/history item. */
function signalEvent(r: SignalRow): NewEvent {
  return { kind: 'signal', payload: signalItem(r), strategy: r.strategy, coin: r.coin, status: r.status }
}

export async function recordScan(db: Queryable, scan: ScanRow): Promise<void> {
  await db.orm.insert(db.t.signalScans).values(scan).onConflictDoNothing()
}

/** The newest signal bar scanned on a timeframe, or null before the first scan. */
export async function scanWatermark(db: Queryable, timeframe: string): Promise<number | null> {
  const { signalScans } = db.t
  const r = (await db.orm.select({ m: max(signalScans.signalBarMs) }).from(signalScans).where(eq(signalScans.timeframe, timeframe)))[0]
  return r?.m ?? null
}

export async function latestScan(db: Queryable, timeframe: string): Promise<ScanRow | undefined> {
  const { signalScans } = db.t
  return (await db.orm.select().from(signalScans).where(eq(signalScans.timeframe, timeframe)).orderBy(desc(signalScans.signalBarMs)).limit(1))[0]
}

export async function scanCount(db: Queryable): Promise<number> {
  return (await db.orm.select({ n: count() }).from(db.t.signalScans))[0]?.n ?? 0
}

/** Signals of one timeframe and signal bar. */
export async function signalsOfBar(db: Queryable, timeframe: string, signalBarMs: number): Promise<SignalRow[]> {
  const { signals } = db.t
  return db.orm.select().from(signals).where(and(eq(signals.timeframe, timeframe), eq(signals.signalBarMs, signalBarMs)))
}

/** Signals whose signal time is at or after `sinceMs`, newest first. */
export async function signalsSince(db: Queryable, sinceMs: number): Promise<SignalRow[]> {
  const { signals } = db.t
  return db.orm.select().from(signals).where(gte(signals.signalTimeMs, sinceMs)).orderBy(desc(signals.signalTimeMs), signals.id)
}

/**
 * One page of the signals whose signal time lies in [fromMs, toMs], newest first (then by
 * id): the `limit` after the keyset `after` (the last row of the previous page), and how
 * many the window holds. The keyset rides the signals_time index; a page never shifts when
 * newer signals are recorded between two requests.
 */
export async function signalsPage(db: Queryable, q: { fromMs: number; toMs: number; after: { signalTimeMs: number; id: string } | null; limit: number }): Promise<{ rows: SignalRow[]; total: number }> {
  const { signals } = db.t
  const window = and(gte(signals.signalTimeMs, q.fromMs), lte(signals.signalTimeMs, q.toMs))
  const after = q.after === null ? undefined : or(lt(signals.signalTimeMs, q.after.signalTimeMs), and(eq(signals.signalTimeMs, q.after.signalTimeMs), gt(signals.id, q.after.id)))
  const rows = await db.orm.select().from(signals).where(and(window, after)).orderBy(desc(signals.signalTimeMs), signals.id).limit(q.limit)
  const total = (await db.orm.select({ n: count() }).from(signals).where(window))[0]?.n ?? 0
  return { rows, total }
}

/**
 * How far before the newest scored signal's publication the Postgres form of `unscored`
 * looks: a signal's `published_at_ms` is its scan's clock time, taken before the transaction
 * that records it, and no scan's transaction stays open anywhere near a day.
 */
export const UNSCORED_LAG_MS = DAY_MS

/**
 * Signals without a scored row. A scoring pass writes a row for every signal it reads, in one
 * transaction, and signals are only ever inserted.
 *
 * SQLite: their rowids rise with each insert and commit in that order (one writer), so
 * these are exactly the signals after the newest one that has a row: the condition walks
 * back from the newest signal to the first scored one instead of joining every signal ever
 * recorded, which a year of records (millions of rows, read every hour) made a stall of
 * seconds on the event loop.
 *
 * Postgres has no rowid, and an insertion order is not a commit order there (a signal
 * committed late could sit below a cursor), so the cursor is commit-safe instead: the
 * signals without a row (an anti-join) among those published at most UNSCORED_LAG_MS
 * before the newest scored one's publication, on the signals_published index. A signal
 * committed after a later one was scored is still found, by its missing row.
 */
async function unscored(db: Queryable): Promise<SQL> {
  const { signals, scoredSignals } = db.t
  const hasRow = sql`EXISTS (SELECT 1 FROM ${scoredSignals} WHERE ${scoredSignals.signalId} = ${signals.id})`
  if (db.dialect === 'postgres') {
    const newest = (await db.orm.select({ p: max(signals.publishedAtMs) }).from(signals).where(hasRow))[0]?.p ?? null
    return and(sql`NOT ${hasRow}`, newest === null ? undefined : gte(signals.publishedAtMs, newest - UNSCORED_LAG_MS))!
  }
  const newest = (await db.orm.select({ k: sql<number>`${signals}.rowid` }).from(signals).where(hasRow).orderBy(sql`${signals}.rowid DESC`).limit(1))[0]
  return sql`${signals}.rowid > ${newest?.k ?? 0}`
}

/** Signals with no scored row yet, or an open one: the scorer's work list. */
export async function signalsToScore(db: Queryable): Promise<{ signal: SignalRow; scored: ScoredRow | null }[]> {
  const { signals, scoredSignals } = db.t
  const open = (await db.orm.select().from(scoredSignals).innerJoin(signals, eq(scoredSignals.signalId, signals.id)).where(eq(scoredSignals.status, 'open'))).map(r => ({
    signal: r.signals,
    scored: r.scored_signals as ScoredRow | null,
  }))
  // SQLite reads them in rowid order (insertion's); Postgres keeps no such order, so it is asked for one: publication, then id
  const fresh = (db.dialect === 'postgres'
    ? await db.orm.select().from(signals).where(await unscored(db)).orderBy(asc(signals.publishedAtMs), asc(signals.id))
    : await db.orm.select().from(signals).where(await unscored(db))
  ).map(signal => ({ signal, scored: null }))
  return [...open, ...fresh]
}

const MUTABLE_COLUMNS = [
  ['status', 'status'], ['exit_reason', 'exitReason'], ['reason', 'reason'], ['pnl_pct', 'pnlPct'], ['gross_pct', 'grossPct'],
  ['fee_pct', 'feePct'], ['funding_pct', 'fundingPct'], ['exit_price', 'exitPrice'], ['exit_time_ms', 'exitTimeMs'],
  ['bars_held', 'barsHeld'], ['sl_tp_same_bar', 'slTpSameBar'], ['funding_events', 'fundingEvents'],
  ['funding_events_real', 'fundingEventsReal'], ['marked_through_ms', 'markedThroughMs'], ['updated_at_ms', 'updatedAtMs'],
  ['finalized_at_ms', 'finalizedAtMs'], ['exit_resolution', 'exitResolution'],
] as const satisfies readonly (readonly [string, keyof ScoredRow])[]

/**
 * Write scored rows: new ones inserted, open ones updated in their mutable columns (a
 * final row refuses, by trigger), all in one transaction. Prepared statements: a pass
 * writes thousands of rows every hour.
 */
export async function saveScored(db: Db, rows: { row: ScoredRow; existed: boolean }[], announce?: Announcement): Promise<void> {
  const { scoredSignals } = db.t
  const set = Object.fromEntries(MUTABLE_COLUMNS.map(([, k]) => [k, sql.placeholder(k)])) as Record<(typeof MUTABLE_COLUMNS)[number][1], Placeholder>
  await db.tx(async tx => {
    // prepared once per pass (a pass writes thousands of rows every hour)
    const q = tx.orm
      .update(scoredSignals)
      .set(set as never)
      .where(and(eq(scoredSignals.signalId, sql.placeholder('signalId')), eq(scoredSignals.status, 'open')))
    // Postgres names its prepared statements; placeholders skip the columns' encoding, so a boolean goes to SQLite as 0/1
    const update = tx.dialect === 'sqlite' ? q.prepare() : (q as unknown as { prepare(name: string): ReturnType<typeof q.prepare> }).prepare('save_scored_update')
    const value = (v: unknown) => (tx.dialect === 'sqlite' && typeof v === 'boolean' ? Number(v) : v)
    const fresh: ScoredRow[] = []
    for (const { row, existed } of rows) {
      if (existed) await update.execute({ ...Object.fromEntries(MUTABLE_COLUMNS.map(([, k]) => [k, value(row[k])])), signalId: row.signalId })
      else fresh.push(row)
    }
    for (let i = 0; i < fresh.length; i += SCORED_CHUNK) await tx.orm.insert(scoredSignals).values(fresh.slice(i, i + SCORED_CHUNK))
    // the `scored` events of the rows this pass finalized (src/records/scored-event.ts), in
    // the transaction that finalizes them
    if (announce) await appendEvents(tx, announce.nowMs, announce.events)
  })
}

/** scored rows per insert (SQLite's bound-variable limit of 999 over a row's 28 columns, rounded down) */
const SCORED_CHUNK = 30

export interface ScoredJoined {
  signal: SignalRow
  scored: ScoredRow
}

/** Scored rows by published-at window (newest first, at most `limit`), or by exact ids. */
export async function scoredRows(db: Queryable, opts: { sinceMs: number; limit: number } | { ids: string[] }): Promise<ScoredJoined[]> {
  const { signals, scoredSignals } = db.t
  const q = db.orm.select().from(scoredSignals).innerJoin(signals, eq(scoredSignals.signalId, signals.id))
  const rows = 'ids' in opts
    ? await q.where(inArray(signals.id, opts.ids)).orderBy(desc(signals.signalTimeMs), signals.id)
    : await q.where(gte(signals.publishedAtMs, opts.sinceMs)).orderBy(desc(signals.signalTimeMs), signals.id).limit(opts.limit)
  return rows.map(r => ({ signal: r.signals, scored: r.scored_signals }))
}

/**
 * Final scored rows that are leaves of the day [fromMs, toMs) (docs/trust.md): those whose
 * exit (unscoreable: finalization) falls in it, and those from an earlier day that became
 * final in it after their own day was sealed (not among any sealed day's leaves).
 */
export async function finalScoredForDay(db: Queryable, fromMs: number, toMs: number): Promise<ScoredJoined[]> {
  const { signals, scoredSignals } = db.t
  const leafTime = sql<number>`coalesce(${scoredSignals.exitTimeMs}, ${scoredSignals.finalizedAtMs})`
  const rows = await db.orm
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
  return rows.map(r => ({ signal: r.signals, scored: r.scored_signals }))
}

/**
 * Could a record still become final with a leaf time before `dayEndMs`? True while a
 * signal of that time is unscored, or an open row has not been marked through it.
 */
export async function scoringPendingBefore(db: Queryable, dayEndMs: number): Promise<boolean> {
  const { signals, scoredSignals } = db.t
  // the unscored are few (those since the last pass): read on the rowid range, compared here
  if ((await db.orm.select({ t: signals.signalTimeMs }).from(signals).where(await unscored(db))).some(r => r.t < dayEndMs)) return true
  const open = (await db.orm.select({ n: count() }).from(scoredSignals).where(and(eq(scoredSignals.status, 'open'), lt(scoredSignals.markedThroughMs, dayEndMs))))[0]?.n ?? 0
  return open > 0
}

export async function firstSignalTimeMs(db: Queryable): Promise<number | null> {
  return (await db.orm.select({ m: min(db.t.signals.signalTimeMs) }).from(db.t.signals))[0]?.m ?? null
}

/** Ids of a timeframe's signals with a signal bar at or after `fromMs`. */
export async function signalIdsSince(db: Queryable, timeframe: string, fromMs: number): Promise<Set<string>> {
  const { signals } = db.t
  const rows = await db.orm.select({ id: signals.id }).from(signals).where(and(eq(signals.timeframe, timeframe), gte(signals.signalBarMs, fromMs)))
  return new Set(rows.map(r => r.id))
}

/** How many signals were published at or after `sinceMs`. */
export async function publishedCountSince(db: Queryable, sinceMs: number): Promise<number> {
  const { signals } = db.t
  return (await db.orm.select({ n: count() }).from(signals).where(gte(signals.publishedAtMs, sinceMs)))[0]!.n
}

/** Signals published at or after `sinceMs`: publication and signal times, backfill, scored status (null: not scored). */
export async function publicationsSince(db: Queryable, sinceMs: number): Promise<{ pub: number; st: number; backfill: boolean; status: string | null }[]> {
  const { signals, scoredSignals } = db.t
  return db.orm
    .select({ pub: signals.publishedAtMs, st: signals.signalTimeMs, backfill: signals.backfill, status: scoredSignals.status })
    .from(signals)
    .leftJoin(scoredSignals, eq(scoredSignals.signalId, signals.id))
    .where(gte(signals.publishedAtMs, sinceMs))
}

/** When the first signal was published, or null. */
export async function firstPublishedMs(db: Queryable): Promise<number | null> {
  return (await db.orm.select({ m: min(db.t.signals.publishedAtMs) }).from(db.t.signals))[0]?.m ?? null
}

/** Signals published after `afterMs` and up to `untilMs`, in publication order (then signal time, id). */
export async function signalsPublishedBetween(db: Queryable, afterMs: number, untilMs: number): Promise<SignalRow[]> {
  const { signals } = db.t
  return db.orm
    .select()
    .from(signals)
    .where(and(gt(signals.publishedAtMs, afterMs), lte(signals.publishedAtMs, untilMs)))
    .orderBy(asc(signals.publishedAtMs), asc(signals.signalTimeMs), asc(signals.id))
}

/** statuses of a scored signal whose trade closed with a result (unscoreable rows have none) */
const CLOSED = ['tp', 'sl', 'timeout', 'liquidation']

/** The net results (% of margin) of the strategies' scored signals whose trade closed in [fromMs, toMs). */
export async function closedResultsBetween(db: Queryable, fromMs: number, toMs: number, strategies: string[]): Promise<{ strategy: string; pnlPct: number }[]> {
  const { signals, scoredSignals } = db.t
  return db.orm
    .select({ strategy: signals.strategy, pnlPct: scoredSignals.pnlPct })
    .from(scoredSignals)
    .innerJoin(signals, eq(scoredSignals.signalId, signals.id))
    .where(and(inArray(scoredSignals.status, CLOSED), gte(scoredSignals.exitTimeMs, fromMs), lt(scoredSignals.exitTimeMs, toMs), inArray(signals.strategy, strategies)))
}
