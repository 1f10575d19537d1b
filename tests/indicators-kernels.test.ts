/**
 * Kernel behaviour beyond the TA-Lib reference: exactness on long series, NaN handling, the
 * `n` argument, and the indicators TA-Lib does not cover, each checked against its formula
 * written out plainly here.
 */
import { describe, expect, test } from 'bun:test'
import { atr, trueRange } from '../src/indicators/atr'
import { bollinger, stddev } from '../src/indicators/bollinger'
import { barsPerYear, historicalVolatility, logRatio } from '../src/indicators/hv'
import { ema, sma } from '../src/indicators/ma'
import { computeIndicator } from '../src/indicators/registry'
import { roc } from '../src/indicators/roc'
import { rsi, stochRsi } from '../src/indicators/rsi'
import { smoothStochastic, stoch, willr } from '../src/indicators/stoch'
import { volRatio } from '../src/indicators/volume'
import { coverWindows, maxOf, minOf, rollingMaxIndex, rollingMinIndex } from '../src/indicators/rolling-extremes'
import type { Bars } from '../src/market/types'
import { jumpyCandles, rng, syntheticBars } from './indicators-synthetic'

const bars = syntheticBars(3000, 5)
const N = bars.n

/** Neumaier-compensated sum of src[lo..hi] */
function exactSum(src: ArrayLike<number>, lo: number, hi: number): number {
  let s = 0
  let c = 0
  for (let j = lo; j <= hi; j++) {
    const x = src[j]
    const t = s + x
    c += Math.abs(s) >= Math.abs(x) ? s - t + x : x - t + s
    s = t
  }
  return s + c
}

/** two-pass population σ of src[lo..hi] */
function exactStd(src: ArrayLike<number>, lo: number, hi: number): number {
  const len = hi - lo + 1
  const mean = exactSum(src, lo, hi) / len
  const dev = Array.from({ length: len }, (_, k) => (src[lo + k] - mean) ** 2)
  return Math.sqrt(exactSum(dev, 0, len - 1) / len)
}

const windowMax = (x: Float64Array, lo: number, hi: number) => Math.max(...x.subarray(lo, hi + 1))
const windowMin = (x: Float64Array, lo: number, hi: number) => Math.min(...x.subarray(lo, hi + 1))
const relErr = (a: number, b: number) => Math.abs(a - b) / Math.abs(b)

describe('moving averages and Bollinger on long series', () => {
  // 1M bars near 50 000 moving by ~0.01: tiny σ / mean, the worst case for running sums
  const LONG = 1_000_000
  const r = rng(3)
  const long = new Float64Array(LONG)
  let x = 50_000
  for (let i = 0; i < LONG; i++) {
    x += (r() - 0.5) * 0.02 + (i % 100_000 < 50_000 ? 0.001 : -0.001)
    long[i] = x
  }
  const samples = Array.from({ length: 400 }, (_, k) => LONG - 1 - k * 2497)

  test('plain running sums miss both tolerances below on this series (so those checks can fail)', () => {
    let s = 0
    let q = 0
    for (let i = 0; i < 20; i++) {
      s += long[i]
      q += long[i] * long[i]
    }
    let worstMean = 0
    let worstSd = 0
    for (let i = 20; i < LONG; i++) {
      s += long[i] - long[i - 20]
      q += long[i] * long[i] - long[i - 20] * long[i - 20]
      if (i % 997 === 0) {
        worstMean = Math.max(worstMean, relErr(s / 20, exactSum(long, i - 19, i) / 20))
        const naiveSd = Math.sqrt(Math.max(q / 20 - (s / 20) ** 2, 0))
        worstSd = Math.max(worstSd, relErr(naiveSd, exactStd(long, i - 19, i)))
      }
    }
    expect(worstMean).toBeGreaterThan(1e-15)
    expect(worstSd).toBeGreaterThan(1e-9)
  })

  test('SMA stays within 1e-15 relative of the exact window mean over 1M bars', () => {
    const out = new Float64Array(LONG)
    sma(long, 20, out)
    for (const i of samples) expect(relErr(out[i], exactSum(long, i - 19, i) / 20)).toBeLessThan(1e-15)
  })

  test('Bollinger σ stays within 1e-9 relative of a two-pass σ even where σ / mean is 1e-7', () => {
    const mid = new Float64Array(LONG)
    const up = new Float64Array(LONG)
    const lo = new Float64Array(LONG)
    const sd = new Float64Array(LONG)
    bollinger(long, 20, 2, mid, up, lo)
    stddev(long, 20, sd)
    for (const i of samples) {
      const want = exactStd(long, i - 19, i)
      expect(relErr(sd[i], want)).toBeLessThan(1e-9)
      expect(relErr((up[i] - mid[i]) / 2, want)).toBeLessThan(1e-6) // the band subtracts two ~5e4 numbers
      expect(relErr(mid[i], exactSum(long, i - 19, i) / 20)).toBeLessThan(1e-15)
    }
  })

  test('a constant window has σ exactly 0 and bands equal to the mid', () => {
    const flat = new Float64Array(60).fill(0.07)
    const mid = new Float64Array(60)
    const up = new Float64Array(60)
    const lo = new Float64Array(60)
    bollinger(flat, 20, 2, mid, up, lo)
    expect(up[59]).toBe(mid[59])
    expect(lo[59]).toBe(mid[59])
  })
})

