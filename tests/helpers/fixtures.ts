/** Small fixtures shared by tests: temp folders, the ../shared path, the project's source files, random-walk candles. */
import { mkdtempSync, readdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CandleStore } from '../../src/market/candle-store'
import { HOUR_MS } from '../../src/time'

/** ../shared beside the repository (absent on a machine without it: tests skip) */
export const SHARED = join(import.meta.dir, '..', '..', '..', 'shared')

/** Every .ts / .tsx file under `dir`, depth first in directory order (the source scans of the house-rule tests). */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap(name => {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) return sourceFiles(p)
    return /\.tsx?$/.test(name) ? [p] : []
  })
}

export function tempDir(prefix = 'perpsim-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** Deterministic random-walk 1H candles for tests: `n` bars from `startMs`. */
export function walkCandles(n: number, startMs: number, seed = 1, start = 100): number[][] {
  let s = seed >>> 0 || 1
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32)
  const t: number[] = [], o: number[] = [], h: number[] = [], l: number[] = [], c: number[] = [], v: number[] = []
  let p = start
  for (let i = 0; i < n; i++) {
    const open = p
    const close = open * (1 + (rnd() - 0.5) * 0.02)
    t.push(startMs + i * 3_600_000)
    o.push(open)
    h.push(Math.max(open, close) * (1 + rnd() * 0.005))
    l.push(Math.min(open, close) * (1 - rnd() * 0.005))
    c.push(close)
    // occasional volume bursts, so volume-ratio conditions can fire
    v.push(1000 * (0.5 + rnd()) * (rnd() < 0.05 ? 4 : 1))
    p = close
  }
  return [t, o, h, l, c, v]
}

/**
 * Fill a store with random-walk coins ranked in the given order (crypto, not stablecoins):
 * coin k gets `days` of 1H candles from `startMs` with seed `seedBase + k`.
 */
export function fillWalkUniverse(store: { appendCandles(s: string, c: number[][], n: number): unknown; upsertMeta(m: any[], source: 'binance-csv'): void }, symbols: string[], startMs: number, days: number, seedBase: number): void {
  symbols.forEach((s, k) => {
    const cols = walkCandles(24 * days, startMs, seedBase + k)
    store.appendCandles(s, cols, cols[0].length)
  })
  store.upsertMeta(symbols.map((s, k) => ({ symbol: s, name: s, rank: k + 1, stablecoin: false, assetClass: 'crypto', listingMs: startMs })), 'binance-csv')
}

/**
 * A store of three coins (BTC, ETH, SOL) whose 40 days of hourly walk candles end at the
 * current hour, as an import would leave it: what the end-to-end tests of a live server start on.
 */
export function fillLiveStore(store: CandleStore, seed: number): void {
  const bars = 40 * 24
  const start = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - bars * HOUR_MS
  const coins = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT']
  coins.forEach((s, k) => store.appendCandles(s, walkCandles(bars, start, seed + k), bars))
  store.upsertMeta(coins.map((symbol, k) => ({ symbol, name: symbol, rank: k + 1, stablecoin: false, assetClass: 'crypto' as const, listingMs: start })), 'binance-csv')
}
