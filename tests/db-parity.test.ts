/**
 * The Postgres mirror (db/pg-schema.ts) has every table of the SQLite schema (db/schema.ts)
 * with the same TS keys, SQL names, columns (nullability, primary key, type family,
 * default, identity), indexes, unique constraints and foreign keys, plus the widths the
 * mapping requires (an epoch `*_ms` / `*_at` column is bigint: Postgres `integer` is 4 bytes). A table
 * added to one schema and not the other fails here. The migrated Postgres database is also
 * read back, so a pg-schema.ts change without its generated migration fails too.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { getTableColumns, is, type Table } from 'drizzle-orm'
import { bigint, doublePrecision, getTableConfig as pgConfig, index, integer, json, PgTable, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core'
import { getTableConfig as liteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core'
import * as lite from '../db/schema'
import * as pg from '../db/pg-schema'
import { openPgDb, type PgDb } from '../src/db-postgres'
import { testPostgres, type TestPostgres } from './helpers/postgres'

type AnyColumn = {
  name: string
  columnType: string
  notNull: boolean
  primary: boolean
  hasDefault: boolean
  default?: unknown
  isUnique: boolean
  uniqueName?: string
  autoIncrement?: boolean
  generatedIdentity?: unknown
}

const FAMILY: Record<string, string> = {
  SQLiteInteger: 'integer',
  SQLiteReal: 'real',
  SQLiteText: 'text',
  SQLiteTextJson: 'json',
  SQLiteBoolean: 'boolean',
  PgInteger: 'integer',
  PgBigInt53: 'integer',
  PgDoublePrecision: 'real',
  PgText: 'text',
  PgJson: 'json',
  PgBoolean: 'boolean',
}

function family(c: AnyColumn): string {
  const f = FAMILY[c.columnType]
  if (!f) throw new Error(`column ${c.name}: no type family for ${c.columnType} (add it to the parity test's map)`)
  return f
}

type Config = ReturnType<typeof liteConfig> | ReturnType<typeof pgConfig>

/** One line per fact of a table that both dialects must agree on, sorted. */
export function shape(cfg: Config): string[] {
  const cols = cfg.columns as unknown as AnyColumn[]
  const out: string[] = []
  for (const c of cols) {
    const ident = c.autoIncrement || c.generatedIdentity ? ' identity' : ''
    // SQLite counts an INTEGER PRIMARY KEY (rowid) as having a default, with no value: only declared defaults count
    const def = c.default !== undefined ? ` default=${JSON.stringify(c.default)}` : ''
    out.push(`column ${c.name} ${family(c)}${c.notNull || c.primary ? ' not null' : ''}${c.primary ? ' primary key' : ''}${ident}${def}`)
    if (c.isUnique) out.push(`unique ${c.uniqueName} (${c.name})`)
  }
  for (const pk of cfg.primaryKeys) out.push(`primary key (${pk.columns.map(c => c.name).join(', ')})`)
  for (const u of cfg.uniqueConstraints) out.push(`unique ${u.getName()} (${u.columns.map(c => c.name).join(', ')})`)
  for (const i of cfg.indexes) {
    const names = (i.config.columns as { name?: string }[]).map(c => c.name ?? '?')
    out.push(`${i.config.unique ? 'unique index' : 'index'} ${i.config.name} (${names.join(', ')})`)
  }
  for (const fk of cfg.foreignKeys) {
    const r = fk.reference()
    const target = is(r.foreignTable, SQLiteTable) ? liteConfig(r.foreignTable as SQLiteTable).name : pgConfig(r.foreignTable as PgTable).name
    out.push(`foreign key (${r.columns.map(c => c.name).join(', ')}) references ${target} (${r.foreignColumns.map(c => c.name).join(', ')})`)
  }
  return out.sort()
}

/** What the Postgres mirror requires beyond the shape: widths SQLite does not have. */
export function pgWidthProblems(cfg: ReturnType<typeof pgConfig>): string[] {
  const problems: string[] = []
  for (const c of cfg.columns) {
    // an instant: `*_ms`, or `*_at` (events.created_at, the research runs' created_at/started_at/finished_at hold epoch ms)
    const epoch = c.name.endsWith('_ms') || c.name.endsWith('_at')
    if (epoch && c.columnType !== 'PgBigInt53') problems.push(`${cfg.name}.${c.name} holds epoch ms: bigint('${c.name}', { mode: 'number' }), not ${c.columnType}`)
    if ((c as unknown as AnyColumn).generatedIdentity && c.columnType !== 'PgBigInt53') problems.push(`${cfg.name}.${c.name} is an AUTOINCREMENT id: bigint, not ${c.columnType}`)
  }
  // a reference is as wide as what it refers to
  for (const fk of cfg.foreignKeys) {
    const r = fk.reference()
    r.columns.forEach((c, k) => {
      const to = r.foreignColumns[k]!
      if (c.columnType !== to.columnType) problems.push(`${cfg.name}.${c.name} (${c.columnType}) refers to ${to.name} (${to.columnType})`)
    })
  }
  return problems
}

