import { describe, expect, test } from 'bun:test'
import {
  logGamma,
  normalCdf,
  normalInv,
  regularizedIncompleteBeta,
  studentTCdf,
  studentTSurvival,
} from '../src/engine/statistics-distributions'

const relClose = (actual: number, expected: number, rel: number) =>
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(rel * Math.abs(expected))

describe('standard normal CDF', () => {
  // reference values: Abramowitz & Stegun table 26.1, extended to 16 digits (scipy.stats.norm.cdf)
  test.each([
    [0, 0.5],
    [1, 0.8413447460685429],
    [1.96, 0.9750021048517795],
    [-3, 0.0013498980316300933],
    [-5, 2.866515718791933e-7],
    [-10, 7.61985302416047e-24],
  ])('Φ(%p) = %p', (x, p) => relClose(normalCdf(x), p, 1e-13))

  test('is symmetric: Φ(x) + Φ(−x) = 1', () => {
    for (let x = 0; x < 8; x += 0.37) expect(normalCdf(x) + normalCdf(-x)).toBeCloseTo(1, 15)
  })

  test('saturates at 0 and 1 and passes NaN through', () => {
    expect(normalCdf(-Infinity)).toBe(0)
    expect(normalCdf(Infinity)).toBe(1)
    expect(normalCdf(NaN)).toBeNaN()
  })
})

describe('inverse standard normal CDF', () => {
  test.each([
    [0.975, 1.959963984540054],
    [0.99, 2.3263478740408408],
    [0.9, 1.2815515655446004],
    [1e-10, -6.361340902404056],
  ])('Φ⁻¹(%p) = %p', (p, x) => relClose(normalInv(p), x, 1e-14))

  test('Φ⁻¹(½) is 0 and the ends are infinite', () => {
    expect(normalInv(0.5)).toBe(0)
    expect(normalInv(0)).toBe(-Infinity)
    expect(normalInv(1)).toBe(Infinity)
    expect(normalInv(-0.1)).toBeNaN()
    expect(normalInv(1.1)).toBeNaN()
  })

  test('inverts Φ across both tails, including beyond Acklam’s break points', () => {
    for (const p of [1e-300, 1e-50, 1e-12, 1e-4, 0.01, 0.02425, 0.1, 0.3, 0.5, 0.77, 0.97575, 0.999, 1 - 1e-9]) {
      relClose(normalCdf(normalInv(p)), p, 1e-12)
    }
  })
})

describe('Student t CDF', () => {
  // closed forms (from the densities): ν = 1 Cauchy, ν = 2, ν = 3, ν = 4
  const closed: Record<number, (t: number) => number> = {
    1: (t) => 0.5 + Math.atan(t) / Math.PI,
    2: (t) => 0.5 + t / (2 * Math.sqrt(2 + t * t)),
    3: (t) => 0.5 + (Math.atan(t / Math.sqrt(3)) + (t / Math.sqrt(3)) / (1 + (t * t) / 3)) / Math.PI,
    4: (t) => {
      const x = t / Math.sqrt(4 + t * t)
      return 0.5 + (x / 2) * (1 + (1 - x * x) / 2)
    },
  }
  for (const df of [1, 2, 3, 4]) {
    test(`matches the closed form for ν = ${df}`, () => {
      for (const t of [-30, -4, -1.5, -0.2, 0, 1e-6, 0.7, 2, 9]) {
        expect(Math.abs(studentTCdf(t, df) - closed[df](t))).toBeLessThan(1e-14)
      }
    })
  }

  test('gives the tabulated quantiles back: t(0.975; 10) = 2.228139, t(0.95; 30) = 1.697261', () => {
    expect(studentTCdf(2.228138851986274, 10)).toBeCloseTo(0.975, 13)
    expect(studentTCdf(1.697260886593957, 30)).toBeCloseTo(0.95, 13)
  })

  test('approaches the normal distribution as ν grows', () => {
    for (const t of [-2, -0.5, 1, 2.5]) expect(Math.abs(studentTCdf(t, 1e6) - normalCdf(t))).toBeLessThan(2e-6)
  })

  test('the survival function keeps small upper tails that 1 − CDF would round away', () => {
    const tail = studentTSurvival(40, 5)
    expect(tail).toBeGreaterThan(0)
    relClose(tail, studentTCdf(-40, 5), 1e-15)
    relClose(tail, 9.205981085886476e-8, 1e-9)
  })
})

describe('special functions', () => {
  test('ln Γ gives factorials and Γ(½) = √π', () => {
    let fact = 1
    for (let n = 1; n <= 20; n++) {
      relClose(logGamma(n + 1), Math.log((fact *= n)), 1e-14)
    }
    relClose(logGamma(0.5), Math.log(Math.sqrt(Math.PI)), 1e-14)
  })

  test('the incomplete beta function has its elementary cases', () => {
    for (const x of [0.01, 0.2, 0.5, 0.9]) {
      expect(regularizedIncompleteBeta(x, 1, 1)).toBeCloseTo(x, 14)
      expect(regularizedIncompleteBeta(x, 3.5, 1)).toBeCloseTo(Math.pow(x, 3.5), 14)
      expect(regularizedIncompleteBeta(x, 1, 2.5)).toBeCloseTo(1 - Math.pow(1 - x, 2.5), 14)
    }
    expect(regularizedIncompleteBeta(0.5, 7, 7)).toBeCloseTo(0.5, 14)
    expect(regularizedIncompleteBeta(0.5, 4000, 4000)).toBeCloseTo(0.5, 12)
  })
})
