/**
 * Live records on a store synced from the exchange: the scheduler on the injected clock
 * runs the candles job (the hourly sync from a loopback Binance USDⓈ-M, with the forming
 * candle's open) and the live-records job, hour by hour. A signal of the hour that just
 * closed is recorded in the same run, entering at the exchange's open of the new hour.
 */
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { scoredSignals, signals } from '../db/schema'
import { ManualClock } from '../src/clock'
import { openDb } from '../src/db'
import { candlesJob } from '../src/jobs/candles'
import { liveRecordsJob } from '../src/jobs/live-records'
import { Scheduler } from '../src/jobs/scheduler'
import { createLogger } from '../src/log'
import { exchangeFeed } from '../src/market/candle-feed'
import { CandleStore } from '../src/market/candle-store'
import { SeriesCache } from '../src/market/series'
import { syncFromExchange } from '../src/market/sync-ccxt'
import { HOUR_MS } from '../src/time'
import { Universe } from '../src/market/universe'
import { makeCandles, makeFunding, startFakeBinance, type FakeBinance, type FakeMarket } from './fixtures/binance-server'
import { tempDir } from './helpers/fixtures'

const START = Date.UTC(2026, 10, 20, 12) // the service starts at 12:00:10
const HOURS = 12
const HISTORY = 40 * 24
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT']
const markets: FakeMarket[] = COINS.map((symbol, k) => {
  const from = START - HISTORY * HOUR_MS
  return { symbol, candles: makeCandles(from, HISTORY + HOURS + 2, 11 + k, [60000, 3000, 150][k]), funding: makeFunding(from, START + (HOURS + 2) * HOUR_MS, 8, k + 1) }
})
const openAt = (symbol: string, t: number) => markets.find(m => m.symbol === symbol)!.candles!.find(r => r[0] === t)![1]!

const dir = tempDir()
const clock = new ManualClock(START - HOUR_MS + 30 * 60_000)
const log = createLogger('silent')
let fake: FakeBinance
let scheduler: Scheduler
const db = openDb(join(dir, 'perpsim.sqlite'))
const store = CandleStore.open(dir)

beforeAll(async () => {
  fake = startFakeBinance({ markets, now: () => clock.now() })
  // the operator's `data sync` before the first start
  await syncFromExchange(store, { baseUrl: fake.url, now: () => clock.now(), retry: { retries: 1, baseDelayMs: 5 } })
  store.upsertMeta(COINS.map((symbol, k) => ({ ...store.meta(symbol)!, rank: k + 1 })))
  const feed = exchangeFeed(store, clock, { baseUrl: fake.url, retry: { retries: 1, baseDelayMs: 5 } })
  scheduler = new Scheduler({ clock, db, log, timers: false })
  scheduler.register(candlesJob({ feed, clock, log, catchUpMs: HOUR_MS }))
  scheduler.register(liveRecordsJob({ db, clock, store, series: new SeriesCache(store), universe: new Universe(store), feed }))
  clock.set(START + 10_000)
  scheduler.start()
  await scheduler.idle()
  for (let h = 1; h <= HOURS; h++) {
    clock.set(START + h * HOUR_MS + 10_000)
    scheduler.tick()
    await scheduler.idle()
  }
}, 120_000)

afterAll(async () => {
  await scheduler.stop()
  await db.close()
  await fake.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('live records on an exchange-synced store', () => {
  test('both jobs ran every hour; the store holds every closed candle and its funding', async () => {
    const ok = async (job: string) => (await db.rows<{ n: number }>(sql`SELECT count(*) AS n FROM job_runs WHERE job = ${job} AND outcome = 'ok'`))[0]!.n
    expect(await ok('candles')).toBe(HOURS + 1)
    // live-records also caught up its two missed hours at the first start
    expect(await ok('live-records')).toBe(HOURS + 3)
    for (const s of COINS) {
      expect(store.lastCandleMs(s)).toBe(START + (HOURS - 1) * HOUR_MS)
      expect(store.formingOpen(s)).toEqual({ t: START + HOURS * HOUR_MS, o: openAt(s, START + HOURS * HOUR_MS) })
      const f = store.funding(s)!
      expect(f.t[f.n - 1]).toBe(START + HOURS * HOUR_MS) // 00:00 UTC, settled just before the last run
    }
  })

  test("a signal is recorded 10 s after its bar closed, entering at the exchange's open of the next hour", async () => {
    // the scans after the first start (which recorded the 72 hours before it): no catch-up rows,
    // the 4H and 1D bars too (entering at the open of their next bar's first hour)
    const live = (await db.orm.select().from(signals)).filter(s => s.publishedAtMs > START + 10_000)
    expect(live.filter(s => s.backfill)).toEqual([])
    expect(live.filter(s => s.timeframe === '1H').length).toBeGreaterThan(5)
    expect(live.some(s => s.timeframe === '4H')).toBe(true)
    for (const s of live) {
      expect(s.publishedAtMs - s.signalTimeMs).toBe(10_000)
      expect(s.entryPrice).toBe(openAt(s.coin, s.signalTimeMs))
    }
  })

  test('every signal whose entry candle has closed is scored from the stored candle, none unscoreable', async () => {
    const rows = (await db.orm.select().from(scoredSignals))
    expect(rows.length).toBe((await db.orm.select().from(signals)).length)
    expect(rows.filter(r => r.status === 'unscoreable')).toEqual([])
    expect(rows.some(r => r.status !== 'open')).toBe(true)
  })

  test("the hourly sync asks each coin for two rows (the hour that closed and the forming one): Binance's lowest weight", () => {
    const hourly = fake.requests.filter(r => r.path === '/fapi/v1/klines' && Number(r.query.startTime) >= START)
    expect(hourly.length).toBe(HOURS * COINS.length)
    for (const r of hourly) expect(r.query.limit).toBe('2')
  })

  test('every request went to 127.0.0.1', async () => {
    expect(fake.requests.length).toBeGreaterThan(0)
    expect(new Set(fake.requests.map(r => r.host))).toEqual(new Set(['127.0.0.1']))
  })
})
