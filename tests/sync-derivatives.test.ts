/**
 * `data sync --derivatives` against a loopback Binance USDⓈ-M speaking Binance's formats
 * (tests/fixtures/binance-server.ts): the premium index (1h klines, each close stored at
 * the kline's close) and the hourly open interest of the last 30 days, resumed from what
 * the store holds, never a kline still open, and nothing of it without the option.
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CandleStore } from '../src/market/candle-store'
import { syncFromExchange, type SyncOptions } from '../src/market/sync-ccxt'
import { HOUR_MS } from '../src/time'
import { makeCandles, makeFunding, startFakeBinance, type FakeBinance, type FakeMarket } from './fixtures/binance-server'

let nowMs = 0
const clock = () => nowMs
let dataDir: string
let fake: FakeBinance | undefined

beforeEach(() => {
  nowMs = Date.UTC(2026, 10, 20, 12, 30)
  dataDir = mkdtempSync(join(tmpdir(), 'perpsim-sync-deriv-'))
})
afterEach(async () => {
  await fake?.stop()
  fake = undefined
  rmSync(dataDir, { recursive: true, force: true })
})

const DAYS = 40

function markets(): FakeMarket[] {
  const start = Math.floor(nowMs / HOUR_MS) * HOUR_MS - DAYS * 24 * HOUR_MS
  const hours = DAYS * 24 + 30 // history runs on past the clock: advancing it reveals more
  const premium = Array.from({ length: hours }, (_, i) => [start + i * HOUR_MS, Math.round(Math.sin(i / 7) * 1e6) / 1e10])
  const openInterest = Array.from({ length: hours }, (_, i) => [start + i * HOUR_MS, 70_000 + (i % 50) * 3.5])
  return [{ symbol: 'BTCUSDT', candles: makeCandles(start, hours, 1, 60000), funding: makeFunding(start, start + hours * HOUR_MS, 8, 1), premium, openInterest }]
}

function sync(store: CandleStore, opts: SyncOptions = {}) {
  return syncFromExchange(store, { baseUrl: fake!.url, now: clock, pageLimit: 100, retry: { retries: 1, baseDelayMs: 5 }, ...opts })
}

describe('data sync of the premium index and open interest', () => {
  test('every closed premium-index hour and the last 30 days of open interest, as Binance serves them', async () => {
    const [m] = markets()
    fake = startFakeBinance({ markets: [m], now: clock })
    const store = CandleStore.open(dataDir)
    const report = await sync(store, { derivatives: true })
    expect(report.failed).toBe(0)
    const p = store.samples('premium_index', 'BTCUSDT')!
    const closed = m.premium!.filter(r => r[0] + HOUR_MS <= nowMs)
    expect(Array.from({ length: p.n }, (_, i) => [p.t[i] - HOUR_MS, p.value[i]])).toEqual(closed)
    const oi = store.samples('open_interest', 'BTCUSDT')!
    const oldest = Math.ceil((nowMs - 29 * 24 * HOUR_MS) / HOUR_MS) * HOUR_MS
    const served = m.openInterest!.filter(r => r[0] >= oldest && r[0] <= nowMs)
    expect(Array.from({ length: oi.n }, (_, i) => [oi.t[i], oi.value[i]])).toEqual(served)
    expect(report.samplesAppended).toBe(p.n + oi.n)
    expect(report.symbols[0]).toMatchObject({ premiumAppended: p.n, openInterestAppended: oi.n })
    // the requests went to Binance's own paths, with its parameters
    const oiReq = fake.requests.find(r => r.path === '/futures/data/openInterestHist')!
    expect(oiReq.query).toMatchObject({ symbol: 'BTCUSDT', period: '1h' })
    expect(fake.requests.some(r => r.path === '/fapi/v1/premiumIndexKlines' && r.query.interval === '1h')).toBe(true)
  })

  test('a later sync resumes from the stored samples; without the option nothing of them is asked', async () => {
    const [m] = markets()
    fake = startFakeBinance({ markets: [m], now: clock })
    const store = CandleStore.open(dataDir)
    await sync(store)
    expect(fake.requests.some(r => r.path === '/fapi/v1/premiumIndexKlines' || r.path === '/futures/data/openInterestHist')).toBe(false)
    expect(store.samples('premium_index', 'BTCUSDT')).toBeUndefined()
    await sync(store, { only: 'derivatives' })
    const before = store.samples('premium_index', 'BTCUSDT')!.n
    const lastOi = store.samples('open_interest', 'BTCUSDT')!.t.at(-1)!
    nowMs += 5 * HOUR_MS
    fake.requests.length = 0
    const report = await sync(store, { only: 'derivatives' })
    expect(report.symbols[0].premiumAppended).toBe(5)
    expect(report.symbols[0].openInterestAppended).toBe(5)
    expect(store.samples('premium_index', 'BTCUSDT')!.n).toBe(before + 5)
    const first = fake.requests.find(r => r.path === '/futures/data/openInterestHist')!
    expect(Number(first.query.startTime)).toBe(lastOi + 1)
    // `only: derivatives` asked for no candle
    expect(fake.requests.some(r => r.path === '/fapi/v1/klines')).toBe(false)
  })
})