describe('NaN handling and the n argument', () => {
  const shifted = new Float64Array(N + 7).fill(NaN)
  shifted.set(bars.c, 7)

  test('sma, ema and bollinger skip leading NaNs: the same values, 7 rows later', () => {
    for (const run of [
      (src: Float64Array, out: Float64Array) => sma(src, 20, out),
      (src: Float64Array, out: Float64Array) => ema(src, 20, out),
      (src: Float64Array, out: Float64Array) => bollinger(src, 20, 2, new Float64Array(src.length), out, new Float64Array(src.length)),
    ]) {
      const plain = new Float64Array(N)
      const late = new Float64Array(N + 7)
      run(bars.c, plain)
      run(shifted, late)
      expect(Array.from(late.subarray(0, 7 + 19)).every(Number.isNaN)).toBe(true)
      expect(Array.from(late.subarray(7))).toEqual(Array.from(plain))
    }
  })

  test('an SMA window holding a NaN is NaN, and the mean recovers once the NaN leaves', () => {
    const src = Float64Array.from(bars.c.subarray(0, 400))
    src[300] = NaN
    const out = new Float64Array(400)
    sma(src, 20, out)
    expect(Number.isNaN(out[299])).toBe(false)
    expect(Array.from(out.subarray(300, 320)).every(Number.isNaN)).toBe(true)
    expect(relErr(out[320], exactSum(src, 301, 320) / 20)).toBeLessThan(1e-15)
  })

  test('n limits the rows processed: later output rows are left untouched', () => {
    const out = new Float64Array(N).fill(-1)
    sma(bars.c, 20, out, 100)
    const full = new Float64Array(N)
    sma(bars.c, 20, full)
    expect(Array.from(out.subarray(0, 100))).toEqual(Array.from(full.subarray(0, 100)))
    expect(out[100]).toBe(-1)
  })

  test('warm-up rows are written as NaN even into a reused output buffer', () => {
    const out = new Float64Array(N).fill(123)
    rsi(bars.c, 14, out)
    expect(Array.from(out.subarray(0, 14)).every(Number.isNaN)).toBe(true)
  })
})

describe('volume and volatility', () => {
  test('vol_ratio is the volume over the mean of its window, NaN in warm-up and where the mean is 0', () => {
    const v = Float64Array.from([0, 0, 0, 4, 2, 6, 0, 0, 0])
    const out = new Float64Array(v.length)
    volRatio(v, 3, out)
    expect(Number.isNaN(out[0]) && Number.isNaN(out[1])).toBe(true)
    expect(Number.isNaN(out[2])).toBe(true) // mean of 0, 0, 0
    expect(out[3]).toBeCloseTo(4 / (4 / 3), 14)
    expect(out[5]).toBeCloseTo(6 / 4, 14)
    expect(out[7]).toBe(0)
    expect(Number.isNaN(out[8])).toBe(true)
  })

  test('vol_ratio is NaN while the window holds only zero volume, even after busy bars', () => {
    const v = Float64Array.from([5.3, 7.1, 0.7, 1.9, 0, 0, 0, 0, 0, 2.2])
    const out = new Float64Array(v.length)
    volRatio(v, 3, out)
    expect(out[4]).toBe(0) // volume 0 against a non-zero mean
    expect(Array.from(out.subarray(6, 9)).every(Number.isNaN)).toBe(true)
    expect(out[9]).toBeCloseTo(3, 12)
  })

  test('an SMA of period 1 is the series itself', () => {
    const out = new Float64Array(N)
    sma(bars.c, 1, out)
    expect(Array.from(out)).toEqual(Array.from(bars.c))
  })

  test('hv is the sample σ of log returns × sqrt(bars per 365-day year) × 100', () => {
    expect(barsPerYear(3_600_000)).toBe(8760)
    expect(barsPerYear(4 * 3_600_000)).toBe(2190)
    const out = new Float64Array(N)
    historicalVolatility(bars.c, 20, 8760, out)
    for (const i of [20, 500, N - 1]) {
      const r = Array.from({ length: 20 }, (_, k) => Math.log(bars.c[i - k] / bars.c[i - k - 1]))
      const mean = r.reduce((a, b) => a + b, 0) / 20
      const sd = Math.sqrt(r.reduce((a, b) => a + (b - mean) ** 2, 0) / 19)
      expect(relErr(out[i], sd * Math.sqrt(8760) * 100)).toBeLessThan(1e-10)
    }
    expect(Number.isNaN(out[19])).toBe(true)
  })

  test('true range is the largest of the three differences: to the bit within 2× of the last close, to an ulp beyond', () => {
    const r = rng(23)
    const rows = 20001
    const high = new Float64Array(rows)
    const low = new Float64Array(rows)
    const close = new Float64Array(rows)
    let price = 50
    for (let i = 0; i < rows; i++) {
      // inside bars, gaps up and down, and every 50th bar a move of 2.5× or more either way
      const jump = i % 50 === 0 ? (r() < 0.5 ? 2.5 + r() : 1 / (2.5 + r())) : 1 + (r() - 0.5) * 0.04
      const open = price * jump
      const h = open * (1 + r() * 0.01)
      const l = open * (1 - r() * 0.01)
      high[i] = h
      low[i] = l
      close[i] = l + (h - l) * r()
      price = close[i]
    }
    const out = new Float64Array(rows)
    trueRange(high, low, close, out)
    expect(Number.isNaN(out[0])).toBe(true)
    let exactWithin2 = 0
    let worstBeyond = 0
    for (let i = 1; i < rows; i++) {
      const pc = close[i - 1]
      const want = Math.max(high[i] - low[i], Math.abs(high[i] - pc), Math.abs(low[i] - pc))
      if (high[i] <= 2 * pc && 2 * low[i] >= pc) {
        if (out[i] === want) exactWithin2++
      } else {
        worstBeyond = Math.max(worstBeyond, Math.abs(out[i] - want) / want)
      }
    }
    expect(exactWithin2).toBe(rows - 1 - 400) // 400 bars jump beyond 2×
    expect(worstBeyond).toBeLessThan(2.3e-16)
  })

  test('atr_ratio is ATR over the mean of the last ratio_period ATR values', () => {
    const { atr: a, atr_ratio: ratio } = computeIndicator('atr', bars, { period: 14, ratio_period: 14 })
    for (const i of [27, 1000, N - 1]) {
      expect(relErr(ratio[i], a[i] / (exactSum(a, i - 13, i) / 14))).toBeLessThan(1e-13)
    }
    expect(Number.isNaN(ratio[26])).toBe(true)
  })

  test('keltner: EMA(period) of close ± mult × ATR(atr_period)', () => {
    const kc = computeIndicator('keltner', bars, { period: 20, atr_period: 10, mult: 1.5 })
    const e = new Float64Array(N)
    const a = new Float64Array(N)
    ema(bars.c, 20, e)
    atr(bars.h, bars.l, bars.c, 10, a)
    for (const i of [19, 700, N - 1]) {
      expect(kc.kc_mid[i]).toBe(e[i])
      expect(kc.kc_upper[i]).toBeCloseTo(e[i] + 1.5 * a[i], 10)
      expect(kc.kc_lower[i]).toBeCloseTo(e[i] - 1.5 * a[i], 10)
    }
  })
})

