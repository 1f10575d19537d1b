import { describe, expect, test } from 'bun:test'
import { annualizedSharpe, kurtosisRaw, moments, sharpe, skewness, stdev } from '../src/engine/statistics-moments'
import { edgePValue } from '../src/engine/statistics-edge'

describe('moments of a return series', () => {
  // [0, 0, 3]: mean 1, deviations −1, −1, 2 → m2 = 6/3 = 2, m3 = 6/3 = 2, m4 = 18/3 = 6
  const series = [0, 0, 3]

  test('skewness is m3 / m2^1.5 with divisor n: 2 / 2^1.5 = 1/√2 for [0, 0, 3]', () => {
    expect(skewness(series)).toBeCloseTo(1 / Math.SQRT2, 14)
  })

  test('raw kurtosis is m4 / m2² with divisor n: 6 / 4 = 1.5 for [0, 0, 3]', () => {
    expect(kurtosisRaw(series)).toBeCloseTo(1.5, 14)
  })

  test('the Sharpe ratio is mean / sample sd (n − 1): 1 / √3 for [0, 0, 3]', () => {
    expect(stdev(series)).toBeCloseTo(Math.sqrt(3), 14)
    expect(sharpe(series)).toBeCloseTo(1 / Math.sqrt(3), 14)
    expect(annualizedSharpe(series)).toBeCloseTo(Math.sqrt(365 / 3), 12)
    expect(annualizedSharpe(series, 252)).toBeCloseTo(Math.sqrt(252 / 3), 12)
  })

  test('a symmetric two-point series has skew 0 and raw kurtosis 1 (the minimum)', () => {
    const x = [-1, 1, -1, 1, -1, 1]
    expect(skewness(x)).toBeCloseTo(0, 15)
    expect(kurtosisRaw(x)).toBeCloseTo(1, 14)
  })

  test('skewness, kurtosis and Sharpe do not depend on the unit (percent or fraction)', () => {
    const pct = [1.2, -0.4, 3.3, 0.1, -2.2, 0.9, 5.1]
    const frac = pct.map((v) => v / 100)
    expect(skewness(frac)).toBeCloseTo(skewness(pct)!, 12)
    expect(kurtosisRaw(frac)).toBeCloseTo(kurtosisRaw(pct)!, 12)
    expect(sharpe(frac)).toBeCloseTo(sharpe(pct)!, 12)
  })

  test('a large offset does not break the moments (two-pass with correction)', () => {
    const x = [1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4]
    expect(moments(x)!.variance).toBeCloseTo(5 / 3, 6)
  })

  test('a constant series, one value or a non-finite value has no skew, kurtosis or Sharpe', () => {
    for (const x of [[0.01, 0.01, 0.01], [0.5], [], [1, NaN, 2], [1, Infinity]]) {
      expect(skewness(x)).toBeNull()
      expect(kurtosisRaw(x)).toBeNull()
      expect(sharpe(x)).toBeNull()
    }
  })
})

describe('edge p-value (one-sided t-test of mean trade return ≤ 0)', () => {
  test('trades [1, 2, 3, −1, 0.5] give t = 1.1 / √(2.3/5) and p = P(T₄ ≥ t)', () => {
    // mean 1.1, squared deviations 0.01 + 0.81 + 3.61 + 4.41 + 0.36 = 9.2, s² = 9.2/4 = 2.3
    const t = 1.1 / Math.sqrt(2.3 / 5)
    // Student t with 4 d.f.: F(t) = ½ + (x/2)(1 + (1 − x²)/2), x = t/√(4 + t²)
    const x = t / Math.sqrt(4 + t * t)
    const expected = 1 - (0.5 + (x / 2) * (1 + (1 - x * x) / 2))
    expect(edgePValue([1, 2, 3, -1, 0.5])).toBeCloseTo(expected, 14)
    expect(expected).toBeCloseTo(0.0900759, 6)
  })

  test('a series symmetric around zero has p = ½, and flipping signs gives 1 − p', () => {
    expect(edgePValue([-2, -1, 1, 2])).toBeCloseTo(0.5, 15)
    const x = [0.4, 1.9, -0.7, 2.2, 0.3, -0.1]
    expect(edgePValue(x)! + edgePValue(x.map((v) => -v))!).toBeCloseTo(1, 14)
  })

  test('more trades with the same mean and spread give a smaller p-value', () => {
    const base = [1.5, -1, 2, -0.5, 0.8]
    const four = [...base, ...base, ...base, ...base]
    expect(edgePValue(four)!).toBeLessThan(edgePValue(base)!)
  })

  test('fewer than two trades has no p-value; identical trades are decided by their sign', () => {
    expect(edgePValue([])).toBeNull()
    expect(edgePValue([3])).toBeNull()
    expect(edgePValue([2, 2, 2])).toBe(0)
    expect(edgePValue([0, 0])).toBe(1)
    expect(edgePValue([-1, -1])).toBe(1)
  })
})
