/**
 * GET /market/live: one price per coin, spot first, USDT-M futures for coins missing on
 * spot, the candle store for coins neither has; each price names its market.
 */
import type { Ticker24h } from '../upstream/binance'
import { localLabel, missingLabel, preferUpstream, summarize, upstreamLabel, type Label } from './labels'
import { isoInstant } from '../time'
import type { LocalQuote } from './local'
import type { CacheRead } from './swr-cache'

export type PriceMarket = 'spot' | 'futures' | 'local'

export interface LivePrice {
  symbol: string
  price: number
  change_24h: number | null
  /** 24 h volume in USDT */
  volume_24h: number | null
  market: PriceMarket
  as_of: string
}

export interface LivePrices {
  prices: LivePrice[]
  as_of: string | null
  stale: boolean
  sources: { spot: Label; futures: Label; local: Label | null }
  missing_sources: string[]
  /** coins of the universe that have no price from anywhere */
  unpriced: string[]
}

export interface LiveInputs {
  nowMs: number
  /** the coins to price (the universe); empty = every USDT market the exchange lists */
  symbols: string[]
  spot: CacheRead<Ticker24h[]>
  futures: CacheRead<Ticker24h[]>
  local: (symbol: string) => LocalQuote | null
  /** close time of the store's newest candle (ms), null for an empty store */
  localNewestMs: number | null
}

export function composeLive(x: LiveInputs): LivePrices {
  // a stale exchange answer (e.g. stored before an offline restart) loses to newer candles
  const spot = new Map((preferUpstream(x.spot, x.localNewestMs) ? x.spot.value! : []).map(t => [t.symbol, t]))
  const futures = new Map((preferUpstream(x.futures, x.localNewestMs) ? x.futures.value! : []).map(t => [t.symbol, t]))
  const symbols = x.symbols.length > 0 ? x.symbols : [...new Set([...spot.keys(), ...futures.keys()])].sort()
  const spotAsOf = x.spot.fetchedAtMs === null ? null : isoInstant(x.spot.fetchedAtMs)
  const futAsOf = x.futures.fetchedAtMs === null ? null : isoInstant(x.futures.fetchedAtMs)

  const prices: LivePrice[] = []
  const unpriced: string[] = []
  let localNewest: number | null = null
  for (const symbol of symbols) {
    const s = spot.get(symbol)
    if (s) {
      prices.push({ symbol, price: s.price, change_24h: s.changePct, volume_24h: s.quoteVolume, market: 'spot', as_of: spotAsOf! })
      continue
    }
    const f = futures.get(symbol)
    if (f) {
      prices.push({ symbol, price: f.price, change_24h: f.changePct, volume_24h: f.quoteVolume, market: 'futures', as_of: futAsOf! })
      continue
    }
    const q = x.local(symbol)
    if (q) {
      prices.push({ symbol, price: q.price, change_24h: q.change24hPct, volume_24h: q.volume24hQuote, market: 'local', as_of: isoInstant(q.asOfMs) })
      if (localNewest === null || q.asOfMs > localNewest) localNewest = q.asOfMs
      continue
    }
    unpriced.push(symbol)
  }

  const missing: string[] = []
  const spotLabel = x.spot.value ? upstreamLabel(x.spot, x.nowMs) : (missing.push(x.spot.source), missingLabel(x.spot.error))
  const futLabel = x.futures.value ? upstreamLabel(x.futures, x.nowMs) : (missing.push(x.futures.source), missingLabel(x.futures.error))
  const localL = localNewest === null ? null : localLabel(localNewest, x.nowMs, x.spot.error ?? x.futures.error)
  const used = [spot.size > 0 ? spotLabel : null, futures.size > 0 ? futLabel : null, localL].filter((l): l is Label => l !== null)
  const summary = summarize(used.length > 0 ? used : [spotLabel])
  return { prices, ...summary, stale: summary.stale || missing.length > 0, sources: { spot: spotLabel, futures: futLabel, local: localL }, missing_sources: missing, unpriced }
}
