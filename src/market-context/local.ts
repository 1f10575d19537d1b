/**
 * Figures the service derives from its own candle store when an upstream is missing:
 * last price, 24 h change and volume, top movers, last funding rates. Each carries the
 * close time of the candle (or the funding event) it comes from, so its label can say
 * how old it is. Formulas: docs/market-context.md.
 */
import type { CandleStore } from '../market/candle-store'
import { indexAtOrBefore } from '../market/coin-summary'
import type { Universe } from '../market/universe'
import type { Bars } from '../market/types'
import { DAY_MS } from '../time'


export interface LocalQuote {
  symbol: string
  price: number
  /** % change of the last close against the close 24 h before; null without that candle */
  change24hPct: number | null
  /** sum of volume × close over the last 24 h of candles (USDT) */
  volume24hQuote: number
  /** close time of the last candle (ms) */
  asOfMs: number
}

export function localQuote(store: CandleStore, symbol: string): LocalQuote | null {
  const bars = store.bars(symbol)
  if (!bars || bars.n === 0) return null
  return quoteOf(symbol, bars)
}

export function quoteOf(symbol: string, bars: Bars): LocalQuote | null {
  const i = bars.n - 1
  const price = bars.c[i]
  if (!(price > 0)) return null
  const lastT = bars.t[i]
  const j = indexAtOrBefore(bars.t, bars.n, lastT - DAY_MS)
  const change24hPct = j >= 0 && bars.t[j] === lastT - DAY_MS && bars.c[j] > 0 ? ((price - bars.c[j]) / bars.c[j]) * 100 : null
  let volume = 0
  for (let k = i; k >= 0 && bars.t[k] > lastT - DAY_MS; k--) volume += bars.v[k] * bars.c[k]
  return { symbol, price, change24hPct, volume24hQuote: volume, asOfMs: lastT + bars.stepMs }
}

/**
 * Quotes of the universe's eligible coins whose last candle is as recent as the newest
 * one in the store (a coin whose data stopped earlier would show an old move as today's).
 */
export function currentLocalQuotes(store: CandleStore, universe: Universe): LocalQuote[] {
  const quotes: LocalQuote[] = []
  for (const c of universe.eligible()) {
    const q = localQuote(store, c.meta.symbol)
    if (q) quotes.push(q)
  }
  const newest = quotes.reduce((m, q) => Math.max(m, q.asOfMs), -Infinity)
  return quotes.filter(q => q.asOfMs === newest)
}

export interface Movers<T> {
  gainers: T[]
  losers: T[]
}

/** The `n` largest rises and falls over 24 h, largest first. */
export function topMovers<T extends { change: number }>(items: T[], n: number): Movers<T> {
  const sorted = [...items].sort((a, b) => b.change - a.change)
  return {
    gainers: sorted.filter(x => x.change > 0).slice(0, n),
    losers: sorted.filter(x => x.change < 0).reverse().slice(0, n),
  }
}

export interface LocalFunding {
  symbol: string
  /** rate of the last settled event, fraction */
  rate: number
  /** time of that event (ms) */
  timeMs: number
}

/** Last settled funding event of each symbol, for symbols whose last event is within a day of the newest. */
export function lastLocalFunding(store: CandleStore, symbols: readonly string[]): LocalFunding[] {
  const out: LocalFunding[] = []
  for (const symbol of symbols) {
    const f = store.funding(symbol)
    if (!f || f.n === 0) continue
    out.push({ symbol, rate: f.rate[f.n - 1], timeMs: f.t[f.n - 1] })
  }
  const newest = out.reduce((m, x) => Math.max(m, x.timeMs), -Infinity)
  return out.filter(x => x.timeMs > newest - DAY_MS)
}
