import { describe, expect, test } from 'bun:test'
import {
  DSR_CAVEAT,
  EULER_MASCHERONI,
  deflatedSharpe,
  dsrHaircutPct,
  expectedMaxSharpe,
  probabilisticSharpe,
  sharpeEstimatorVariance,
} from '../src/engine/statistics-sharpe'
import { normalCdf } from '../src/engine/statistics-distributions'

// A small daily return series whose moments the tests recompute from the definitions.
const returns = [0.012, -0.004, 0.021, 0.003, -0.011, 0.016, 0.007, -0.002, 0.009, -0.006, 0.013, 0.001]

function definitionMoments(x: number[]) {
  const n = x.length
  const mean = x.reduce((s, v) => s + v, 0) / n
  const c = (k: number) => x.reduce((s, v) => s + (v - mean) ** k, 0) / n
  const sd = Math.sqrt((c(2) * n) / (n - 1))
  return { n, sr: mean / sd, skew: c(3) / c(2) ** 1.5, kurt: c(4) / c(2) ** 2 }
}

describe('expected maximum Sharpe of N trials', () => {
  test('one trial has nothing to select: SR0 = 0', () => {
    expect(expectedMaxSharpe(1, 0.3)).toBe(0)
  })

  test('ten trials: √V·((1 − γ)Φ⁻¹(0.9) + γΦ⁻¹(1 − 1/(10e))) with tabulated quantiles', () => {
    // Φ⁻¹(0.9) = 1.2815515655446004, Φ⁻¹(1 − 1/(10e)) = 1.7892417645816283
    const z = (1 - EULER_MASCHERONI) * 1.2815515655446004 + EULER_MASCHERONI * 1.7892417645816283
    expect(expectedMaxSharpe(10, 0.04)).toBeCloseTo(0.2 * z, 12)
  })

  test('is close to the exact expected maximum of N standard normals (the Gumbel approximation)', () => {
    // exact E[max of N iid N(0,1)] by numerical integration: 1.5388 (10), 2.5076 (100), 3.2414 (1000)
    expect(expectedMaxSharpe(10)).toBeCloseTo(1.5388, 1)
    expect(Math.abs(expectedMaxSharpe(100) / 2.5076 - 1)).toBeLessThan(0.02)
    expect(Math.abs(expectedMaxSharpe(1000) / 3.2414 - 1)).toBeLessThan(0.02)
  })

  test('rejects a trial count that is not a positive integer', () => {
    expect(() => expectedMaxSharpe(0)).toThrow(RangeError)
    expect(() => expectedMaxSharpe(2.5)).toThrow(RangeError)
    expect(() => expectedMaxSharpe(10, -1)).toThrow(RangeError)
  })
})

