/**
 * Postgres, several processes at once (issue 27 §3): a job slot is claimed once however many
 * schedulers race for it, and a reader that pages events "after the last id I saw" never
 * skips an event whose transaction committed after a later one's (src/records/events.ts:
 * event writers hold an advisory lock from their first event to their commit). Skipped with
 * the reason printed when no Postgres can be had (tests/helpers/postgres.ts).
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { openDatabase, type Db } from '../src/db'
import { appendEvents, eventsAfter } from '../src/records/events'
import { testPostgres } from './helpers/postgres'

const pg = await testPostgres('the slot-claim and commit-order races')
afterAll(() => pg?.cleanup(), 60_000)

const SLOTS = 100

/** Two processes claiming the same slots from the same instant; their JSON reports. */
async function race(url: string, mode: 'schedule' | 'manual'): Promise<{ claimed: number; held: number; done: number; error: number; errors: string[] }[]> {
  const startAt = Date.now() + 1500 // both have opened their pools by then
  const procs = ['a', 'b'].map(instance =>
    Bun.spawn([process.execPath, join(import.meta.dir, 'fixtures/claim-slots.ts'), url, instance, String(startAt), String(SLOTS), mode], { stdout: 'pipe', stderr: 'inherit' }),
  )
  const outs = await Promise.all(procs.map(async p => (await new Response(p.stdout).text()).trim()))
  for (const p of procs) expect(await p.exited).toBe(0)
  return outs.map(o => JSON.parse(o))
}

describe.skipIf(!pg)('Postgres: two schedulers in two processes', () => {
  test('claim each slot exactly once', async () => {
    const url = await pg!.another()
    const [a, b] = await race(url, 'schedule')
    expect(a!.error + b!.error).toBe(0)
    expect(a!.claimed + b!.claimed).toBe(SLOTS)
    // the loser of each slot found it held by the winner's live run
    expect(a!.held + b!.held).toBe(SLOTS)
    const db = await openDatabase(url)
    try {
      const rows = await db.rows<{ slot: string; n: number; owners: number }>(sql`SELECT slot, count(*)::int AS n, count(DISTINCT owner_instance)::int AS owners FROM job_runs GROUP BY slot`)
      expect(rows.length).toBe(SLOTS)
      expect(rows.every(r => r.n === 1 && r.owners === 1)).toBe(true)
    } finally {
      await db.close()
    }
  }, 60_000)

  test('forced manual re-runs of the same slots take attempts 1 and 2, with no unique-key collision', async () => {
    const url = await pg!.another()
    const [a, b] = await race(url, 'manual')
    expect([a!.error + b!.error, a!.errors, b!.errors]).toEqual([0, [], []])
    expect(a!.claimed + b!.claimed).toBe(2 * SLOTS)
    const db = await openDatabase(url)
    try {
      const rows = await db.rows<{ attempts: string }>(sql`SELECT string_agg(attempt::text, ',' ORDER BY attempt) AS attempts FROM job_runs GROUP BY slot`)
      expect(rows.length).toBe(SLOTS)
      expect(rows.every(r => r.attempts === '1,2')).toBe(true)
    } finally {
      await db.close()
    }
  }, 60_000)
})

describe.skipIf(!pg)('Postgres: two writers committing out of order', () => {
  const dbs: Db[] = []
  afterAll(async () => {
    for (const db of dbs) await db.close()
  })
  const open = async (url: string) => {
    const db = await openDatabase(url)
    dbs.push(db)
    return db
  }
  const later = () => {
    let release!: () => void
    const p = new Promise<void>(r => (release = r))
    return { p, release }
  }

  test('a reader paging by id sees both events: the second writer waits for the first to commit', async () => {
    const url = await pg!.another()
    const [one, two, reader] = [await open(url), await open(url), await open(url)]
    const hold = later()
    const appended = later()
    // writer 1 appends its event first (it takes id n) and keeps its transaction open
    const w1 = one.tx(async tx => {
      await appendEvents(tx, 1, [{ kind: 'signal', payload: { writer: 1 } }])
      appended.release()
      await hold.p
    })
    await appended.p
    // writer 2 appends after it; without the lock it would take id n+1 and commit first
    let w2done = false
    const w2 = two.tx(tx => appendEvents(tx, 2, [{ kind: 'signal', payload: { writer: 2 } }])).then(ids => ((w2done = true), ids))
    await Bun.sleep(200)
    expect(w2done).toBe(false) // waiting for writer 1's commit
    // the reader pages meanwhile: nothing is visible, so its cursor stays where it was
    let cursor = 0
    const seen: number[] = []
    const page = async () => {
      for (const e of await eventsAfter(reader, cursor, { limit: 10 })) {
        seen.push(JSON.parse(e.payload).writer)
        cursor = e.id
      }
    }
    await page()
    expect(seen).toEqual([])
    hold.release()
    await w1
    await w2
    await page()
    expect(seen).toEqual([1, 2])
  }, 30_000)

  test('(why the lock: the same two inserts without it) the reader skips the event that committed late', async () => {
    const url = await pg!.another()
    const [one, two, reader] = [await open(url), await open(url), await open(url)]
    const insert = (db: Db, writer: number) => db.rows(sql`INSERT INTO events (kind, created_at, payload) VALUES ('signal', 1, ${JSON.stringify({ writer })})`)
    const hold = later()
    const inserted = later()
    const w1 = one.tx(async tx => {
      await tx.rows(sql`INSERT INTO events (kind, created_at, payload) VALUES ('signal', 1, ${JSON.stringify({ writer: 1 })})`)
      inserted.release()
      await hold.p
    })
    await inserted.p
    await insert(two, 2) // takes the next id and commits at once
    let cursor = 0
    const seen: number[] = []
    const page = async () => {
      for (const e of await eventsAfter(reader, cursor, { limit: 10 })) {
        seen.push(JSON.parse(e.payload).writer)
        cursor = e.id
      }
    }
    await page() // sees writer 2 and moves past writer 1's id
    hold.release()
    await w1
    await page()
    expect(seen).toEqual([2]) // writer 1's event is in the table, below the cursor: skipped
    expect((await eventsAfter(reader, 0, { limit: 10 })).length).toBe(2)
  }, 30_000)
})
