/**
 * `data sync --detail 1m`: the minute detail through ccxt, against the loopback Binance
 * USDⓈ-M server (tests/fixtures/binance-server.ts, which pages 1m klines as Binance does).
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CandleStore } from '../src/market/candle-store'
import { syncFromExchange } from '../src/market/sync-ccxt'
import { HOUR_MS } from '../src/time'
import { makeCandles, makeFunding, startFakeBinance, type FakeBinance, type FakeMarket } from './fixtures/binance-server'

const MIN = 60_000
let nowMs = 0
const clock = () => nowMs
let dataDir: string
let fake: FakeBinance | undefined

beforeEach(() => {
  nowMs = Date.UTC(2026, 10, 20, 12, 30, 20) // inside a minute: one 1m candle is always open
  dataDir = mkdtempSync(join(tmpdir(), 'perpsim-sync-detail-'))
})
afterEach(async () => {
  await fake?.stop()
  fake = undefined
  rmSync(dataDir, { recursive: true, force: true })
})

function market(): FakeMarket {
  const start = Date.UTC(2026, 10, 20) - 24 * HOUR_MS
  // 48 hours of minutes from the first candle on (the future ones become visible as the clock moves)
  const minutes = makeCandles(start, 48 * 60, 5, 60000).map((r, i) => [start + i * MIN, ...r.slice(1)])
  return { symbol: 'BTCUSDT', candles: makeCandles(start, 48, 1, 60000), funding: makeFunding(start, start + 48 * HOUR_MS, 8, 1), minutes }
}

const sync = (store: CandleStore, opts = {}) =>
  syncFromExchange(store, { baseUrl: fake!.url, now: clock, pageLimit: 500, retry: { retries: 2, baseDelayMs: 5 }, detail: '1m', ...opts })

describe('data sync --detail 1m', () => {
  test('stores every closed minute from the first candle on, page by page; the open minute never; a later sync resumes', async () => {
    const m = market()
    fake = startFakeBinance({ markets: [m], now: clock })
    const store = CandleStore.open(dataDir)
    const report = await sync(store)
    expect(report.failed).toBe(0)
    const closed = m.minutes!.filter(r => r[0] + MIN <= nowMs)
    expect(report.detailAppended).toBe(closed.length)
    const cov = store.detailCoverage('BTCUSDT')!
    expect([cov.firstMs, cov.lastMs, cov.minutes]).toEqual([closed[0][0], closed[closed.length - 1][0], closed.length])
    const r = store.detail.reader('BTCUSDT')!.rows(closed[100][0], closed[160][0])!
    expect(Array.from({ length: r.n }, (_, i) => [r.t[i], r.o[i], r.h[i], r.l[i], r.c[i], r.v[i]])).toEqual(closed.slice(100, 160))
    const minuteRequests = fake.requests.filter(q => q.path === '/fapi/v1/klines' && q.query.interval === '1m')
    expect(minuteRequests.length).toBe(Math.ceil(closed.length / 500))

    // ten minutes later: only the new ones, asked from the last stored minute on
    nowMs += 10 * MIN
    const before = fake.requests.length
    const again = await sync(store)
    expect(again.detailAppended).toBe(10)
    const next = fake.requests.slice(before).filter(q => q.query.interval === '1m')
    expect(next.length).toBe(1)
    expect(Number(next[0].query.startTime)).toBe(closed[closed.length - 1][0] + MIN)
    expect(store.detailCoverage('BTCUSDT')!.minutes).toBe(closed.length + 10)
  })

  test('--since starts the minutes there; without --detail no minute is asked for', async () => {
    fake = startFakeBinance({ markets: [market()], now: clock })
    const store = CandleStore.open(dataDir)
    await sync(store, { detail: undefined })
    expect(fake.requests.some(q => q.query.interval === '1m')).toBe(false)
    expect(store.storedDetailSymbols().size).toBe(0)
    await sync(store, { since: '2026-11-20' })
    expect(store.detailCoverage('BTCUSDT')!.firstMs).toBe(Date.UTC(2026, 10, 20))
  })
})
