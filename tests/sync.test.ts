import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CandleStore } from '../src/market/candle-store'
import { SyncError, syncFromExchange, type SyncOptions } from '../src/market/sync-ccxt'
import { HOUR_MS } from '../src/time'
import { makeCandles, makeFunding, startFakeBinance, type FakeBinance, type FakeMarket } from './fixtures/binance-server'

/** the exchange's and the sync's clock: half past an hour, so one candle is always open */
let nowMs = 0
const clock = () => nowMs
const FAST_RETRY = { retries: 2, baseDelayMs: 5 }

let dataDir: string
let fake: FakeBinance | undefined

beforeEach(() => {
  nowMs = Date.UTC(2026, 10, 20, 12, 30)
  dataDir = mkdtempSync(join(tmpdir(), 'perpsim-sync-'))
})

afterEach(async () => {
  await fake?.stop()
  fake = undefined
  rmSync(dataDir, { recursive: true, force: true })
})

/** markets whose history runs `hours` into the future, so advancing the clock reveals more */
function markets(): FakeMarket[] {
  const btcStart = nowMs - 320 * HOUR_MS - 30 * 60_000
  const ethStart = btcStart + 70 * HOUR_MS
  return [
    { symbol: 'ETHUSDT', candles: makeCandles(ethStart, 400, 2, 3000), funding: makeFunding(ethStart, ethStart + 400 * HOUR_MS, 8, 2) },
    { symbol: 'BTCUSDT', candles: makeCandles(btcStart, 400, 1, 60000), funding: makeFunding(btcStart, btcStart + 400 * HOUR_MS, 8, 1) },
  ]
}

function serve(list: FakeMarket[] = markets()): FakeBinance {
  fake = startFakeBinance({ markets: list, now: clock })
  return fake
}

function sync(store: CandleStore, opts: SyncOptions = {}) {
  return syncFromExchange(store, { baseUrl: fake!.url, now: clock, pageLimit: 100, retry: FAST_RETRY, ...opts })
}

/** what the store should hold: every candle closed by now, every funding event up to now */
function expectMirrors(store: CandleStore, m: FakeMarket): void {
  const closed = m.candles!.filter(r => r[0] + HOUR_MS <= nowMs)
  const bars = store.bars(m.symbol)!
  expect(bars.n).toBe(closed.length)
  const got = Array.from({ length: bars.n }, (_, i) => [bars.t[i], bars.o[i], bars.h[i], bars.l[i], bars.c[i], bars.v[i]])
  expect(got).toEqual(closed)
  const events = m.funding!.filter(r => r[0] <= nowMs)
  const f = store.funding(m.symbol)!
  expect(Array.from({ length: f.n }, (_, i) => [f.t[i], f.rate[i]])).toEqual(events)
}

