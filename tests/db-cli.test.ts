/**
 * `perpsim db migrate` and `perpsim db copy` against real SQLite files and real Postgres
 * databases (issue 27 §3): migrate applies the configured database's migrations once; the
 * copy moves every record in one transaction and reads back the same values on both sides,
 * continues the AUTOINCREMENT ids, refuses a non-empty target unless told, and leaves
 * nothing behind when it does not verify (a day file whose body no longer has its sha256).
 */
import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { asc, getTableColumns, type Column } from 'drizzle-orm'
import { drizzle as drizzleSqlite } from 'drizzle-orm/bun-sqlite'
import { getTableConfig as sqliteConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { PgTable } from 'drizzle-orm/pg-core'
import { Client } from 'pg'
import * as liteSchema from '../db/schema'
import { CopyError, copySqliteToPostgres, migrateSqlite, tablesInDependencyOrder } from '../src/db-admin'
import { openPgDb, type PgDb } from '../src/db-postgres'
import { tempDir } from './helpers/fixtures'
import { testPostgres, type TestPostgres } from './helpers/postgres'
import { MS, SEED } from './helpers/record-rows'

const ROOT = join(import.meta.dir, '..')
const BUN = join(ROOT, 'node_modules/.bin/bun')
const dir = tempDir('perpsim-db-cli-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function cli(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawnSync([BUN, 'src/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, OFFLINE: '1', LOG_LEVEL: 'info', ...env }, stdout: 'pipe', stderr: 'pipe' })
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() }
}

/** A migrated SQLite installation holding the seed rows (and `extra` statements). */
function installation(name: string, extra: string[] = []): string {
  const path = join(dir, name, 'perpsim.sqlite')
  migrateSqlite(path)
  const db = new Database(path)
  for (const s of [...SEED, ...extra]) db.run(s)
  db.close()
  return path
}

async function counts(url: string): Promise<Record<string, number>> {
  const c = new Client({ connectionString: url })
  await c.connect()
  try {
    const out: Record<string, number> = {}
    for (const t of tablesInDependencyOrder()) out[t.name] = Number((await c.query(`SELECT count(*) AS n FROM "${t.name}"`)).rows[0].n)
    return out
  } finally {
    await c.end()
  }
}

describe('db migrate on SQLite (the default)', () => {
  test('applies every migration to DATA_DIR/perpsim.sqlite once', () => {
    const data = join(dir, 'fresh')
    const first = cli(['db', 'migrate'], { DATA_DIR: data })
    expect(first.err).toBe('')
    expect(first.code).toBe(0)
    expect(first.out).toMatch(/^sqlite:.*fresh\/perpsim\.sqlite: applied (\d+) migrations \(\1 in all\)\n$/)
    const again = cli(['db', 'migrate'], { DATA_DIR: data })
    expect(again.out).toMatch(/: up to date \(\d+ migrations\)\n$/)
    const db = new Database(join(data, 'perpsim.sqlite'), { readonly: true })
    const tables = db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != '__drizzle_migrations'").all().length
    const triggers = db.query("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger'").get() as { n: number }
    db.close()
    expect(tables).toBe(tablesInDependencyOrder().length)
    expect(triggers.n).toBeGreaterThanOrEqual(23)
  })

  test('a DATABASE_URL that is not postgres:// is refused in one line', () => {
    const r = cli(['db', 'migrate'], { DATA_DIR: join(dir, 'x'), DATABASE_URL: 'mysql://h/db' })
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/^configuration error: DATABASE_URL="mysql:\/\/h\/db": expected postgres:\/\/user@host:port\/database/)
  })

  test('db copy without a Postgres target says what it needs', () => {
    const r = cli(['db', 'copy', '--from', 'sqlite:/nonexistent.sqlite'], { DATA_DIR: join(dir, 'x') })
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/^db copy needs --to postgres:\/\//)
  })
})

const postgres: TestPostgres | null = await testPostgres('db migrate and db copy')
afterAll(() => postgres?.cleanup(), 60_000)

