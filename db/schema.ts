/**
 * The SQLite schema (drizzle). Changes go through `npm run db:generate`, which writes a
 * migration into db/migrations; migrations are applied at start-up (src/db.ts).
 */
import { integer, sqliteTable, text, index } from 'drizzle-orm/sqlite-core'

/** Normalised requests behind every result hash: /export/csv, /share and /og recompute from here. */
export const resultRequests = sqliteTable('result_requests', {
  hash: text('hash').primaryKey(),
  kind: text('kind').notNull(), // 'backtest' | 'simulate'
  request: text('request', { mode: 'json' }).notNull(),
  dataVersion: text('data_version').notNull(),
  createdAtMs: integer('created_at_ms').notNull(),
})

/** Last good answer of every upstream (market, news, macro, ...), so offline answers survive a restart. */
export const upstreamSnapshots = sqliteTable('upstream_snapshots', {
  key: text('key').primaryKey(),
  source: text('source').notNull(),
  payload: text('payload', { mode: 'json' }).notNull(),
  fetchedAtMs: integer('fetched_at_ms').notNull(),
}, t => [index('upstream_snapshots_fetched').on(t.fetchedAtMs)])