describe('rolling extremes, log ratios and ROC fast paths', () => {
  /** index of the highest (lowest) of src[i-period+1 .. i], the latest on ties, by plain scan */
  const naiveAt = (src: Float64Array, period: number, i: number, sign: 1 | -1) => {
    let at = i - period + 1
    for (let j = at + 1; j <= i; j++) if (sign * src[j] >= sign * src[at]) at = j
    return at
  }

  test('rollingMaxIndex / rollingMinIndex give the latest extreme of every window, for any period, start and end', () => {
    // a coarse tick makes ties common; the ends cover every position inside a block
    const src = bars.c.map((x) => Math.round(x))
    const bad: string[] = []
    for (const period of [1, 2, 3, 4, 5, 7, 14, 15, 26, 52]) {
      for (const from of [period - 1, period + 2]) {
        for (let rows = from + 1; rows <= from + 6 * period + 2 && bad.length < 3; rows++) {
          for (const sign of [1, -1] as const) {
            const out = new Int32Array(N).fill(-1)
            ;(sign === 1 ? rollingMaxIndex : rollingMinIndex)(src, period, out, from, rows)
            for (let i = 0; i < N; i++) {
              const want = i >= from && i < rows ? naiveAt(src, period, i, sign) : -1
              if (out[i] !== want) {
                bad.push(`period ${period}, from ${from}, rows ${rows}, ${sign === 1 ? 'max' : 'min'}: row ${i} gave ${out[i]}, want ${want}`)
                break
              }
            }
          }
        }
      }
    }
    expect(bad).toEqual([])
  })

  test('the same over the whole series, where the two-blocks-per-round loop runs', () => {
    const src = bars.h.map((x) => Math.round(x * 2) / 2)
    for (const period of [3, 14, 52]) {
      const hi = new Int32Array(N)
      const lo = new Int32Array(N)
      rollingMaxIndex(src, period, hi, period - 1, N)
      rollingMinIndex(src, period, lo, period - 1, N)
      const wrong = [] as number[]
      for (let i = period - 1; i < N && wrong.length < 3; i++) {
        if (hi[i] !== naiveAt(src, period, i, 1) || lo[i] !== naiveAt(src, period, i, -1)) wrong.push(i)
      }
      expect({ period, wrong }).toEqual({ period, wrong: [] })
    }
  })

  test('coverWindows: the two covering windows give every window extreme, to the bit within 2×, to an ulp beyond', () => {
    const rows = 1500
    const { h: hiSrc, l: loSrc } = jumpyCandles(rows, 41, 97)
    const bad: string[] = []
    for (let period = 1; period <= 40; period++) {
      for (const start of [0, 7]) {
        const hi = new Float64Array(rows).fill(NaN)
        const lo = new Float64Array(rows).fill(NaN)
        const back = coverWindows(hiSrc, loSrc, period, start, rows, hi, lo)
        for (let i = start + period - 1; i < rows && bad.length < 3; i++) {
          const got = [maxOf(hi[i], hi[i - back]), minOf(lo[i], lo[i - back])]
          const want = [windowMax(hiSrc, i - period + 1, i), windowMin(loSrc, i - period + 1, i)]
          const within2 = want[0] <= 2 * windowMin(hiSrc, i - period + 1, i) && windowMax(loSrc, i - period + 1, i) <= 2 * want[1]
          for (const k of [0, 1]) {
            const ok = within2 ? got[k] === want[k] : Math.abs(got[k] - want[k]) <= 2.3e-16 * want[k]
            if (!ok) bad.push(`period ${period}, start ${start}, row ${i}: ${got[k]} vs ${want[k]}`)
          }
        }
      }
    }
    expect(bad).toEqual([])
  })

  test('willr and stochastic %K equal the formula on exact extremes to the bit, 2.5× windows and negative prices included', () => {
    const rows = 1200
    const { h, l, c } = jumpyCandles(rows, 43, 89)
    // a stretch around zero: the guard must send these windows to the exact scan too
    for (let i = 900; i < 1000; i++) {
      h[i] -= 60
      l[i] -= 60
      c[i] -= 60
    }
    const bad: string[] = []
    const w = new Float64Array(rows)
    const k = new Float64Array(rows)
    const d = new Float64Array(rows)
    for (let period = 2; period <= 30; period++) {
      willr(h, l, c, period, w)
      stoch(h, l, c, period, 1, 1, k, d)
      for (let i = period - 1; i < rows && bad.length < 3; i++) {
        const hh = windowMax(h, i - period + 1, i)
        const ll = windowMin(l, i - period + 1, i)
        const range = hh - ll
        const wantW = range !== 0 ? ((hh - c[i]) / range) * -100 : 0
        const wantK = range !== 0 ? ((c[i] - ll) / range) * 100 : 0
        if (!(w[i] === wantW && k[i] === wantK)) bad.push(`period ${period}, row ${i}: ${w[i]} / ${k[i]} vs ${wantW} / ${wantK}`)
      }
    }
    expect(bad).toEqual([])
  })

  test('rsi: the two-bar step agrees with the one-bar Wilder recursion to 1e-12 on every row', () => {
    const out = new Float64Array(N)
    rsi(bars.c, 14, out)
    let gain = 0
    let loss = 0
    for (let i = 1; i <= 14; i++) {
      const d = bars.c[i] - bars.c[i - 1]
      if (d > 0) gain += d
      else loss -= d
    }
    gain /= 14
    loss /= 14
    let worst = 0
    for (let i = 15; i < N; i++) {
      const d = bars.c[i] - bars.c[i - 1]
      gain = (gain * 13 + Math.max(d, 0)) / 14
      loss = (loss * 13 + Math.max(-d, 0)) / 14
      worst = Math.max(worst, Math.abs(out[i] - (100 * gain) / (gain + loss)))
    }
    expect(worst).toBeLessThan(1e-12)
    expect(worst).toBeGreaterThan(0) // the steps round differently: this test sees both forms
  })

  test('rsi and stochRsi: a bar whose close equals the previous one keeps the previous value exactly (both Wilder averages shrink by 13/14, so the real RSI is unchanged)', () => {
    // a walk on a 0.01 tick grid: about a third of the bars are flat
    const r = rng(29)
    const c = new Float64Array(4000)
    c[0] = 20
    for (let i = 1; i < c.length; i++) c[i] = Math.round((c[i - 1] + Math.floor(r() * 3 - 1) * 0.01) * 100) / 100
    const out = new Float64Array(c.length)
    rsi(c, 14, out)
    // smoothing 1: K is the raw %K; after a bar at the window's low (high) a flat bar is there too
    const k = new Float64Array(c.length)
    const d1 = new Float64Array(c.length)
    stochRsi(c, 14, 14, 1, 1, k, d1)
    let stayed = 0
    let flats = 0
    let moved = 0
    let gain = 0
    let loss = 0
    let prev = 0
    for (let i = 1; i < c.length; i++) {
      const d = c[i] - c[i - 1]
      gain = i <= 14 ? gain + Math.max(d, 0) / 14 : (gain * 13 + Math.max(d, 0)) / 14
      loss = i <= 14 ? loss + Math.max(-d, 0) / 14 : (loss * 13 + Math.max(-d, 0)) / 14
      const plain = (100 * gain) / (gain + loss)
      if (i > 14 && d === 0) {
        flats++
        expect(out[i]).toBe(out[i - 1])
        if (plain !== prev) moved++
        if (i >= 28 && (k[i - 1] === 0 || k[i - 1] === 100)) {
          expect(k[i]).toBe(k[i - 1])
          stayed++
        }
      }
      prev = plain
    }
    expect(flats).toBeGreaterThan(1000)
    expect(stayed).toBeGreaterThan(100)
    // the plain recursion moves an ulp on some flat bars: the rule is what keeps them equal
    expect(moved).toBeGreaterThan(0)
  })

  test('logRatio is ln(a / b) to 2 ulps on both sides of the series threshold (|u| = 2⁻⁵)', () => {
    // reference: log1p of the exact-ish relative move (Math.log(a / b) loses digits on tiny moves)
    const r = rng(17)
    let worst = 0
    for (let k = 0; k < 20000; k++) {
      const b = 0.001 + r() * 1000
      const move = (r() - 0.5) * (k % 2 === 0 ? 0.02 : 0.2) // half small moves, half up to ±10 %
      const a = b * (1 + move)
      const want = Math.log1p((a - b) / b)
      if (want !== 0) worst = Math.max(worst, Math.abs(logRatio(a, b) - want) / Math.abs(want))
    }
    expect(worst).toBeLessThan(4.5e-16)
  })

  test('roc is 100 · (x / old − 1) on every row, through the shared-division path and its fallbacks', () => {
    const src = Float64Array.from(bars.c)
    src[500] = 0 // a zero old value: 0, as TA-Lib
    src[900] = 1e-200 // a product out of range: plain division
    for (const period of [1, 3, 4, 10]) {
      const out = new Float64Array(N)
      roc(src, period, out)
      // reference without the cancellation of x / old − 1; the plain division, which TA-Lib
      // and our fallback use, is within 100 · 2⁻⁵² of it
      const bad: number[] = []
      for (let i = period; i < N && bad.length < 3; i++) {
        const old = src[i - period]
        const want = old !== 0 ? ((src[i] - old) / old) * 100 : 0
        if (!(Math.abs(out[i] - want) <= 1e-13 * (1 + Math.abs(want)))) bad.push(i)
      }
      expect({ period, bad }).toEqual({ period, bad: [] })
      expect(Number.isNaN(out[period - 1])).toBe(true)
    }
  })
})

