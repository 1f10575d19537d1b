/**
 * The real started server on a store filled by `data sync`: SYNC is on by itself, so at
 * start-up the candles job syncs the hours the store missed from Binance USDⓈ-M (here a
 * loopback server in Binance's format, on the real clock) and keeps each coin's forming
 * candle's open; the live-records job records the bar that has just closed with that open
 * as its entry price. Every request stays on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { CandleStore } from '../src/market/candle-store'
import { syncFromExchange } from '../src/market/sync-ccxt'
import { HOUR_MS } from '../src/time'
import { makeCandles, makeFunding, startFakeBinance, type FakeBinance } from './fixtures/binance-server'
import { tempDir } from './helpers/fixtures'
import { allHistory } from './helpers/signal-history'
import { BUN, freePort, ROOT } from './helpers/serve'

const dataDir = tempDir()
// ten coins: about fifteen 1H signals a bar among them, so the newest bar is never empty
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'BNBUSDT', 'XRPUSDT', 'ADAUSDT', 'DOGEUSDT', 'AVAXUSDT', 'LINKUSDT', 'DOTUSDT']
let hourNow = 0
let markets: { symbol: string; candles: number[][]; funding: number[][] }[] = []
let fake: FakeBinance

beforeAll(async () => {
  // the test reads "the hour now": too close to its end, wait for the next one
  const left = HOUR_MS - (Date.now() % HOUR_MS)
  if (left < 75_000) await Bun.sleep(left + 1_000)
  hourNow = Math.floor(Date.now() / HOUR_MS) * HOUR_MS
  const first = hourNow - 40 * 24 * HOUR_MS
  // the exchange's history runs two hours past now; it shows only what its clock has reached
  markets = COINS.map((symbol, k) => ({ symbol, candles: makeCandles(first, 40 * 24 + 2, 31 + k, 100 * (k + 1)), funding: makeFunding(first, hourNow + 2 * HOUR_MS, 8, k + 1) }))
  fake = startFakeBinance({ markets })
}, 90_000)

afterAll(async () => {
  await fake.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

const getJson = async (url: string) => (await (await fetch(url)).json()) as any

describe('serve on a store synced from the exchange', () => {
  test('catches up the missed hours at start-up and records the newest bar at the forming open', async () => {
    // the operator's `data sync`, three hours ago
    const store = CandleStore.open(dataDir)
    const report = await syncFromExchange(store, { baseUrl: fake.url, now: () => Date.now() - 3 * HOUR_MS, retry: { retries: 1, baseDelayMs: 5 } })
    expect(report.failed).toBe(0)
    expect(store.lastCandleMs('BTCUSDT')).toBe(hourNow - 4 * HOUR_MS)
    store.upsertMeta(COINS.map((symbol, k) => ({ ...store.meta(symbol)!, rank: k + 1 })))

    const port = await freePort()
    const unroutable = 'http://127.0.0.1:9'
    const proc = Bun.spawn([BUN, 'src/cli.ts', 'serve'], {
      cwd: ROOT,
      env: {
        ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', OFFLINE: '0', RATE_LIMIT_PER_MIN: '0', RATE_LIMIT_OTHER_PER_MIN: '0',
        BINANCE_FUTURES_URL: fake.url, BINANCE_SPOT_URL: unroutable, COINGECKO_URL: `${unroutable}/api/v3`, FEAR_GREED_URL: unroutable, MACRO_URL: unroutable, NEWS_FEEDS: `${unroutable}/rss.xml`, UPSTREAM_TIMEOUT_MS: '500',
      },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const url = `http://127.0.0.1:${port}`
    try {
      const t0 = Date.now()
      let last = 0
      // the catch-up runs in the background after listening: candles first, then live records,
      // whose paper step starts the first cycle (/signals/history is cached: asked once, after)
      while (Date.now() - t0 < 60_000) {
        try {
          last = (await getJson(`${url}/ohlcv/BTCUSDT?limit=1`)).data?.at(-1)?.t * 1000
          if (last === hourNow - HOUR_MS && (await fetch(`${url}/paper-trading`)).status === 200) break
        } catch {}
        await Bun.sleep(500)
      }
      expect(last).toBe(hourNow - HOUR_MS)
      // the newest bar (it closed at the top of this hour) entered at this hour's open, from the forming candle
      const history = await allHistory(url, 72)
      const newest = history.filter((s: any) => s.timeframe === '1H' && Date.parse(`${s.signal_time}Z`) === hourNow)
      expect(newest.length).toBeGreaterThan(0)
      for (const s of newest) expect(s.entry_price).toBe(markets.find(m => m.symbol === s.coin)!.candles.find(r => r[0] === hourNow)![1]!)
      expect(fake.requests.filter(r => r.path === '/fapi/v1/klines').length).toBeGreaterThanOrEqual(COINS.length)
      expect(new Set(fake.requests.map(r => r.host))).toEqual(new Set(['127.0.0.1']))
    } finally {
      proc.kill('SIGTERM')
      await proc.exited
    }
    const log = await new Response(proc.stdout).text() + (await new Response(proc.stderr).text())
    expect(log).toContain('hourly sync from binanceusdm')
  }, 90_000)
})
