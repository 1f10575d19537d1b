/**
 * The database commands (`perpsim db migrate`, `perpsim db copy`; src/cli-db.ts parses them):
 * migrate the configured database, and move an installation's records from its SQLite file
 * to Postgres. docs/operations.md "Moving the records to Postgres" is the operator's side.
 *
 * The copy is one transaction on the target: every table in foreign-key order (a table after
 * the ones it refers to), inserts only (the append-only triggers refuse updates and deletes,
 * never a first insert), then the identity sequences moved past the copied ids, then the
 * check: every table's row count and every ranking day file's sha256 (of the body as stored
 * in Postgres, against the sha256 column and the source's) before COMMIT, so a copy that
 * does not verify leaves nothing behind. The source is read in one read transaction (a
 * consistent snapshot even if a server is writing it) and never written.
 */
import { Database } from 'bun:sqlite'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { getTableColumns, is, sql } from 'drizzle-orm'
import { drizzle as drizzleSqlite } from 'drizzle-orm/bun-sqlite'
import { migrate as migrateSqliteFolder } from 'drizzle-orm/bun-sqlite/migrator'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { getTableConfig as pgConfig, PgTable } from 'drizzle-orm/pg-core'
import { getTableConfig as sqliteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { Pool } from 'pg'
import * as pgSchema from '../db/pg-schema'
import * as schema from '../db/schema'
import { migratePg, redactUrl } from './db-postgres'
import { MIGRATIONS_DIR, PG_MIGRATIONS_DIR } from './paths'
import { sha256Hex } from './records/rankings/day-files'

/** What `db migrate` did: the database (password hidden), migrations applied now, and in all. */
export interface MigrateReport {
  database: string
  applied: number
  total: number
}

function journalSize(folder: string): number {
  return (JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }).entries.length
}

