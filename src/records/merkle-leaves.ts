/**
 * Merkle leaves and day roots (docs/trust.md). A leaf is one finalized public record,
 * written as canonical JSON (sorted keys, no whitespace): every final scored signal
 * (and every closed paper trade) belongs to the UTC day of its exit (an unscoreable
 * row, which has no exit, to the day it was declared unscoreable); a record that became
 * final after that day was sealed (a late catch-up) belongs to the day it became final,
 * so no record is ever left out. A day's leaves are ordered by their placing instant,
 * then by record id; the root is RFC 6962's over them.
 */
import { and, asc, desc, eq, gte, lt } from 'drizzle-orm'
import type { dayRoots } from '../../db/schema'
import type { Db, Queryable } from '../db'
import { canonicalJson } from '../engine/canonical-json'
import { leafHash, MERKLE_ALGORITHM, rootOfHashes, toHex } from '../engine/merkle'
import { compactDay, DAY_MS, isoInstant, parseCompactDay } from '../time'
import { appendEvents } from './events'
import { finalScoredForDay } from './signals'
import { scoredItem } from './scored-item'

export type DayRootRow = typeof dayRoots.$inferSelect

export interface Leaf {
  recordId: string
  /** the instant that places the leaf in its day */
  atMs: number
  /** canonical JSON */
  leaf: string
  leafHash: string
}

/** A further kind of leaf (closed paper trades): records of [fromMs, toMs) and pending work before a day's end. */
export interface LeafSource {
  leaves(db: Queryable, fromMs: number, toMs: number): Promise<Leaf[]>
  pendingBefore(db: Queryable, dayEndMs: number): Promise<boolean>
}

export function makeLeaf(recordId: string, atMs: number, record: Record<string, unknown>): Leaf {
  const leaf = canonicalJson(record)
  return { recordId, atMs, leaf, leafHash: toHex(leafHash(leaf)) }
}

/** The leaves of final scored signals of the day [fromMs, toMs). */
export async function scoredLeaves(db: Queryable, fromMs: number, toMs: number): Promise<Leaf[]> {
  return (await finalScoredForDay(db, fromMs, toMs)).map(j =>
    makeLeaf(`scored_signal:${j.signal.id}`, j.scored.exitTimeMs ?? j.scored.finalizedAtMs!, { kind: 'scored_signal', ...scoredItem(j) }),
  )
}

export function orderLeaves(leaves: Leaf[]): Leaf[] {
  return leaves.sort((a, b) => a.atMs - b.atMs || (a.recordId < b.recordId ? -1 : a.recordId > b.recordId ? 1 : 0))
}

/** YYYYMMDD of a UTC day start, and back (null for a malformed or impossible date). */
export const dayKey = compactDay
export const dayStartOf = parseCompactDay

export interface DayView {
  day: string
  sealed: boolean
  sealedAtMs: number | null
  root: string | null
  leaves: Leaf[]
}

/** A sealed day from its stored leaves; an unsealed one from the records final so far. */
export async function dayView(db: Queryable, day: string, dayMs: number, sources: LeafSource[]): Promise<DayView> {
  const { dayRoots, dayLeaves } = db.t
  const sealed = (await db.orm.select().from(dayRoots).where(eq(dayRoots.day, day)))[0]
  if (sealed) {
    const rows = await db.orm.select().from(dayLeaves).where(eq(dayLeaves.day, day)).orderBy(asc(dayLeaves.idx))
    return { day, sealed: true, sealedAtMs: sealed.sealedAtMs, root: sealed.root, leaves: rows.map(r => ({ recordId: r.recordId, atMs: 0, leaf: r.leaf, leafHash: r.leafHash })) }
  }
  const leaves = await collectLeaves(db, dayMs, dayMs + DAY_MS, sources)
  return { day, sealed: false, sealedAtMs: null, root: rootHex(leaves), leaves }
}

export async function collectLeaves(db: Queryable, fromMs: number, toMs: number, sources: LeafSource[]): Promise<Leaf[]> {
  const all = await scoredLeaves(db, fromMs, toMs)
  for (const s of sources) all.push(...(await s.leaves(db, fromMs, toMs)))
  return orderLeaves(all)
}

export function rootHex(leaves: Leaf[]): string | null {
  const root = rootOfHashes(leaves.map(l => new Uint8Array(Buffer.from(l.leafHash, 'hex'))))
  return root === null ? null : toHex(root)
}

/** A sealed day root as /trust/merkle/{date} serves it. */
export function dayRootItem(r: DayRootRow) {
  return { date: r.day, leaf_count: r.leafCount, root: r.root, algorithm: r.algorithm, sealed: true, sealed_at: isoInstant(r.sealedAtMs) }
}

/** Where a leaf's inclusion proof is served (a path on the service's origin). */
export const proofPath = (day: string, hash: string) => `/trust/merkle/${day}/proof?leaf=${hash}`

/**
 * Seal one day: its root and leaves in one transaction (the triggers refuse any rewrite),
 * with the push feed's `day_root` event: the root as /trust/merkle/{date} serves it and
 * every leaf's record id, hash and proof URL (docs/events.md).
 */
export async function sealDay(db: Db, day: string, leaves: Leaf[], nowMs: number): Promise<DayRootRow> {
  const { dayRoots, dayLeaves } = db.t
  const row: DayRootRow = { day, leafCount: leaves.length, root: rootHex(leaves), algorithm: MERKLE_ALGORITHM, sealedAtMs: nowMs }
  const proofs = leaves.map(l => ({ record_id: l.recordId, leaf_hash: l.leafHash, proof_url: proofPath(day, l.leafHash) }))
  const rows = leaves.map((l, idx) => ({ day, idx, recordId: l.recordId, leaf: l.leaf, leafHash: l.leafHash }))
  await db.tx(async tx => {
    await tx.orm.insert(dayRoots).values(row)
    // SQLite's bound-variable limit over a leaf's 5 columns, rounded down
    for (let i = 0; i < rows.length; i += 150) await tx.orm.insert(dayLeaves).values(rows.slice(i, i + 150))
    await appendEvents(tx, nowMs, [{ kind: 'day_root', payload: { ...dayRootItem(row), proofs } }])
  })
  return row
}

export async function sealedRoot(db: Queryable, day: string): Promise<DayRootRow | undefined> {
  const { dayRoots } = db.t
  return (await db.orm.select().from(dayRoots).where(eq(dayRoots.day, day)))[0]
}

export async function sealedDays(db: Queryable, fromDay: string, toDay: string): Promise<DayRootRow[]> {
  const { dayRoots } = db.t
  return db.orm.select().from(dayRoots).where(and(gte(dayRoots.day, fromDay), lt(dayRoots.day, toDay)))
}

export async function latestSealedDay(db: Queryable): Promise<string | null> {
  const { dayRoots } = db.t
  return (await db.orm.select({ day: dayRoots.day }).from(dayRoots).orderBy(desc(dayRoots.day)).limit(1))[0]?.day ?? null
}

/** The day a record's leaf was sealed under, or null while it is in no sealed day. */
export async function sealedDayOf(db: Queryable, recordId: string): Promise<string | null> {
  const { dayLeaves } = db.t
  return (await db.orm.select({ day: dayLeaves.day }).from(dayLeaves).where(eq(dayLeaves.recordId, recordId)).limit(1))[0]?.day ?? null
}
