/**
 * GET /coins/stats (contract: CoinStatsResponse): per coin price and 24 h figures (spot,
 * futures, or the candle store), CoinGecko metadata (with cg_carried / cg_as_of when it
 * comes from an earlier fetch), 7-day change and sparkline, and the default strategy's
 * figures from an injected `strategyStats` function.
 */
import type { Ticker24h } from '../upstream/binance'
import { localLabel, LOCAL_STALE_MS, missingLabel, preferUpstream, summarize, upstreamLabel, type Label } from './labels'
import { isoInstant } from '../time'
import type { LocalQuote } from './local'
import type { CgCoinsByTicker } from './sources'
import type { CacheRead } from './swr-cache'

/** The contract's default strategy: the legacy `bb-squeeze-<direction>` with direction short. */
export const DEFAULT_STATS_STRATEGY = 'bb-squeeze-short'

export interface StrategyFigures {
  trades: number
  win_rate: number
  profit_factor: number
  total_return_pct: number
}

/** Figures of the default strategy per symbol (the engine's job; injected). */
export type StrategyStatsFn = (symbols: string[]) => Promise<Map<string, StrategyFigures>> | Map<string, StrategyFigures>

export interface CoinStats extends StrategyFigures {
  symbol: string
  name: string | null
  image: string | null
  price: number
  change_1h: number | null
  change_24h: number
  change_7d: number | null
  volume_24h: number
  market_cap: number | null
  market_cap_rank: number | null
  sparkline_7d: number[] | null
  change_7d_carried: boolean | null
  cg_carried: boolean | null
  cg_as_of: string | null
  /** where the price came from */
  price_market: 'spot' | 'futures' | 'local'
}

export interface CoinStatsResponse {
  generated: string
  strategy: string
  params: Record<string, unknown>
  coins: CoinStats[]
  as_of: string | null
  stale: boolean
  sources: { prices: Label; coingecko: Label; strategy: Label }
  missing_sources: string[]
  notes: string[]
}

export interface CoinInput {
  symbol: string
  /** name from the store's metadata, used when CoinGecko has none */
  storeName: string | null
  local: LocalQuote | null
  localChange7d: number | null
  sparkline7d: number[] | null
}

export interface CoinStatsInputs {
  nowMs: number
  coins: CoinInput[]
  spot: CacheRead<Ticker24h[]>
  futures: CacheRead<Ticker24h[]>
  cg: CacheRead<CgCoinsByTicker>
  strategy: string
  params: Record<string, unknown>
  /** null: the engine is not wired, figures stay at the contract defaults */
  figures: Map<string, StrategyFigures> | null
}

const ZERO: StrategyFigures = { trades: 0, win_rate: 0, profit_factor: 0, total_return_pct: 0 }

