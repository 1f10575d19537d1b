/**
 * GET /market: the market overview composed from upstream reads and, where an upstream
 * is missing, from the candle store (labelled `local` / `local-proxy`).
 */
import type { FundingNow, Ticker24h } from '../upstream/binance'
import type { CgGlobal } from '../upstream/coingecko'
import type { FearGreedPoint } from '../upstream/fear-greed'
import type { FearGreedProxy } from './fear-greed-proxy'
import { localLabel, missingLabel, preferUpstream, summarize, upstreamLabel, type Label } from './labels'
import { topMovers, type LocalFunding, type LocalQuote } from './local'
import { regimeBand } from './regime'
import type { CacheRead } from './swr-cache'
import { HOUR_MS, isoInstant } from '../time'

export const TOP_MOVERS = 5
/** spot pairs below this 24 h quote volume (USDT) are too thin to list as movers */
export const MIN_MOVER_VOLUME_USD = 1_000_000
/** |funding rate| per event from which a rate counts as extreme (5x the 0.01 % baseline) */
export const EXTREME_FUNDING_RATE = 0.0005
export const EXTREME_FUNDING_MAX = 10
/** the daily index is served as the published one while its day is at most this old */
export const FEAR_GREED_MAX_AGE_MS = 48 * HOUR_MS

/** Stablecoin bases and leveraged-token suffixes that are not "movers". */
const STABLE_BASES = new Set(['USDC', 'FDUSD', 'TUSD', 'BUSD', 'DAI', 'USDP', 'USDD', 'PYUSD', 'USDE', 'USD1', 'EUR', 'EURI', 'AEUR', 'XUSD', 'BFUSD', 'RLUSD', 'FRAX', 'GUSD', 'LUSD', 'USDS'])
const LEVERAGED = /(UP|DOWN|BULL|BEAR)USDT$/

export interface Mover {
  symbol: string
  price: number
  change_24h: number
  volume_24h: number | null
}

export interface FundingItem {
  symbol: string
  /** fraction per funding event (0.0001 = 0.01 %) */
  funding_rate: number
  funding_rate_pct: number
  mark_price: number | null
  next_funding_time: string | null
  as_of: string
}

export interface MarketOverview {
  btc_price: number | null
  btc_change_24h: number | null
  eth_price: number | null
  eth_change_24h: number | null
  fear_greed_index: number | null
  fear_greed_label: string | null
  total_market_cap_b: number | null
  btc_dominance: number | null
  total_volume_24h_b: number | null
  top_gainers: Mover[]
  top_losers: Mover[]
  extreme_funding: FundingItem[]
  as_of: string | null
  stale: boolean
  sources: { prices: Label; fear_greed: Label; global: Label; funding: Label }
  missing_sources: string[]
}

export interface OverviewInputs {
  nowMs: number
  spot: CacheRead<Ticker24h[]>
  fearGreed: CacheRead<FearGreedPoint[]>
  global: CacheRead<CgGlobal>
  premium: CacheRead<FundingNow[]>
  /** BTC and ETH from the candle store, null without candles */
  localBtc: LocalQuote | null
  localEth: LocalQuote | null
  /** current local quotes of the eligible universe */
  localQuotes: LocalQuote[]
  localFunding: LocalFunding[]
  proxy: FearGreedProxy | null
  /** symbols the store flags as stablecoins */
  stablecoins: ReadonlySet<string>
}

