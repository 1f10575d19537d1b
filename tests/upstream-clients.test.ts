/**
 * Every upstream client against its loopback server speaking the real format: the happy
 * path, then each way an upstream fails (hang, stalled body, 429, 5xx, truncated and
 * wrong-shaped bodies), which must surface as a typed UpstreamError, never a crash.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { BinanceClient } from '../src/upstream/binance'
import { CoinGeckoClient } from '../src/upstream/coingecko'
import { UpstreamError, type UpstreamErrorKind } from '../src/upstream/errors'
import { FearGreedClient } from '../src/upstream/fear-greed'
import { NewsFeedClient, parseFeed } from '../src/upstream/news-feed'
import { YahooChartClient } from '../src/upstream/yahoo-chart'
import { startUpstreamServers, type Fault, type ServiceName, type UpstreamServers } from './fixtures/upstream-servers'

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0)
const TIMEOUT_MS = 400
let servers: UpstreamServers

beforeAll(async () => {
  servers = await startUpstreamServers(NOW)
})
afterAll(async () => {
  await servers.stop()
})
afterEach(() => {
  for (const s of ['spot', 'futures', 'coingecko', 'fearGreed', 'yahoo', 'feeds'] as ServiceName[]) servers.fault(s, { kind: 'none' })
})

const binance = () => new BinanceClient({ spotUrl: servers.urls.binanceSpotUrl, futuresUrl: servers.urls.binanceFuturesUrl, timeoutMs: TIMEOUT_MS })
const coingecko = () => new CoinGeckoClient({ baseUrl: servers.urls.coingeckoUrl, timeoutMs: TIMEOUT_MS })
const fearGreed = () => new FearGreedClient({ baseUrl: servers.urls.fearGreedUrl, timeoutMs: TIMEOUT_MS })
const yahoo = () => new YahooChartClient({ baseUrl: servers.urls.macroUrl, timeoutMs: TIMEOUT_MS })
const news = () => new NewsFeedClient({ timeoutMs: TIMEOUT_MS })

async function failure(p: Promise<unknown>): Promise<UpstreamError> {
  try {
    await p
  } catch (e) {
    expect(e).toBeInstanceOf(UpstreamError)
    return e as UpstreamError
  }
  throw new Error('expected the call to fail')
}

describe('binance through ccxt', () => {
  test('spot 24h tickers: USDT pairs with string numbers parsed, non-USDT and delisted (price 0) pairs dropped', async () => {
    const tickers = await binance().spotTickers()
    const symbols = tickers.map(t => t.symbol)
    expect(symbols).toContain('BTCUSDT')
    expect(symbols).not.toContain('BTCEUR')
    expect(symbols).not.toContain('LUNAUSDT')
    const btc = tickers.find(t => t.symbol === 'BTCUSDT')!
    const raw = servers.data.spotTickers.find(t => t.symbol === 'BTCUSDT')!
    expect(btc.price).toBe(Number(raw.lastPrice))
    expect(btc.changePct).toBe(Number(raw.priceChangePercent))
    expect(btc.quoteVolume).toBe(Number(raw.quoteVolume))
    expect(servers.hits('spot', '/api/v3/ticker/24hr')).toBeGreaterThan(0)
  })

  test('USDT-M tickers include futures-only markets', async () => {
    const symbols = (await binance().futuresTickers()).map(t => t.symbol)
    expect(symbols).toContain('XAUUSDT')
    expect(symbols).toContain('1000PEPEUSDT')
  })

  test('premiumIndex gives funding rate and mark price per perpetual; dated contracts without funding are skipped', async () => {
    const rows = await binance().premiumIndex()
    const sol = rows.find(r => r.symbol === 'SOLUSDT')!
    const raw = servers.data.premiumIndex.find(r => r.symbol === 'SOLUSDT')!
    expect(sol.fundingRate).toBe(Number(raw.lastFundingRate))
    expect(sol.markPrice).toBe(Number(raw.markPrice))
    expect(sol.nextFundingTimeMs).toBe(raw.nextFundingTime as number)
    expect(rows.some(r => r.symbol.includes('_'))).toBe(false)
  })

  test('open interest of one symbol; an unknown symbol is an http_status error (Binance -1121, HTTP 400)', async () => {
    const oi = await binance().openInterest('ETHUSDT')
    expect(oi).toEqual({ symbol: 'ETHUSDT', contracts: Number(servers.data.openInterest.ETHUSDT), timeMs: NOW - 500 })
    const e = await failure(binance().openInterest('NOPEUSDT'))
    expect(e.kind).toBe('http_status')
  })
})

describe('coingecko', () => {
  test('/global: total market cap, BTC dominance and volume in USD', async () => {
    const g = await coingecko().global()
    const d = (servers.data.global as any).data
    expect(g.totalMarketCapUsd).toBe(d.total_market_cap.usd)
    expect(g.btcDominancePct).toBe(d.market_cap_percentage.btc)
    expect(g.totalVolumeUsd).toBe(d.total_volume.usd)
    expect(g.updatedAtMs).toBe(d.updated_at * 1000)
  })

  test('/coins/markets: name, image, market cap, rank and 1h/24h/7d changes; tickers upper-cased; an empty page is empty', async () => {
    const coins = await coingecko().markets(1)
    const sol = coins.find(c => c.id === 'solana')!
    expect(sol.symbol).toBe('SOL')
    expect(sol.name).toBe('Solana')
    expect(sol.rank).toBe(6)
    expect(sol.image).toStartWith('https://')
    expect(sol.change7dPct).toBe(12.5)
    expect(sol.change1hPct).toBe(0.8)
    expect(await coingecko().markets(2)).toEqual([])
  })
})

describe('alternative.me fear & greed', () => {
  test('values and labels, newest first, timestamps in ms', async () => {
    const pts = await fearGreed().latest(2)
    expect(pts.map(p => p.value)).toEqual(servers.data.fearGreed.map(p => Number(p.value)))
    expect(pts[0].classification).toBe('Fear')
    expect(pts[0].timestampMs).toBe(Number(servers.data.fearGreed[0].timestamp) * 1000)
    expect(pts[0].timestampMs).toBeGreaterThan(pts[1].timestampMs)
  })
})

describe('yahoo chart quotes', () => {
  test('value is regularMarketPrice; change is against the last close of an earlier day, skipping null closes', async () => {
    const q = await yahoo().quote('DX-Y.NYB')
    const c = servers.data.charts['DX-Y.NYB']
    expect(q.value).toBe(c.price)
    // the last bar is today's session: the previous close is the bar before it
    expect(q.previousClose).toBe(c.closes[c.closes.length - 2]!)
    expect(q.change).toBeCloseTo(c.price - c.closes[c.closes.length - 2]!, 10)
    expect(q.changePct).toBeCloseTo(((c.price - c.closes[3]!) / c.closes[3]!) * 100, 10)
  })

  test('^TNX and ^GSPC are fetched by their encoded symbols', async () => {
    expect((await yahoo().quote('^TNX')).value).toBe(servers.data.charts['^TNX'].price)
    expect((await yahoo().quote('^GSPC')).value).toBe(servers.data.charts['^GSPC'].price)
  })

  test('an unknown symbol (HTTP 404 with chart.error) is an http_status error', async () => {
    const e = await failure(yahoo().quote('NOPE'))
    expect(e.kind).toBe('http_status')
    expect(e.status).toBe(404)
  })
})

describe('rss / atom feeds', () => {
  test('RSS 2.0: CDATA titles, outlet from the channel title, undated items dropped', async () => {
    const items = await news().fetch(servers.urls.newsFeeds[0])
    expect(items.map(i => i.title)).toEqual(['Bitcoin Slips Below $92K as ETF Outflows Continue', 'Ether & SOL Lead Altcoin Rebound'])
    expect(items.every(i => i.source === 'CoinDesk')).toBe(true)
    expect(items[0].publishedMs).toBe(NOW - 30 * 60_000)
  })

  test('Atom: alternate link, published (else updated) date, HTML in titles stripped', async () => {
    const items = await news().fetch(servers.urls.newsFeeds[1])
    expect(items[0]).toEqual({ title: 'SEC Approves In-Kind Redemptions for Crypto ETFs', source: 'Decrypt', url: 'https://decrypt.co/350001/sec-approves-in-kind-redemptions', publishedMs: NOW - 15 * 60_000 })
    expect(items[1].publishedMs).toBe(NOW - 40 * 60_000)
  })

  test('RSS 1.0 (RDF) with dc:date', async () => {
    const items = await news().fetch(servers.urls.newsFeeds[2])
    expect(items).toEqual([{ title: 'Stablecoin Supply Hits Record', source: 'Example Outlet', url: 'https://example-outlet.org/a/1', publishedMs: NOW - 5 * 3_600_000 }])
  })

  test('a document that is neither RSS nor Atom, or not XML, is malformed', () => {
    expect(() => parseFeed('<html><body>hi</body></html>', 'http://127.0.0.1/x')).toThrow(UpstreamError)
    expect(() => parseFeed('<rss><channel><item></channel></rss>', 'http://127.0.0.1/x')).toThrow(/not well-formed/)
  })
})

/** One call per client, used to drive every fault through every client. */
const CALLS: { service: ServiceName; name: string; call: () => Promise<unknown> }[] = [
  { service: 'spot', name: 'binance spot tickers', call: () => binance().spotTickers() },
  { service: 'futures', name: 'binance premium index', call: () => binance().premiumIndex() },
  { service: 'coingecko', name: 'coingecko global', call: () => coingecko().global() },
  { service: 'fearGreed', name: 'fear & greed', call: () => fearGreed().latest(1) },
  { service: 'yahoo', name: 'yahoo chart', call: () => yahoo().quote('^GSPC') },
  { service: 'feeds', name: 'rss feed', call: () => news().fetch(servers.urls.newsFeeds[0]) },
]

