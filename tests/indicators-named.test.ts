/**
 * The indicators the named strategies' rules added (docs/indicators.md): the volume-profile
 * POC and its deviation, Heikin-Ashi body and wicks, atr-breakout's shifted-mean ATR, the
 * bias-corrected EMA, and Bollinger with the sample σ. Hand-computed values, for the
 * sample σ the golden population σ of ../shared/golden, and for the volume profile's fast
 * pass its plain form, to the bit.
 */
import { describe, expect, test } from 'bun:test'
import type { Bars } from '../src/market/types'
import { computeIndicator } from '../src/indicators/registry'
import { volumeProfilePoc } from '../src/indicators/volume-profile'
import { GOLDEN_SYMBOLS, SKIP_REASON, hasGolden, loadBars, loadGolden } from './indicators-fixtures'
import { rng } from './indicators-synthetic'
import { hasRealData, loadRealBars, realSymbols } from './helpers/real-data'

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

/**
 * The volume profile as the kernel computed it before its fast pass (commit 7f24f16), written
 * plainly: lo / hi of the prior window by scanning it, the step divided afresh every bar, each
 * bar's bin by division, the histogram carried while lo and hi stay (the entering bar added,
 * then the leaving one subtracted) and summed afresh in bar order whenever they move or after
 * `period` carried bars, the heaviest bin by a full scan every bar. The fast pass must give
 * these values to the bit: same sums in the same order, same bins, same heaviest bin.
 */
function plainVolumeProfile(c: Float64Array, v: Float64Array, period: number, bins: number): Float64Array {
  const out = new Float64Array(c.length).fill(Number.NaN)
  const hist = new Float64Array(bins)
  const binOf = (x: number, lo: number, step: number) => Math.min(Math.floor((x - lo) / step), bins - 1)
  let gridLo = Number.NaN
  let gridHi = Number.NaN
  let carried = 0
  for (let i = period; i < c.length; i++) {
    let lo = Infinity
    let hi = -Infinity
    for (let j = i - period; j < i; j++) {
      lo = Math.min(lo, c[j])
      hi = Math.max(hi, c[j])
    }
    const step = (hi - lo) / bins
    if (step === 0) {
      out[i] = lo
      gridLo = Number.NaN
      continue
    }
    if (lo === gridLo && hi === gridHi && carried < period) {
      hist[binOf(c[i - 1], lo, step)] += v[i - 1]
      hist[binOf(c[i - 1 - period], lo, step)] -= v[i - 1 - period]
      carried++
    } else {
      hist.fill(0)
      for (let j = i - period; j < i; j++) hist[binOf(c[j], lo, step)] += v[j]
      gridLo = lo
      gridHi = hi
      carried = 0
    }
    let best = 0
    for (let b = 1; b < bins; b++) if (hist[b] > hist[best]) best = b
    out[i] = lo + (best + 0.5) * step
  }
  return out
}

/** rows where the two differ (Object.is: NaN equals NaN, 0 and −0 differ) */
function differingRows(a: Float64Array, b: Float64Array, rows: number): number[] {
  const bad: number[] = []
  for (let i = 0; i < rows; i++) if (!Object.is(a[i], b[i])) bad.push(i)
  return bad
}

describe('volume_profile fast pass: the plain form’s values to the bit', () => {
  // closes on a tick grid put many quotients exactly on a bin edge (the division path);
  // integer volumes tie bins exactly; zero volumes and flat stretches make empty bins and
  // flat windows; decimal volumes make carried sums differ from fresh ones by ulps
  const series = (seed: number, rows: number, tick: number, volumes: 'int' | 'decimal' | 'zeros', flatEvery: number) => {
    const r = rng(seed)
    const c = new Float64Array(rows)
    const v = new Float64Array(rows)
    let x = 100
    for (let i = 0; i < rows; i++) {
      if (!(flatEvery > 0 && Math.floor(i / 40) % flatEvery === 0)) x = Math.max(tick, x + (r() - 0.5) * 2)
      c[i] = tick > 0 ? Math.round(x / tick) * tick : x
      v[i] = volumes === 'int' ? Math.floor(r() * 5) : volumes === 'zeros' ? (r() < 0.3 ? 0 : r() * 1000) : Math.round(r() * 1e6) / 1000
    }
    return { c, v }
  }
  const cases: [number, number, number, 'int' | 'decimal' | 'zeros', number, number, number][] = [
    // seed, rows, tick, volumes, flat every k-th block of 40 bars, period, bins
    [1, 3000, 0.01, 'decimal', 0, 168, 20],
    [2, 3000, 0.25, 'int', 0, 168, 20],
    [3, 3000, 0.5, 'int', 3, 50, 7],
    [4, 3000, 0, 'decimal', 0, 24, 20],
    [5, 3000, 0.01, 'zeros', 5, 168, 200],
    [6, 2000, 1, 'int', 2, 10, 2],
    [7, 2000, 0.1, 'decimal', 0, 2, 3],
    [8, 2000, 0.05, 'zeros', 0, 300, 13],
  ]
  test.each(cases)('random candles (seed %d, %d rows, tick %d, %s volumes, flat every %d, period %d, bins %d)', (seed, rows, tick, vols, flatEvery, period, bins) => {
    const { c, v } = series(seed, rows, tick, vols, flatEvery)
    const fast = new Float64Array(rows)
    volumeProfilePoc(c, v, period, bins, fast)
    const plain = plainVolumeProfile(c, v, period, bins)
    expect(differingRows(fast, plain, rows).slice(0, 5)).toEqual([])
    expect(Number.isNaN(fast[period - 1]) && !Number.isNaN(fast[period])).toBe(true)
  })

  test('prices so small that 1 / step overflows, and a price scale where every bin edge is a power of two', () => {
    const r = rng(41)
    for (const scale of [1e-310, 2 ** -1060, 1024, 1]) {
      const rows = 600
      const c = Float64Array.from({ length: rows }, () => Math.round(r() * 64) * scale)
      const v = Float64Array.from({ length: rows }, () => Math.floor(r() * 3))
      for (const [period, bins] of [
        [40, 16],
        [100, 20],
      ]) {
        const fast = new Float64Array(rows)
        volumeProfilePoc(c, v, period, bins, fast)
        expect({ scale, period, bad: differingRows(fast, plainVolumeProfile(c, v, period, bins), rows).slice(0, 5) }).toEqual({ scale, period, bad: [] })
      }
    }
  })

  test.skipIf(!hasRealData())('the 28 real coins (168 / 20 and 48 / 10): the same values on every row', () => {
    let rows = 0
    for (const symbol of realSymbols()) {
      const b = loadRealBars(symbol)
      for (const [period, bins] of [
        [168, 20],
        [48, 10],
      ]) {
        const fast = new Float64Array(b.n)
        volumeProfilePoc(b.c, b.v, period, bins, fast)
        expect({ symbol, period, bad: differingRows(fast, plainVolumeProfile(b.c, b.v, period, bins), b.n).slice(0, 5) }).toEqual({ symbol, period, bad: [] })
        rows += b.n
      }
    }
    expect(rows).toBeGreaterThan(1_000_000)
  }, 120_000)
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