describe('Bollinger registry fields', () => {
  test('width, its mean, its change, squeeze flags and %B follow their formulas', () => {
    const p = { period: 20, std: 2, squeeze_lookback: 10, squeeze_threshold: 0.8 }
    const f = computeIndicator('bb', bars, p)
    for (const i of [40, 900, 2222, N - 1]) {
      const width = ((f.bb_upper[i] - f.bb_lower[i]) / f.bb_mid[i]) * 100
      expect(f.bb_width[i]).toBeCloseTo(width, 12)
      const ma = exactSum(f.bb_width, i - 9, i) / 10
      expect(relErr(f.bb_width_ma[i], ma)).toBeLessThan(1e-13)
      expect(f.bb_width_change[i]).toBeCloseTo((f.bb_width[i] / f.bb_width[i - 1] - 1) * 100, 10)
      expect(f.is_squeeze[i]).toBe(f.bb_width[i] < f.bb_width_ma[i] * 0.8 ? 1 : 0)
      expect(f.bb_expanding[i]).toBe(f.bb_width[i] > f.bb_width[i - 1] ? 1 : 0)
      const anyRecent = Array.from(f.is_squeeze.subarray(i - 9, i + 1)).some((x) => x === 1)
      expect(f.recent_squeeze[i]).toBe(anyRecent ? 1 : 0)
      expect(f.bb_pct_b[i]).toBeCloseTo((bars.c[i] - f.bb_lower[i]) / (f.bb_upper[i] - f.bb_lower[i]), 12)
    }
    // the flags are not constant on this series, or the checks above would be weak
    expect(new Set(Array.from(f.is_squeeze.subarray(40))).size).toBe(2)
    expect(new Set(Array.from(f.recent_squeeze.subarray(40))).size).toBe(2)
  })
})

