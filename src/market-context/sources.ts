/**
 * Every upstream value the market context serves, each as its own SwrCache (so one dead
 * upstream never takes the others down), and the read policy of each endpoint.
 */
import type { Clock } from '../clock'
import type { UpstreamConfig, UpstreamRefresh } from '../config'
import type { Logger } from '../log'
import { BinanceClient, FUTURES_SOURCE, SPOT_SOURCE, type FundingNow, type OpenInterest, type Ticker24h } from '../upstream/binance'
import { COINGECKO_SOURCE, CoinGeckoClient, type CgCoin, type CgGlobal } from '../upstream/coingecko'
import { FEAR_GREED_SOURCE, FearGreedClient, type FearGreedPoint } from '../upstream/fear-greed'
import { NEWS_SOURCE, NewsFeedClient, type FeedItem } from '../upstream/news-feed'
import { YAHOO_SOURCE, YahooChartClient, type Quote } from '../upstream/yahoo-chart'
import type { SnapshotStore } from './snapshot-store'
import { SwrCache, type ReadPolicy } from './swr-cache'

export interface UpstreamClients {
  binance: BinanceClient
  coingecko: CoinGeckoClient
  fearGreed: FearGreedClient
  news: NewsFeedClient
  yahoo: YahooChartClient
}

export function defaultClients(u: UpstreamConfig): UpstreamClients {
  return {
    binance: new BinanceClient({ spotUrl: u.binanceSpotUrl, futuresUrl: u.binanceFuturesUrl, timeoutMs: u.timeoutMs }),
    coingecko: new CoinGeckoClient({ baseUrl: u.coingeckoUrl, timeoutMs: u.timeoutMs }),
    fearGreed: new FearGreedClient({ baseUrl: u.fearGreedUrl, timeoutMs: u.timeoutMs }),
    news: new NewsFeedClient({ timeoutMs: u.timeoutMs }),
    yahoo: new YahooChartClient({ baseUrl: u.macroUrl, timeoutMs: u.timeoutMs }),
  }
}

/** The macro quotes of GET /macro: response field -> Yahoo symbol. */
export const MACRO_SYMBOLS = { dxy: 'DX-Y.NYB', us10y: '^TNX', sp500: '^GSPC' } as const
export type MacroField = keyof typeof MACRO_SYMBOLS

/** CoinGecko coins by ticker ("BTC"), each remembering when it was last delivered. */
export interface CgCoinsByTicker {
  coins: Record<string, CgCoin & { fetchedAtMs: number }>
}

/** pages of 250 coins fetched from /coins/markets */
export const COINGECKO_PAGES = 2

export interface Sources {
  spot: SwrCache<Ticker24h[]>
  futures: SwrCache<Ticker24h[]>
  premium: SwrCache<FundingNow[]>
  openInterest: SwrCache<OpenInterest[]>
  cgGlobal: SwrCache<CgGlobal>
  cgMarkets: SwrCache<CgCoinsByTicker>
  fearGreed: SwrCache<FearGreedPoint[]>
  news: SwrCache<FeedItem[]>[]
  macro: Record<MacroField, SwrCache<Quote>>
}

export interface SourcesOptions {
  clients: UpstreamClients
  newsFeeds: readonly string[]
  clock: Clock
  snapshots: SnapshotStore | null
  offline: boolean
  log?: Logger
  /** perpetuals whose open interest /macro shows (decided at fetch time) */
  openInterestSymbols: () => string[]
}

