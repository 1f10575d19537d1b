/**
 * The SQLite schema (drizzle). Changes go through `npm run db:generate`, which writes a
 * migration into db/migrations; migrations are applied at start-up (src/db.ts).
 */
import { integer, sqliteTable, text, index, uniqueIndex } from 'drizzle-orm/sqlite-core'

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

/**
 * One row per run of a scheduled job. A slot (e.g. `rankings:2026-11-25`) is claimed by
 * inserting its row: the unique key (slot, attempt) makes a second claimer of the same
 * slot fail the insert and skip. A manual re-run (`cli jobs run`) takes the next attempt.
 */
export const jobRuns = sqliteTable('job_runs', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  job: text('job').notNull(),
  slot: text('slot').notNull(),
  attempt: integer('attempt').notNull(),
  /** 'schedule' | 'catch-up' | 'retry' | 'manual' */
  trigger: text('trigger').notNull(),
  /** the cron instant the run stands for (epoch ms) */
  slotMs: integer('slot_ms').notNull(),
  startedAtMs: integer('started_at_ms').notNull(),
  /** null while the run is in progress */
  finishedAtMs: integer('finished_at_ms'),
  /** null while running; then 'ok' | 'failed' | 'skipped' */
  outcome: text('outcome'),
  error: text('error'),
  counts: text('counts', { mode: 'json' }).$type<Record<string, number>>(),
}, t => [uniqueIndex('job_runs_slot_attempt').on(t.slot, t.attempt), index('job_runs_job_slot_ms').on(t.job, t.slotMs)])

/**
 * The published daily ranking files: canonical JSON of every period × group of one ranking
 * date, with its sha256. Append-only: triggers (migration rankings_triggers) reject every
 * UPDATE and DELETE, so a cited file can never change.
 */
export const rankingDayFiles = sqliteTable('ranking_day_files', {
  /** ranking date, YYYY-MM-DD (UTC); the file covers the days before it */
  date: text('date').primaryKey(),
  sha256: text('sha256').notNull(),
  /** the file's exact bytes (UTF-8 canonical JSON) */
  body: text('body').notNull(),
  schemaVersion: text('schema_version').notNull(),
  generatedAtMs: integer('generated_at_ms').notNull(),
})
