/**
 * The coin universe: market-cap order and eligibility for top-N runs.
 *
 * Order: coins with a market-cap rank by rank; coins without one after them, by median
 * daily quote volume (largest first), then by symbol.
 * Eligible for a top-N run (one function, used by every simulator): not a stablecoin
 * (unless includeStablecoins), asset class `crypto`, not delisted (today's universe holds
 * the markets that still trade; point-in-time universes are rank-history.ts), and not
 * liquidity-dead, i.e. a median daily quote volume over the coin's last 30 days of at
 * least LIQUIDITY_DEAD_USD.
 */
import type { CandleStore } from './candle-store'
import type { Bars, CoinMeta } from './types'
import { DAY_MS } from '../time'

/** below this median daily quote volume (USDT) over the last 30 days a market is dead */
export const LIQUIDITY_DEAD_USD = 100_000
const LIQUIDITY_DAYS = 30

export interface UniverseCoin {
  meta: CoinMeta
  /** median daily quote volume over the last 30 days of data (USDT) */
  medianDailyQuoteUsd: number
  liquidityDead: boolean
}

export interface EligibilityOptions {
  includeStablecoins?: boolean
  includeNonCrypto?: boolean
  includeDead?: boolean
  includeDelisted?: boolean
}

/** Median over the last `days` UTC days with data of each day's sum of volume × close. */
export function medianDailyQuoteVolume(bars: Bars, days = LIQUIDITY_DAYS): number {
  if (bars.n === 0) return 0
  const lastDay = Math.floor(bars.t[bars.n - 1] / DAY_MS)
  const firstDay = lastDay - days + 1
  const sums = new Float64Array(days)
  const seen = new Uint8Array(days)
  for (let i = bars.n - 1; i >= 0; i--) {
    const d = Math.floor(bars.t[i] / DAY_MS)
    if (d < firstDay) break
    sums[d - firstDay] += bars.v[i] * bars.c[i]
    seen[d - firstDay] = 1
  }
  const vals: number[] = []
  for (let k = 0; k < days; k++) if (seen[k]) vals.push(sums[k])
  vals.sort((a, b) => a - b)
  const m = vals.length >> 1
  return vals.length % 2 ? vals[m] : (vals[m - 1] + vals[m]) / 2
}

export function isEligible(coin: UniverseCoin, opts: EligibilityOptions = {}): boolean {
  if (coin.meta.stablecoin && !opts.includeStablecoins) return false
  if (coin.meta.assetClass !== 'crypto' && !opts.includeNonCrypto) return false
  if (coin.liquidityDead && !opts.includeDead) return false
  if (coin.meta.status === 'delisted' && !opts.includeDelisted) return false
  return true
}

function compareCoins(a: UniverseCoin, b: UniverseCoin): number {
  const ra = a.meta.rank, rb = b.meta.rank
  if (ra !== null && rb !== null) return ra - rb || a.meta.symbol.localeCompare(b.meta.symbol)
  if (ra !== null) return -1
  if (rb !== null) return 1
  return b.medianDailyQuoteUsd - a.medianDailyQuoteUsd || a.meta.symbol.localeCompare(b.meta.symbol)
}

/** The store's coins in market-cap order; recomputed only when the store changes. */
export class Universe {
  private cachedVersion = -1
  private cached: UniverseCoin[] = []

  constructor(private readonly store: CandleStore) {}

  all(): UniverseCoin[] {
    if (this.cachedVersion !== this.store.version) {
      this.cached = this.store.allMeta().map(meta => {
        const bars = this.store.bars(meta.symbol)!
        const med = medianDailyQuoteVolume(bars)
        return { meta, medianDailyQuoteUsd: med, liquidityDead: med < LIQUIDITY_DEAD_USD }
      })
      this.cached.sort(compareCoins)
      this.cachedVersion = this.store.version
    }
    return this.cached
  }

  /** the eligible coins per set of options, for the store version `all()` was made at */
  private eligibleVersion = -1
  private readonly eligibleLists = new Map<string, UniverseCoin[]>()

  /** The eligible coins in market-cap order (a list of its own: made once per store version and options, then copied). */
  eligible(opts: EligibilityOptions = {}): UniverseCoin[] {
    const all = this.all()
    if (this.eligibleVersion !== this.cachedVersion) {
      this.eligibleLists.clear()
      this.eligibleVersion = this.cachedVersion
    }
    const key = `${!!opts.includeStablecoins}|${!!opts.includeNonCrypto}|${!!opts.includeDead}|${!!opts.includeDelisted}`
    let list = this.eligibleLists.get(key)
    if (!list) this.eligibleLists.set(key, (list = all.filter(c => isEligible(c, opts))))
    return list.slice()
  }

  /** The first `n` eligible coins in market-cap order. */
  topN(n: number, opts: EligibilityOptions = {}): UniverseCoin[] {
    return this.eligible(opts).slice(0, n)
  }

  get(symbol: string): UniverseCoin | undefined {
    return this.all().find(c => c.meta.symbol === symbol)
  }
}