function sqliteApplied(db: Database): number {
  const t = db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get()
  return t ? (db.query('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n : 0
}

/** Apply db/migrations to the SQLite file at `path` (created if missing), as every start does (src/db.ts). */
export function migrateSqlite(path: string): MigrateReport {
  mkdirSync(dirname(path), { recursive: true })
  const client = new Database(path, { create: true, strict: true })
  try {
    // the PRAGMAs of openDb that a migration can meet
    client.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;')
    const before = sqliteApplied(client)
    migrateSqliteFolder(drizzleSqlite({ client }), { migrationsFolder: MIGRATIONS_DIR })
    return { database: `sqlite:${path}`, applied: sqliteApplied(client) - before, total: journalSize(MIGRATIONS_DIR) }
  } finally {
    client.close()
  }
}

/** Apply db/pg-migrations to the Postgres database at `url`. */
export async function migratePostgres(url: string): Promise<MigrateReport> {
  const pool = new Pool({ connectionString: url, max: 1 })
  pool.on('error', () => {})
  try {
    const applied = await migratePg(pool)
    return { database: redactUrl(url), applied, total: journalSize(PG_MIGRATIONS_DIR) }
  } finally {
    await pool.end()
  }
}

/** One table of the copy: rows in the source, rows in the target before and after. */
export interface CopyRow {
  table: string
  source: number
  targetBefore: number
  target: number
}

export interface CopyReport {
  from: string
  to: string
  tables: CopyRow[]
  /** ranking day files whose sha256 was checked in the target */
  dayFiles: number
  ms: number
}

/** A copy that was refused before anything was written, or did not verify (rolled back). */
export class CopyError extends Error {
  constructor(
    message: string,
    /** true when a flag would let it through (--allow-non-empty) */
    readonly usage = false,
  ) {
    super(message)
  }
}

interface TablePair {
  key: string
  name: string
  lite: SQLiteTable
  pg: PgTable
}

/** The tables of db/schema.ts with their Postgres mirrors, each after the tables it refers to. */
export function tablesInDependencyOrder(): TablePair[] {
  const pairs = new Map<string, TablePair>()
  for (const [key, t] of Object.entries(schema)) {
    if (!is(t, SQLiteTable)) continue
    const pg = (pgSchema as Record<string, unknown>)[key]
    if (!is(pg, PgTable)) throw new CopyError(`table ${key} has no Postgres mirror in db/pg-schema.ts`)
    pairs.set(sqliteConfig(t).name, { key, name: sqliteConfig(t).name, lite: t, pg })
  }
  const out: TablePair[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (p: TablePair) => {
    if (state.get(p.name) === 'done') return
    if (state.get(p.name) === 'visiting') throw new CopyError(`foreign keys form a cycle through ${p.name}`)
    state.set(p.name, 'visiting')
    for (const fk of sqliteConfig(p.lite).foreignKeys) {
      const to = sqliteConfig(fk.reference().foreignTable).name
      if (to !== p.name) visit(pairs.get(to)!)
    }
    state.set(p.name, 'done')
    out.push(p)
  }
  for (const p of [...pairs.values()].sort((a, b) => a.name.localeCompare(b.name))) visit(p)
  return out
}

/** `sqlite:<path>`, `sqlite://<path>` or a plain path, to the path. */
export function sqlitePathOf(from: string): string {
  return from.replace(/^sqlite:(\/\/)?/, '')
}

/** Rows per INSERT: Postgres takes at most 65535 parameters in one statement. */
function batchRows(table: PgTable): number {
  return Math.max(1, Math.min(1000, Math.floor(60000 / Object.keys(getTableColumns(table)).length)))
}

/**
 * Copy every record of the SQLite file `from` into the Postgres database `to` (migrated
 * first). Refuses a target that holds rows unless `allowNonEmpty` (then the rows are added
 * to what is there, and a key both have stops the copy with nothing written).
 */
export async function copySqliteToPostgres(opts: { from: string; to: string; allowNonEmpty?: boolean; log?: (line: string) => void }): Promise<CopyReport> {
  const started = performance.now()
  const log = opts.log ?? (() => {})
  const path = sqlitePathOf(opts.from)
  if (!existsSync(path)) throw new CopyError(`--from ${opts.from}: no such SQLite file`, true)
  const tables = tablesInDependencyOrder()

  const source = new Database(path, { readonly: true, strict: true })
  const pool = new Pool({ connectionString: opts.to, max: 2 })
  pool.on('error', () => {})
  try {
    const applied = sqliteApplied(source)
    const known = journalSize(MIGRATIONS_DIR)
    if (applied < known)
      throw new CopyError(`the source ${path} is at migration ${applied} of ${known}: migrate it first (DATABASE_URL unset, perpsim db migrate --database sqlite:${path})`, true)
    if (applied > known) throw new CopyError(`the source ${path} has ${applied} migrations, more than this perpsim knows (${known}): copy it with the perpsim that wrote it`)
    await migratePg(pool)
    const target = drizzlePg({ client: pool, schema: pgSchema })
    const rows: CopyRow[] = []
    let dayFiles = 0
    // one snapshot of the source for every table (WAL: a writer may go on meanwhile)
    source.run('BEGIN')
    try {
      await target.transaction(async tx => {
        const count = async (t: PgTable) => Number((await tx.execute<{ n: string }>(sql`SELECT count(*) AS n FROM ${t}`)).rows[0]!.n)
        const before = new Map<string, number>()
        for (const t of tables) before.set(t.name, await count(t.pg))
        const busy = [...before].filter(([, n]) => n > 0)
        if (busy.length && !opts.allowNonEmpty)
          throw new CopyError(
            `the target ${redactUrl(opts.to)} already holds rows (${busy.map(([t, n]) => `${t}: ${n}`).join(', ')}); ` +
              'add --allow-non-empty to add the copy to them (a key both hold stops the copy, nothing written)',
            true,
          )
        for (const t of tables) {
          const cfg = sqliteConfig(t.lite)
          const order = [...cfg.columns.filter(c => c.primary), ...cfg.primaryKeys.flatMap(pk => pk.columns)].map(c => `"${c.name}"`).join(', ')
          const columns = Object.entries(getTableColumns(t.lite))
          const total = (source.query(`SELECT count(*) AS n FROM "${t.name}"`).get() as { n: number }).n
          const size = batchRows(t.pg)
          if (total >= 10_000) log(`copying ${t.name}: ${total} rows`)
          const insert = async (batch: Record<string, unknown>[]) => {
            try {
              await tx.insert(t.pg).values(batch as never)
            } catch (e) {
              // drizzle's message carries every parameter of the batch: name the table and Postgres' reason instead
              const cause = (e as { cause?: { message?: string; detail?: string } }).cause ?? (e as { message?: string; detail?: string })
              throw new CopyError(`${t.name}: ${cause.message}${cause.detail ? ` (${cause.detail})` : ''}; nothing was written`)
            }
          }
          // one pass over the table in key order (constant memory, no OFFSET rescans), each row
          // decoded as drizzle reads it (JSON parsed, booleans), under its TS keys: the same keys
          // the Postgres mirror inserts
          let batch: Record<string, unknown>[] = []
          let copied = 0
          for (const raw of source.query(`SELECT * FROM "${t.name}" ORDER BY ${order}`).iterate() as IterableIterator<Record<string, unknown>>) {
            const row: Record<string, unknown> = {}
            for (const [key, col] of columns) {
              const v = raw[col.name]
              row[key] = v === null || v === undefined ? null : col.mapFromDriverValue(v)
            }
            batch.push(row)
            copied++
            if (batch.length === size) {
              await insert(batch)
              batch = []
            }
          }
          if (batch.length) await insert(batch)
          if (copied !== total) throw new CopyError(`${t.name}: counted ${total} rows, read ${copied}; nothing was written`)
          rows.push({ table: t.name, source: total, targetBefore: before.get(t.name)!, target: 0 })
        }
        // identity sequences: the next id is past every copied one, as SQLite's AUTOINCREMENT would give
        for (const t of tables) {
          for (const c of pgConfig(t.pg).columns) {
            if (!(c as unknown as { generatedIdentity?: unknown }).generatedIdentity) continue
            await tx.execute(sql.raw(`SELECT setval(pg_get_serial_sequence('"${t.name}"', '${c.name}'), GREATEST((SELECT max("${c.name}") FROM "${t.name}"), 0) + 1, false)`))
          }
        }
        // the check, inside the transaction: a copy that does not verify is rolled back
        const wrong: string[] = []
        for (const r of rows) {
          r.target = await count(tables.find(t => t.name === r.table)!.pg)
          if (r.target !== r.targetBefore + r.source) wrong.push(`${r.table}: ${r.source} rows copied, target has ${r.target} (had ${r.targetBefore})`)
        }
        const sourceSha = new Map((source.query('SELECT date, sha256 FROM ranking_day_files').all() as { date: string; sha256: string }[]).map(r => [r.date, r.sha256]))
        const copied = await tx.select().from(pgSchema.rankingDayFiles)
        for (const f of copied) {
          if (!sourceSha.has(f.date)) continue // a day file the target held before
          dayFiles++
          const actual = sha256Hex(f.body)
          if (actual !== f.sha256 || actual !== sourceSha.get(f.date)) wrong.push(`ranking day file ${f.date}: body sha256 ${actual}, stored ${f.sha256}, source ${sourceSha.get(f.date)}`)
        }
        if (dayFiles !== sourceSha.size) wrong.push(`ranking day files: ${sourceSha.size} in the source, ${dayFiles} checked in the target`)
        if (wrong.length) throw new CopyError(`the copy did not verify, nothing was written:\n  ${wrong.join('\n  ')}`)
      })
    } finally {
      source.run('ROLLBACK')
    }
    return { from: `sqlite:${path}`, to: redactUrl(opts.to), tables: rows, dayFiles, ms: performance.now() - started }
  } finally {
    source.close()
    await pool.end()
  }
}

/** The report as the CLI prints it: one line per table, then the day files. */
export function formatCopyReport(r: CopyReport): string {
  const w = Math.max(5, ...r.tables.map(t => t.table.length))
  const anyBefore = r.tables.some(t => t.targetBefore > 0)
  const head = `${'table'.padEnd(w)}  ${'source'.padStart(8)}  ${anyBefore ? `${'before'.padStart(8)}  ` : ''}${'target'.padStart(8)}  check`
  const lines = r.tables.map(
    t => `${t.table.padEnd(w)}  ${String(t.source).padStart(8)}  ${anyBefore ? `${String(t.targetBefore).padStart(8)}  ` : ''}${String(t.target).padStart(8)}  ${t.target === t.targetBefore + t.source ? 'ok' : 'MISMATCH'}`,
  )
  const rowsTotal = r.tables.reduce((s, t) => s + t.source, 0)
  return [
    `copied ${r.from} -> ${r.to} in ${(r.ms / 1000).toFixed(1)} s (one transaction)`,
    head,
    ...lines,
    `${rowsTotal} rows in ${r.tables.length} tables; ` +
      (r.dayFiles ? `${r.dayFiles} ranking day files, each body's sha256 equal to the stored and the source's` : 'no ranking day files to check'),
  ].join('\n')
}
