/** Hand-built 1H candles for the research tests: price paths whose trades are known in advance. */
import type { CandleStore } from '../src/market/candle-store'

export const T0 = Date.UTC(2025, 0, 1)
export const HOUR = 3_600_000
export const DAY = 86_400_000

/** [open, close] per bar */
export type Bar = readonly [number, number]

/** Columns t,o,h,l,c,v: high and low 0.01 % beyond the body, ample volume (never liquidity-dead). */
export function columns(bars: readonly Bar[], t0 = T0): number[][] {
  const cols: number[][] = [[], [], [], [], [], []]
  bars.forEach(([o, c], i) => {
    cols[0].push(t0 + i * HOUR)
    cols[1].push(o)
    cols[2].push(Math.max(o, c) * 1.0001)
    cols[3].push(Math.min(o, c) * 0.9999)
    cols[4].push(c)
    cols[5].push(1e6)
  })
  return cols
}

/** n bars, each closing at its open × factor(i), each opening at the previous close (no gaps). */
export function drift(n: number, start: number, factor: (i: number) => number): Bar[] {
  const out: Bar[] = []
  let p = start
  for (let i = 0; i < n; i++) {
    const c = p * factor(i)
    out.push([p, c])
    p = c
  }
  return out
}

/**
 * Patterns of 96 bars (4 days, so every pattern starts at the same hour): bar 0 a small
 * bullish candle (the only one: the signal `is_bullish`), bars 1–24 flat candles that each
 * open `gap` beyond the previous close (up for gap > 1, down for gap < 1), the rest flat.
 * A long trade entering after bar 0 and timing out after 24 bars gains (or loses) 23 gaps;
 * a random entry mostly sits in the flat part.
 */
export function pumps(patterns: number, gap: number, start = 100): Bar[] {
  const out: Bar[] = []
  let p = start
  for (let k = 0; k < patterns; k++) {
    out.push([p, p * 1.0001])
    p *= 1.0001
    for (let i = 1; i < 96; i++) {
      if (i <= 24) p *= gap
      out.push([p, p])
    }
  }
  return out
}

export interface CoinFixture {
  symbol: string
  bars: readonly Bar[]
  t0?: number
}

/** Write the coins (ranked in the order given, all crypto) into the store. */
export function addCoins(store: CandleStore, coins: readonly CoinFixture[]): void {
  for (const c of coins) {
    const cols = columns(c.bars, c.t0)
    store.appendCandles(c.symbol, cols, cols[0].length)
  }
  store.upsertMeta(
    coins.map((c, k) => ({ symbol: c.symbol, name: c.symbol, rank: k + 1, stablecoin: false, assetClass: 'crypto' as const, listingMs: c.t0 ?? T0 })),
    'binance-csv',
  )
}

/** Always true: enter at every bar a position is free. */
export const ALWAYS = { type: 'AND', conditions: [{ field: 'close', op: '>', value: 0 }] }
/** The bullish-candle signal of `pumps`. */
export const BULLISH = { type: 'AND', conditions: [{ field: 'is_bullish', op: '==', value: true }] }
