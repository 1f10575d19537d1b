import { describe, expect, test } from 'bun:test'
import { bootstrapCI } from '../src/engine/statistics-bootstrap'
import { mulberry32 } from '../src/engine/random'
import { percentileOfSorted } from '../src/engine/statistics-monte-carlo'
import { annualizedSharpe } from '../src/engine/statistics-moments'
import { uncappedProfitFactor as profitFactor } from '../src/engine/metrics-breakdown'

// 40 trade returns (%) with 14 losers, built without randomness
const trades = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? -1.5 - (i % 7) * 0.3 : 0.8 + (i % 5) * 0.45))
// 500 daily returns: a deterministic wiggle around a small positive mean
const daily = Array.from({ length: 500 }, (_, i) => 0.001 + 0.01 * Math.sin(i * 2.3) + 0.004 * Math.cos(i * 0.7))

describe('percentile bootstrap CI', () => {
  test('is reproducible: the same seed gives the same interval on every run', () => {
    const a = bootstrapCI(trades, 'profit_factor', { seed: 7 })
    const b = bootstrapCI(trades, 'profit_factor', { seed: 7 })
    expect(a).toEqual(b)
    expect(bootstrapCI(daily, 'sharpe', { seed: 7 })).toEqual(bootstrapCI(daily, 'sharpe', { seed: 7 }))
  })

  test('a different seed gives a different interval', () => {
    expect(bootstrapCI(trades, 'profit_factor', { seed: 7 })).not.toEqual(bootstrapCI(trades, 'profit_factor', { seed: 8 }))
  })

  test('reports level, method and number of resamples, with defaults 0.95 and 1000', () => {
    const ci = bootstrapCI(trades, 'profit_factor')!
    expect(ci.level).toBe(0.95)
    expect(ci.method).toBe('percentile bootstrap')
    expect(ci.resamples).toBe(1000)
    expect(bootstrapCI(trades, 'profit_factor', { resamples: 200, level: 0.9 })).toMatchObject({ level: 0.9, resamples: 200 })
  })

  test('the bounds are the type-7 percentiles of the statistic over resamples drawn with mulberry32', () => {
    // the documented algorithm, written out: resample r draws n indices floor(u·n)
    const next = mulberry32(123)
    const stats: number[] = []
    for (let r = 0; r < 300; r++) {
      const sample = trades.map(() => trades[Math.floor(next() * trades.length)])
      stats.push(profitFactor(sample))
    }
    stats.sort((a, b) => a - b)
    const ci = bootstrapCI(trades, 'profit_factor', { seed: 123, resamples: 300 })!
    expect(ci.low).toBeCloseTo(percentileOfSorted(stats, 2.5), 12)
    expect(ci.high).toBeCloseTo(percentileOfSorted(stats, 97.5), 12)
  })

  test('covers the point estimate, and a higher level gives a wider interval', () => {
    const pf = profitFactor(trades)
    const ci95 = bootstrapCI(trades, 'profit_factor', { seed: 3 })!
    const ci80 = bootstrapCI(trades, 'profit_factor', { seed: 3, level: 0.8 })!
    expect(ci95.low).toBeLessThan(pf)
    expect(ci95.high).toBeGreaterThan(pf)
    expect(ci95.high - ci95.low).toBeGreaterThan(ci80.high - ci80.low)
  })

  test('the Sharpe CI is annualised by √365 and close to the asymptotic SR ± 1.96·σ(SR)', () => {
    const sr = annualizedSharpe(daily)!
    const ci = bootstrapCI(daily, 'sharpe', { seed: 11, resamples: 2000 })!
    const srDaily = sr / Math.sqrt(365)
    const halfWidth = 1.96 * Math.sqrt((1 + (srDaily * srDaily) / 2) / (daily.length - 1)) * Math.sqrt(365)
    expect(ci.low).toBeLessThan(sr)
    expect(ci.high).toBeGreaterThan(sr)
    expect(Math.abs((ci.high - ci.low) / (2 * halfWidth) - 1)).toBeLessThan(0.15)
    const perDay = bootstrapCI(daily, 'sharpe', { seed: 11, resamples: 2000, periodsPerYear: 1 })!
    expect(perDay.low * Math.sqrt(365)).toBeCloseTo(ci.low, 10)
  })

  test('more data gives a narrower interval', () => {
    const four = [...trades, ...trades, ...trades, ...trades]
    const one = bootstrapCI(trades, 'profit_factor', { seed: 5 })!
    const more = bootstrapCI(four, 'profit_factor', { seed: 5 })!
    expect(more.high - more.low).toBeLessThan(one.high - one.low)
  })

  test('gives no interval where the statistic has no finite value', () => {
    expect(bootstrapCI([1, 2, 3], 'profit_factor')).toBeNull() // no losing trade
    expect(bootstrapCI([1], 'sharpe')).toBeNull()
    expect(bootstrapCI([0.01, 0.01, 0.01], 'sharpe')).toBeNull()
    expect(bootstrapCI([1, NaN, -1], 'profit_factor')).toBeNull()
    // one loser in ten: about a third of the resamples have no loser, so the upper bound is infinite
    expect(bootstrapCI([2, 2, 2, 2, 2, 2, 2, 2, 2, -1], 'profit_factor', { seed: 1 })).toBeNull()
  })

  test('rejects invalid options', () => {
    expect(() => bootstrapCI(trades, 'sharpe', { resamples: 0 })).toThrow(RangeError)
    expect(() => bootstrapCI(trades, 'sharpe', { level: 1 })).toThrow(RangeError)
  })
})

