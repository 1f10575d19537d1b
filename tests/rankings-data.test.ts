/**
 * The rankings job publishes a day only when the store holds its candles: a live coin of
 * the top 100 still missing the last hour (a sync on its way) makes the run fail, and the
 * retry an hour later publishes once the candle is there. A coin that stopped trading long
 * ago does not hold the day up.
 */
import { afterAll, expect, test } from 'bun:test'
import { JobRuns } from '../src/records/job-runs'
import { rankingsJob } from '../src/jobs/rankings'
import { Scheduler } from '../src/jobs/scheduler'
import { createLogger } from '../src/log'
import { makeHarness, walkCandles } from './helpers/harness'

const START = Date.UTC(2026, 9, 1)
const HOURS = 50 * 24 // up to 2026-11-19T23:00
const h = makeHarness({
  nowMs: Date.UTC(2026, 10, 20, 0, 29),
  fill: store => {
    const coins: [string, number][] = [['BTCUSDT', HOURS], ['ETHUSDT', HOURS], ['SOLUSDT', HOURS - 1], ['OLDUSDT', HOURS - 5 * 24]]
    coins.forEach(([s, n], k) => {
      const cols = walkCandles(n, START, 90 + k)
      store.appendCandles(s, cols, n)
    })
    store.upsertMeta(coins.map(([s], k) => ({ symbol: s, name: s, rank: k + 1, stablecoin: false, assetClass: 'crypto', listingMs: START })), 'binance-csv')
  },
})
afterAll(() => h.cleanup())

test('a live coin without the last hour holds the day back; the hourly retry publishes it', async () => {
  const s = new Scheduler({ clock: h.clock, db: h.deps.db, log: createLogger('silent'), timers: false })
  s.register({ ...rankingsJob(h.deps), catchUpMs: 0 }) // no backfill: only this day's slot
  h.clock.set(Date.UTC(2026, 10, 20, 0, 29))
  s.start()
  h.clock.set(Date.UTC(2026, 10, 20, 0, 30))
  s.tick()
  await s.idle()
  const failed = (await new JobRuns(h.deps.db).bySlot('rankings:2026-11-20'))
  expect(failed.map(r => r.outcome)).toEqual(['failed'])
  expect(failed[0].error).toContain('1 live coin(s) of the top 100 lack the candle of the last hour of 2026-11-19 (SOLUSDT)')
  expect((await h.req('/rankings/daily')).status).toBe(404)
  // SOLUSDT's last hour arrives; OLDUSDT stopped five days ago and is not waited for
  const full = walkCandles(HOURS, START, 92)
  const last = full.map(col => col.slice(HOURS - 1))
  h.deps.store.appendCandles('SOLUSDT', last, 1)
  h.clock.set(Date.UTC(2026, 10, 20, 1, 30))
  s.tick()
  await s.idle()
  const runs = (await new JobRuns(h.deps.db).bySlot('rankings:2026-11-20'))
  expect(runs.map(r => [r.attempt, r.trigger, r.outcome])).toEqual([[1, 'schedule', 'failed'], [2, 'retry', 'ok']])
  const daily = await h.req('/rankings/daily?period=7d&group=top30')
  expect(daily.status).toBe(200)
  expect(daily.body).toMatchObject({ date: '2026-11-20', written_by: 'retry', coins: 4 })
  await s.stop()
}, 60_000)
