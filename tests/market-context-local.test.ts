/**
 * The pieces under the endpoints: candle-store derivations, the fear & greed proxy
 * formula (docs/market-context.md), the events calendar, news URL canonicalisation,
 * CoinGecko carry-over and the cache's single flight.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ManualClock } from '../src/clock'
import { openDb } from '../src/db'
import { easternToUtcMs, EventsCalendarError, loadEventsCalendar, upcomingEvents } from '../src/market-context/events-calendar'
import { fearGreedProxy, PROXY_WEIGHTS } from '../src/market-context/fear-greed-proxy'
import { localQuote, topMovers } from '../src/market-context/local'
import { canonicalUrl } from '../src/market-context/news-digest'
import { regimeBand } from '../src/market-context/regime'
import { SnapshotStore } from '../src/market-context/snapshot-store'
import { mergeCgCoins } from '../src/market-context/sources'
import { SwrCache } from '../src/market-context/swr-cache'
import { CandleStore } from '../src/market/candle-store'
import { Universe } from '../src/market/universe'
import type { CgCoin } from '../src/upstream/coingecko'
import { buildTestStore } from './fixtures/upstream-servers'
import { hasRealData, loadRealBars, REAL_DATA_MISSING, realSymbols } from './helpers/real-data'

const H = 3_600_000
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0)
const cleanups: (() => void)[] = []
afterAll(() => cleanups.forEach(f => f()))

describe('local quote from the candle store', () => {
  test('price is the last close, 24 h change is against the close 24 bars earlier, volume is Σ volume × close of the last 24 bars', () => {
    const ts = buildTestStore([{ symbol: 'ABCUSDT', price: 10, stepLog: 0.01, driftLog: 0.003 }], NOW - H, 100)
    cleanups.push(ts.cleanup)
    const q = localQuote(ts.store, 'ABCUSDT')!
    const b = ts.store.bars('ABCUSDT')!
    const last = b.n - 1
    expect(q.price).toBe(b.c[last])
    expect(q.change24hPct).toBeCloseTo((b.c[last] / b.c[last - 24] - 1) * 100, 10)
    let vol = 0
    for (let k = last - 23; k <= last; k++) vol += b.v[k] * b.c[k]
    expect(q.volume24hQuote).toBeCloseTo(vol, 6)
    expect(q.asOfMs).toBe(NOW)
  })

  test('with less than a day of candles the 24 h change is null, not a guess', () => {
    const ts = buildTestStore([{ symbol: 'NEWUSDT', price: 1 }], NOW - H, 10)
    cleanups.push(ts.cleanup)
    expect(localQuote(ts.store, 'NEWUSDT')!.change24hPct).toBeNull()
  })

  test('movers: rises largest first, falls largest first, flat coins in neither list', () => {
    const m = topMovers([{ change: 1 }, { change: -3 }, { change: 5 }, { change: 0 }, { change: -1 }].map((x, i) => ({ ...x, symbol: `C${i}` })), 2)
    expect(m.gainers.map(x => x.change)).toEqual([5, 1])
    expect(m.losers.map(x => x.change)).toEqual([-3, -1])
  })
})

/** The proxy formula of docs/market-context.md, written out independently. */
function expectedProxy(btc: Float64Array, others: Float64Array[]): number {
  const last = btc.length - 1
  const r30 = btc[last] / btc[last - 720] - 1
  const m = Math.min(1, Math.max(0, 0.5 + r30 / 0.4))
  const sd = (n: number) => {
    const r: number[] = []
    for (let k = last - n + 1; k <= last; k++) r.push(Math.log(btc[k] / btc[k - 1]))
    const mean = r.reduce((a, b) => a + b, 0) / n
    return Math.sqrt(r.reduce((a, b) => a + (b - mean) ** 2, 0) / n)
  }
  const v = Math.min(1, Math.max(0, 1.5 - sd(168) / sd(2160)))
  const all = [btc, ...others]
  const b = all.filter(c => c[c.length - 1] / c[c.length - 1 - 168] - 1 > 0).length / all.length
  return Math.round(100 * (PROXY_WEIGHTS.momentum * m + PROXY_WEIGHTS.volatility * v + PROXY_WEIGHTS.breadth * b))
}

