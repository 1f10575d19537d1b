/**
 * The events table (docs/events.md): appended in the writer's transaction, ids in commit
 * order, read after an id with the stream's filters, and never changed or removed.
 */
import { sql } from 'drizzle-orm'
import { describe, expect, test } from 'bun:test'
import { events } from '../db/schema'
import { openDb } from '../src/db'
import { refusal } from './helpers/db-error'
import { appendEvents, eventsAfter, eventWakeups, latestEventId, matchesFilter, oldestKeptId } from '../src/records/events'

const sample = (i: number, over: Partial<{ strategy: string; coin: string; status: string }> = {}) => ({
  kind: 'signal' as const,
  strategy: over.strategy ?? 'ema-cross',
  coin: over.coin ?? 'BTC',
  status: over.status ?? 'verified',
  payload: { n: i, z: 1, a: [2, 1] },
})

describe('events table', () => {
  test('ids rise in commit order and the payload is canonical JSON', async () => {
    const db = openDb(':memory:')
    const a = await db.tx(async tx => await appendEvents(tx, 1000, [sample(1), sample(2)]))
    const b = await db.tx(async tx => await appendEvents(tx, 2000, [sample(3)]))
    expect(a).toEqual([1, 2])
    expect(b).toEqual([3])
    const rows = await eventsAfter(db, 0, { limit: 10 })
    expect(rows.map(r => r.id)).toEqual([1, 2, 3])
    expect(rows[0]!.payload).toBe('{"a":[2,1],"n":1,"z":1}')
    expect(rows[2]!.createdAt).toBe(2000)
    expect(await latestEventId(db)).toBe(3)
  })

  test('an event rolled back with its record leaves no row; the next commit follows the last committed id', async () => {
    const db = openDb(':memory:')
    await db.tx(async tx => await appendEvents(tx, 1, [sample(1)]))
    await expect(db.tx(async tx => {
        await appendEvents(tx, 2, [sample(2)])
        throw new Error('the record write failed')
      }),).rejects.toThrow('the record write failed')
    expect((await eventsAfter(db, 0, { limit: 10 })).map(r => r.id)).toEqual([1])
    // the rolled-back id was never seen by anyone (it was never committed), so handing it out
    // again breaks no resume point
    await db.tx(async tx => await appendEvents(tx, 3, [sample(3)]))
    expect((await eventsAfter(db, 1, { limit: 10 })).map(r => [r.id, JSON.parse(r.payload).n])).toEqual([[2, 3]])
  })

  test('the database refuses to change or remove an event', async () => {
    const db = openDb(':memory:')
    await db.tx(async tx => await appendEvents(tx, 1, [sample(1)]))
    expect(await refusal(db.orm.update(events).set({ payload: '{}' }))).toContain('append-only')
    expect(await refusal(db.orm.delete(events))).toContain('append-only')
    await expect(db.rows(sql.raw(`INSERT OR REPLACE INTO events (id, kind, created_at, payload) VALUES (1, 'signal', 5, '{}')`))).rejects.toThrow('append-only')
    expect((await eventsAfter(db, 0, { limit: 10 }))[0]!.payload).toBe('{"a":[2,1],"n":1,"z":1}')
  })

  test('filters: every given list must hold the value; SQL and the in-memory rule agree', async () => {
    const db = openDb(':memory:')
    await db.tx(async tx =>
      await appendEvents(tx, 1, [
        sample(1, { strategy: 'a', coin: 'BTC', status: 'verified' }),
        sample(2, { strategy: 'b', coin: 'ETH', status: 'testing' }),
        { kind: 'day_root', payload: { date: '2026-11-20' } },
        sample(4, { strategy: 'a', coin: 'ETH', status: 'research' }),
      ]),
    )
    const all = await eventsAfter(db, 0, { limit: 10 })
    const cases = [
      {},
      { kinds: ['day_root'] },
      { strategies: ['a'] },
      { coins: ['ETH'], statuses: ['testing', 'research'] },
      { kinds: ['signal'], coins: ['BTC'] },
    ]
    const expected = [[1, 2, 3, 4], [3], [1, 4], [2, 4], [1]]
    for (const [i, f] of cases.entries()) {
      expect((await eventsAfter(db, 0, { limit: 10, ...f })).map(r => r.id)).toEqual(expected[i]!)
      expect(all.filter(r => matchesFilter(r, f)).map(r => r.id)).toEqual(expected[i]!)
    }
    expect((await eventsAfter(db, 1, { limit: 2 })).map(r => r.id)).toEqual([2, 3])
    expect((await eventsAfter(db, 1, { limit: 10, throughId: 3 })).map(r => r.id)).toEqual([2, 3])
  })

  test('oldestKeptId is the first event created at or after the window start', async () => {
    const db = openDb(':memory:')
    await db.tx(async tx => await appendEvents(tx, 100, [sample(1)]))
    await db.tx(async tx => await appendEvents(tx, 200, [sample(2)]))
    expect(await oldestKeptId(db, 150)).toBe(2)
    expect(await oldestKeptId(db, 50)).toBe(1)
    expect(await oldestKeptId(db, 250)).toBeNull()
  })

  test('readers are woken once the appending transaction has ended', async () => {
    const db = openDb(':memory:')
    let seen = -1
    // a reader woken reads the table at once: it must find the committed row
    const wake = () => void latestEventId(db).then(n => (seen = n))
    eventWakeups.on('appended', wake)
    await db.tx(async tx => {
      await appendEvents(tx, 1, [sample(1)])
      expect(seen).toBe(-1)
    })
    await Bun.sleep(5)
    eventWakeups.off('appended', wake)
    expect(seen).toBe(1)
  })
})
