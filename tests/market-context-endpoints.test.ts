/**
 * GET /market, /market/live, /news, /macro, /regime and /coins/stats over HTTP (Elysia's
 * app.handle), with the upstreams on loopback: the fields and rules of the contract, and
 * the labels when upstreams are missing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { ManualClock } from '../src/clock'
import type { Config } from '../src/config'
import { openDb } from '../src/db'
import { errorHandler } from '../src/http/errors'
import type { StrategyFigures } from '../src/market-context/coin-stats'
import { MarketContext } from '../src/market-context/service'
import { Universe } from '../src/market/universe'
import { coinStatsModule } from '../src/modules/coin-stats'
import { macroModule } from '../src/modules/macro'
import { marketModule } from '../src/modules/market'
import { newsModule } from '../src/modules/news'
import { regimeModule } from '../src/modules/regime'
import { getStrategy } from '../src/strategies/registry'
import { buildTestStore, configFor, startUpstreamServers, type ServiceName, type UpstreamServers } from './fixtures/upstream-servers'
import { isoInstant } from '../src/time'

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0)
const H = 3_600_000
let servers: UpstreamServers
let testStore: ReturnType<typeof buildTestStore>

beforeAll(async () => {
  await import('ccxt')
  servers = await startUpstreamServers(NOW)
  testStore = buildTestStore(
    [
      { symbol: 'BTCUSDT', price: 90_000, driftLog: -0.0001, funding: [0.0001, 0.0003] },
      { symbol: 'ETHUSDT', price: 3_000, driftLog: -0.0003, funding: [0.0001, -0.0009] },
      { symbol: 'SOLUSDT', price: 140, driftLog: 0.0005 },
      { symbol: '1000PEPEUSDT', price: 0.007, driftLog: 0.0002 },
      { symbol: 'LOCALONLYUSDT', price: 2.5, driftLog: 0.001 },
      { symbol: 'USDCUSDT', price: 1, stepLog: 0.0001, stablecoin: true },
    ],
    NOW - 2 * H,
    // 35 days: enough for the proxy's 30-day momentum
    24 * 35,
  )
})
afterAll(async () => {
  await servers.stop()
  testStore.cleanup()
})
afterEach(() => {
  for (const s of ['spot', 'futures', 'coingecko', 'fearGreed', 'yahoo', 'feeds'] as ServiceName[]) servers.fault(s, { kind: 'none' })
})

function app(opts: { config?: Config; clock?: ManualClock; strategyStats?: (s: string[]) => Map<string, StrategyFigures>; store?: typeof testStore.store } = {}) {
  const clock = opts.clock ?? new ManualClock(NOW)
  const store = opts.store ?? testStore.store
  const marketContext = new MarketContext({ config: opts.config ?? configFor(servers), clock, db: openDb(':memory:'), store, universe: new Universe(store), strategyStats: opts.strategyStats })
  const deps = { marketContext }
  const a = new Elysia().use(errorHandler).use(marketModule(deps)).use(newsModule(deps)).use(macroModule(deps)).use(regimeModule(deps)).use(coinStatsModule(deps))
  return { clock, marketContext, get: async (path: string) => a.handle(new Request(`http://localhost${path}`)) }
}

async function json(res: Response): Promise<any> {
  expect(res.status).toBe(200)
  return res.json()
}

const spot = (symbol: string) => servers.data.spotTickers.find(t => t.symbol === symbol)!

describe('GET /market', () => {
  test('the contract fields from the upstreams, each part labelled with its source', async () => {
    const res = await app().get('/market')
    const m = await json(res)
    expect(m.btc_price).toBe(Number(spot('BTCUSDT').lastPrice))
    expect(m.btc_change_24h).toBe(Number(spot('BTCUSDT').priceChangePercent))
    expect(m.eth_price).toBe(Number(spot('ETHUSDT').lastPrice))
    expect(m.fear_greed_index).toBe(38)
    expect(m.fear_greed_label).toBe('Fear')
    const g = (servers.data.global as any).data
    expect(m.total_market_cap_b).toBeCloseTo(g.total_market_cap.usd / 1e9, 9)
    expect(m.btc_dominance).toBe(g.market_cap_percentage.btc)
    expect(m.total_volume_24h_b).toBeCloseTo(g.total_volume.usd / 1e9, 9)
    expect(m.sources.prices.source).toBe('binance-spot')
    expect(m.sources.fear_greed).toMatchObject({ source: 'alternative.me', proxy: false, stale: false })
    expect(m.sources.global.source).toBe('coingecko')
    expect(m.sources.funding.source).toBe('binance-usdm')
    expect(m.stale).toBe(false)
    expect(m.missing_sources).toEqual([])
    expect(m.as_of).toBe(isoInstant(NOW))
    expect(res.headers.get('x-data-stale')).toBe('false')
    expect(res.headers.get('x-data-as-of')).toBe(m.as_of)
  })

  test('movers: largest 24 h moves first, leaving out stablecoins and pairs under 1M USDT of volume', async () => {
    const m = await json(await app().get('/market'))
    expect(m.top_gainers.map((x: any) => x.symbol)).toEqual(['SOLUSDT', 'ETHUSDT', 'BNBUSDT'])
    expect(m.top_losers.map((x: any) => x.symbol)).toEqual(['DOGEUSDT', 'XRPUSDT', 'BTCUSDT'])
    expect(m.top_gainers[0]).toEqual({ symbol: 'SOLUSDT', price: Number(spot('SOLUSDT').lastPrice), change_24h: 9.8, volume_24h: Number(spot('SOLUSDT').quoteVolume) })
  })

  test('extreme funding: |rate| of at least 0.05 % per event, largest first', async () => {
    const m = await json(await app().get('/market'))
    expect(m.extreme_funding.map((f: any) => [f.symbol, f.funding_rate])).toEqual([
      ['1000PEPEUSDT', -0.001234],
      ['SOLUSDT', 0.000712],
    ])
    expect(m.extreme_funding[1].funding_rate_pct).toBeCloseTo(0.0712, 12)
    expect(m.extreme_funding[1].mark_price).toBe(141.15)
  })

  test('every upstream down: prices, movers and funding from the candle store (source local), fear & greed as a labelled proxy, the rest null and named', async () => {
    for (const s of ['spot', 'futures', 'coingecko', 'fearGreed'] as ServiceName[]) servers.fault(s, { kind: 'status', status: 503 })
    const res = await app().get('/market')
    const m = await json(res)
    expect(m.btc_price).toBe(90_000)
    expect(m.sources.prices).toMatchObject({ source: 'local', as_of: isoInstant(NOW - H), age_seconds: 3600, error: 'http_status (HTTP 503)' })
    // 24 h change of a coin with hourly log drift d is exp(24·d) − 1 (the ± steps cancel over 24 h)
    expect(m.top_gainers.map((x: any) => x.symbol)).toEqual(['LOCALONLYUSDT', 'SOLUSDT', '1000PEPEUSDT'])
    expect(m.top_gainers[0].change_24h).toBeCloseTo((Math.exp(24 * 0.001) - 1) * 100, 9)
    expect(m.top_losers.map((x: any) => x.symbol)).toEqual(['ETHUSDT', 'BTCUSDT'])
    expect(m.sources.funding.source).toBe('local')
    expect(m.extreme_funding.map((f: any) => [f.symbol, f.funding_rate])).toEqual([['ETHUSDT', -0.0009]])
    expect(m.sources.fear_greed).toMatchObject({ source: 'local-proxy', proxy: true })
    expect(m.fear_greed_index).toBeGreaterThanOrEqual(0)
    expect(m.fear_greed_index).toBeLessThanOrEqual(100)
    expect(m.total_market_cap_b).toBeNull()
    expect(m.btc_dominance).toBeNull()
    expect(m.missing_sources).toEqual(['coingecko'])
    expect(res.headers.get('x-data-missing-sources')).toBe('coingecko')
    expect(m.stale).toBe(true)
  })

  test('nothing anywhere (no upstream, empty store): 200 with nulls and every missing source named', async () => {
    const empty = buildTestStore([], NOW, 0)
    try {
      const m = await json(await app({ config: configFor(null, { OFFLINE: '1' }), store: empty.store }).get('/market'))
      expect([m.btc_price, m.eth_price, m.fear_greed_index, m.total_market_cap_b]).toEqual([null, null, null, null])
      expect(m.missing_sources.sort()).toEqual(['alternative.me', 'binance-spot', 'binance-usdm', 'coingecko'])
      expect(m.as_of).toBeNull()
      expect(m.stale).toBe(true)
    } finally {
      empty.cleanup()
    }
  })
})

describe('GET /market/live', () => {
  test('spot first, futures for coins missing on spot, local candles last; each price names its market', async () => {
    const live = await json(await app().get('/market/live'))
    const by = Object.fromEntries(live.prices.map((p: any) => [p.symbol, p]))
    expect(by.BTCUSDT).toMatchObject({ market: 'spot', price: Number(spot('BTCUSDT').lastPrice) })
    expect(by['1000PEPEUSDT']).toMatchObject({ market: 'futures', price: 0.00712 })
    expect(by.LOCALONLYUSDT).toMatchObject({ market: 'local', price: 2.5, as_of: isoInstant(NOW - H) })
    expect(live.sources.spot.source).toBe('binance-spot')
    expect(live.sources.futures.source).toBe('binance-usdm')
    expect(live.sources.local.source).toBe('local')
    expect(live.unpriced).toEqual([])
  })
})

describe('GET /news', () => {
  test('an array of title, source, url, published (ISO 8601), newest first, deduplicated by link and by title', async () => {
    const res = await app().get('/news')
    const items = await json(res)
    expect(Array.isArray(items)).toBe(true)
    expect(items.map((i: any) => i.title)).toEqual([
      'SEC Approves In-Kind Redemptions for Crypto ETFs',
      'Bitcoin Slips Below $92K as ETF Outflows Continue',
      'Same story under a tracking link',
      'Stablecoin Supply Hits Record',
    ])
    expect(items[1]).toMatchObject({ source: 'CoinDesk', published: isoInstant(NOW - 30 * 60_000) })
    for (const i of items) {
      expect(isoInstant(Date.parse(i.published))).toBe(i.published)
      expect(i.as_of).toBe(isoInstant(NOW))
      expect(i.stale).toBe(false)
    }
    expect(res.headers.get('x-data-as-of')).toBe(isoInstant(NOW))
  })

  test('a dead feed costs only its own items, and is named in the headers', async () => {
    servers.fault('feeds', { kind: 'status', status: 500 })
    const res = await app().get('/news')
    expect(await json(res)).toEqual([])
    expect(res.headers.get('x-data-missing-sources')).toBe(servers.urls.newsFeeds.join(', '))
    expect(res.headers.get('x-data-stale')).toBe('true')
  })
})

describe('GET /macro', () => {
  test('DXY, US 10y and S&P 500 with value and change; open interest and funding of the largest perps; upcoming events', async () => {
    const m = await json(await app().get('/macro'))
    const dxy = servers.data.charts['DX-Y.NYB']
    expect(m.dxy).toMatchObject({ value: dxy.price, symbol: 'DX-Y.NYB', source: 'yahoo-finance', stale: false })
    expect(m.dxy.change).toBeCloseTo(dxy.price - dxy.closes[3]!, 10)
    expect(m.us10y.value).toBe(servers.data.charts['^TNX'].price)
    expect(m.sp500.value).toBe(servers.data.charts['^GSPC'].price)
    // BTC and ETH first, then the universe in market-cap order; 1000PEPE has no OI answer and is left out
    expect(m.open_interest.map((o: any) => o.symbol)).toEqual(['BTCUSDT', 'ETHUSDT', 'SOLUSDT'])
    const btcOi = m.open_interest[0]
    expect(btcOi.open_interest_usd).toBeCloseTo(Number(servers.data.openInterest.BTCUSDT) * 91195.3, 6)
    expect(m.funding_rates.map((f: any) => f.symbol)).toEqual(['BTCUSDT', 'ETHUSDT', 'SOLUSDT', '1000PEPEUSDT'])
    expect(m.events.length).toBeGreaterThan(0)
    expect(m.events[0]).toEqual({ name: 'FOMC rate decision', kind: 'fomc', time: '2026-12-09T19:00:00Z', confirmed: true, source: expect.stringContaining('Federal Reserve') })
    expect(m.events[1]).toMatchObject({ kind: 'cpi', time: '2026-12-10T13:30:00Z', confirmed: false })
    expect(m.events.every((e: any) => e.time >= isoInstant(NOW))).toBe(true)
    expect(m.missing_sources).toEqual([])
  })

  test('a quote source down: null value, named in missing_sources; funding falls back to the candle store', async () => {
    servers.fault('yahoo', { kind: 'status', status: 429 })
    servers.fault('futures', { kind: 'hang' })
    const m = await json(await app({ config: configFor(servers, { UPSTREAM_TIMEOUT_MS: '300' }) }).get('/macro'))
    expect(m.dxy).toMatchObject({ value: null, change: null, source: null, stale: true })
    expect(m.sources.dxy.error).toBe('rate_limited (HTTP 429)')
    expect(m.missing_sources).toEqual(expect.arrayContaining(['yahoo-finance:DX-Y.NYB', 'yahoo-finance:^TNX', 'yahoo-finance:^GSPC', 'binance-usdm']))
    expect(m.sources.funding_rates.source).toBe('local')
    expect(m.funding_rates.map((f: any) => [f.symbol, f.funding_rate])).toEqual([
      ['BTCUSDT', 0.0003],
      ['ETHUSDT', -0.0009],
    ])
  })
})

describe('GET /regime', () => {
  test('the band of the published index with its recommended strategies from the registry', async () => {
    const r = await json(await app().get('/regime'))
    expect(r).toMatchObject({ regime: 'Fear', fear_greed_index: 38, band: { min: 25, max: 44 }, proxy: false, source: 'alternative.me' })
    expect(r.recommended_strategies).toEqual([{ id: 'adx-trend-short', name: getStrategy('adx-trend-short')!.name, direction: 'short' }])
  })

  const EXPECTED: [number, string, string[]][] = [
    [24, 'Extreme Fear', ['atr-breakout-short', 'bb-squeeze-short']],
    [25, 'Fear', ['adx-trend-short']],
    [44, 'Fear', ['adx-trend-short']],
    [45, 'Neutral', ['bb-squeeze-short', 'atr-breakout-short']],
    [59, 'Neutral', ['bb-squeeze-short', 'atr-breakout-short']],
    [60, 'Greed', ['bb-squeeze-long']],
    [79, 'Greed', ['bb-squeeze-long']],
    [80, 'Extreme Greed', ['atr-breakout-short', 'bb-squeeze-long']],
  ]
  for (const [value, band, ids] of EXPECTED)
    test(`fear & greed ${value} is ${band}`, async () => {
      const saved = servers.data.fearGreed[0].value
      servers.data.fearGreed[0].value = String(value)
      try {
        const r = await json(await app().get('/regime'))
        expect(r.fear_greed_index).toBe(value)
        expect(r.regime).toBe(band)
        expect(r.recommended_strategies.map((s: any) => s.id)).toEqual(ids)
        for (const s of r.recommended_strategies) expect(s.name).toBe(getStrategy(s.id)!.name)
      } finally {
        servers.data.fearGreed[0].value = saved
      }
    })

  test('without the published index the regime comes from the labelled local proxy', async () => {
    servers.fault('fearGreed', { kind: 'status', status: 502 })
    const r = await json(await app().get('/regime'))
    expect(r).toMatchObject({ proxy: true, source: 'local-proxy' })
    expect(r.label.error).toBe('http_status (HTTP 502)')
    expect(typeof r.fear_greed_index).toBe('number')
  })
})

describe('GET /coins/stats', () => {
  test('CoinStatsResponse: prices from the exchange, CoinGecko metadata, local 7-day figures, the default strategy named with its params', async () => {
    const s = await json(await app().get('/coins/stats'))
    expect(s.generated).toBe(isoInstant(NOW))
    expect(s.strategy).toBe('bb-squeeze-short')
    const def = getStrategy('bb-squeeze-short')!
    expect(s.params).toEqual({ sl_pct: def.sl_pct, tp_pct: def.tp_pct, max_bars: def.max_bars, direction: 'short' })
    const by = Object.fromEntries(s.coins.map((c: any) => [c.symbol, c]))
    expect(by.USDCUSDT).toBeUndefined() // stablecoins are not in the eligible universe
    expect(by.BTCUSDT).toMatchObject({ name: 'Bitcoin', market_cap_rank: 1, price: Number(spot('BTCUSDT').lastPrice), price_market: 'spot', change_1h: 0.12, change_7d: 3.4, change_7d_carried: false, cg_carried: false, cg_as_of: isoInstant(NOW) })
    expect(by.BTCUSDT.sparkline_7d.length).toBe(43)
    expect(by['1000PEPEUSDT']).toMatchObject({ name: 'Pepe', price_market: 'futures', market_cap_rank: 40 })
    expect(by.LOCALONLYUSDT).toMatchObject({ price_market: 'local', price: 2.5, name: 'LOCALONLY', market_cap: null, cg_carried: null, cg_as_of: null })
    expect(by.SOLUSDT.name).toBe('Solana') // the larger of two coins sharing the ticker
  })

  test('until the engine is wired the strategy figures are the contract defaults and the response says so', async () => {
    const s = await json(await app().get('/coins/stats'))
    for (const c of s.coins) expect([c.trades, c.win_rate, c.profit_factor, c.total_return_pct]).toEqual([0, 0, 0, 0])
    expect(s.notes.some((n: string) => n.includes('not computed'))).toBe(true)
  })

  test('an injected strategyStats supplies the figures, computed once per store version', async () => {
    let calls = 0
    const strategyStats = (symbols: string[]) => {
      calls++
      return new Map(symbols.map((sym, i) => [sym, { trades: i + 1, win_rate: 50, profit_factor: 1.5, total_return_pct: 12.5 }]))
    }
    const a = app({ strategyStats })
    const s = await json(await a.get('/coins/stats'))
    expect(s.coins[0]).toMatchObject({ trades: 1, win_rate: 50, profit_factor: 1.5, total_return_pct: 12.5 })
    expect(s.notes.some((n: string) => n.includes('not computed'))).toBe(false)
    await a.get('/coins/stats')
    expect(calls).toBe(1)
  })

  test('CoinGecko values from an earlier fetch are served as cg_carried with their cg_as_of', async () => {
    const a = app()
    await a.get('/coins/stats')
    // the next fetch lacks every SOL coin; BTC's record comes from the newer one
    const saved = servers.data.markets
    servers.data.markets = saved.filter((c: any) => c.symbol !== 'sol')
    try {
      a.clock.advance(5 * 60_000)
      await a.marketContext.sources.cgMarkets.refresh()
      const s = await json(await a.get('/coins/stats'))
      const by = Object.fromEntries(s.coins.map((c: any) => [c.symbol, c]))
      expect(by.BTCUSDT).toMatchObject({ cg_carried: false, cg_as_of: isoInstant(NOW + 5 * 60_000) })
      expect(by.SOLUSDT).toMatchObject({ name: 'Solana', cg_carried: true, cg_as_of: isoInstant(NOW) })
      // the local 7-day change is current, so it wins over the carried CoinGecko one
      expect(by.SOLUSDT.change_7d_carried).toBe(false)
      // CoinGecko down and the clock past its interval: everything it gave is carried
      servers.fault('coingecko', { kind: 'status', status: 429 })
      a.clock.advance(6 * 60_000)
      await a.marketContext.sources.cgMarkets.refresh()
      const later = await json(await a.get('/coins/stats'))
      expect(later.coins.find((c: any) => c.symbol === 'BTCUSDT')).toMatchObject({ cg_carried: true, cg_as_of: isoInstant(NOW + 5 * 60_000) })
      expect(later.sources.coingecko).toMatchObject({ stale: true, error: 'rate_limited (HTTP 429)' })
    } finally {
      servers.data.markets = saved
    }
  })
})
