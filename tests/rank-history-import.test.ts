/**
 * Market-cap history for the rank history: the CSV importer (checked whole: a gap or a
 * duplicate day refuses the file with its line number and stores nothing) and the
 * CoinGecko `market_chart` client against a loopback server speaking its format; ranks
 * from market caps where a day has them, volume otherwise.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CandleStore } from '../src/market/candle-store'
import { dailyCaps, fetchCoinGeckoMarketCaps } from '../src/market/coingecko-market-caps'
import { importMarketCapFile, MarketCapImportError, parseMarketCaps } from '../src/market/import-market-caps'
import { RankHistory } from '../src/market/rank-history'
import { CoinGeckoClient } from '../src/upstream/coingecko'
import { DAY_MS, isoDay } from '../src/time'
import { fillWalkUniverse, tempDir } from './helpers/harness'

const T0 = Date.UTC(2025, 0, 1)
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT']

let dir: string
let store: CandleStore
beforeAll(() => {
  dir = tempDir()
  store = CandleStore.open(dir)
  fillWalkUniverse(store, COINS, T0, 40, 3)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const csv = (rows: string[]) => ['date,symbol,market_cap', ...rows].join('\n') + '\n'
const day = (k: number) => isoDay(T0 + k * DAY_MS)

describe('the market-cap CSV', () => {
  test('a duplicate day is refused with the line number, and nothing is stored', () => {
    const path = join(dir, 'dup.csv')
    writeFileSync(path, csv([`${day(0)},BTC,100`, `${day(1)},BTC,110`, `${day(0)},ETH,50`, `${day(1)},BTCUSDT,111`]))
    expect(() => importMarketCapFile(store, path)).toThrow(/line 5: BTCUSDT 2025-01-02 appears twice \(also line 3\)/)
    expect(store.marketCapSymbols()).toEqual([])
  })

  test('a gap is refused with the line of the day after it, and nothing is stored', () => {
    const text = csv([`${day(0)},ETH,50`, `${day(0)},BTC,100`, `${day(1)},BTC,101`, `${day(3)},BTC,103`])
    let err: MarketCapImportError | null = null
    try {
      parseMarketCaps(text)
    } catch (e) {
      err = e as MarketCapImportError
    }
    expect(err).toBeInstanceOf(MarketCapImportError)
    expect(err!.lineNo).toBe(5)
    expect(err!.message).toContain('no row for 2025-01-03')
    expect(store.marketCapSymbols()).toEqual([])
  })

  test('malformed rows name their line: a bad date, symbol or cap, a short row, a header without the columns', () => {
    expect(() => parseMarketCaps(csv([`2025-02-30,BTC,1`]))).toThrow(/line 2: date/)
    expect(() => parseMarketCaps(csv([`${day(0)},BTC-X,1`]))).toThrow(/line 2: symbol/)
    expect(() => parseMarketCaps(csv([`${day(0)},BTC,-5`]))).toThrow(/line 2: market_cap/)
    expect(() => parseMarketCaps(csv([`${day(0)},BTC`]))).toThrow(/line 2: 2 columns/)
    expect(() => parseMarketCaps('day,coin,cap\n')).toThrow(/line 1: the header/)
  })

  test('a clean file is stored; days with market caps are ranked by them (from the day before), other days by volume', () => {
    // SOL has the largest market cap on days 10…19, BTC the second; ETH has none
    const rows: string[] = []
    for (let k = 10; k < 20; k++) rows.push(`${day(k)},SOL,${3e9 + k}`, `${day(k)},BTC,${2e9 + k}`)
    const path = join(dir, 'caps.csv')
    writeFileSync(path, csv(rows))
    const r = importMarketCapFile(store, path)
    expect(r).toMatchObject({ symbols: 2, rows: 20, appended: 20, skipped: 0, firstDay: day(10), lastDay: day(19) })
    const history = new RankHistory(store)
    // day 11 is ranked by day 10's caps; ETH, without one, after them by volume
    expect(history.sourceOf(T0 + 11 * DAY_MS)).toBe('market_cap')
    expect(history.rankedOn(T0 + 11 * DAY_MS).map(c => c.symbol)).toEqual(['SOLUSDT', 'BTCUSDT', 'ETHUSDT'])
    expect(history.rankedOn(T0 + 11 * DAY_MS)[0].marketCapUsd).toBe(3e9 + 10)
    // day 10 uses day 9, which has no cap: volume
    expect(history.sourceOf(T0 + 10 * DAY_MS)).toBe('volume')
    expect(history.rankedOn(T0 + 10 * DAY_MS).every(c => c.marketCapUsd === null)).toBe(true)
    expect(history.sourceOf(T0 + 21 * DAY_MS)).toBe('volume')
    // a re-import skips what is held; a later file that leaves a gap after it is refused whole
    expect(importMarketCapFile(store, path)).toMatchObject({ appended: 0, skipped: 20 })
    writeFileSync(path, csv([`${day(22)},SOL,1`, `${day(20)},BTC,1`]))
    expect(() => importMarketCapFile(store, path)).toThrow(/SOLUSDT has a gap: the store's market caps end on 2025-01-20/)
    expect(store.marketCaps('BTCUSDT')!.n).toBe(10)
  })
})

describe('CoinGecko market_chart', () => {
  let server: ReturnType<typeof Bun.serve>
  const asked: string[] = []
  beforeAll(() => {
    // a loopback CoinGecko: /coins/markets (by market cap) and /coins/{id}/market_chart as the API sends them
    server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch(req) {
        const url = new URL(req.url)
        asked.push(url.pathname + url.search)
        if (url.pathname === '/api/v3/coins/markets') {
          if (url.searchParams.get('page') !== '1') return Response.json([])
          return Response.json([
            { id: 'bitcoin', symbol: 'btc', name: 'Bitcoin', image: null, current_price: 1, market_cap: 2e12, market_cap_rank: 1, total_volume: 1 },
            { id: 'ethereum', symbol: 'eth', name: 'Ethereum', image: null, current_price: 1, market_cap: 4e11, market_cap_rank: 2, total_volume: 1 },
            { id: 'eth-imitation', symbol: 'eth', name: 'Not Ether', image: null, current_price: 1, market_cap: 1e6, market_cap_rank: 900, total_volume: 1 },
          ])
        }
        const m = /^\/api\/v3\/coins\/([^/]+)\/market_chart$/.exec(url.pathname)
        if (m) {
          if (url.searchParams.get('vs_currency') !== 'usd' || url.searchParams.get('interval') !== 'daily') return Response.json({ error: 'bad query' }, { status: 400 })
          const base = m[1] === 'bitcoin' ? 2e12 : 4e11
          const caps: [number, number | null][] = []
          for (let k = 25; k <= 30; k++) caps.push([T0 + k * DAY_MS, k === 27 ? null : base + k])
          caps.push([T0 + 30 * DAY_MS + 3_600_000 * 5 + 123, base]) // "now": not a finished day
          return Response.json({ prices: caps.map(([t]) => [t, 1]), market_caps: caps, total_volumes: caps.map(([t]) => [t, 1]) })
        }
        return Response.json({ error: 'Incorrect path' }, { status: 404 })
      },
    })
  })
  afterAll(() => server.stop(true))

  test('the client reads market_caps; the 00:00 point of day d+1 is day d; the current instant and null days are left out', async () => {
    const client = new CoinGeckoClient({ baseUrl: `http://127.0.0.1:${server.port}/api/v3`, timeoutMs: 2000 })
    const raw = await client.marketCapHistory('bitcoin', 365)
    expect(raw.t.length).toBe(6) // 6 points, one null
    expect(dailyCaps(raw).t.map(isoDay)).toEqual([day(24), day(25), day(27), day(28), day(29)])
    expect(asked.at(-1)).toBe('/api/v3/coins/bitcoin/market_chart?vs_currency=usd&days=365&interval=daily')
  })

  test("fetching for the store matches each coin to the largest with its ticker and stores its days; SOL, not listed, keeps volume ranks", async () => {
    const d2 = tempDir()
    try {
      const s2 = CandleStore.open(d2)
      fillWalkUniverse(s2, COINS, T0, 40, 3)
      const client = new CoinGeckoClient({ baseUrl: `http://127.0.0.1:${server.port}/api/v3`, timeoutMs: 2000 })
      const r = await fetchCoinGeckoMarketCaps(client, s2, { days: 90 })
      expect(r).toMatchObject({ matched: 2, unmatched: ['SOLUSDT'], appended: 10, failed: [] })
      expect(asked.some(a => a.startsWith('/api/v3/coins/ethereum/market_chart'))).toBe(true)
      expect(asked.some(a => a.startsWith('/api/v3/coins/eth-imitation/'))).toBe(false)
      const history = new RankHistory(s2)
      expect(history.sourceOf(T0 + 25 * DAY_MS)).toBe('market_cap')
      expect(history.rankedOn(T0 + 25 * DAY_MS).map(c => c.symbol)).toEqual(['BTCUSDT', 'ETHUSDT', 'SOLUSDT'])
    } finally {
      rmSync(d2, { recursive: true, force: true })
    }
  })
})
