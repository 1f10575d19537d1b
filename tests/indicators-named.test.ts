/**
 * The indicators the named strategies' rules added (docs/indicators.md): the volume-profile
 * POC and its deviation, Heikin-Ashi body and wicks, atr-breakout's shifted-mean ATR, the
 * bias-corrected EMA, and Bollinger with the sample σ. Hand-computed values, and for the
 * sample σ the golden population σ of ../shared/golden.
 */
import { describe, expect, test } from 'bun:test'
import type { Bars } from '../src/market/types'
import { computeIndicator } from '../src/indicators/registry'
import { GOLDEN_SYMBOLS, SKIP_REASON, hasGolden, loadBars, loadGolden } from './indicators-fixtures'

const HOUR = 3_600_000

function candles(o: number[], h: number[], l: number[], c: number[], v?: number[]): Bars {
  const n = c.length
  return {
    t: Float64Array.from({ length: n }, (_, i) => i * HOUR),
    o: Float64Array.from(o),
    h: Float64Array.from(h),
    l: Float64Array.from(l),
    c: Float64Array.from(c),
    v: Float64Array.from(v ?? c.map(() => 1)),
    n,
    stepMs: HOUR,
  }
}
const flat = (c: number[], v: number[]) => candles(c, c, c, c, v)
const list = (x: Float64Array) => Array.from(x)

describe('volume_profile', () => {
  test('the POC of the prior bars: lo..hi in equal bins, the heaviest bin’s middle; the dev in percent', () => {
    // window of bar 4 = bars 0..3, closes 1 2 3 4: lo 1, hi 4, step 1.5 (bins of 2); bins
    // floor((c − 1) / 1.5) = 0 0 1 2→1 (the top close into the last bin); volume 1+1 vs 1+5
    const out = computeIndicator('volume_profile', flat([1, 2, 3, 4, 10], [1, 1, 1, 5, 1]), { period: 4, bins: 2 })
    expect(list(out.vp_poc).slice(0, 4).every(Number.isNaN)).toBe(true)
    expect(out.vp_poc[4]).toBe(1 + 1.5 * 1.5)
    expect(out.vp_dev[4]).toBeCloseTo(((10 - 3.25) / 3.25) * 100, 12)
  })
  test('a tie goes to the lower bin; equal closes give that close', () => {
    expect(computeIndicator('volume_profile', flat([1, 2, 3, 4, 10], [1, 1, 1, 1, 1]), { period: 4, bins: 2 }).vp_poc[4]).toBe(1.75)
    expect(computeIndicator('volume_profile', flat([5, 5, 5, 9], [1, 2, 3, 4]), { period: 3, bins: 20 }).vp_poc[3]).toBe(5)
  })
  test('the bar itself is not in its own profile', () => {
    const a = computeIndicator('volume_profile', flat([1, 2, 3, 4, 10], [1, 1, 1, 5, 1]), { period: 4, bins: 2 })
    const b = computeIndicator('volume_profile', flat([1, 2, 3, 4, 99], [1, 1, 1, 5, 1000]), { period: 4, bins: 2 })
    expect(b.vp_poc[4]).toBe(a.vp_poc[4])
  })
})

describe('heikin_ashi body and wicks', () => {
  // bar 0: ha_close (10 + 12 + 9 + 11) / 4 = 10.5, ha_open (10 + 11) / 2 = 10.5: no body,
  // wicks 12 − 10.5 and 10.5 − 9; bar 1: ha_open (10.5 + 10.5) / 2 = 10.5, ha_close
  // (11 + 13 + 10.5 + 12.5) / 4 = 11.75, high 13, low min(10.5, 10.5, 11.75) = 10.5
  const out = computeIndicator('heikin_ashi', candles([10, 11], [12, 13], [9, 10.5], [11, 12.5]))
  test('body, its top and bottom', () => {
    expect(list(out.ha_body)).toEqual([0, 1.25])
    expect(list(out.ha_body_top)).toEqual([10.5, 11.75])
    expect(list(out.ha_body_bottom)).toEqual([10.5, 10.5])
  })
  test('wicks: exactly 0 when the HA low is the body bottom', () => {
    expect(list(out.ha_upper_wick)).toEqual([1.5, 1.25])
    expect(list(out.ha_lower_wick)).toEqual([1.5, 0])
  })
  test('bullish and bearish exclude the bodiless candle', () => {
    expect(list(out.ha_bullish)).toEqual([0, 1])
    expect(list(out.ha_bearish)).toEqual([0, 0])
  })
})

describe('atr_sma_prev', () => {
  test('the simple mean of TR over the period bars before this one', () => {
    // TR: NaN, max(2, 2, 0) = 2, max(1.5, 1.5, 0) = 1.5, max(2, 1, 3) = 3
    const out = computeIndicator('atr', candles([10, 10, 11, 11], [10.5, 12, 12.5, 11], [9.5, 10, 11, 9], [10, 11, 12, 10]), { period: 2, ratio_period: 1 })
    expect(list(out.tr).slice(1)).toEqual([2, 1.5, 3])
    expect(list(out.atr_sma_prev).slice(0, 3).every(Number.isNaN)).toBe(true)
    expect(out.atr_sma_prev[3]).toBe(1.75)
  })
})

describe('ema adjust 1: the bias-corrected mean', () => {
  test('Σ wᵏ x / Σ wᵏ from the first bar, first value at row period − 1', () => {
    // period 3: w = 1 − 2/4 = 0.5; row 2: (3 + 1 + 0.25) / 1.75; row 3: (4 + 1.5 + 0.5 + 0.125) / 1.875
    const out = computeIndicator('ema', flat([1, 2, 3, 4], [1, 1, 1, 1]), { fast: 3, slow: 4, adjust: 1 })
    expect(list(out.ema_fast).slice(0, 2).every(Number.isNaN)).toBe(true)
    expect(out.ema_fast[2]).toBeCloseTo(4.25 / 1.75, 14)
    expect(out.ema_fast[3]).toBeCloseTo(6.125 / 1.875, 14)
    expect(out.ema_slow[3]).toBeCloseTo((4 + 0.6 * 3 + 0.36 * 2 + 0.216) / (1 + 0.6 + 0.36 + 0.216), 14)
  })
})

describe.skipIf(!hasGolden)(`bb ddof 1 against the golden population σ (${hasGolden ? 'BTC, ETH, DOGE' : SKIP_REASON})`, () => {
  test('bands at mid ± 2 · σ_pop · √(20/19)', () => {
    for (const symbol of GOLDEN_SYMBOLS) {
      const bars = loadBars(symbol)
      const golden = loadGolden(symbol)
      const out = computeIndicator('bb', bars, { ddof: 1 })
      let worst = 0
      for (let i = 19; i < bars.n; i++) {
        const want = golden.bb_mid_20_2[i] + 2 * golden.stddev_20_pop[i] * Math.sqrt(20 / 19)
        worst = Math.max(worst, Math.abs(out.bb_upper[i] - want) / want)
      }
      expect(worst).toBeLessThan(1e-12)
    }
  })
})
