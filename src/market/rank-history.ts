/**
 * Rank history: each day's universe as it was known that day (docs/data.md, "Rank
 * history"). The order of day d uses only what was known before d began:
 *
 * - market caps: when any coin has a market cap dated d − 1 (imported from a CSV or from
 *   CoinGecko's `market_chart`), coins with one are ordered by it (largest first) and come
 *   before the others; that day is ranked from `market_cap`;
 * - otherwise, and for the coins without a market cap, by the trailing quote volume of
 *   the store's own candles: the sum of volume × close over days d − 30 … d − 1 (largest
 *   first, then by symbol); such a day is ranked from `volume`.
 *
 * A coin is in day d's order when it traded the day before (a candle on d − 1), and was
 * not delisted before d. Eligibility is the universe's rule (universe.ts: not a stablecoin
 * unless asked, asset class crypto, not liquidity-dead), with the liquidity measured over
 * the same 30 days before d. Cutting the store after day d leaves day d's order unchanged
 * (tests/universe-pit.test.ts).
 */
import type { CandleStore } from './candle-store'
import { LIQUIDITY_DEAD_USD, type EligibilityOptions } from './universe'
import type { CoinMeta } from './types'
import { DAY_MS } from '../time'

/** days of candles before d that rank day d by volume (and judge its liquidity) */
export const RANK_VOLUME_DAYS = 30

export type RankSource = 'market_cap' | 'volume'

export interface RankedCoin {
  symbol: string
  /** the market cap dated d − 1 (USD); null: ranked by volume */
  marketCapUsd: number | null
  /** quote volume over the 30 days before d (USDT) */
  quoteVolume30d: number
}

interface CoinDays {
  meta: CoinMeta
  /** day index (from the history's first day) of the first and last candle */
  firstDay: number
  lastDay: number
  /** quote volume (Σ volume × close) per day index; NaN: no candle that day */
  quote: Float64Array
  /** prefix sums of quote (NaN counted as 0): prefix[k] = Σ quote[0 … k−1] */
  prefix: Float64Array
  /** market cap per day index (NaN: none) */
  cap: Float64Array | null
  /** delisted coins: the day index of the last candle */
  delistedDay: number | null
}

interface Built {
  version: number
  /** UTC midnight of day index 0 */
  day0Ms: number
  nDays: number
  coins: CoinDays[]
  /** any coin has a market cap on day index k */
  capOnDay: Uint8Array
}

/** The store's rank history; rebuilt only when the store changes. */
export class RankHistory {
  private built: Built | null = null

  constructor(private readonly store: CandleStore) {}

  private state(): Built {
    if (this.built?.version !== this.store.version) this.built = build(this.store)
    return this.built
  }

  /** The first day that has an order: the day after the first day with candles (null: no candles). */
  firstRankedDayMs(): number | null {
    const b = this.state()
    return b.coins.length ? b.day0Ms + DAY_MS : null
  }

  /** What ranked day `dayMs` (a UTC midnight): market caps, volume, or nothing (no coin traded the day before). */
  sourceOf(dayMs: number): RankSource | null {
    const b = this.state()
    const di = Math.round((dayMs - b.day0Ms) / DAY_MS)
    if (di < 1 || di > b.nDays) return null
    if (b.capOnDay[di - 1]) return 'market_cap'
    return b.coins.some(c => tradedOn(c, di - 1)) ? 'volume' : null
  }

  /** The eligible coins of day `dayMs` (a UTC midnight) in the order known that day. */
  rankedOn(dayMs: number, opts: EligibilityOptions = {}): RankedCoin[] {
    const b = this.state()
    const di = Math.round((dayMs - b.day0Ms) / DAY_MS)
    if (di < 1) return []
    const byCap = di - 1 < b.nDays && b.capOnDay[di - 1] === 1
    const from = Math.max(0, di - RANK_VOLUME_DAYS)
    const to = Math.min(di, b.nDays) // exclusive: days before d only
    const out: RankedCoin[] = []
    const scratch: number[] = []
    for (const c of b.coins) {
      if (di - 1 >= b.nDays || !tradedOn(c, di - 1)) continue
      if (c.delistedDay !== null && c.delistedDay < di) continue
      const m = c.meta
      if (m.stablecoin && !opts.includeStablecoins) continue
      if (m.assetClass !== 'crypto' && !opts.includeNonCrypto) continue
      if (!opts.includeDead && medianQuote(c, from, to, scratch) < LIQUIDITY_DEAD_USD) continue
      const cap = byCap && c.cap ? c.cap[di - 1] : NaN
      out.push({ symbol: m.symbol, marketCapUsd: Number.isFinite(cap) ? cap : null, quoteVolume30d: c.prefix[to] - c.prefix[from] })
    }
    out.sort(compareRanked)
    return out
  }
}