describe('channels, Ichimoku, Supertrend, Stoch RSI', () => {
  test('donchian: the channel includes this bar; the _prev channel is the period bars before it', () => {
    const dc = computeIndicator('donchian', bars, { period: 20 })
    for (const i of [20, 1500, N - 1]) {
      expect(dc.dc_upper[i]).toBe(windowMax(bars.h, i - 19, i))
      expect(dc.dc_lower[i]).toBe(windowMin(bars.l, i - 19, i))
      expect(dc.dc_upper_prev[i]).toBe(windowMax(bars.h, i - 20, i - 1))
      expect(dc.dc_lower_prev[i]).toBe(windowMin(bars.l, i - 20, i - 1))
      expect(dc.dc_breakout_up[i]).toBe(bars.c[i] > dc.dc_upper_prev[i] ? 1 : 0)
    }
    expect(Array.from(dc.dc_breakout_up).filter((x) => x === 1).length).toBeGreaterThan(0)
  })

  test('ichimoku: lines are window midpoints; the spans under bar i were computed displacement bars earlier', () => {
    const ich = computeIndicator('ichimoku', bars, { tenkan: 9, kijun: 26, senkou_b: 52, displacement: 26 })
    const mid = (i: number, p: number) => (windowMax(bars.h, i - p + 1, i) + windowMin(bars.l, i - p + 1, i)) / 2
    for (const i of [77, 1000, N - 1]) {
      expect(ich.tenkan[i]).toBe(mid(i, 9))
      expect(ich.kijun[i]).toBe(mid(i, 26))
      expect(ich.senkou_a[i]).toBe((mid(i - 26, 9) + mid(i - 26, 26)) / 2)
      expect(ich.senkou_b[i]).toBe(mid(i - 26, 52))
      const top = Math.max(ich.senkou_a[i], ich.senkou_b[i])
      expect(ich.above_cloud[i]).toBe(bars.c[i] > top ? 1 : 0)
      expect(ich.chikou_bullish[i]).toBe(bars.c[i] > bars.c[i - 26] ? 1 : 0)
    }
  })

  test('supertrend follows the TradingView rules, written out here bar by bar', () => {
    const p = { period: 10, multiplier: 3 }
    const st = computeIndicator('supertrend', bars, p)
    const a = new Float64Array(N)
    atr(bars.h, bars.l, bars.c, 10, a)
    let upper = NaN
    let lower = NaN
    let dir = 1 // 1 = down (TradingView's sign), -1 = up
    let prevSt = NaN
    let flips = 0
    for (let i = 10; i < N; i++) {
      const hl2 = (bars.h[i] + bars.l[i]) / 2
      let up = hl2 + 3 * a[i]
      let lo = hl2 - 3 * a[i]
      const prevUp = Number.isNaN(upper) ? 0 : upper
      const prevLo = Number.isNaN(lower) ? 0 : lower
      lo = lo > prevLo || bars.c[i - 1] < prevLo ? lo : prevLo
      up = up < prevUp || bars.c[i - 1] > prevUp ? up : prevUp
      const newDir = i === 10 ? 1 : prevSt === upper ? (bars.c[i] > up ? -1 : 1) : bars.c[i] < lo ? 1 : -1
      if (i > 10 && newDir !== dir) flips++
      dir = newDir
      upper = up
      lower = lo
      prevSt = dir === -1 ? lo : up
      expect({ i, st: st.supertrend[i], bull: st.st_bullish[i] }).toEqual({ i, st: prevSt, bull: dir === -1 ? 1 : 0 })
    }
    expect(flips).toBeGreaterThan(5)
  })

  test('stochrsi: SMA-smoothed stochastic of RSI over its own high/low range', () => {
    const p = { rsi_period: 14, stoch_period: 14, k_smooth: 3, d_period: 3 }
    const s = computeIndicator('stochrsi', bars, p)
    const r = new Float64Array(N)
    rsi(bars.c, 14, r)
    const raw = (i: number) => {
      const hi = windowMax(r, i - 13, i)
      const lo = windowMin(r, i - 13, i)
      return hi === lo ? 0 : (100 * (r[i] - lo)) / (hi - lo)
    }
    for (const i of [31, 800, N - 1]) {
      const k = (j: number) => (raw(j) + raw(j - 1) + raw(j - 2)) / 3
      expect(s.stochrsi_k[i]).toBeCloseTo(k(i), 9)
      expect(s.stochrsi_d[i]).toBeCloseTo((k(i) + k(i - 1) + k(i - 2)) / 3, 9)
    }
    expect(Number.isNaN(s.stochrsi_d[30])).toBe(true)
  })
})