export function createSources(o: SourcesOptions): Sources {
  const base = { clock: o.clock, snapshots: o.snapshots, offline: o.offline, log: o.log }
  const c = o.clients
  return {
    spot: new SwrCache({ ...base, key: 'binance-spot:tickers', source: SPOT_SOURCE, fetch: () => c.binance.spotTickers() }),
    futures: new SwrCache({ ...base, key: 'binance-usdm:tickers', source: FUTURES_SOURCE, fetch: () => c.binance.futuresTickers() }),
    premium: new SwrCache({ ...base, key: 'binance-usdm:premium-index', source: FUTURES_SOURCE, fetch: () => c.binance.premiumIndex() }),
    openInterest: new SwrCache({ ...base, key: 'binance-usdm:open-interest', source: FUTURES_SOURCE, fetch: () => fetchOpenInterest(c.binance, o.openInterestSymbols()) }),
    cgGlobal: new SwrCache({ ...base, key: 'coingecko:global', source: COINGECKO_SOURCE, fetch: () => c.coingecko.global() }),
    cgMarkets: new SwrCache<CgCoinsByTicker>({
      ...base,
      key: 'coingecko:markets',
      source: COINGECKO_SOURCE,
      fetch: async prev => mergeCgCoins(prev?.payload ?? null, await fetchCgPages(c.coingecko), o.clock.now()),
    }),
    fearGreed: new SwrCache({ ...base, key: 'alternative.me:fng', source: FEAR_GREED_SOURCE, fetch: () => c.fearGreed.latest(2) }),
    news: o.newsFeeds.map(url => new SwrCache({ ...base, key: `news:${url}`, source: NEWS_SOURCE, fetch: () => c.news.fetch(url) })),
    macro: Object.fromEntries(
      Object.entries(MACRO_SYMBOLS).map(([field, symbol]) => [field, new SwrCache({ ...base, key: `yahoo:${symbol}`, source: YAHOO_SOURCE, fetch: () => c.yahoo.quote(symbol) })]),
    ) as Record<MacroField, SwrCache<Quote>>,
  }
}

/** Per-endpoint read policies (contract: market 5 min + forced after 30 min, live 30 s, news 60 s). */
export function policies(r: UpstreamRefresh) {
  return {
    market: { refreshAfterMs: r.marketMs, waitAfterMs: r.marketMaxAgeMs } satisfies ReadPolicy,
    live: { refreshAfterMs: r.liveMs, waitAfterMs: r.liveMs } satisfies ReadPolicy,
    news: { refreshAfterMs: r.newsMs, waitAfterMs: r.newsMs } satisfies ReadPolicy,
    macro: { refreshAfterMs: r.macroMs, waitAfterMs: r.marketMaxAgeMs } satisfies ReadPolicy,
  }
}

/** Open interest of each symbol; symbols the exchange rejects are left out, all failing is a failure. */
async function fetchOpenInterest(binance: BinanceClient, symbols: string[]): Promise<OpenInterest[]> {
  const settled = await Promise.allSettled(symbols.map(s => binance.openInterest(s)))
  const ok = settled.flatMap(r => (r.status === 'fulfilled' ? [r.value] : []))
  if (ok.length === 0) {
    const first = settled.find(r => r.status === 'rejected') as PromiseRejectedResult | undefined
    throw first?.reason ?? new Error('no symbols to fetch open interest for')
  }
  return ok
}

async function fetchCgPages(cg: CoinGeckoClient): Promise<CgCoin[]> {
  const pages: CgCoin[][] = []
  // sequential: CoinGecko's public rate limit is per minute and small
  for (let p = 1; p <= COINGECKO_PAGES; p++) {
    try {
      pages.push(await cg.markets(p))
    } catch (e) {
      if (p === 1) throw e
      break // keep the pages we have; the coins of a missing page stay carried
    }
  }
  return pages.flat()
}

/**
 * New CoinGecko coins over the old: a coin in this fetch gets `fetchedAtMs = now`, a coin
 * only in the old value keeps its older time (served as `cg_carried`). Tickers shared by
 * several coins keep the one with the largest market cap (the first, in market-cap order).
 */
export function mergeCgCoins(prev: CgCoinsByTicker | null, fresh: CgCoin[], nowMs: number): CgCoinsByTicker {
  const coins: CgCoinsByTicker['coins'] = { ...(prev?.coins ?? {}) }
  const seen = new Set<string>()
  for (const c of fresh) {
    if (seen.has(c.symbol)) continue
    seen.add(c.symbol)
    coins[c.symbol] = { ...c, fetchedAtMs: nowMs }
  }
  return { coins }
}