function tradedOn(c: CoinDays, day: number): boolean {
  return day >= c.firstDay && day <= c.lastDay && !Number.isNaN(c.quote[day])
}

function compareRanked(a: RankedCoin, b: RankedCoin): number {
  if (a.marketCapUsd !== null && b.marketCapUsd !== null) return b.marketCapUsd - a.marketCapUsd || a.symbol.localeCompare(b.symbol)
  if (a.marketCapUsd !== null) return -1
  if (b.marketCapUsd !== null) return 1
  return b.quoteVolume30d - a.quoteVolume30d || a.symbol.localeCompare(b.symbol)
}

/** Median of the days with candles in [from, to) of a coin's daily quote volume (0 with none). */
function medianQuote(c: CoinDays, from: number, to: number, scratch: number[]): number {
  scratch.length = 0
  for (let k = from; k < to; k++) if (!Number.isNaN(c.quote[k])) scratch.push(c.quote[k])
  if (scratch.length === 0) return 0
  scratch.sort((x, y) => x - y)
  const m = scratch.length >> 1
  return scratch.length % 2 ? scratch[m] : (scratch[m - 1] + scratch[m]) / 2
}

function build(store: CandleStore): Built {
  const metas = store.allMeta()
  let first = Infinity, last = -Infinity
  for (const m of metas) {
    const b = store.bars(m.symbol)
    if (!b || b.n === 0) continue
    first = Math.min(first, Math.floor(b.t[0] / DAY_MS))
    last = Math.max(last, Math.floor(b.t[b.n - 1] / DAY_MS))
  }
  const version = store.version
  if (!Number.isFinite(first)) return { version, day0Ms: 0, nDays: 0, coins: [], capOnDay: new Uint8Array(0) }
  const nDays = last - first + 1
  const capOnDay = new Uint8Array(nDays)
  const coins: CoinDays[] = []
  for (const meta of metas) {
    const b = store.bars(meta.symbol)
    if (!b || b.n === 0) continue
    const quote = new Float64Array(nDays).fill(NaN)
    const { t, v, c } = b
    for (let i = 0; i < b.n; i++) {
      const d = Math.floor(t[i] / DAY_MS) - first
      const q = v[i] * c[i]
      quote[d] = Number.isNaN(quote[d]) ? q : quote[d] + q
    }
    const prefix = new Float64Array(nDays + 1)
    for (let k = 0; k < nDays; k++) prefix[k + 1] = prefix[k] + (Number.isNaN(quote[k]) ? 0 : quote[k])
    let cap: Float64Array | null = null
    const caps = store.marketCaps(meta.symbol)
    if (caps && caps.n > 0) {
      cap = new Float64Array(nDays).fill(NaN)
      for (let i = 0; i < caps.n; i++) {
        const d = Math.floor(caps.t[i] / DAY_MS) - first
        if (d >= 0 && d < nDays && caps.cap[i] > 0) {
          cap[d] = caps.cap[i]
          capOnDay[d] = 1
        }
      }
    }
    const delistedDay = meta.status === 'delisted' ? Math.floor((meta.delistedMs ?? t[b.n - 1]) / DAY_MS) - first : null
    coins.push({ meta, firstDay: Math.floor(t[0] / DAY_MS) - first, lastDay: Math.floor(t[b.n - 1] / DAY_MS) - first, quote, prefix, cap, delistedDay })
  }
  return { version, day0Ms: first * DAY_MS, nDays, coins, capOnDay }
}