describe('stochastic smoothing and Stoch RSI to the bit', () => {
  test('stochrsi raw %K is the formula on RSI + 128 (every window within 2×) to the bit, for stoch periods 1 to 30', () => {
    const r = new Float64Array(N)
    rsi(bars.c, 14, r)
    const z = r.map((x) => x + 128)
    const k = new Float64Array(N)
    const d = new Float64Array(N)
    const bad: string[] = []
    for (let period = 1; period <= 30; period++) {
      stochRsi(bars.c, 14, period, 1, 1, k, d) // smoothing 1: K is the raw %K
      expect(Number.isNaN(k[14 + period - 2])).toBe(true)
      for (let i = 14 + period - 1; i < N && bad.length < 3; i++) {
        const hh = windowMax(z, i - period + 1, i)
        const ll = windowMin(z, i - period + 1, i)
        const want = hh !== ll ? ((z[i] - ll) / (hh - ll)) * 100 : 0
        if (k[i] !== want) bad.push(`period ${period}, row ${i}: ${k[i]} vs ${want}`)
      }
    }
    expect(bad).toEqual([])
  })

  test('stochrsi K and D never leave 0..100, and are exactly 0 / 100 after three bars at the window low / high', () => {
    const k = new Float64Array(N)
    const d = new Float64Array(N)
    stochRsi(bars.c, 14, 14, 3, 3, k, d)
    const z = new Float64Array(N)
    rsi(bars.c, 14, z)
    for (let i = 0; i < N; i++) z[i] += 128
    expect(Number.isNaN(d[30])).toBe(true)
    let zeros = 0
    let hundreds = 0
    for (let i = 31; i < N; i++) {
      expect(k[i] >= 0 && k[i] <= 100 && d[i] >= 0 && d[i] <= 100).toBe(true)
      const atLow = [0, 1, 2].every((j) => z[i - j] === windowMin(z, i - j - 13, i - j))
      const atHigh = [0, 1, 2].every((j) => z[i - j] === windowMax(z, i - j - 13, i - j))
      if (atLow) {
        expect(k[i]).toBe(0)
        zeros++
      }
      if (atHigh) {
        expect(k[i]).toBe(100)
        hundreds++
      }
    }
    expect(zeros).toBeGreaterThan(0)
    expect(hundreds).toBeGreaterThan(0)
  })

  test('smoothStochastic: 3 and 3 average each window afresh, raw and K on a 2⁻⁴⁴ grid (within 1e-12 of sma), other periods are sma exactly, NaN stays inside its windows', () => {
    const raw = new Float64Array(N)
    for (let i = 0; i < N; i++) raw[i] = i < 5 ? NaN : i === 700 ? NaN : (Math.sin(i / 7) + 1) * 50
    const k = new Float64Array(N)
    const d = new Float64Array(N)
    smoothStochastic(raw, 3, 3, k, d, N)
    // round to the nearest multiple of 2⁻⁴⁴, ties to even (exact: a value in 0..512 has at most 53 bits there)
    const grid = (x: number) => {
      const y = x * 2 ** 44
      let r = Math.round(y)
      if (r - y === 0.5 && r % 2 !== 0) r -= 1
      return r / 2 ** 44
    }
    // K: the mean of three raw values on the grid, put on the grid; D: the mean of three K
    const kOf = (a: number, b: number, c: number) => grid((grid(a) + grid(b) + grid(c)) * (1 / 3))
    for (let i = 0; i < N; i++) {
      const kw = kOf(raw[i - 2], raw[i - 1], raw[i])
      const dw = (kOf(raw[i - 4], raw[i - 3], raw[i - 2]) + kOf(raw[i - 3], raw[i - 2], raw[i - 1]) + kw) * (1 / 3)
      if (i < 7 || (i >= 700 && i <= 702)) expect(Number.isNaN(k[i])).toBe(true)
      else expect(k[i]).toBe(kw)
      if (i < 9 || (i >= 700 && i <= 704)) expect(Number.isNaN(d[i])).toBe(true)
      else expect(d[i]).toBe(dw)
    }
    const viaSma = new Float64Array(N)
    sma(raw.subarray(0, 600), 3, viaSma, 600)
    for (let i = 7; i < 600; i++) expect(Math.abs(k[i] - viaSma[i])).toBeLessThan(1e-12)
    const k2 = new Float64Array(N)
    const d2 = new Float64Array(N)
    const smaK = new Float64Array(N)
    const smaD = new Float64Array(N)
    smoothStochastic(raw, 4, 2, k2, d2, N)
    sma(raw, 4, smaK, N)
    sma(smaK, 2, smaD, N)
    expect(Array.from(k2)).toEqual(Array.from(smaK))
    expect(Array.from(d2)).toEqual(Array.from(smaD))
  })

  test('smoothStochastic 3 and 3: windows holding the same values in any order give the same K, and D = K where the last three K are equal (the ties of real arithmetic stay ties)', () => {
    // values that are not exact in binary, so a plain (a + b + c) / 3 depends on the order
    const vals = [0, 100, 63.08371637024849, 23.560028417398634, 1e-15, 99.99999999999999]
    let equalK = 0
    for (const a of vals)
      for (const b of vals)
        for (const c of vals) {
          // a period-3 pattern: every window of three is a rotation of (a, b, c)
          const raw = Float64Array.from({ length: 12 }, (_, i) => [a, b, c][i % 3])
          const k = new Float64Array(12)
          const d = new Float64Array(12)
          smoothStochastic(raw, 3, 3, k, d, 12)
          for (let i = 3; i < 12; i++) expect(k[i]).toBe(k[2])
          for (let i = 4; i < 12; i++) expect(d[i]).toBe(k[i])
          // within the window's values, to the grid's half step
          if (k[2] >= Math.min(a, b, c) - 2 ** -45 && k[2] <= Math.max(a, b, c) + 2 ** -45) equalK++
        }
    expect(equalK).toBe(vals.length ** 3)
    // the sum-times-a-third it replaced misses both on these values
    const s = (x: number, y: number, z: number) => (x + y + z) * (1 / 3)
    const v = 63.08371637024849
    expect(s(100, 100, v)).not.toBe(s(v, 100, 100))
    const kk = 7.853342805799569
    expect(s(kk, kk, kk)).not.toBe(kk)
  })
})