function tablesOf(mod: Record<string, unknown>, kind: typeof SQLiteTable | typeof PgTable): Map<string, unknown> {
  return new Map(Object.entries(mod).filter(([, v]) => is(v, kind)))
}

/** Every difference between the two schemas, one line each; empty when they agree. */
export function schemaDiff(liteMod: Record<string, unknown>, pgMod: Record<string, unknown>): string[] {
  const l = tablesOf(liteMod, SQLiteTable)
  const p = tablesOf(pgMod, PgTable)
  const diff: string[] = []
  for (const k of l.keys()) if (!p.has(k)) diff.push(`table ${k}: in db/schema.ts, missing from db/pg-schema.ts`)
  for (const k of p.keys()) if (!l.has(k)) diff.push(`table ${k}: in db/pg-schema.ts, not in db/schema.ts`)
  for (const [k, lt] of l) {
    const pt = p.get(k)
    if (!pt) continue
    const lc = liteConfig(lt as SQLiteTable)
    const pc = pgConfig(pt as PgTable)
    if (lc.name !== pc.name) diff.push(`table ${k}: SQL name ${lc.name} in SQLite, ${pc.name} in Postgres`)
    const a = shape(lc)
    const b = shape(pc)
    for (const x of a) if (!b.includes(x)) diff.push(`${lc.name}: SQLite has "${x}", Postgres does not`)
    for (const x of b) if (!a.includes(x)) diff.push(`${lc.name}: Postgres has "${x}", SQLite does not`)
    // same TS keys, so a row of one inserts into the other as it is
    const tsKeys = (t: Table) => Object.entries(getTableColumns(t)).map(([key, c]) => `${key}=${c.name}`).sort().join(',')
    const lk = tsKeys(lt as Table)
    const pk = tsKeys(pt as Table)
    if (lk !== pk) diff.push(`${lc.name}: TS keys ${lk} in SQLite, ${pk} in Postgres`)
    diff.push(...pgWidthProblems(pc))
  }
  return diff
}

describe('the Postgres mirror of the schema', () => {
  test('has every table, column, key, index, unique constraint and foreign key of the SQLite schema', () => {
    expect(schemaDiff(lite, pg)).toEqual([])
    // and the check is not vacuous: all 22+ tables were compared, with their columns
    expect(tablesOf(lite, SQLiteTable).size).toBeGreaterThanOrEqual(22)
    expect(shape(liteConfig(lite.scoredSignals)).filter(x => x.startsWith('column ')).length).toBe(28)
  })

  test('fails on a made-up mismatch (each kind of difference is named)', () => {
    const base = { ...pg } as Record<string, unknown>
    const changed = (table: unknown) => schemaDiff(lite, { ...base, realTrack: table })
    // the real one passes
    expect(schemaDiff(lite, { ...base })).toEqual([])
    // a missing table
    const { realTrack: _gone, ...without } = base
    expect(schemaDiff(lite, without)).toEqual(['table realTrack: in db/schema.ts, missing from db/pg-schema.ts'])
    // a missing column
    expect(changed(pgTable('real_track', { tMs: bigint('t_ms', { mode: 'number' }).primaryKey(), nav: json('nav').notNull() })).join('\n')).toContain('SQLite has "column imported_at_ms integer not null"')
    // nullability
    const ok = { tMs: bigint('t_ms', { mode: 'number' }).primaryKey(), importedAtMs: bigint('imported_at_ms', { mode: 'number' }).notNull() }
    expect(changed(pgTable('real_track', { ...ok, nav: text('nav') })).join('\n')).toContain('SQLite has "column nav real not null"')
    // a type family (text for a real)
    expect(changed(pgTable('real_track', { ...ok, nav: text('nav').notNull() })).join('\n')).toContain('Postgres has "column nav text not null"')
    // an index SQLite does not have
    const full = { ...ok, nav: doublePrecision('nav').notNull() }
    expect(changed(pgTable('real_track', full))).toEqual([])
    expect(changed(pgTable('real_track', full, t => [index('real_track_nav').on(t.nav)]))).toEqual(['real_track: Postgres has "index real_track_nav (nav)", SQLite does not'])
    // an epoch column 4 bytes wide
    expect(changed(pgTable('real_track', { ...full, importedAtMs: integer('imported_at_ms').notNull() }))).toContain(
      "real_track.imported_at_ms holds epoch ms: bigint('imported_at_ms', { mode: 'number' }), not PgInteger",
    )
    // a TS key that differs (same SQL name)
    expect(changed(pgTable('real_track', { ...ok, navUsd: doublePrecision('nav').notNull() }))).toContain(
      'real_track: TS keys importedAtMs=imported_at_ms,nav=nav,tMs=t_ms in SQLite, importedAtMs=imported_at_ms,navUsd=nav,tMs=t_ms in Postgres',
    )
    // a renamed index, and a unique index that is plain
    const snap = { key: text('key').primaryKey(), source: text('source').notNull(), payload: json('payload').notNull(), fetchedAtMs: bigint('fetched_at_ms', { mode: 'number' }).notNull() }
    const withSnap = (t: unknown) => schemaDiff(lite, { ...base, upstreamSnapshots: t })
    expect(withSnap(pgTable('upstream_snapshots', snap, t => [index('upstream_snapshots_fetched').on(t.fetchedAtMs)]))).toEqual([])
    expect(withSnap(pgTable('upstream_snapshots', snap, t => [index('upstream_snapshots_fetched_at').on(t.fetchedAtMs)]))).toEqual([
      'upstream_snapshots: SQLite has "index upstream_snapshots_fetched (fetched_at_ms)", Postgres does not',
      'upstream_snapshots: Postgres has "index upstream_snapshots_fetched_at (fetched_at_ms)", SQLite does not',
    ])
    expect(withSnap(pgTable('upstream_snapshots', snap, t => [uniqueIndex('upstream_snapshots_fetched').on(t.fetchedAtMs)]))).toContain(
      'upstream_snapshots: Postgres has "unique index upstream_snapshots_fetched (fetched_at_ms)", SQLite does not',
    )
    // JSON stored as plain text loses the json family
    expect(withSnap(pgTable('upstream_snapshots', { ...snap, payload: text('payload').notNull() }, t => [index('upstream_snapshots_fetched').on(t.fetchedAtMs)]))).toContain(
      'upstream_snapshots: SQLite has "column payload json not null", Postgres does not',
    )
  })
})