const FAULTS: { fault: Fault; kind: UpstreamErrorKind; status?: number }[] = [
  { fault: { kind: 'hang' }, kind: 'timeout' },
  { fault: { kind: 'stall-body' }, kind: 'timeout' },
  { fault: { kind: 'status', status: 429 }, kind: 'rate_limited', status: 429 },
  { fault: { kind: 'status', status: 500 }, kind: 'http_status', status: 500 },
  { fault: { kind: 'status', status: 503 }, kind: 'http_status', status: 503 },
  { fault: { kind: 'truncated' }, kind: 'malformed' },
  { fault: { kind: 'wrong-shape' }, kind: 'malformed' },
]

describe('failures are typed errors', () => {
  for (const c of CALLS)
    for (const f of FAULTS) {
      const label = f.fault.kind === 'status' ? `HTTP ${f.fault.status}` : f.fault.kind
      test(`${c.name}: ${label} -> ${f.kind}`, async () => {
        servers.fault(c.service, f.fault)
        const started = performance.now()
        const e = await failure(c.call())
        const tookMs = performance.now() - started
        expect(e.kind).toBe(f.kind)
        if (f.status !== undefined && f.kind !== 'timeout') expect(e.status).toBe(f.status)
        expect(e.source.length).toBeGreaterThan(0)
        // a hang never outlives the client's timeout by more than scheduling noise
        expect(tookMs).toBeLessThan(TIMEOUT_MS + 400)
        if (f.kind === 'timeout') expect(tookMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5)
      })
    }

  test('a refused connection is a network error', async () => {
    const e = await failure(new CoinGeckoClient({ baseUrl: 'http://127.0.0.1:9/api/v3', timeoutMs: TIMEOUT_MS }).global())
    expect(e.kind).toBe('network')
    const b = await failure(new BinanceClient({ spotUrl: 'http://127.0.0.1:9', futuresUrl: 'http://127.0.0.1:9', timeoutMs: TIMEOUT_MS }).spotTickers())
    expect(b.kind).toBe('network')
  })

  test('alternative.me reporting an error in metadata (HTTP 200) is not a value', async () => {
    const saved = servers.data.fearGreed
    servers.data.fearGreed = []
    try {
      const e = await failure(fearGreed().latest(1))
      expect(e.kind).toBe('malformed')
    } finally {
      servers.data.fearGreed = saved
    }
  })
})