describe('candles', () => {
  /** bars from [open, high, low, close] rows */
  const candles = (rows: number[][]): Bars => {
    const col = (k: number) => Float64Array.from(rows.map((r) => r[k]))
    return { t: col(0).map((_, i) => i * 3_600_000), o: col(0), h: col(1), l: col(2), c: col(3), v: col(0).fill(1), n: rows.length, stepMs: 3_600_000 }
  }

  test('sizes are percent of the open', () => {
    const f = computeIndicator('candle', candles([[100, 110, 95, 104]]))
    expect(f.body_pct[0]).toBeCloseTo(4, 12)
    expect(f.upper_wick_pct[0]).toBeCloseTo(6, 12)
    expect(f.lower_wick_pct[0]).toBeCloseTo(5, 12)
    expect(f.range_pct[0]).toBeCloseTo(15, 12)
    expect([f.is_bullish[0], f.is_bearish[0]]).toEqual([1, 0])
    expect(Number.isNaN(f.bullish_engulfing[0])).toBe(true)
  })

  test('hammer, shooting star and doji by shape', () => {
    const f = computeIndicator(
      'candle',
      candles([
        [100, 102.2, 90, 102], // hammer: lower wick 10, body 2, upper 0.2
        [100, 110, 98.5, 98.5], // shooting star: upper 10, body 1.5, lower 0
        [100, 103, 97, 100.2], // doji: body 0.2 of range 6
        [100, 104, 99, 103], // plain bullish bar
      ]),
    )
    expect(Array.from(f.hammer)).toEqual([1, 0, 0, 0])
    expect(Array.from(f.shooting_star)).toEqual([0, 1, 0, 0])
    expect(Array.from(f.doji)).toEqual([0, 0, 1, 0])
  })

  test('engulfing: the second body covers the opposite first body', () => {
    const f = computeIndicator(
      'candle',
      candles([
        [105, 106, 99, 100], // bearish
        [99, 108, 98, 107], // bullish, opens below 100 and closes above 105
        [107, 108, 101, 106], // bearish but small: no engulfing
        [106.5, 109, 100, 101], // bullish engulfing? no: bearish bar after a bearish bar
        [101, 102, 95, 96],
      ]),
    )
    expect(Array.from(f.bullish_engulfing).slice(1)).toEqual([1, 0, 0, 0])
    expect(Array.from(f.bearish_engulfing).slice(1)).toEqual([0, 0, 0, 0])
    const g = computeIndicator(
      'candle',
      candles([
        [100, 106, 99, 105], // bullish
        [106, 107, 98, 99], // bearish, covers 100..105
      ]),
    )
    expect(g.bearish_engulfing[1]).toBe(1)
  })

  test('heikin-ashi: close is the OHLC mean, open the mean of the previous HA open and close', () => {
    const ha = computeIndicator('heikin_ashi', bars)
    expect(ha.ha_open[0]).toBe((bars.o[0] + bars.c[0]) / 2)
    for (const i of [1, 100, N - 1]) {
      expect(ha.ha_close[i]).toBe((bars.o[i] + bars.h[i] + bars.l[i] + bars.c[i]) / 4)
      expect(ha.ha_open[i]).toBe((ha.ha_open[i - 1] + ha.ha_close[i - 1]) / 2)
      expect(ha.ha_high[i]).toBe(Math.max(bars.h[i], ha.ha_open[i], ha.ha_close[i]))
      expect(ha.ha_low[i]).toBe(Math.min(bars.l[i], ha.ha_open[i], ha.ha_close[i]))
      expect(ha.ha_bullish[i]).toBe(ha.ha_close[i] > ha.ha_open[i] ? 1 : 0)
    }
  })
})

