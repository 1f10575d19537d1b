/**
 * The last good answer of every upstream, in SQLite (table upstream_snapshots), so an
 * offline start still serves what was last fetched, with its real age.
 */
import { eq } from 'drizzle-orm'
import { upstreamSnapshots } from '../../db/schema'
import type { Db } from '../db'

export interface Snapshot<T> {
  payload: T
  source: string
  fetchedAtMs: number
}

export class SnapshotStore {
  constructor(private readonly db: Db) {}

  get<T>(key: string): Snapshot<T> | null {
    const row = this.db.select().from(upstreamSnapshots).where(eq(upstreamSnapshots.key, key)).get()
    return row ? { payload: row.payload as T, source: row.source, fetchedAtMs: row.fetchedAtMs } : null
  }

  put<T>(key: string, snap: Snapshot<T>): void {
    const values = { key, source: snap.source, payload: snap.payload as unknown, fetchedAtMs: snap.fetchedAtMs }
    this.db
      .insert(upstreamSnapshots)
      .values(values)
      .onConflictDoUpdate({ target: upstreamSnapshots.key, set: { source: values.source, payload: values.payload, fetchedAtMs: values.fetchedAtMs } })
      .run()
  }
}
