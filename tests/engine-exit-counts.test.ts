/**
 * The exit counts and the drawdown over random strategies and settings: whatever the
 * exits, levels, leverage, sizing and ruin setting, every trade is counted once under the
 * reason it closed (the seven counts add up to total_trades, per coin too), and the
 * portfolio never reads a drawdown beyond 100 %.
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { simulateAndBook } from '../src/engine/run'
import { EXIT_REASONS } from '../src/engine/types'
import { DAY_MS, HOUR_MS } from '../src/time'
import { barsOf, fundingOf, params, T0, type Ohlc } from './engine-fixtures'

/** A random walk of hourly bars from a seed (moves up to ±`vol` % a bar). */
function walk(n: number, seed: number, vol: number): Ohlc[] {
  let s = seed >>> 0 || 1
  const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32
  const rows: Ohlc[] = []
  let p = 100
  for (let i = 0; i < n; i++) {
    const c = p * (1 + ((rnd() - 0.5) * 2 * vol) / 100)
    rows.push([p, Math.max(p, c) * (1 + (rnd() * vol) / 400), Math.min(p, c) * (1 - (rnd() * vol) / 400), c])
    p = c
  }
  return rows
}

const mask = (n: number, seed: number, rate: number) => {
  let s = seed >>> 0 || 7
  const rnd = () => (s = (Math.imul(s, 22695477) + 1) >>> 0) / 2 ** 32
  return Uint8Array.from({ length: n }, () => (rnd() < rate ? 1 : 0))
}

const settings = fc.record({
  seed: fc.integer({ min: 1, max: 1_000_000 }),
  coins: fc.integer({ min: 1, max: 4 }),
  vol: fc.double({ min: 0.2, max: 4, noNaN: true }),
  entryRate: fc.double({ min: 0.01, max: 0.5, noNaN: true }),
  exitRate: fc.option(fc.double({ min: 0.01, max: 0.3, noNaN: true }), { nil: null }),
  direction: fc.constantFrom('long' as const, 'short' as const),
  slPct: fc.double({ min: 0.5, max: 50, noNaN: true }),
  tpPct: fc.double({ min: 0.5, max: 50, noNaN: true }),
  trailing: fc.boolean(),
  maxBars: fc.integer({ min: 1, max: 168 }),
  leverage: fc.integer({ min: 1, max: 125 }),
  maxConcurrent: fc.integer({ min: 1, max: 5 }),
  compounding: fc.boolean(),
  stopAtRuin: fc.boolean(),
  windowEnd: fc.integer({ min: 50, max: 299 }),
})

describe('exit counts and drawdown, over random strategies and settings', () => {
  test('the seven exit counts add up to total_trades (per coin too), each counting its own reason, and max_drawdown_pct stays within 0..100', () => {
    fc.assert(
      fc.property(settings, s => {
        const n = 300
        const coins = Array.from({ length: s.coins }, (_, k) => {
          const bars = barsOf(walk(n, s.seed + k, s.vol))
          return {
            symbol: `C${k}USDT`,
            bars,
            entry: mask(n, s.seed * 31 + k, s.entryRate),
            exit: s.exitRate === null ? null : mask(n, s.seed * 17 + k, s.exitRate),
            fromIdx: 0,
            toIdx: s.windowEnd,
            funding: fundingOf([[T0 - 8 * HOUR_MS, 0], [T0 + n * HOUR_MS, 0]]),
          }
        })
        const p = params({ direction: s.direction, slPct: s.slPct, tpPct: s.tpPct, tpSource: s.trailing ? 'trailing' : 'custom_pct', maxBars: s.maxBars, leverage: s.leverage })
        const barsBySymbol = new Map(coins.map(c => [c.symbol, c.bars]))
        const r = simulateAndBook({
          coins,
          params: p,
          perCoinUsd: 60,
          maxConcurrent: s.maxConcurrent,
          compounding: s.compounding,
          stopAtRuin: s.stopAtRuin,
          mark: { barsOf: sym => barsBySymbol.get(sym), fromDayMs: T0, toDayMs: T0 + Math.floor((n * HOUR_MS) / DAY_MS) * DAY_MS },
        })
        const m = r.metrics
        const t = r.portfolio.trades
        const byReason = (reason: string, coin = -1) => {
          let k = 0
          for (let i = 0; i < t.n; i++) if (EXIT_REASONS[t.exitReason[i]] === reason && (coin < 0 || t.coin[i] === coin)) k++
          return k
        }
        for (const reason of EXIT_REASONS) expect(m[`${reason}_count`]).toBe(byReason(reason))
        expect(EXIT_REASONS.reduce((sum, reason) => sum + m[`${reason}_count`], 0)).toBe(m.total_trades)
        m.coin_results.forEach((c, k) => {
          for (const reason of EXIT_REASONS) expect(c[`${reason}_count`]).toBe(byReason(reason, k))
          expect(EXIT_REASONS.reduce((sum, reason) => sum + c[`${reason}_count`], 0)).toBe(c.trades)
        })
        expect(m.max_drawdown_pct).toBeGreaterThanOrEqual(0)
        expect(m.max_drawdown_pct).toBeLessThanOrEqual(100)
        // ruin stops the entries unless told otherwise
        if (s.stopAtRuin && r.portfolio.ruinedAtMs !== null) for (let i = 0; i < t.n; i++) expect(t.entryMs[i]).toBeLessThan(r.portfolio.ruinedAtMs)
      }),
      { numRuns: 150, seed: 24 },
    )
  })
})
