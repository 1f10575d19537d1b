/**
 * `data sync --brackets` against a loopback Binance USDⓈ-M (tests/fixtures/binance-server.ts)
 * whose GET /fapi/v1/leverageBracket is signed, as Binance's is: the key in X-MBX-APIKEY and
 * an HMAC-SHA256 signature of the query. The brackets it serves are the real snapshot's
 * (../shared/data/binance-usdm-leverage-tiers-2024-10.json, Binance's raw brackets under
 * `info`), so a sync must store exactly what an import of that file stores.
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CandleStore } from '../src/market/candle-store'
import { parseLeverageTiers } from '../src/market/leverage-tiers'
import { syncFromExchange, type SyncOptions } from '../src/market/sync-ccxt'
import { HOUR_MS } from '../src/time'
import { hasSharedData, SHARED_DATA } from './engine-fixtures'
import { makeCandles, startFakeBinance, type FakeBinance, type FakeMarket, type RawBracket } from './fixtures/binance-server'

const KEY = { apiKey: 'vmPUZE6mv9SD5VNHk4HlWFsOr6aKE2zvsw0MuIgwCIPy6utIco14y7Ju91duEh8A', secret: 'NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjInClVN65XAbvqqM6A7H5fATj0j' }
const TIERS = join(SHARED_DATA, 'binance-usdm-leverage-tiers-2024-10.json')

let nowMs = 0
let dataDir: string
let fake: FakeBinance | undefined

beforeEach(() => {
  nowMs = Date.UTC(2026, 10, 20, 12, 30)
  dataDir = mkdtempSync(join(tmpdir(), 'perpsim-sync-brackets-'))
})
afterEach(async () => {
  await fake?.stop()
  fake = undefined
  rmSync(dataDir, { recursive: true, force: true })
})

/** Binance's raw brackets of a symbol, as the snapshot recorded them under `info` */
function rawBrackets(unified: string): RawBracket[] {
  const doc = JSON.parse(readFileSync(TIERS, 'utf8')) as Record<string, { info: Record<string, string> }[]>
  return doc[unified].map(t => ({
    bracket: Number(t.info.bracket), initialLeverage: Number(t.info.initialLeverage), notionalCap: Number(t.info.notionalCap),
    notionalFloor: Number(t.info.notionalFloor), maintMarginRatio: Number(t.info.maintMarginRatio), cum: Number(t.info.cum),
  }))
}

function markets(): FakeMarket[] {
  const start = Math.floor(nowMs / HOUR_MS) * HOUR_MS - 48 * HOUR_MS
  return [
    { symbol: 'BTCUSDT', candles: makeCandles(start, 48, 1, 60000), brackets: rawBrackets('BTC/USDT:USDT') },
    { symbol: 'HIFIUSDT', candles: makeCandles(start, 48, 2, 0.5), brackets: rawBrackets('HIFI/USDT:USDT') },
    { symbol: 'ETHUSDT', candles: makeCandles(start, 48, 3, 3000), brackets: rawBrackets('ETH/USDT:USDT') },
    { symbol: 'NOBRUSDT', candles: makeCandles(start, 48, 4, 1) },
  ]
}

function sync(store: CandleStore, opts: SyncOptions = {}) {
  return syncFromExchange(store, { baseUrl: fake!.url, now: () => nowMs, retry: { retries: 1, baseDelayMs: 5 }, ...opts })
}

describe.skipIf(!hasSharedData)('data sync --brackets (Binance’s signed leverageBracket)', () => {
  test('stores the synced symbols’ brackets as one ccxt snapshot, equal to an import of the same tiers', async () => {
    fake = startFakeBinance({ markets: markets(), now: () => nowMs, apiKey: KEY })
    const store = CandleStore.open(dataDir)
    const report = await sync(store, { symbols: ['BTCUSDT', 'HIFIUSDT'], brackets: true, credentials: KEY })
    expect(report.failed).toBe(0)
    expect(report.brackets).toMatchObject({ symbols: 2, errors: [], missing: [] })
    const imported = parseLeverageTiers(JSON.parse(readFileSync(TIERS, 'utf8')))
    for (const symbol of ['BTCUSDT', 'HIFIUSDT']) {
      expect(store.marginBrackets(symbol)).toEqual(imported.brackets[symbol])
      expect(store.brackets(symbol)).toMatchObject({ source: 'ccxt', asOfMs: nowMs })
    }
    // only the synced symbols: ETHUSDT was served but not asked for
    expect(store.marginBrackets('ETHUSDT')).toBeUndefined()
    // one signed request, with the key and a timestamp, accepted
    const asked = fake.requests.filter(r => r.path === '/fapi/v1/leverageBracket')
    expect(asked.length).toBe(1)
    expect(asked[0].status).toBe(200)
    expect(asked[0].query.timestamp).toMatch(/^\d+$/)
    expect(asked[0].query.signature).toMatch(/^[0-9a-f]{64}$/)
  })

  test('a symbol the exchange has no brackets for is reported as missing and keeps what the store had', async () => {
    fake = startFakeBinance({ markets: markets(), now: () => nowMs, apiKey: KEY })
    const store = CandleStore.open(dataDir)
    const report = await sync(store, { symbols: ['BTCUSDT', 'NOBRUSDT'], brackets: true, credentials: KEY })
    expect(report.brackets).toMatchObject({ symbols: 1, errors: [], missing: ['NOBRUSDT'] })
    expect(store.marginBrackets('NOBRUSDT')).toBeUndefined()
  })

  test('a wrong secret is Binance’s -1022: reported, nothing stored, the candles still synced', async () => {
    fake = startFakeBinance({ markets: markets(), now: () => nowMs, apiKey: KEY })
    const store = CandleStore.open(dataDir)
    const report = await sync(store, { symbols: ['BTCUSDT'], brackets: true, credentials: { apiKey: KEY.apiKey, secret: 'not-the-secret' } })
    expect(report.brackets!.symbols).toBe(0)
    expect(report.brackets!.snapshot).toBeNull()
    expect(report.brackets!.errors[0].reason).toMatch(/Signature for this request is not valid/)
    expect(store.marginBrackets('BTCUSDT')).toBeUndefined()
    expect(report.candlesAppended).toBeGreaterThan(0)
  })

  test('without an API key the sync refuses before asking anything, naming the settings', async () => {
    fake = startFakeBinance({ markets: markets(), now: () => nowMs, apiKey: KEY })
    const store = CandleStore.open(dataDir)
    await expect(sync(store, { symbols: ['BTCUSDT'], brackets: true })).rejects.toThrow(/BINANCE_API_KEY and BINANCE_API_SECRET/)
    expect(fake.requests.length).toBe(0)
  })
})