describe('fear & greed proxy', () => {
  test.skipIf(!hasRealData())(`on real Binance candles it follows the documented formula (${REAL_DATA_MISSING.split(';')[0]})`, () => {
    const symbols = realSymbols().filter(s => s !== 'MATICUSDT').slice(0, 20)
    const dir = mkdtempSync(join(tmpdir(), 'perpsim-proxy-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const store = CandleStore.open(dir)
    const TAIL = 2400
    const closes: Record<string, Float64Array> = {}
    for (const s of symbols) {
      const b = loadRealBars(s)
      const from = b.n - TAIL
      const cols = [b.t, b.o, b.h, b.l, b.c, b.v].map(col => col.slice(from, b.n))
      store.appendCandles(s, cols, TAIL)
      closes[s] = cols[4]
    }
    const p = fearGreedProxy(store, new Universe(store))!
    expect(p).not.toBeNull()
    expect(p.components.momentum).not.toBeNull()
    expect(p.components.volatility).not.toBeNull()
    expect(p.components.breadth).not.toBeNull()
    const eligible = new Universe(store).topN(50).map(c => c.meta.symbol)
    expect(p.value).toBe(expectedProxy(closes.BTCUSDT, eligible.filter(s => s !== 'BTCUSDT').map(s => closes[s])))
    expect(p.asOfMs).toBe(loadRealBars('BTCUSDT').t[loadRealBars('BTCUSDT').n - 1] + H)
  })

  test('a constructed market: a calm last week, flat month, 7 of 11 coins up a week — the formula by hand', () => {
    const n = 2200
    // BTC: ±1 % hourly for the first 2032 steps, ±0.5 % in the last 168: σ7/σ90 < 1
    const btcRet = Array.from({ length: n - 1 }, (_, k) => (k % 2 === 0 ? 1 : -1) * (k >= n - 1 - 168 ? 0.005 : 0.01))
    const coins = [
      { symbol: 'BTCUSDT', price: 50_000, returns: btcRet },
      ...Array.from({ length: 10 }, (_, i) => ({ symbol: `C${i}USDT`, price: 10, driftLog: i < 7 ? 0.0005 : -0.0005 })),
    ]
    const ts = buildTestStore(coins, NOW - H, n)
    cleanups.push(ts.cleanup)
    const p = fearGreedProxy(ts.store, new Universe(ts.store))!
    // momentum: 720 alternating steps cancel -> r30 = 0 -> m = 0.5
    expect(p.components.momentum).toBeCloseTo(0.5, 9)
    // σ over the last 2160 steps: 1992 of ±1 %, 168 of ±0.5 %; σ7 = 0.5 %
    const s90 = Math.sqrt((1992 * 0.01 ** 2 + 168 * 0.005 ** 2) / 2160)
    expect(p.components.volatility).toBeCloseTo(1.5 - 0.005 / s90, 9)
    // BTC's week is flat (not up): 7 of 11 up
    expect(p.components.breadth).toBeCloseTo(7 / 11, 12)
    expect(p.value).toBe(Math.round(100 * (0.4 * 0.5 + 0.3 * (1.5 - 0.005 / s90) + 0.3 * (7 / 11))))
  })

  test('components clamp to 0..1: a +50 % month is full greed on momentum', () => {
    const ts = buildTestStore([{ symbol: 'BTCUSDT', price: 150, stepLog: 0, driftLog: Math.log(1.5) / 720 }], NOW - H, 800)
    cleanups.push(ts.cleanup)
    const p = fearGreedProxy(ts.store, new Universe(ts.store))!
    expect(p.components).toEqual({ momentum: 1, volatility: null, breadth: null })
    expect(p.value).toBe(100)
  })

  test('without BTC history there is no proxy', () => {
    const ts = buildTestStore([{ symbol: 'ETHUSDT', price: 1 }], NOW - H, 50)
    cleanups.push(ts.cleanup)
    expect(fearGreedProxy(ts.store, new Universe(ts.store))).toBeNull()
  })
})

describe('regime bands', () => {
  test('each boundary value falls in the contract band', () => {
    const cases: [number, string][] = [[0, 'Extreme Fear'], [24, 'Extreme Fear'], [24.5, 'Extreme Fear'], [25, 'Fear'], [44, 'Fear'], [45, 'Neutral'], [59, 'Neutral'], [60, 'Greed'], [79, 'Greed'], [80, 'Extreme Greed'], [100, 'Extreme Greed']]
    for (const [v, name] of cases) expect(`${v}: ${regimeBand(v).name}`).toBe(`${v}: ${name}`)
  })
})

describe('events calendar', () => {
  test('US Eastern times become UTC with daylight saving: EDT is UTC−4, EST is UTC−5', () => {
    expect(new Date(easternToUtcMs('2026-03-18', '14:00')).toISOString()).toBe('2026-03-18T18:00:00.000Z')
    expect(new Date(easternToUtcMs('2026-12-09', '14:00')).toISOString()).toBe('2026-12-09T19:00:00.000Z')
    expect(new Date(easternToUtcMs('2026-03-06', '08:30')).toISOString()).toBe('2026-03-06T13:30:00.000Z')
    expect(new Date(easternToUtcMs('2026-03-09', '08:30')).toISOString()).toBe('2026-03-09T12:30:00.000Z')
  })

  test('the shipped file: FOMC decisions on Wednesdays at 14:00 ET and confirmed, CPI dates unconfirmed, each with its source, sorted', () => {
    const events = loadEventsCalendar()
    const fomc = events.filter(e => e.kind === 'fomc')
    expect(fomc.length).toBeGreaterThanOrEqual(16)
    for (const e of fomc) {
      expect(new Date(e.atMs).getUTCDay()).toBe(3)
      expect([18, 19]).toContain(new Date(e.atMs).getUTCHours())
      expect(e.confirmed).toBe(true)
      expect(e.source).toContain('Federal Reserve')
    }
    for (const e of events.filter(e => e.kind === 'cpi')) expect(e).toMatchObject({ confirmed: false, source: expect.stringContaining('Bureau of Labor Statistics') })
    for (let i = 1; i < events.length; i++) expect(events[i].atMs).toBeGreaterThanOrEqual(events[i - 1].atMs)
    const up = upcomingEvents(events, NOW, 3)
    expect(up.length).toBe(3)
    expect(up.every(e => e.atMs >= NOW)).toBe(true)
  })

  test('an event whose kind has no source is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpsim-ev-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const path = join(dir, 'ev.json')
    writeFileSync(path, JSON.stringify({ sources: {}, events: [{ kind: 'nfp', name: 'x', date: '2027-01-08', time_et: '08:30' }] }))
    expect(() => loadEventsCalendar(path)).toThrow(EventsCalendarError)
  })
})

describe('news links', () => {
  test('tracking parameters, www., fragments and trailing slashes do not make a new article', () => {
    expect(canonicalUrl('https://www.coindesk.com/a/b/?utm_source=rss&utm_medium=x#top')).toBe(canonicalUrl('https://coindesk.com/a/b'))
    expect(canonicalUrl('https://x.com/a?id=2')).not.toBe(canonicalUrl('https://x.com/a?id=3'))
  })
})

describe('coingecko carry-over', () => {
  const coin = (symbol: string, name: string): CgCoin => ({ id: name.toLowerCase(), symbol, name, image: null, priceUsd: 1, marketCapUsd: 1, rank: 1, volume24hUsd: 1, change1hPct: 0, change24hPct: 0, change7dPct: 0 })
  test('a coin missing from a new fetch keeps its old record and time; a ticker keeps its first (largest) coin', () => {
    const first = mergeCgCoins(null, [coin('BTC', 'Bitcoin'), coin('SOL', 'Solana'), coin('SOL', 'Bridged SOL')], 1000)
    expect(first.coins.SOL.name).toBe('Solana')
    const second = mergeCgCoins(first, [coin('BTC', 'Bitcoin')], 2000)
    expect(second.coins.BTC.fetchedAtMs).toBe(2000)
    expect(second.coins.SOL).toMatchObject({ name: 'Solana', fetchedAtMs: 1000 })
  })
})

describe('swr cache', () => {
  test('concurrent reads share one fetch, and a stored value comes back after a restart with its time', async () => {
    const clock = new ManualClock(NOW)
    const db = openDb(':memory:')
    let fetches = 0
    const make = () =>
      new SwrCache<number>({
        key: 'k',
        source: 'test',
        clock,
        snapshots: new SnapshotStore(db),
        offline: false,
        fetch: async () => {
          fetches++
          await Bun.sleep(20)
          return 42
        },
      })
    const cache = make()
    const policy = { refreshAfterMs: 1000, waitAfterMs: 1000 }
    const reads = await Promise.all([1, 2, 3].map(() => cache.read(policy, performance.now() + 1000)))
    expect(fetches).toBe(1)
    expect(reads.map(r => r.value)).toEqual([42, 42, 42])
    clock.advance(500)
    // a new cache (a restart) reads the stored value with its time, and fetches nothing while it is fresh
    const again = await make().read(policy, performance.now() + 1000)
    expect([again.value, again.source, again.fetchedAtMs, fetches]).toEqual([42, 'test', NOW, 1])
  })
})
