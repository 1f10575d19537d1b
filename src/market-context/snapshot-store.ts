/**
 * The last good answer of every upstream, in SQLite (table upstream_snapshots), so an
 * offline start still serves what was last fetched, with its real age.
 */
import { eq } from 'drizzle-orm'
import type { Db } from '../db'

export interface Snapshot<T> {
  payload: T
  source: string
  fetchedAtMs: number
}

export class SnapshotStore {
  constructor(private readonly db: Db) {}

  async get<T>(key: string): Promise<Snapshot<T> | null> {
    const upstreamSnapshots = this.db.t.upstreamSnapshots
    const row = (await this.db.orm.select().from(upstreamSnapshots).where(eq(upstreamSnapshots.key, key)))[0]
    return row ? { payload: row.payload as T, source: row.source, fetchedAtMs: row.fetchedAtMs } : null
  }

  async put<T>(key: string, snap: Snapshot<T>): Promise<void> {
    const upstreamSnapshots = this.db.t.upstreamSnapshots
    const values = { key, source: snap.source, payload: snap.payload as unknown, fetchedAtMs: snap.fetchedAtMs }
    await this.db.orm
      .insert(upstreamSnapshots)
      .values(values)
      .onConflictDoUpdate({ target: upstreamSnapshots.key, set: { source: values.source, payload: values.payload, fetchedAtMs: values.fetchedAtMs } })
  }
}
