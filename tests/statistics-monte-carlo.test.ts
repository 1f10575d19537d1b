import { describe, expect, test } from 'bun:test'
import { equityBands, mcPValue, percentiles } from '../src/engine/statistics-monte-carlo'
import { Mulberry32, deriveSeed, mulberry32, randomInt } from '../src/engine/random'

describe('Monte Carlo p-value', () => {
  test('counts simulations at least as good, with (k + 1)/(n + 1): 5 among 1..10 gives 7/11', () => {
    const sims = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    const r = mcPValue(5, sims)!
    expect(r.p_value).toBeCloseTo(7 / 11, 15)
    // 4 below, 1 tie counted half: (4 + 0.5)/10
    expect(r.percentile).toBeCloseTo(45, 12)
  })

  test('a result better than all 999 simulations gets p = 1/1000, never 0', () => {
    const sims = Array.from({ length: 999 }, (_, i) => i / 1000)
    expect(mcPValue(5, sims)).toEqual({ p_value: 1 / 1000, percentile: 100 })
  })

  test('a result worse than every simulation gets p = 1 and percentile 0', () => {
    expect(mcPValue(-1, [0, 1, 2])).toEqual({ p_value: 1, percentile: 0 })
  })

  test('ignores NaN simulations; no simulation or a NaN observation gives null', () => {
    expect(mcPValue(2, [1, NaN, 3])!.p_value).toBeCloseTo(2 / 3, 15)
    expect(mcPValue(2, [])).toBeNull()
    expect(mcPValue(NaN, [1, 2])).toBeNull()
  })
})

describe('percentiles', () => {
  test('interpolate linearly between order statistics (numpy default): 1..5', () => {
    expect(percentiles([5, 3, 1, 4, 2])).toEqual([1.2, 2, 3, 4, 4.8])
    expect(percentiles([10, 20], [0, 50, 100])).toEqual([10, 15, 20])
  })

  test('ignore NaN and give null when nothing is left', () => {
    expect(percentiles([NaN, 4, NaN, 2], [50])).toEqual([3])
    expect(percentiles([NaN], [50])).toBeNull()
    expect(() => percentiles([1], [101])).toThrow(RangeError)
  })
})

describe('equity bands', () => {
  test('give per-step percentiles across paths; a finished path holds its last value', () => {
    const bands = equityBands([[0, 1, 2], [0, 3], [0, 2, 4]], { percentiles: [0, 50, 100] })
    expect(bands.steps).toEqual([0, 1, 2])
    expect(bands.bands.p50).toEqual([0, 2, 3])
    expect(bands.bands.p0).toEqual([0, 1, 2])
    expect(bands.bands.p100).toEqual([0, 3, 4])
  })

  test('thin long paths to maxPoints evenly spaced steps, keeping the first and the last', () => {
    const path = Array.from({ length: 1001 }, (_, i) => i)
    const bands = equityBands([path, path.map((v) => 2 * v)], { maxPoints: 11 })
    expect(bands.steps).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000])
    expect(Object.keys(bands.bands)).toEqual(['p5', 'p25', 'p50', 'p75', 'p95'])
    expect(bands.bands.p50[10]).toBe(1500)
  })
})

describe('seeded random numbers (mulberry32)', () => {
  test('the same seed gives the same stream, another seed a different one', () => {
    const a = mulberry32(42)
    const b = mulberry32(42)
    const c = mulberry32(43)
    const sa = Array.from({ length: 100 }, a)
    expect(Array.from({ length: 100 }, b)).toEqual(sa)
    expect(Array.from({ length: 100 }, c)).not.toEqual(sa)
  })

  test('matches the reference mulberry32 (Ettinger 2017) bit for bit, so seeded results survive refactors', () => {
    // the published one-liner, in its original var-mutating form
    function reference(a: number) {
      return function () {
        let t = (a += 0x6d2b79f5)
        t = Math.imul(t ^ (t >>> 15), t | 1)
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296
      }
    }
    for (const seed of [0, 1, 42, 2 ** 31, 4294967295]) {
      const ours = mulberry32(seed)
      const ref = reference(seed)
      for (let i = 0; i < 1000; i++) expect(ours()).toBe(ref())
    }
  })

  test('draws are in [0, 1) and spread evenly over ten bins (chi-square, 9 d.f., below the 0.1 % point 27.9)', () => {
    const next = mulberry32(2024)
    const bins = new Array(10).fill(0)
    const n = 100_000
    for (let i = 0; i < n; i++) {
      const u = next()
      expect(u >= 0 && u < 1).toBe(true)
      bins[Math.floor(u * 10)]++
    }
    const chi2 = bins.reduce((s, k) => s + (k - n / 10) ** 2 / (n / 10), 0)
    expect(chi2).toBeLessThan(27.88)
  })

  test('the bulk index fill draws exactly ⌊u·n⌋ from the same stream, continuing where it stopped', () => {
    const bulk = new Mulberry32(99)
    const single = mulberry32(99)
    const idx = new Int32Array(500)
    for (let round = 0; round < 3; round++) {
      bulk.fillIndices(idx, 37)
      for (const k of idx) expect(k).toBe(Math.floor(single() * 37))
    }
    expect(bulk.next()).toBe(single())
  })

  test('randomInt stays in range and derived seeds are stable per label', () => {
    const next = mulberry32(1)
    for (let i = 0; i < 1000; i++) {
      const k = randomInt(next, 7)
      expect(Number.isInteger(k) && k >= 0 && k < 7).toBe(true)
    }
    expect(deriveSeed(5, 'BTCUSDT')).toBe(deriveSeed(5, 'BTCUSDT'))
    expect(deriveSeed(5, 'BTCUSDT')).not.toBe(deriveSeed(5, 'ETHUSDT'))
    expect(deriveSeed(5, 'BTCUSDT')).not.toBe(deriveSeed(6, 'BTCUSDT'))
  })
})
