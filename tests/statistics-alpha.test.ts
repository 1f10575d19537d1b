import { describe, expect, test } from 'bun:test'
import { jensensAlpha } from '../src/engine/statistics-alpha'

describe("Jensen's alpha against holding BTC", () => {
  test('a strategy that is exactly 0.1 % a day plus twice BTC has beta 2 and alpha 0.1 % a day', () => {
    const btc = [0.01, -0.02, 0.005, 0.03, -0.01, 0.002, -0.004]
    const strat = btc.map((b) => 0.001 + 2 * b)
    const r = jensensAlpha(strat, btc)!
    expect(r.beta).toBeCloseTo(2, 12)
    expect(r.alpha_daily).toBeCloseTo(0.001, 14)
    expect(r.alpha_annualized).toBeCloseTo(0.365, 12)
    expect(r.n_obs).toBe(7)
  })

  test('by hand: strategy [1, 3, −2] % on BTC [0, 2, −1] % gives beta 11/7 and alpha 1/7 % a day', () => {
    // means 2/3 and 1/3; Σ dS·dB = 66/9, Σ dB² = 42/9 → β = 11/7; α = 2/3 − (11/7)(1/3) = 1/7
    const r = jensensAlpha([0.01, 0.03, -0.02], [0, 0.02, -0.01])!
    expect(r.beta).toBeCloseTo(11 / 7, 12)
    expect(r.alpha_daily).toBeCloseTo(0.01 / 7, 14)
    expect(r.alpha_annualized).toBeCloseTo((365 * 0.01) / 7, 12)
  })

  test('holding BTC itself has alpha 0 and beta 1', () => {
    const btc = [0.02, -0.01, 0.015, -0.03, 0.004]
    const r = jensensAlpha(btc, btc)!
    expect(r.beta).toBeCloseTo(1, 14)
    expect(r.alpha_daily).toBeCloseTo(0, 15)
  })

  test('no alpha for fewer than two days, a flat BTC or a non-finite value; misaligned series throw', () => {
    expect(jensensAlpha([0.01], [0.02])).toBeNull()
    expect(jensensAlpha([0.01, 0.02, 0.03], [0.001, 0.001, 0.001])).toBeNull()
    expect(jensensAlpha([0.01, NaN], [0.02, 0.01])).toBeNull()
    expect(() => jensensAlpha([0.01, 0.02], [0.01])).toThrow(RangeError)
  })
})