describe('profit factor interval from the normal approximation of the resampled sums', () => {
  // 5000 trade returns, 55 % winners up to +8 %, losers down to −9 %
  const values = Float64Array.from({ length: 5000 }, (_, i) => {
    const u = Math.abs(Math.sin(i * 12.9898) * 43758.5453) % 1
    return u < 0.55 ? 8 * u : -20 * (u - 0.55)
  })

  test('is seeded and reports its method and draws', async () => {
    const { profitFactorNormalCI } = await import('../src/engine/statistics-bootstrap')
    const a = profitFactorNormalCI(values, { resamples: 1000, seed: 9 })!
    expect(profitFactorNormalCI(values, { resamples: 1000, seed: 9 })).toEqual(a)
    expect(profitFactorNormalCI(values, { resamples: 1000, seed: 10 })).not.toEqual(a)
    expect([a.method, a.resamples, a.level]).toEqual(['normal-sums bootstrap', 1000, 0.95])
    expect(a.low).toBeLessThan(a.high)
  })

  test('agrees with the resampling bootstrap on a large sample', async () => {
    const { profitFactorNormalCI } = await import('../src/engine/statistics-bootstrap')
    const normal = profitFactorNormalCI(values, { resamples: 4000, seed: 1 })!
    const resampled = bootstrapCI(values, 'profit_factor', { resamples: 4000, seed: 2 })!
    // the two differ by Monte Carlo noise only: well within 1 % of the bounds
    expect(Math.abs(normal.low - resampled.low)).toBeLessThan(0.01 * resampled.low)
    expect(Math.abs(normal.high - resampled.high)).toBeLessThan(0.01 * resampled.high)
  })

  test('is null without a losing trade or with fewer than two values', async () => {
    const { profitFactorNormalCI } = await import('../src/engine/statistics-bootstrap')
    expect(profitFactorNormalCI([1, 2, 3])).toBeNull()
    expect(profitFactorNormalCI([-1])).toBeNull()
  })

  test('a run uses it above 20,000 trades, the resampling bootstrap below', async () => {
    const { profitFactorCiPayload, NORMAL_SUMS_ABOVE } = await import('../src/runs/statistics-inputs')
    expect(NORMAL_SUMS_ABOVE).toBe(20_000)
    expect(profitFactorCiPayload(new Float64Array(20_000), 1)).toMatchObject({ method: 'percentile', resamples: 100 })
    expect(profitFactorCiPayload(new Float64Array(20_001), 1)).toMatchObject({ method: 'normal-sums', resamples: 1000 })
    expect(profitFactorCiPayload(new Float64Array(500), 1)).toMatchObject({ method: 'percentile', resamples: 1000 })
  })
})