describe('data sync against a loopback Binance USDⓈ-M', () => {
  test('a sync into an empty store stores every closed candle and all funding of the listed perpetuals', async () => {
    const list = markets()
    serve(list)
    const store = CandleStore.open(dataDir)
    const report = await sync(store)
    expect(report.failed).toBe(0)
    for (const m of list) expectMirrors(store, m)
    expect(store.sources()).toEqual(['ccxt'])
    expect(store.meta('BTCUSDT')).toMatchObject({ name: 'BTC', rank: null, stablecoin: false, assetClass: 'crypto', listingMs: list[1].candles![0][0] })
    // the stored data survives a restart
    const reopened = CandleStore.open(dataDir)
    for (const m of list) expectMirrors(reopened, m)
  })

  test('the candle still open at the clock is never stored', async () => {
    serve()
    const store = CandleStore.open(dataDir)
    await sync(store)
    const currentHourMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS
    expect(store.lastCandleMs('BTCUSDT')).toBe(currentHourMs - HOUR_MS)
    // the exchange did offer it
    const served = fake!.requests.filter(r => r.path === '/fapi/v1/klines' && r.query.symbol === 'BTCUSDT').flatMap(r => r.times!)
    expect(served).toContain(currentHourMs)
  })

  test('a second sync later appends only the candles and funding that are new, asking from the last stored hour on', async () => {
    const list = markets()
    serve(list)
    const store = CandleStore.open(dataDir)
    await sync(store)
    const lastBefore = store.lastCandleMs('BTCUSDT')!
    const fundingBefore = store.funding('BTCUSDT')!.n
    nowMs += 9 * HOUR_MS
    fake!.requests.length = 0
    const report = await sync(store)
    expect(report.symbols.map(s => s.candlesAppended)).toEqual([9, 9])
    expect(store.funding('BTCUSDT')!.n - fundingBefore).toBe(report.symbols[1].fundingAppended)
    expect(report.symbols[1].fundingAppended).toBeGreaterThan(0)
    const firstKlines = fake!.requests.find(r => r.path === '/fapi/v1/klines' && r.query.symbol === 'BTCUSDT')!
    expect(Number(firstKlines.query.startTime)).toBe(lastBefore + HOUR_MS)
    for (const m of list) expectMirrors(store, m)
  })

  test('a sync with nothing new yet sends no candle request', async () => {
    serve()
    const store = CandleStore.open(dataDir)
    await sync(store)
    fake!.requests.length = 0
    const report = await sync(store)
    expect(report.candlesAppended).toBe(0)
    expect(fake!.requests.filter(r => r.path === '/fapi/v1/klines')).toHaveLength(0)
  })

  test("with `forming`, the open candle's open is kept (never stored), asked for once, and lapses when that candle is stored", async () => {
    const list = markets()
    serve(list)
    const store = CandleStore.open(dataDir)
    const currentHourMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS
    const openOf = (symbol: string, t: number) => list.find(m => m.symbol === symbol)!.candles!.find(r => r[0] === t)![1]
    await sync(store, { forming: true })
    for (const m of list) {
      expect(store.lastCandleMs(m.symbol)).toBe(currentHourMs - HOUR_MS)
      expect(store.formingOpen(m.symbol)).toEqual({ t: currentHourMs, o: openOf(m.symbol, currentHourMs) })
    }
    // known already: no candle request until an hour has closed
    fake!.requests.length = 0
    nowMs += 10 * 60_000
    await sync(store, { forming: true })
    expect(fake!.requests.filter(r => r.path === '/fapi/v1/klines')).toHaveLength(0)
    // after a restart it is not known: one request each brings it back
    const reopened = CandleStore.open(dataDir)
    await sync(reopened, { forming: true })
    expect(fake!.requests.filter(r => r.path === '/fapi/v1/klines')).toHaveLength(list.length)
    for (const m of list) expect(reopened.formingOpen(m.symbol)?.o).toBe(openOf(m.symbol, currentHourMs))
    // the next hour: the candle is stored with that open, and the new forming one is kept
    nowMs = currentHourMs + HOUR_MS + 5_000
    await sync(reopened, { forming: true })
    for (const m of list) {
      const b = reopened.bars(m.symbol)!
      expect(b.t[b.n - 1]).toBe(currentHourMs)
      expect(b.o[b.n - 1]).toBe(openOf(m.symbol, currentHourMs))
      expect(reopened.formingOpen(m.symbol)).toEqual({ t: currentHourMs + HOUR_MS, o: openOf(m.symbol, currentHourMs + HOUR_MS) })
    }
    // without the option (the CLI's `data sync`) nothing of it is kept
    const plain = CandleStore.open(dataDir)
    await sync(plain)
    for (const m of list) expect(plain.formingOpen(m.symbol)).toBeUndefined()
  })

  test('a sync cut off by an outage keeps the pages it stored, and the next sync resumes there', async () => {
    // the resumed sync takes the store's symbols: those the first one reached
    const list = markets()
    serve(list)
    fake!.outageAfter(3) // exchangeInfo + two pages of ETH candles
    const store = CandleStore.open(dataDir)
    const first = await sync(store)
    expect(first.stopped).toBe(true)
    expect(first.symbols[1].error).toContain('not synced')
    const kept = CandleStore.open(dataDir) // what reached the disk
    expect(kept.bars('ETHUSDT')!.n).toBe(200)
    expect(kept.bars('BTCUSDT')).toBeUndefined()

    fake!.recover()
    fake!.requests.length = 0
    const second = await sync(kept)
    expect(second.failed).toBe(0)
    const resumedAt = fake!.requests.find(r => r.path === '/fapi/v1/klines' && r.query.symbol === 'ETHUSDT')!
    expect(Number(resumedAt.query.startTime)).toBe(kept.bars('ETHUSDT')!.t[199] + HOUR_MS)
    expectMirrors(kept, list[0])
    expectMirrors(CandleStore.open(dataDir), list[0])
  })

  test('429 answers are retried after the Retry-After the server sends', async () => {
    const list = markets()
    serve(list)
    fake!.throttleNext(1, 1)
    const store = CandleStore.open(dataDir)
    const started = performance.now()
    const report = await sync(store)
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000)
    expect(report.retries).toBe(1)
    expect(fake!.requests[0].status).toBe(429)
    expect(report.failed).toBe(0)
    for (const m of list) expectMirrors(store, m)
  })

  test('rate limiting that outlasts the retries stops the sync with a message', async () => {
    serve()
    fake!.throttleNext(100, 0)
    const store = CandleStore.open(dataDir)
    await expect(sync(store)).rejects.toThrow(/429/)
  })

  test('an empty store syncs the active USDT perpetuals in the order the exchange lists them', async () => {
    const [eth, btc] = markets()
    serve([
      eth,
      { symbol: 'BTCUSDT_260327', baseAsset: 'BTC', contractType: 'CURRENT_QUARTER', candles: btc.candles },
      { symbol: 'OLDUSDT', status: 'SETTLING', candles: btc.candles },
      { symbol: 'BTCUSDC', quoteAsset: 'USDC', candles: btc.candles },
      btc,
    ])
    const store = CandleStore.open(dataDir)
    const report = await sync(store)
    expect(report.symbols.map(s => s.symbol)).toEqual(['ETHUSDT', 'BTCUSDT'])
    expect(store.symbols()).toEqual(['BTCUSDT', 'ETHUSDT'])
  })

  test('a store with coins syncs its own symbols; --symbols picks others, and since starts them at that date', async () => {
    const list = markets()
    serve([...list, { symbol: 'SOLUSDT', candles: makeCandles(list[1].candles![0][0], 400, 3, 150), funding: [] }])
    const store = CandleStore.open(dataDir)
    await sync(store, { symbols: ['ETH'] })
    expect(store.symbols()).toEqual(['ETHUSDT'])
    const again = await sync(store)
    expect(again.symbols.map(s => s.symbol)).toEqual(['ETHUSDT'])

    const sinceDay = new Date(nowMs - 3 * 24 * HOUR_MS).toISOString().slice(0, 10)
    await sync(store, { symbols: ['SOL/USDT:USDT'], since: sinceDay })
    expect(store.bars('SOLUSDT')!.t[0]).toBe(Date.parse(`${sinceDay}T00:00:00Z`))
  })

  test('a market the exchange lists as closed (SETTLING) keeps its candles and is marked delisted at its last one', async () => {
    const [, btc] = markets()
    const ended = btc.candles!.slice(0, 200) // its candles stop 200 hours after the first
    serve([{ symbol: 'OLDUSDT', status: 'SETTLING', candles: ended, funding: [] }, btc])
    const store = CandleStore.open(dataDir)
    const report = await sync(store, { symbols: ['OLDUSDT', 'BTCUSDT'] })
    expect(report.failed).toBe(0)
    expect(store.bars('OLDUSDT')!.n).toBe(200)
    expect(store.meta('OLDUSDT')).toMatchObject({ status: 'delisted', delistedMs: ended[199][0] })
    expect(store.meta('BTCUSDT')!.status).toBeUndefined()
    // today's universe leaves it out; the next sync changes nothing
    const again = await sync(store, { symbols: ['OLDUSDT'] })
    expect(again.candlesAppended).toBe(0)
    expect(store.meta('OLDUSDT')!.delistedMs).toBe(ended[199][0])
  })

  test('a symbol the exchange does not list is reported and the others still sync', async () => {
    serve()
    const store = CandleStore.open(dataDir)
    const report = await sync(store, { symbols: ['NOPEUSDT', 'BTCUSDT'] })
    expect(report.symbols[0].error).toMatch(/not a USDT perpetual/)
    expect(report.symbols[1].error).toBeNull()
    expect(store.symbols()).toEqual(['BTCUSDT'])
  })

  test('every request goes to 127.0.0.1 and nowhere else', async () => {
    serve()
    const urls: string[] = []
    const realFetch = globalThis.fetch
    globalThis.fetch = Object.assign((input: string | URL | Request, init?: RequestInit) => {
      urls.push(String(input instanceof Request ? input.url : input))
      return realFetch(input, init)
    }, realFetch)
    try {
      await sync(CandleStore.open(dataDir))
    } finally {
      globalThis.fetch = realFetch
    }
    expect(urls.length).toBe(fake!.requests.length)
    for (const u of urls) expect(new URL(u).hostname).toBe('127.0.0.1')
  })

  test('a synthetic store is refused: real candles cannot continue generated ones', async () => {
    serve()
    const store = CandleStore.open(dataDir)
    store.upsertMeta([], 'synthetic')
    await expect(sync(store)).rejects.toThrow(SyncError)
    expect(fake!.requests).toHaveLength(0)
  })

  test('an impossible candle from the exchange stops that symbol with its time, keeping the pages before it', async () => {
    const list = markets()
    const bad = list[0].candles![150]
    bad[2] = bad[3] / 2 // high below low
    serve(list)
    const store = CandleStore.open(dataDir)
    const report = await sync(store)
    expect(report.symbols[0].error).toContain(new Date(bad[0]).toISOString().replace('.000Z', 'Z'))
    expect(store.bars('ETHUSDT')!.n).toBe(100)
    expect(report.symbols[1].error).toBeNull()
  })
})