describe('CCI against its formula', () => {
  /** TA-Lib's CCI with exact window sums; 0 where the mean deviation is 0 */
  function cciByFormula(b: Bars, period: number): Float64Array {
    const tp = Float64Array.from({ length: b.n }, (_, j) => (b.h[j] + b.l[j] + b.c[j]) / 3)
    const out = new Float64Array(b.n).fill(Number.NaN)
    for (let i = period - 1; i < b.n; i++) {
      const mean = exactSum(tp, i - period + 1, i) / period
      const dev = Array.from({ length: period }, (_, k) => Math.abs(tp[i - period + 1 + k] - mean))
      const mad = exactSum(dev, 0, period - 1) / period
      out[i] = mad === 0 ? 0 : (tp[i] - mean) / (0.015 * mad)
    }
    return out
  }

  /** the first row where got and want differ by more than 1e-9 (relative above 1, absolute below), or -1 */
  function firstMismatch(got: Float64Array, want: Float64Array): number {
    for (let i = 0; i < want.length; i++) {
      if (Number.isNaN(want[i]) ? !Number.isNaN(got[i]) : !(Math.abs(got[i] - want[i]) <= 1e-9 * Math.max(1, Math.abs(want[i])))) {
        return i
      }
    }
    return -1
  }

  test('every period from 2 to 9, 20 and 57: the same values on every row (the kernel sums five bars per pass from period 5)', () => {
    for (const period of [2, 3, 4, 5, 6, 7, 8, 9, 20, 57]) {
      const got = computeIndicator('cci', bars, { period }).cci
      expect({ period, mismatch: firstMismatch(got, cciByFormula(bars, period)) }).toEqual({ period, mismatch: -1 })
    }
  })

  test('a series cut inside a five-bar pass keeps every value it has', () => {
    for (const period of [5, 20]) {
      const full = computeIndicator('cci', bars, { period }).cci
      for (let rows = period - 1; rows < period + 10; rows++) {
        const cut = computeIndicator('cci', { ...bars, n: rows }, { period }).cci
        for (let i = 0; i < rows; i++) expect(Object.is(cut[i], full[i])).toBe(true)
      }
    }
  })

  test('a window of identical candles has CCI 0', () => {
    const copy = (x: Float64Array) => Float64Array.from(x)
    const flat: Bars = { ...bars, o: copy(bars.o), h: copy(bars.h), l: copy(bars.l), c: copy(bars.c) }
    for (let i = 100; i < 130; i++) flat.o[i] = flat.h[i] = flat.l[i] = flat.c[i] = 123.45
    const got = computeIndicator('cci', flat, { period: 20 }).cci
    for (let i = 119; i < 130; i++) expect(got[i]).toBe(0)
  })
})