export function composeOverview(x: OverviewInputs): MarketOverview {
  const missing: string[] = []
  const out: Partial<MarketOverview> = {}

  // prices and movers: spot tickers, or the candle store
  let prices: Label
  if (preferUpstream(x.spot, x.localBtc?.asOfMs ?? null)) {
    const bySymbol = new Map(x.spot.value!.map(t => [t.symbol, t]))
    const btc = bySymbol.get('BTCUSDT'), eth = bySymbol.get('ETHUSDT')
    Object.assign(out, { btc_price: btc?.price ?? null, btc_change_24h: btc?.changePct ?? null, eth_price: eth?.price ?? null, eth_change_24h: eth?.changePct ?? null })
    const movers = topMovers(x.spot.value!.filter(t => isMoverCandidate(t, x.stablecoins)).map(t => ({ symbol: t.symbol, price: t.price, change: t.changePct, volume: t.quoteVolume })), TOP_MOVERS)
    out.top_gainers = movers.gainers.map(toMover)
    out.top_losers = movers.losers.map(toMover)
    prices = upstreamLabel(x.spot, x.nowMs)
  } else if (x.localBtc || x.localQuotes.length > 0) {
    Object.assign(out, { btc_price: x.localBtc?.price ?? null, btc_change_24h: x.localBtc?.change24hPct ?? null, eth_price: x.localEth?.price ?? null, eth_change_24h: x.localEth?.change24hPct ?? null })
    const movers = topMovers(x.localQuotes.filter(q => q.change24hPct !== null).map(q => ({ symbol: q.symbol, price: q.price, change: q.change24hPct!, volume: q.volume24hQuote })), TOP_MOVERS)
    out.top_gainers = movers.gainers.map(toMover)
    out.top_losers = movers.losers.map(toMover)
    const asOf = x.localBtc?.asOfMs ?? x.localQuotes[0].asOfMs
    prices = localLabel(asOf, x.nowMs, x.spot.error)
  } else {
    Object.assign(out, { btc_price: null, btc_change_24h: null, eth_price: null, eth_change_24h: null, top_gainers: [], top_losers: [] })
    prices = missingLabel(x.spot.error)
    missing.push(x.spot.source)
  }

  // fear & greed: the published index while its day is recent, else the labelled proxy
  let fearGreed: Label
  const fg = x.fearGreed.value?.[0]
  if (fg && x.nowMs - fg.timestampMs <= FEAR_GREED_MAX_AGE_MS) {
    out.fear_greed_index = fg.value
    out.fear_greed_label = fg.classification
    fearGreed = upstreamLabel(x.fearGreed, x.nowMs)
  } else if (x.proxy) {
    out.fear_greed_index = x.proxy.value
    out.fear_greed_label = regimeBand(x.proxy.value).name
    fearGreed = localLabel(x.proxy.asOfMs, x.nowMs, x.fearGreed.error ?? (fg ? 'published value too old' : null), true)
  } else {
    out.fear_greed_index = null
    out.fear_greed_label = null
    fearGreed = missingLabel(x.fearGreed.error)
    missing.push(x.fearGreed.source)
  }

  // whole-market figures: CoinGecko only (nothing local can stand in)
  let global: Label
  const g = x.global.value
  if (g) {
    out.total_market_cap_b = g.totalMarketCapUsd / 1e9
    out.btc_dominance = g.btcDominancePct
    out.total_volume_24h_b = g.totalVolumeUsd / 1e9
    global = upstreamLabel(x.global, x.nowMs)
  } else {
    out.total_market_cap_b = out.btc_dominance = out.total_volume_24h_b = null
    global = missingLabel(x.global.error)
    missing.push(x.global.source)
  }

  // extreme funding: current premium index, or the store's last settled rates
  let funding: Label
  const localNewest = x.localFunding.reduce<number | null>((m, f) => (m === null || f.timeMs > m ? f.timeMs : m), null)
  if (preferUpstream(x.premium, localNewest)) {
    const asOf = isoInstant(x.premium.fetchedAtMs!)
    out.extreme_funding = extremeFirst(x.premium.value!.map(f => ({ symbol: f.symbol, rate: f.fundingRate, mark: f.markPrice, next: f.nextFundingTimeMs, asOf })))
    funding = upstreamLabel(x.premium, x.nowMs)
  } else if (localNewest !== null) {
    out.extreme_funding = extremeFirst(x.localFunding.map(f => ({ symbol: f.symbol, rate: f.rate, mark: null, next: null, asOf: isoInstant(f.timeMs) })))
    funding = localLabel(localNewest, x.nowMs, x.premium.error)
  } else {
    out.extreme_funding = []
    funding = missingLabel(x.premium.error)
    missing.push(x.premium.source)
  }

  const sources = { prices, fear_greed: fearGreed, global, funding }
  return { ...(out as MarketOverview), ...summarize(Object.values(sources)), sources, missing_sources: missing }
}

function isMoverCandidate(t: Ticker24h, stablecoins: ReadonlySet<string>): boolean {
  const base = t.symbol.slice(0, -4)
  return t.quoteVolume >= MIN_MOVER_VOLUME_USD && !LEVERAGED.test(t.symbol) && !STABLE_BASES.has(base) && !stablecoins.has(t.symbol)
}

function toMover(m: { symbol: string; price: number; change: number; volume: number | null }): Mover {
  return { symbol: m.symbol, price: m.price, change_24h: m.change, volume_24h: m.volume }
}

function extremeFirst(items: { symbol: string; rate: number; mark: number | null; next: number | null; asOf: string }[]): FundingItem[] {
  return items
    .filter(f => Math.abs(f.rate) >= EXTREME_FUNDING_RATE)
    .sort((a, b) => Math.abs(b.rate) - Math.abs(a.rate) || a.symbol.localeCompare(b.symbol))
    .slice(0, EXTREME_FUNDING_MAX)
    .map(f => ({
      symbol: f.symbol,
      funding_rate: f.rate,
      funding_rate_pct: f.rate * 100,
      mark_price: f.mark,
      next_funding_time: f.next === null ? null : isoInstant(f.next),
      as_of: f.asOf,
    }))
}