export function composeCoinStats(x: CoinStatsInputs): CoinStatsResponse {
  const missing: string[] = []
  const notes: string[] = []
  const spot = new Map((x.spot.value ?? []).map(t => [t.symbol, t]))
  const futures = new Map((x.futures.value ?? []).map(t => [t.symbol, t]))
  const localNewest = x.coins.reduce<number | null>((m, c) => (c.local && (m === null || c.local.asOfMs > m) ? c.local.asOfMs : m), null)
  const useSpot = preferUpstream(x.spot, localNewest)
  const useFutures = preferUpstream(x.futures, localNewest)
  const cgEntry = x.cg.value
  let usedLocalPrice = false
  const unpriced: string[] = []

  const coins: CoinStats[] = []
  for (const c of x.coins) {
    const t = (useSpot ? spot.get(c.symbol) : undefined) ?? (useFutures ? futures.get(c.symbol) : undefined)
    const market = t ? (spot.get(c.symbol) === t ? 'spot' : 'futures') : 'local'
    const price = t?.price ?? c.local?.price
    const change24 = t ? t.changePct : c.local?.change24hPct
    if (price === undefined || change24 === undefined || change24 === null) {
      unpriced.push(c.symbol)
      continue
    }
    if (!t) usedLocalPrice = true
    const cg = cgEntry ? cgCoinFor(cgEntry, c.symbol) : null
    const cgFresh = cg !== null && !x.cg.stale && cg.fetchedAtMs === x.cg.fetchedAtMs
    const localCurrent = c.local !== null && x.nowMs - c.local.asOfMs < LOCAL_STALE_MS
    let change7d: number | null = null
    let change7dCarried: boolean | null = null
    if (cgFresh && cg.change7dPct !== null) [change7d, change7dCarried] = [cg.change7dPct, false]
    else if (localCurrent && c.localChange7d !== null) [change7d, change7dCarried] = [c.localChange7d, false]
    else if (cg && cg.change7dPct !== null) [change7d, change7dCarried] = [cg.change7dPct, true]
    else if (c.localChange7d !== null) [change7d, change7dCarried] = [c.localChange7d, true]
    coins.push({
      symbol: c.symbol,
      name: cg?.name ?? c.storeName,
      image: cg?.image ?? null,
      price,
      change_1h: cg?.change1hPct ?? null,
      change_24h: change24,
      change_7d: change7d,
      volume_24h: t ? t.quoteVolume : c.local!.volume24hQuote,
      market_cap: cg?.marketCapUsd ?? null,
      market_cap_rank: cg?.rank ?? null,
      sparkline_7d: c.sparkline7d,
      change_7d_carried: change7dCarried,
      cg_carried: cg ? !cgFresh : null,
      cg_as_of: cg ? isoInstant(cg.fetchedAtMs) : null,
      price_market: market,
      ...(x.figures?.get(c.symbol) ?? ZERO),
    })
  }

  const priceLabels: Label[] = []
  if (useSpot) priceLabels.push(upstreamLabel(x.spot, x.nowMs))
  if (useFutures) priceLabels.push(upstreamLabel(x.futures, x.nowMs))
  if (usedLocalPrice && localNewest !== null) priceLabels.push(localLabel(localNewest, x.nowMs, x.spot.error ?? x.futures.error))
  const prices = priceLabels.length > 0 ? mergeLabels(priceLabels) : missingLabel(x.spot.error)
  if (!x.spot.value) missing.push(x.spot.source)
  const coingecko = cgEntry ? upstreamLabel(x.cg, x.nowMs) : missingLabel(x.cg.error)
  if (!cgEntry) missing.push(x.cg.source)
  const strategy: Label =
    x.figures && localNewest !== null ? localLabel(localNewest, x.nowMs, null) : { ...missingLabel('strategy figures not computed'), stale: false }
  if (!x.figures) notes.push(`strategy figures (trades, win_rate, profit_factor, total_return_pct) are not computed yet: they are the contract defaults (0), not results of ${x.strategy}`)
  if (unpriced.length > 0) notes.push(`${unpriced.length} coin(s) left out for want of a price from any source: ${unpriced.slice(0, 10).join(', ')}${unpriced.length > 10 ? ', …' : ''}`)

  const sources = { prices, coingecko, strategy }
  return {
    generated: isoInstant(x.nowMs),
    strategy: x.strategy,
    params: x.params,
    coins,
    ...summarize([prices, coingecko]),
    sources,
    missing_sources: missing,
    notes,
  }
}

/** "1000PEPEUSDT" -> PEPE: contracts priced per 1000 tokens share the token's metadata. */
export function cgCoinFor(entry: CgCoinsByTicker, symbol: string) {
  const base = symbol.endsWith('USDT') ? symbol.slice(0, -4) : symbol
  return entry.coins[base] ?? entry.coins[base.replace(/^1000000|^1000/, '')] ?? null
}

/** several sources behind one part: name them all, keep the oldest time and any staleness */
function mergeLabels(labels: Label[]): Label {
  if (labels.length === 1) return labels[0]
  const oldest = labels.reduce((a, b) => ((b.as_of ?? '') < (a.as_of ?? '') ? b : a))
  return {
    source: labels.map(l => l.source).join('+'),
    as_of: oldest.as_of,
    age_seconds: oldest.age_seconds,
    stale: labels.some(l => l.stale),
    proxy: false,
    error: labels.find(l => l.error)?.error ?? null,
  }
}
