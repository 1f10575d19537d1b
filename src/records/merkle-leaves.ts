/**
 * Merkle leaves and day roots (docs/trust.md). A leaf is one finalized public record,
 * written as canonical JSON (sorted keys, no whitespace): every final scored signal
 * (and every closed paper trade) belongs to the UTC day of its exit (an unscoreable
 * row, which has no exit, to the day it was declared unscoreable); a record that became
 * final after that day was sealed (a late catch-up) belongs to the day it became final,
 * so no record is ever left out. A day's leaves are ordered by their placing instant,
 * then by record id; the root is RFC 6962's over them.
 */
import { and, asc, eq, gte, lt } from 'drizzle-orm'
import { dayLeaves, dayRoots } from '../../db/schema'
import type { Db } from '../db'
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
  leaves(db: Db, fromMs: number, toMs: number): Leaf[]
  pendingBefore(db: Db, dayEndMs: number): boolean
}

export function makeLeaf(recordId: string, atMs: number, record: Record<string, unknown>): Leaf {
  const leaf = canonicalJson(record)
  return { recordId, atMs, leaf, leafHash: toHex(leafHash(leaf)) }
}

/** The leaves of final scored signals of the day [fromMs, toMs). */
export function scoredLeaves(db: Db, fromMs: number, toMs: number): Leaf[] {
  return finalScoredForDay(db, fromMs, toMs).map(j =>
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
export function dayView(db: Db, day: string, dayMs: number, sources: LeafSource[]): DayView {
  const sealed = db.select().from(dayRoots).where(eq(dayRoots.day, day)).get()
  if (sealed) {
    const rows = db.select().from(dayLeaves).where(eq(dayLeaves.day, day)).orderBy(asc(dayLeaves.idx)).all()
    return { day, sealed: true, sealedAtMs: sealed.sealedAtMs, root: sealed.root, leaves: rows.map(r => ({ recordId: r.recordId, atMs: 0, leaf: r.leaf, leafHash: r.leafHash })) }
  }
  const leaves = collectLeaves(db, dayMs, dayMs + DAY_MS, sources)
  return { day, sealed: false, sealedAtMs: null, root: rootHex(leaves), leaves }
}

export function collectLeaves(db: Db, fromMs: number, toMs: number, sources: LeafSource[]): Leaf[] {
  const all = scoredLeaves(db, fromMs, toMs)
  for (const s of sources) all.push(...s.leaves(db, fromMs, toMs))
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
export function sealDay(db: Db, day: string, leaves: Leaf[], nowMs: number): DayRootRow {
  const row: DayRootRow = { day, leafCount: leaves.length, root: rootHex(leaves), algorithm: MERKLE_ALGORITHM, sealedAtMs: nowMs }
  const insertLeaf = db.$client.prepare('INSERT INTO day_leaves (day, idx, record_id, leaf, leaf_hash) VALUES (?, ?, ?, ?, ?)')
  const proofs = leaves.map(l => ({ record_id: l.recordId, leaf_hash: l.leafHash, proof_url: proofPath(day, l.leafHash) }))
  db.transaction(tx => {
    tx.insert(dayRoots).values(row).run()
    leaves.forEach((l, idx) => insertLeaf.run(day, idx, l.recordId, l.leaf, l.leafHash))
    appendEvents(tx, nowMs, [{ kind: 'day_root', payload: { ...dayRootItem(row), proofs } }])
  })
  return row
}

export function sealedRoot(db: Db, day: string): DayRootRow | undefined {
  return db.select().from(dayRoots).where(eq(dayRoots.day, day)).get()
}

export function sealedDays(db: Db, fromDay: string, toDay: string): DayRootRow[] {
  return db.select().from(dayRoots).where(and(gte(dayRoots.day, fromDay), lt(dayRoots.day, toDay))).all()
}

export function latestSealedDay(db: Db): string | null {
  return db.select({ day: dayRoots.day }).from(dayRoots).orderBy(asc(dayRoots.day)).all().at(-1)?.day ?? null
}

/** The day a record's leaf was sealed under, or null while it is in no sealed day. */
export function sealedDayOf(db: Db, recordId: string): string | null {
  return db.select({ day: dayLeaves.day }).from(dayLeaves).where(eq(dayLeaves.recordId, recordId)).limit(1).get()?.day ?? null
}