describe.skipIf(!postgres)('db migrate and db copy on Postgres', () => {
  test('db migrate applies db/pg-migrations to DATABASE_URL once, and the tables and triggers are there', async () => {
    const url = await postgres!.another()
    const first = cli(['db', 'migrate'], { DATA_DIR: join(dir, 'unused'), DATABASE_URL: url })
    expect(first.err).toBe('')
    expect(first.out).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/perpsim_t_\w+: applied (\d+) migrations \(\1 in all\)\n$/)
    expect(cli(['db', 'migrate'], { DATABASE_URL: url }).out).toMatch(/: up to date \(\d+ migrations\)\n$/)
    expect(Object.keys(await counts(url)).length).toBe(tablesInDependencyOrder().length)
  })

  test('db copy moves every table, and both databases read back the same records', async () => {
    const from = installation('copy-ok')
    const to = await postgres!.another()
    const r = cli(['db', 'copy', '--from', `sqlite:${from}`, '--to', to])
    expect(r.err).not.toContain('perpsim')
    expect(r.code).toBe(0)
    const lines = r.out.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^copied sqlite:.*copy-ok\/perpsim\.sqlite -> postgres:\/\/.* in [\d.]+ s \(one transaction\)$/)
    expect(lines[1]).toMatch(/^table\s+source\s+target\s+check$/)
    for (const t of tablesInDependencyOrder()) expect(lines.find(l => l.startsWith(`${t.name} `))).toMatch(/^\S+\s+(\d+)\s+\1\s+ok$/)
    expect(lines.at(-1)).toMatch(/^\d+ rows in \d+ tables; 1 ranking day files, each body's sha256 equal to the stored and the source's$/)

    // every table had rows to move, and every row reads back the same through drizzle on both sides
    const lite = drizzleSqlite({ client: new Database(from, { readonly: true }), schema: liteSchema })
    const pg: PgDb = await openPgDb(to, { max: 1 })
    try {
      for (const t of tablesInDependencyOrder()) {
        const cfg = sqliteConfig(t.lite)
        const keys = [...cfg.columns.filter(c => c.primary), ...cfg.primaryKeys.flatMap(p => p.columns)].map(c => c.name)
        const order = (cols: Record<string, Column>) => Object.values(cols).filter(c => keys.includes(c.name)).map(c => asc(c))
        const a = lite.select().from(t.lite as SQLiteTable).orderBy(...order(getTableColumns(t.lite))).all()
        const b = await pg.select().from(t.pg as PgTable).orderBy(...order(getTableColumns(t.pg)))
        expect(a.length).toBeGreaterThan(0)
        expect({ table: t.name, rows: b }).toEqual({ table: t.name, rows: a })
      }
      // JSON keeps its key order (json, not jsonb): a request hashed again gives the same hash
      const [req] = await pg.select().from((await import('../db/pg-schema')).resultRequests)
      expect(JSON.stringify(req!.request)).toBe('{"z":1,"a":[1.5,-0.25,1e-7],"s":"k\u00e9y"}')
      // the ids go on after the copied ones, as AUTOINCREMENT would
      const { rows } = await pg.$client.query(
        `INSERT INTO mail_outbox (kind, recipient, week, lang, status, next_attempt_at_ms, created_at_ms) VALUES ('confirm', 'b@example.com', '2026-W48', 'en', 'pending', ${MS}, ${MS}) RETURNING id`,
      )
      expect(Number(rows[0].id)).toBe(8)
      // and the append-only rules hold on the copy
      await expect(pg.$client.query("UPDATE signals SET status = 'x'")).rejects.toMatchObject({ code: '23000' })
    } finally {
      lite.$client.close()
      await pg.$client.end()
    }

    // a second copy into the same database is refused: nothing added
    const before = await counts(to)
    const again = cli(['db', 'copy', '--from', `sqlite:${from}`, '--to', to])
    expect(again.code).toBe(2)
    expect(again.err).toMatch(/^the target postgres:\/\/.* already holds rows \(.*signals: 3.*\); add --allow-non-empty/)
    expect(await counts(to)).toEqual(before)
    // told to go on, the keys both hold stop it, and still nothing is added
    const told = cli(['db', 'copy', '--from', `sqlite:${from}`, '--to', to, '--allow-non-empty'])
    expect(told.code).toBe(1)
    // (the first table both hold: day_roots' own rule refuses the second root before its key would)
    expect(told.err).toBe('perpsim db copy: day_roots: a sealed day root never changes; nothing was written\n')
    expect(await counts(to)).toEqual(before)
  })

  test('--allow-non-empty adds a copy to a target that holds other rows', async () => {
    const from = installation('copy-add')
    const to = await postgres!.another()
    const pg = await openPgDb(to, { max: 1 })
    await pg.$client.query(`INSERT INTO subscribers (email, lang, status, created_at_ms, updated_at_ms) VALUES ('other@example.com', 'ko', 'pending', 1, 1)`)
    await pg.$client.end()
    await expect(copySqliteToPostgres({ from, to })).rejects.toThrow(/already holds rows \(subscribers: 1\)/)
    const r = await copySqliteToPostgres({ from, to, allowNonEmpty: true })
    expect(r.tables.find(t => t.table === 'subscribers')).toEqual({ table: 'subscribers', source: 1, targetBefore: 1, target: 2 })
    expect((await counts(to)).subscribers).toBe(2)
  })

  test('a day file whose body no longer matches its sha256 stops the copy, and nothing is written', async () => {
    const from = installation('copy-bad', [`INSERT INTO ranking_day_files (date, sha256, body, schema_version, generated_at_ms) VALUES ('2026-11-27', '${'0'.repeat(64)}', '{}', 'v1', ${MS})`])
    const to = await postgres!.another()
    const err = await copySqliteToPostgres({ from, to }).catch(e => e)
    expect(err).toBeInstanceOf(CopyError)
    expect(err.message).toContain('the copy did not verify, nothing was written')
    expect(err.message).toContain(`ranking day file 2026-11-27: body sha256 44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a, stored ${'0'.repeat(64)}`)
    expect(Object.values(await counts(to)).every(n => n === 0)).toBe(true)
  })

  test('a source behind the migrations is refused before anything is read', async () => {
    const path = join(dir, 'old.sqlite')
    const db = new Database(path)
    db.run('CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY, hash text, created_at numeric)')
    db.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('x', 1)")
    db.close()
    await expect(copySqliteToPostgres({ from: `sqlite:${path}`, to: await postgres!.another() })).rejects.toThrow(/is at migration 1 of \d+: migrate it first/)
    await expect(copySqliteToPostgres({ from: 'sqlite:/no/such.sqlite', to: postgres!.url })).rejects.toThrow('--from sqlite:/no/such.sqlite: no such SQLite file')
  })
})
