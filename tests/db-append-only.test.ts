/**
 * The published records are append-only in the database itself, on SQLite and on Postgres
 * alike (db/migrations/*_triggers.sql, db/pg-migrations/0001_append_only.sql): the same raw
 * statements run through each driver against a database migrated as `perpsim db migrate` and
 * the openers do,
 * each in a transaction rolled back afterwards, so every case starts from the same rows.
 * Every append-only table refuses UPDATE and DELETE (and TRUNCATE on Postgres); the
 * conditional rules freeze only what SQLite freezes, and the tables SQLite leaves writable
 * stay writable.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { PoolClient } from 'pg'
import { Database } from 'bun:sqlite'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { migrateSqlite } from '../src/db-admin'
import { tempDir } from './helpers/fixtures'
import { openPgDb, type PgDb } from '../src/db-postgres'
import { testPostgres, type TestPostgres } from './helpers/postgres'
import { MS, SEED } from './helpers/record-rows'

type Outcome = { refused: false; rows: Record<string, unknown>[] } | { refused: true; message: string; code?: string }

/** Runs statements in one transaction, rolled back afterwards; the last one's rows, or the refusal. */
interface Driver {
  name: string
  run(statements: string[]): Promise<Outcome>
}

const dir = tempDir('perpsim-append-only-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A SQLite file migrated as `perpsim db migrate` does, opened raw with openDb's foreign keys and recursive triggers. */
function migratedSqlite(name: string): Database {
  const path = join(dir, `${name}.sqlite`)
  migrateSqlite(path)
  const sqlite = new Database(path)
  sqlite.exec('PRAGMA foreign_keys = ON; PRAGMA recursive_triggers = ON;')
  return sqlite
}

function sqliteDriver(): Driver & { close(): void } {
  const sqlite = migratedSqlite('records')
  for (const s of SEED) sqlite.run(s)
  return {
    name: 'SQLite',
    async run(statements) {
      sqlite.run('BEGIN')
      try {
        let rows: Record<string, unknown>[] = []
        for (const s of statements) rows = sqlite.query(s).all() as Record<string, unknown>[]
        return { refused: false, rows }
      } catch (e) {
        return { refused: true, message: (e as Error).message }
      } finally {
        sqlite.run('ROLLBACK')
      }
    },
    close: () => sqlite.close(),
  }
}

function pgDriver(db: PgDb): Driver {
  return {
    name: 'Postgres',
    async run(statements) {
      const c: PoolClient = await db.$client.connect()
      try {
        await c.query('BEGIN')
        let rows: Record<string, unknown>[] = []
        for (const s of statements) rows = (await c.query(s)).rows
        return { refused: false, rows }
      } catch (e) {
        return { refused: true, message: (e as Error).message, code: (e as { code?: string }).code }
      } finally {
        await c.query('ROLLBACK')
        c.release()
      }
    },
  }
}

/** A refusal with the rule's own message (the same text on both databases; SQLSTATE 23000 on Postgres). */
async function refuses(d: Driver, statements: string | string[], message: string): Promise<void> {
  const out = await d.run([statements].flat())
  if (!out.refused) throw new Error(`${d.name} accepted: ${[statements].flat().join('; ')}`)
  expect(out.message).toContain(message)
  if (d.name === 'Postgres') expect(out.code).toBe('23000')
}

async function accepts(d: Driver, statements: string | string[]): Promise<Record<string, unknown>[]> {
  const out = await d.run([statements].flat())
  if (out.refused) throw new Error(`${d.name} refused ${[statements].flat().join('; ')}: ${out.message}`)
  return out.rows
}

/** Every append-only table: a row to touch and the messages of its UPDATE and DELETE triggers. */
const FROZEN: { table: string; where: string; set: string; update: string; delete: string }[] = [
  { table: 'ranking_day_files', where: "date = '2026-11-26'", set: "body = '{}'", update: 'a published day file is never rewritten', delete: 'a published day file is never deleted' },
  { table: 'signals', where: "id = 's3'", set: "status = 'retired'", update: 'a recorded signal is never changed', delete: 'a recorded signal is never removed' },
  { table: 'day_roots', where: "day = '20261126'", set: "root = 'def'", update: 'a sealed day root never changes', delete: 'a sealed day root is never removed' },
  { table: 'day_leaves', where: "day = '20261126' AND idx = 1", set: "leaf = 'x'", update: 'a sealed leaf never changes', delete: 'a sealed leaf is never removed' },
  { table: 'paper_picks', where: 'cycle_id = 1', set: "rule = 'none'", update: "a day's paper picks never change", delete: "a day's paper picks are never removed" },
  { table: 'paper_history', where: 'cycle_id = 1', set: 'equity = 1', update: 'paper history rows never change', delete: 'paper history rows are never removed' },
  { table: 'weekly_digests', where: "week = '2026-W48'", set: 'created_at_ms = 2', update: "a week's digest is never rewritten", delete: "a week's digest is never deleted" },
  { table: 'research_trials', where: "run_id = 'r1'", set: 'objective_value = 9', update: 'a trial of the ledger is never changed', delete: 'a trial of the ledger is never removed' },
  { table: 'events', where: 'id = 2', set: "payload = '[]'", update: 'a published event is never changed', delete: 'a published event is never removed' },
]

/** Tables whose DELETE trigger is conditional or whose rows are only partly frozen: refuse TRUNCATE on Postgres all the same. */
const TRUNCATE_REFUSED = [...FROZEN.map(f => f.table), 'scored_signals', 'paper_positions', 'push_deliveries', 'push_cursor', 'research_runs']

function specification(driver: () => Driver) {
  for (const f of FROZEN) {
    test(`${f.table}: UPDATE and DELETE are refused`, async () => {
      await refuses(driver(), `UPDATE ${f.table} SET ${f.set} WHERE ${f.where}`, f.update)
      await refuses(driver(), `DELETE FROM ${f.table} WHERE ${f.where}`, f.delete)
      await refuses(driver(), `DELETE FROM ${f.table}`, f.delete)
    })
  }

  test('scored_signals: an open row is re-marked and may go, a final row is frozen, the frozen inputs never change', async () => {
    const d = driver()
    expect(await accepts(d, ["UPDATE scored_signals SET pnl_pct = 1.5, marked_through_ms = marked_through_ms + 1 WHERE signal_id = 's1'", "SELECT pnl_pct FROM scored_signals WHERE signal_id = 's1'"])).toEqual([{ pnl_pct: 1.5 }])
    await accepts(d, "UPDATE scored_signals SET status = 'sl', finalized_at_ms = 1 WHERE signal_id = 's1'")
    await accepts(d, "DELETE FROM scored_signals WHERE signal_id = 's1'")
    await refuses(d, "UPDATE scored_signals SET pnl_pct = 0 WHERE signal_id = 's2'", 'finalized scored signals are never rewritten')
    await refuses(d, "DELETE FROM scored_signals WHERE signal_id = 's2'", 'finalized scored signals are never deleted')
    for (const set of ["engine = 'e2'", 'entry_price = 1', 'fee_frac = 0', 'leverage = 2', 'mmr_frac = 0', 'sl_pct = 1', 'tp_pct = 1', 'max_bars = 1', "funding_source = 'none'", 'entry_time_ms = 0'])
      await refuses(d, `UPDATE scored_signals SET ${set} WHERE signal_id = 's1'`, 'the frozen inputs and engine label of a scored signal never change')
    // setting a frozen input to the value it has is no change
    await accepts(d, "UPDATE scored_signals SET engine = 'e1', pnl_pct = 2 WHERE signal_id = 's1'")
    // a second insert of a final row is refused even when told to ignore conflicts; an open one is a no-op
    const again = (id: string) => `INSERT INTO scored_signals (signal_id, engine, status, entry_time_ms, entry_price, pnl_pct, fee_frac, leverage, mmr_frac, sl_pct, tp_pct, max_bars, funding_source, marked_through_ms, updated_at_ms) VALUES ('${id}', 'e1', 'open', 0, 1, 0, 0, 1, 0, 2, 4, 24, 'real', 0, 0) ON CONFLICT DO NOTHING`
    await refuses(d, again('s2'), 'finalized scored signals are never rewritten')
    expect(await accepts(d, [again('s1'), "SELECT entry_time_ms FROM scored_signals WHERE signal_id = 's1'"])).toEqual([{ entry_time_ms: d.name === 'Postgres' ? String(MS) : MS }])
  })

  test('day_roots and day_leaves: a sealed day takes no other root and no further leaves; a new day seals', async () => {
    const d = driver()
    await refuses(d, `INSERT INTO day_roots (day, leaf_count, root, algorithm, sealed_at_ms) VALUES ('20261126', 0, NULL, 'sha256', 0) ON CONFLICT DO NOTHING`, 'a sealed day root never changes')
    await refuses(d, `INSERT INTO day_leaves (day, idx, record_id, leaf, leaf_hash) VALUES ('20261126', 2, 'scored_signal:s1', 'l', 'h')`, 'a sealed day takes no further leaves')
    await refuses(d, `INSERT INTO day_leaves (day, idx, record_id, leaf, leaf_hash) VALUES ('20261126', -1, 'scored_signal:s1', 'l', 'h')`, 'a sealed day takes no further leaves')
    await accepts(d, [
      `INSERT INTO day_roots (day, leaf_count, root, algorithm, sealed_at_ms) VALUES ('20261127', 1, 'r', 'sha256', ${MS})`,
      `INSERT INTO day_leaves (day, idx, record_id, leaf, leaf_hash) VALUES ('20261127', 0, 'scored_signal:s1', 'l', 'h')`,
    ])
  })

  test('paper_positions: pending and open positions move, a closed one is frozen', async () => {
    const d = driver()
    await accepts(d, "UPDATE paper_positions SET mark_price = 101, status = 'sl', closed_at_ms = 1 WHERE id = 'p1'")
    await accepts(d, "DELETE FROM paper_positions WHERE id = 'p1'")
    await refuses(d, "UPDATE paper_positions SET pnl_usd = 0 WHERE id = 'p2'", 'closed paper positions are never rewritten')
    await refuses(d, "DELETE FROM paper_positions WHERE id = 'p2'", 'closed paper positions are never deleted')
  })

  test("weekly_digests: a second insert of a stored week is skipped, the first digest stands", async () => {
    const d = driver()
    const rows = await accepts(d, [`INSERT INTO weekly_digests (week, payload, created_at_ms) VALUES ('2026-W48', '{"b":2}', 2)`, "SELECT created_at_ms FROM weekly_digests WHERE week = '2026-W48'"])
    expect(rows.map(r => Number(r.created_at_ms))).toEqual([1])
  })

  test('push: a pending delivery moves, a finished one is frozen, none is removed; the cursor only moves forward; a removed endpoint stays removed', async () => {
    const d = driver()
    await accepts(d, "UPDATE push_deliveries SET status = 'delivered', delivered_at_ms = 1 WHERE id = 1")
    await refuses(d, "UPDATE push_deliveries SET status = 'pending' WHERE id = 2", 'a finished push delivery is never changed')
    await refuses(d, 'DELETE FROM push_deliveries WHERE id = 1', 'push deliveries are never removed')
    await accepts(d, "UPDATE push_cursor SET event_id = 1 WHERE name = 'outbox'")
    await accepts(d, "UPDATE push_cursor SET event_id = 2 WHERE name = 'outbox'")
    await refuses(d, "UPDATE push_cursor SET event_id = 0 WHERE name = 'outbox'", 'the push cursor never moves back')
    await refuses(d, "DELETE FROM push_cursor WHERE name = 'outbox'", 'the push cursor is never removed')
    await accepts(d, 'UPDATE push_endpoints SET disabled_at_ms = 5, url = NULL WHERE id = 1')
    await accepts(d, "UPDATE push_endpoints SET last_error = 'x' WHERE id = 2")
    await refuses(d, 'UPDATE push_endpoints SET disabled_at_ms = NULL WHERE id = 2', 'a removed push endpoint is never enabled again')
    // an endpoint no delivery refers to is deleted, not disabled
    await accepts(d, 'DELETE FROM push_endpoints WHERE id = 3')
  })

  test('research_runs: a running run moves, a stopped one is frozen, none is removed', async () => {
    const d = driver()
    await accepts(d, "UPDATE research_runs SET finished = 4 WHERE id = 'r1'")
    await accepts(d, "UPDATE research_runs SET state = 'cancelled', reason = 'asked', finished_at = 1 WHERE id = 'r1'")
    await refuses(d, "UPDATE research_runs SET result = NULL WHERE id = 'r2'", 'research_runs: a stopped run is never changed')
    await refuses(d, "DELETE FROM research_runs WHERE id = 'r1'", 'research_runs: a run is never removed')
  })

  test('the tables SQLite leaves writable stay writable', async () => {
    const d = driver()
    await accepts(d, ["UPDATE job_runs SET outcome = 'ok', finished_at_ms = 1", 'DELETE FROM job_runs'])
    await accepts(d, ["UPDATE subscribers SET status = 'unsubscribed'", 'DELETE FROM subscribers'])
    await accepts(d, ['UPDATE real_track SET nav = 1', 'DELETE FROM real_track'])
    await accepts(d, ["UPDATE paper_cycles SET status = 'complete'"])
  })
}

describe('append-only records on SQLite', () => {
  let d: ReturnType<typeof sqliteDriver>
  beforeAll(() => {
    d = sqliteDriver()
  })
  afterAll(() => d.close())
  specification(() => d)
})

const postgres: TestPostgres | null = await testPostgres('the append-only records')
afterAll(() => postgres?.cleanup(), 60_000)

describe.skipIf(!postgres)('append-only records on Postgres', () => {
  let db: PgDb
  let d: Driver
  beforeAll(async () => {
    db = await openPgDb(postgres!.url, { max: 2 })
    for (const s of SEED) await db.$client.query(s)
    d = pgDriver(db)
  }, 60_000)
  afterAll(() => db?.$client.end())

  specification(() => d)

  test.each(TRUNCATE_REFUSED)('%s: TRUNCATE is refused (it fires no row trigger: a statement trigger refuses it)', async table => {
    // a table other tables refer to is refused by its foreign keys first (0A000), unless
    // CASCADE: then the statement triggers of it and of the tables it takes along refuse
    const referenced = ['signals', 'day_roots', 'events'].includes(table)
    const out = await d.run([`TRUNCATE ${table}${referenced ? ' CASCADE' : ''}`])
    expect(out.refused).toBe(true)
    if (!out.refused) return
    expect(out.code).toBe('23000')
    const own = FROZEN.find(f => f.table === table)?.delete
    if (own && !referenced) expect(out.message).toContain(own)
  })

  test('every SQLite trigger has its namesake on the same table in Postgres', async () => {
    const lite = migratedSqlite('triggers')
    const want = (lite.query("SELECT tbl_name AS t, name AS n FROM sqlite_master WHERE type = 'trigger'").all() as { t: string; n: string }[]).map(r => `${r.t}.${r.n}`).sort()
    lite.close()
    const { rows } = await db.$client.query<{ t: string; n: string }>('SELECT c.relname AS t, g.tgname AS n FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid WHERE NOT g.tgisinternal')
    const have = rows.map(r => `${r.t}.${r.n}`)
    expect(want.length).toBeGreaterThanOrEqual(23)
    expect(want.filter(x => !have.includes(x))).toEqual([])
    // and Postgres adds only the TRUNCATE refusals
    expect(have.filter(x => !want.includes(x)).sort()).toEqual(TRUNCATE_REFUSED.map(t => `${t}.${t}_no_truncate`).sort())
  })
})