const postgres: TestPostgres | null = await testPostgres('the migrated Postgres schema against db/pg-schema.ts')
afterAll(() => postgres?.cleanup(), 60_000)

describe.skipIf(!postgres)('the migrated Postgres database', () => {
  let db: PgDb
  beforeAll(async () => {
    db = await openPgDb(postgres!.url, { max: 2 })
  }, 60_000)
  afterAll(() => db?.$client.end())

  test('processes opening a fresh database at once migrate it once (the advisory lock)', async () => {
    const url = await postgres!.another()
    const dbs = await Promise.all([openPgDb(url, { max: 1 }), openPgDb(url, { max: 1 }), openPgDb(url, { max: 1 })])
    try {
      const { rows } = await dbs[0]!.$client.query<{ n: number }>('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations')
      const journal = (await Bun.file(join(import.meta.dir, '..', 'db', 'pg-migrations', 'meta', '_journal.json')).json()) as { entries: unknown[] }
      expect(rows[0]!.n).toBe(journal.entries.length)
    } finally {
      for (const d of dbs) await d.$client.end()
    }
  })

  test('has exactly the tables, columns and indexes of db/pg-schema.ts (its migrations are current)', async () => {
    const { rows: cols } = await db.$client.query<{ t: string; c: string; type: string; nullable: string }>(
      `SELECT table_name AS t, column_name AS c, data_type AS type, is_nullable AS nullable
         FROM information_schema.columns WHERE table_schema = 'public'`,
    )
    const { rows: idx } = await db.$client.query<{ t: string; i: string }>(`SELECT tablename AS t, indexname AS i FROM pg_indexes WHERE schemaname = 'public'`)
    const SQL_TYPE: Record<string, string> = { PgInteger: 'integer', PgBigInt53: 'bigint', PgDoublePrecision: 'double precision', PgText: 'text', PgJson: 'json', PgBoolean: 'boolean' }
    const want: string[] = []
    const wantIdx: string[] = []
    for (const t of tablesOf(pg, PgTable).values()) {
      const cfg = pgConfig(t as PgTable)
      for (const c of cfg.columns) want.push(`${cfg.name}.${c.name} ${SQL_TYPE[c.columnType]} ${c.notNull ? 'NO' : 'YES'}`)
      for (const i of cfg.indexes) wantIdx.push(`${cfg.name}.${i.config.name}`)
      for (const c of cfg.columns) if (c.isUnique) wantIdx.push(`${cfg.name}.${c.uniqueName}`)
      for (const p of cfg.primaryKeys) wantIdx.push(`${cfg.name}.${p.getName()}`)
      if (cfg.columns.some(c => c.primary)) wantIdx.push(`${cfg.name}.${cfg.name}_pkey`)
    }
    expect(cols.map(r => `${r.t}.${r.c} ${r.type} ${r.nullable}`).sort()).toEqual(want.sort())
    expect(idx.map(r => `${r.t}.${r.i}`).sort()).toEqual(wantIdx.sort())
  })
})
