/**
 * Refresh intervals on the injected clock (market 5 min with a forced refresh after
 * 30 min, live prices 30 s, news 60 s), the 2 s answer budget against a hanging
 * upstream, failure back-off, SQLite snapshots across a restart, and OFFLINE=1.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '../src/clock'
import type { Config } from '../src/config'
import { openDb, type Db } from '../src/db'
import { MarketContext } from '../src/market-context/service'
import { Universe } from '../src/market/universe'
import { buildTestStore, configFor, startUpstreamServers, type ServiceName, type UpstreamServers } from './fixtures/upstream-servers'
import { isoInstant } from '../src/time'

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0)
const H = 3_600_000
const MIN = 60_000
let servers: UpstreamServers
let testStore: ReturnType<typeof buildTestStore>

beforeAll(async () => {
  // ccxt takes a while to load on a busy machine; load it before the timed tests
  await import('ccxt')
  servers = await startUpstreamServers(NOW)
  testStore = buildTestStore(
    [
      { symbol: 'BTCUSDT', price: 90_000, funding: [0.0001, 0.0002] },
      { symbol: 'ETHUSDT', price: 3_000 },
    ],
    NOW - 2 * H,
    24 * 10,
  )
})
afterAll(async () => {
  await servers.stop()
  testStore.cleanup()
})
afterEach(() => {
  for (const s of ['spot', 'futures', 'coingecko', 'fearGreed', 'yahoo', 'feeds'] as ServiceName[]) servers.fault(s, { kind: 'none' })
  servers.resetHits()
  setSpotPrice('BTCUSDT', 91234.56)
})

function setSpotPrice(symbol: string, price: number) {
  const t = servers.data.spotTickers.find(x => x.symbol === symbol)!
  t.lastPrice = price.toFixed(8)
}

function context(opts: { config?: Config; db?: Db; clock?: ManualClock } = {}) {
  const clock = opts.clock ?? new ManualClock(NOW)
  const db = opts.db ?? openDb(':memory:')
  const mc = new MarketContext({ config: opts.config ?? configFor(servers), clock, db, store: testStore.store, universe: new Universe(testStore.store) })
  return { mc, clock, db }
}

const SPOT = '/api/v3/ticker/24hr'

describe('/market: background refresh every 5 minutes, a request forces one after 30', () => {
  test('the background job refreshes at 5:00 on the clock, not at 4:59', async () => {
    const { mc, clock } = context()
    await mc.market()
    expect(servers.hits('spot', SPOT)).toBe(1)
    clock.advance(5 * MIN - 1000)
    await mc.refreshDue()
    await mc.market()
    expect(servers.hits('spot', SPOT)).toBe(1)
    clock.advance(1000)
    await mc.refreshDue()
    expect(servers.hits('spot', SPOT)).toBe(2)
  })

  test('between 5 and 30 minutes a request answers at once from the cache and refreshes behind it', async () => {
    const { mc, clock } = context()
    await mc.market()
    clock.advance(30 * MIN - 1000)
    setSpotPrice('BTCUSDT', 95_000)
    servers.fault('spot', { kind: 'delay', ms: 300 })
    const started = performance.now()
    const stale = await mc.market()
    expect(performance.now() - started).toBeLessThan(250)
    expect(stale.btc_price).toBe(91234.56)
    expect(stale.sources.prices.stale).toBe(true)
    expect(stale.sources.prices.age_seconds).toBe(30 * 60 - 1)
    await mc.sources.spot.refresh() // joins the refresh the request started
    expect(servers.hits('spot', SPOT)).toBe(2)
    const fresh = await mc.market()
    expect(fresh.btc_price).toBe(95_000)
    expect(fresh.sources.prices.stale).toBe(false)
  })

  test('at 30 minutes a request waits for the fresh value', async () => {
    const { mc, clock } = context()
    await mc.market()
    clock.advance(30 * MIN)
    setSpotPrice('BTCUSDT', 96_000)
    servers.fault('spot', { kind: 'delay', ms: 300 })
    const started = performance.now()
    const m = await mc.market()
    expect(performance.now() - started).toBeGreaterThanOrEqual(290)
    expect(m.btc_price).toBe(96_000)
    expect(m.sources.prices.age_seconds).toBe(0)
  })
})

describe('/market/live: prices cached 30 seconds', () => {
  test('29 s later the cached prices are served; at 30 s they are fetched again and the answer waits for them', async () => {
    const { mc, clock } = context()
    const first = await mc.live()
    expect(servers.hits('spot', SPOT)).toBe(1)
    expect(servers.hits('futures', '/fapi/v1/ticker/24hr')).toBe(1)
    setSpotPrice('BTCUSDT', 97_000)
    clock.advance(29_000)
    const cached = await mc.live()
    expect(servers.hits('spot', SPOT)).toBe(1)
    expect(cached.prices.find(p => p.symbol === 'BTCUSDT')!.price).toBe(first.prices.find(p => p.symbol === 'BTCUSDT')!.price)
    clock.advance(1_000)
    const fresh = await mc.live()
    expect(servers.hits('spot', SPOT)).toBe(2)
    expect(fresh.prices.find(p => p.symbol === 'BTCUSDT')!.price).toBe(97_000)
  })
})

describe('/news: refreshed every 60 seconds', () => {
  test('a feed is fetched again at 60 s, not at 59 s, by a request or by the background job', async () => {
    const { mc, clock } = context()
    await mc.news()
    expect(servers.hits('feeds', '/rss.xml')).toBe(1)
    clock.advance(59_000)
    await mc.news()
    await mc.refreshDue()
    expect(servers.hits('feeds', '/rss.xml')).toBe(1)
    clock.advance(1_000)
    await mc.refreshDue()
    expect(servers.hits('feeds', '/rss.xml')).toBe(2)
    clock.advance(60_000)
    await mc.news()
    expect(servers.hits('feeds', '/rss.xml')).toBe(3)
  })
})

describe('a hanging upstream', () => {
  const slowClients = () => configFor(servers, { UPSTREAM_TIMEOUT_MS: '20000' })

  test('does not delay /market beyond 2 s on a cold start: candle-store figures stand in, labelled local', async () => {
    servers.fault('spot', { kind: 'hang' })
    const { mc } = context({ config: slowClients() })
    const started = performance.now()
    const m = await mc.market()
    const took = performance.now() - started
    expect(took).toBeLessThan(2_000)
    expect(m.sources.prices.source).toBe('local')
    expect(m.btc_price).toBe(90_000)
  })

  test('does not delay a forced refresh beyond 2 s: the old value is served, stale, with its age', async () => {
    const { mc, clock } = context({ config: slowClients() })
    await mc.market()
    clock.advance(45 * MIN)
    servers.fault('spot', { kind: 'hang' })
    servers.fault('fearGreed', { kind: 'hang' })
    const started = performance.now()
    const m = await mc.market()
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(m.sources.prices.source).toBe('binance-spot')
    expect(m.sources.prices.stale).toBe(true)
    expect(m.sources.prices.age_seconds).toBe(45 * 60)
    expect(m.stale).toBe(true)
  })

  test('does not delay /news, /macro, /market/live, /regime or /coins/stats beyond 2 s', async () => {
    for (const s of ['spot', 'futures', 'coingecko', 'fearGreed', 'yahoo', 'feeds'] as ServiceName[]) servers.fault(s, { kind: 'hang' })
    const { mc } = context({ config: slowClients() })
    const timed = async (call: () => Promise<unknown>) => {
      const started = performance.now()
      await call()
      return performance.now() - started
    }
    const took = await Promise.all([timed(() => mc.news()), timed(() => mc.macro()), timed(() => mc.live()), timed(() => mc.regime()), timed(() => mc.coinStats())])
    for (const ms of took) expect(ms).toBeLessThan(2_000)
  })
})

describe('failures', () => {
  test('a failed refresh is not retried by every request: the next attempt waits 30 s on the clock', async () => {
    const { mc, clock } = context()
    servers.fault('coingecko', { kind: 'status', status: 503 })
    const first = await mc.market()
    expect(first.total_market_cap_b).toBeNull()
    expect(first.missing_sources).toContain('coingecko')
    expect(first.sources.global.error).toBe('http_status (HTTP 503)')
    const hits = servers.hits('coingecko', '/api/v3/global')
    expect(hits).toBe(1)
    await mc.market()
    expect(servers.hits('coingecko', '/api/v3/global')).toBe(1)
    servers.fault('coingecko', { kind: 'none' })
    clock.advance(30_000)
    const later = await mc.market()
    expect(servers.hits('coingecko', '/api/v3/global')).toBe(2)
    expect(later.total_market_cap_b).not.toBeNull()
  })
})

describe('snapshots and OFFLINE=1', () => {
  test('OFFLINE=1 makes no outbound call at all', async () => {
    const { mc } = context({ config: configFor(servers, { OFFLINE: '1' }) })
    await Promise.all([mc.market(), mc.live(), mc.news(), mc.macro(), mc.regime(), mc.coinStats(), mc.refreshDue()])
    for (const s of ['spot', 'futures', 'coingecko', 'fearGreed', 'yahoo', 'feeds'] as ServiceName[]) expect(servers.hits(s)).toBe(0)
  })

  test('after a restart, offline answers are the stored values with their age and labels', async () => {
    const db = openDb(':memory:')
    const online = context({ db })
    const before = await online.mc.market()
    await online.mc.news()
    servers.resetHits()

    const clock = new ManualClock(NOW + 2 * H)
    const offline = context({ db, clock, config: configFor(servers, { OFFLINE: '1' }) })
    const m = await offline.mc.market()
    expect(m.btc_price).toBe(before.btc_price)
    expect(m.total_market_cap_b).toBe(before.total_market_cap_b)
    expect(m.sources.global).toMatchObject({ source: 'coingecko', as_of: isoInstant(NOW), age_seconds: 7200, stale: true })
    expect(m.sources.prices).toMatchObject({ source: 'binance-spot', age_seconds: 7200, stale: true })
    expect(m.as_of).toBe(isoInstant(NOW))
    expect(m.stale).toBe(true)
    const news = await offline.mc.news()
    expect(news.items.length).toBeGreaterThan(0)
    expect(news.items.every(i => i.stale && i.as_of === isoInstant(NOW))).toBe(true)
    for (const s of ['spot', 'futures', 'coingecko', 'fearGreed', 'yahoo', 'feeds'] as ServiceName[]) expect(servers.hits(s)).toBe(0)
  })

  test('offline, a stored exchange price older than the newest candle gives way to the candle (labelled local)', async () => {
    const db = openDb(':memory:')
    await context({ db }).mc.live()
    const later = buildTestStore([{ symbol: 'BTCUSDT', price: 80_000 }], NOW + 48 * H - H, 48)
    try {
      const clock = new ManualClock(NOW + 48 * H)
      const mc = new MarketContext({ config: configFor(servers, { OFFLINE: '1' }), clock, db, store: later.store, universe: new Universe(later.store) })
      const live = await mc.live()
      expect(live.prices.find(p => p.symbol === 'BTCUSDT')).toMatchObject({ market: 'local', price: 80_000, as_of: isoInstant(NOW + 48 * H) })
      expect(live.sources.spot).toMatchObject({ source: 'binance-spot', as_of: isoInstant(NOW), stale: true, error: 'offline (OFFLINE=1)' })
      expect(live.sources.local).toMatchObject({ source: 'local', age_seconds: 0 })
    } finally {
      later.cleanup()
    }
  })

  test('offline with nothing stored: figures the store can derive are labelled local, the rest are null and their sources named', async () => {
    const { mc } = context({ config: configFor(servers, { OFFLINE: '1' }), clock: new ManualClock(NOW) })
    const m = await mc.market()
    expect(m.btc_price).toBe(90_000)
    expect(m.sources.prices).toMatchObject({ source: 'local', as_of: isoInstant(NOW - H), age_seconds: 3600 })
    expect(m.total_market_cap_b).toBeNull()
    expect(m.missing_sources).toContain('coingecko')
    expect(m.sources.global.source).toBeNull()
  })
})