describe('probabilistic and deflated Sharpe ratio', () => {
  test('reproduces the worked example of Bailey & López de Prado (2014): SR0 = 0.1132, DSR = 0.9004', () => {
    // N = 100 trials, V[SR_n] = 1/2 annualised, best SR 2.5 annualised, T = 1250 days,
    // skew −3, kurtosis 10; the paper annualises with 250 days.
    const sr0 = expectedMaxSharpe(100, 0.5 / 250)
    expect(sr0).toBeCloseTo(0.1132, 4)
    expect(probabilisticSharpe(2.5 / Math.sqrt(250), sr0, 1250, -3, 10)).toBeCloseTo(0.9004, 4)
  })

  test('with normal moments the PSR is Φ((SR − SR*)·√(n − 1) / √(1 + SR²/2))', () => {
    const sr = 0.08
    const expected = normalCdf(((sr - 0.02) * Math.sqrt(499)) / Math.sqrt(1 + (sr * sr) / 2))
    expect(probabilisticSharpe(sr, 0.02, 500, 0, 3)).toBeCloseTo(expected, 15)
  })

  test('negative skew and fat tails widen the Sharpe estimate and lower the PSR of a positive Sharpe', () => {
    expect(probabilisticSharpe(0.1, 0, 300, -2, 12)).toBeLessThan(probabilisticSharpe(0.1, 0, 300, 0, 3))
  })

  test('DSR of a known series: moments, V[SR] and SR0 follow the definitions', () => {
    const m = definitionMoments(returns)
    const info = deflatedSharpe(returns, 10)!
    expect(info.n_obs).toBe(12)
    expect(info.n_trials).toBe(10)
    expect(info.skew).toBeCloseTo(m.skew, 12)
    expect(info.kurtosis_raw).toBeCloseTo(m.kurt, 12)
    expect(info.sharpe_annualized).toBeCloseTo(m.sr * Math.sqrt(365), 12)
    const variance = (1 - m.skew * m.sr + ((m.kurt - 1) / 4) * m.sr ** 2) / (m.n - 1)
    expect(sharpeEstimatorVariance(m.sr, m.n, m.skew, m.kurt)).toBeCloseTo(variance, 15)
    const z = (1 - EULER_MASCHERONI) * 1.2815515655446004 + EULER_MASCHERONI * 1.7892417645816283
    const sr0 = Math.sqrt(variance) * z
    // DSR = Φ((SR − SR0)/√V), the same V in benchmark and denominator
    expect(info.dsr).toBeCloseTo(normalCdf((m.sr - sr0) / Math.sqrt(variance)), 12)
  })

  test('with one trial the DSR is the PSR against zero', () => {
    const m = definitionMoments(returns)
    expect(deflatedSharpe(returns, 1)!.dsr).toBeCloseTo(probabilisticSharpe(m.sr, 0, m.n, m.skew, m.kurt), 15)
  })

  test('the DSR falls strictly as the number of trials grows', () => {
    const dsr = [1, 2, 3, 5, 10, 36, 100, 1000, 10_000].map((n) => deflatedSharpe(returns, n)!.dsr)
    for (let i = 1; i < dsr.length; i++) expect(dsr[i]).toBeLessThan(dsr[i - 1])
  })

  test('sensitivity holds the DSR for 1, 10, 100 and 1000 trials', () => {
    const info = deflatedSharpe(returns, 36)!
    expect(Object.keys(info.sensitivity)).toEqual(['1', '10', '100', '1000'])
    for (const n of [1, 10, 100, 1000]) expect(info.sensitivity[String(n)]).toBe(deflatedSharpe(returns, n)!.dsr)
  })

  test('the caveat says what the DSR does not correct for', () => {
    const info = deflatedSharpe(returns, 5)!
    expect(info.caveat).toBe(DSR_CAVEAT)
    expect(info.caveat).toContain('fees')
    expect(info.caveat).toContain('look-ahead')
    expect(deflatedSharpe(returns, 5, { caveat: 'x' })!.caveat).toBe('x')
  })

  test('a known cross-trial variance replaces the estimator variance in the benchmark only', () => {
    const m = definitionMoments(returns)
    const info = deflatedSharpe(returns, 10, { trialSharpeVariance: 0.01 })!
    expect(info.dsr).toBeCloseTo(probabilisticSharpe(m.sr, expectedMaxSharpe(10, 0.01), m.n, m.skew, m.kurt), 15)
  })

  test('a series without spread or with fewer than two days has no DSR', () => {
    expect(deflatedSharpe([0.01, 0.01, 0.01], 3)).toBeNull()
    expect(deflatedSharpe([0.01], 3)).toBeNull()
    expect(() => deflatedSharpe(returns, 0)).toThrow(RangeError)
  })
})

describe('DSR haircut', () => {
  const long = Array.from({ length: 400 }, (_, i) => returns[i % returns.length] + 0.0003 * Math.sin(i))

  test('is 0 for one trial and 100·SR0/SR otherwise', () => {
    expect(dsrHaircutPct(deflatedSharpe(returns, 1)!)).toBe(0)
    const info = deflatedSharpe(long, 10)!
    const sr = info.sharpe_annualized / Math.sqrt(365)
    const sr0 = expectedMaxSharpe(10, sharpeEstimatorVariance(sr, info.n_obs, info.skew, info.kurtosis_raw))
    expect(dsrHaircutPct(info)).toBeCloseTo((100 * sr0) / sr, 10)
    expect(dsrHaircutPct(info)!).toBeGreaterThan(0)
    expect(dsrHaircutPct(info)!).toBeLessThan(100)
  })

  test('grows with the number of trials', () => {
    const cuts = [2, 10, 100, 1000].map((n) => dsrHaircutPct(deflatedSharpe(long, n)!)!)
    for (let i = 1; i < cuts.length; i++) expect(cuts[i]).toBeGreaterThan(cuts[i - 1])
  })

  test('is capped at 100 % when the expected best of the trials exceeds the observed Sharpe', () => {
    // 12 days: SR0 of 1000 trials is far above the observed Sharpe
    expect(dsrHaircutPct(deflatedSharpe(returns, 1000)!)).toBe(100)
  })

  test('is null when the observed Sharpe is not positive', () => {
    expect(dsrHaircutPct(deflatedSharpe(returns.map((r) => -r), 10)!)).toBeNull()
  })
})
