/**
 * A store whose candles end long before today (an import of old data) gets honest
 * answers (issue #24 §3): /rankings/daily says why there is no ranking instead of "retry
 * in a minute", and no paper cycle is opened on days the store does not reach.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { runPaper } from '../src/live/paper-trader'
import { DAY_MS, HOUR_MS } from '../src/time'
import { newestRankableDateMs, unrankableReason } from '../src/records/rankings/configurations'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT']
const DATA_START = Date.UTC(2024, 4, 1)
// 47 days of hourly candles: the newest opens 2024-06-16T23:00Z
const old = makeHarness({ fill: store => fillWalkUniverse(store, COINS, DATA_START, 47, 7), nowMs: Date.UTC(2026, 10, 27, 9, 10) })
const empty = makeHarness({ nowMs: Date.UTC(2026, 10, 27, 9, 10) })
afterAll(() => {
  old.cleanup()
  empty.cleanup()
})

describe('rankings on a store of old data', () => {
  test('the newest rankable date is the day after the last full day of candles', () => {
    expect(new Date(newestRankableDateMs(Date.UTC(2024, 5, 16, 23))).toISOString()).toBe('2024-06-17T00:00:00.000Z')
    expect(new Date(newestRankableDateMs(Date.UTC(2024, 5, 16, 22))).toISOString()).toBe('2024-06-16T00:00:00.000Z')
    // candles that reach into the job's 30 days: nothing to explain (the ranking is being computed)
    expect(unrankableReason(Date.UTC(2026, 10, 20, 23), Date.UTC(2026, 10, 27))).toBeNull()
    expect(unrankableReason(Date.UTC(2026, 9, 27, 23), Date.UTC(2026, 10, 27))).toBeNull() // ranks 2026-10-28, the first day of the window
    expect(unrankableReason(Date.UTC(2026, 9, 26, 23), Date.UTC(2026, 10, 27))).not.toBeNull()
  })

  test('/rankings/daily says the data ends on that day and how to publish a past one, not "retry in a minute"', async () => {
    const r = await old.req('/rankings/daily')
    expect(r.status).toBe(404)
    expect(r.body.detail).toContain("the store's candles end on 2024-06-16")
    expect(r.body.detail).toContain('the newest date they can rank is 2024-06-17')
    expect(r.body.detail).toContain('jobs run rankings --date 2024-06-17')
    expect(r.body.detail).not.toContain('Retry in a minute')
    expect((await old.req('/rankings/files/20261126')).body.detail).toContain("the store's candles end on 2024-06-16")
  })

  test('an empty store says so', async () => {
    const r = await empty.req('/rankings/daily')
    expect(r.status).toBe(404)
    expect(r.body.detail).toContain('the store holds no candles')
  })
})

describe('paper trading on a store of old data', () => {
  test('no cycle is opened on a day the store does not reach; /paper-trading says why', async () => {
    const report = await runPaper(old.deps)
    expect(report).toMatchObject({ cycle: null, taken: 0 })
    expect(report.waiting).toContain('before today 2026-11-27')
    const r = await old.req('/paper-trading')
    expect(r.status).toBe(404)
    expect(r.body.detail).toContain("the store's candles end at 2024-06-17T00:00:00Z")
    expect((await runPaper(empty.deps)).waiting).toContain('no candles')
  })

  test('the first cycle opens on the day the candles reach: the one right after the newest candle closes', async () => {
    // the newest candle (2024-06-16T23:00) closes at 2024-06-17T00:00: that day is reached, the next is not
    old.clock.set(Date.UTC(2024, 5, 18, 0, 10))
    expect((await runPaper(old.deps)).cycle).toBeNull()
    old.clock.set(Date.UTC(2024, 5, 17, 0, 10))
    const report = await runPaper(old.deps)
    expect(report).toMatchObject({ cycle: 1, waiting: null })
    expect((await old.req('/paper-trading')).body.start_date).toBe('2024-06-17')
    // a day later the store still ends there: the open cycle is left as it is, nothing rolls on
    old.clock.set(Date.UTC(2024, 5, 17, 0, 10) + DAY_MS + 2 * HOUR_MS)
    expect((await runPaper(old.deps)).cycle).toBeNull()
  })
})
