/**
 * Agreement with the reference values in ../shared/golden (TA-Lib, and exact compensated sums
 * for SMA / Bollinger / σ) on every bar of BTC, ETH and DOGE 1h candles.
 */
import { describe, expect, test } from 'bun:test'
import { adx } from '../src/indicators/adx'
import { aroon } from '../src/indicators/aroon'
import { atr, trueRange } from '../src/indicators/atr'
import { bollinger, stddev } from '../src/indicators/bollinger'
import { cci } from '../src/indicators/cci'
import { ema, sma } from '../src/indicators/ma'
import { macd } from '../src/indicators/macd'
import { computeIndicator } from '../src/indicators/registry'
import { roc } from '../src/indicators/roc'
import { rsi } from '../src/indicators/rsi'
import { sar } from '../src/indicators/sar'
import { stoch, willr } from '../src/indicators/stoch'
import { mfi, obv } from '../src/indicators/volume'
import type { Bars } from '../src/market/types'
import { GOLDEN_SYMBOLS, SKIP_REASON, hasGolden, loadBars, loadGolden } from './indicators-fixtures'

if (!hasGolden) console.warn(`indicators-golden: skipped, ${SKIP_REASON}`)

type Columns = Record<string, Float64Array>

/** Our value of every golden column, from the kernels. */
function kernelColumns(b: Bars): Columns {
  const n = b.n
  const col = () => new Float64Array(n)
  const c: Columns = {}
  const put = (...names: string[]) => names.map((name) => (c[name] = col()))
  const [s20] = put('sma_20')
  sma(b.c, 20, s20)
  const [mid, up, lo] = put('bb_mid_20_2', 'bb_upper_20_2', 'bb_lower_20_2')
  bollinger(b.c, 20, 2, mid, up, lo)
  const [sd] = put('stddev_20_pop')
  stddev(b.c, 20, sd)
  for (const p of [20, 50, 200]) ema(b.c, p, put(`ema_${p}`)[0])
  const [tr] = put('trange')
  trueRange(b.h, b.l, b.c, tr)
  const [a, na] = put('atr_14', 'natr_14')
  atr(b.h, b.l, b.c, 14, a, n, na)
  const [ad, pdi, mdi] = put('adx_14', 'plus_di_14', 'minus_di_14')
  adx(b.h, b.l, b.c, 14, ad, pdi, mdi)
  rsi(b.c, 14, put('rsi_14')[0])
  const [m, ms, mh] = put('macd_12_26_9', 'macd_signal_12_26_9', 'macd_hist_12_26_9')
  macd(b.c, 12, 26, 9, m, ms, mh)
  const [k, d] = put('stoch_k_14_3_3', 'stoch_d_14_3_3')
  stoch(b.h, b.l, b.c, 14, 3, 3, k, d)
  willr(b.h, b.l, b.c, 14, put('willr_14')[0])
  cci(b.h, b.l, b.c, 20, put('cci_20')[0])
  mfi(b.h, b.l, b.c, b.v, 14, put('mfi_14')[0])
  obv(b.c, b.v, put('obv')[0])
  const [au, adn] = put('aroon_up_14', 'aroon_down_14')
  aroon(b.h, b.l, 14, au, adn)
  sar(b.h, b.l, 0.02, 0.2, put('sar_002_02')[0])
  roc(b.c, 10, put('roc_10')[0])
  return c
}

/** The same columns through the registry, with the params the golden file used. */
function registryColumns(b: Bars): Columns {
  const bb = computeIndicator('bb', b)
  const emaA = computeIndicator('ema', b, { fast: 20, slow: 200 })
  const emaB = computeIndicator('ema', b, { fast: 50, slow: 200 })
  const range = computeIndicator('atr', b)
  const dmi = computeIndicator('adx', b)
  const mac = computeIndicator('macd', b)
  const st = computeIndicator('stoch', b)
  const ar = computeIndicator('aroon', b)
  return {
    sma_20: computeIndicator('sma', b).sma_fast,
    bb_mid_20_2: bb.bb_mid,
    bb_upper_20_2: bb.bb_upper,
    bb_lower_20_2: bb.bb_lower,
    ema_20: emaA.ema_fast,
    ema_50: emaB.ema_fast,
    ema_200: emaA.ema_slow,
    trange: range.tr,
    atr_14: range.atr,
    natr_14: range.natr,
    adx_14: dmi.adx,
    plus_di_14: dmi.plus_di,
    minus_di_14: dmi.minus_di,
    rsi_14: computeIndicator('rsi', b).rsi,
    macd_12_26_9: mac.macd,
    macd_signal_12_26_9: mac.macd_signal,
    macd_hist_12_26_9: mac.macd_hist,
    stoch_k_14_3_3: st.stoch_k,
    stoch_d_14_3_3: st.stoch_d,
    willr_14: computeIndicator('willr', b).willr,
    cci_20: computeIndicator('cci', b).cci,
    mfi_14: computeIndicator('mfi', b).mfi,
    obv: computeIndicator('obv', b).obv,
    aroon_up_14: ar.aroon_up,
    aroon_down_14: ar.aroon_down,
    sar_002_02: computeIndicator('sar', b).sar,
    roc_10: computeIndicator('roc', b).roc,
  }
}

const firstValued = (c: Float64Array) => c.findIndex((x) => !Number.isNaN(x))

/**
 * Rows where got and ref disagree: a value where the reference has none (or the reverse), or
 * a difference above `rel` of the reference (above `abs` when the reference is near zero).
 */
function disagreements(got: Float64Array, ref: Float64Array, rel: number, abs: number): string[] {
  const bad: string[] = []
  for (let i = 0; i < ref.length && bad.length < 5; i++) {
    const r = ref[i]
    const g = got[i]
    if (Number.isNaN(r) || Number.isNaN(g)) {
      if (Number.isNaN(r) !== Number.isNaN(g)) bad.push(`row ${i}: ref ${r}, got ${g}`)
      continue
    }
    const diff = Math.abs(g - r)
    if (!(diff <= rel * Math.abs(r) || diff <= abs)) bad.push(`row ${i}: ref ${r}, got ${g}`)
  }
  return bad
}

describe.skipIf(!hasGolden)('TA-Lib and exact reference values (../shared/golden)', () => {
  const data = hasGolden
    ? GOLDEN_SYMBOLS.map((symbol) => {
        const bars = loadBars(symbol)
        return { symbol, bars, golden: loadGolden(symbol), kernels: kernelColumns(bars), registry: registryColumns(bars) }
      })
    : []
  const goldenColumns = hasGolden ? Object.keys(data[0].golden).filter((c) => c !== 'open_time_ms') : []

  test('the reference files and the candles describe the same bars', () => {
    for (const { bars, golden } of data) {
      expect(golden.open_time_ms.length).toBe(bars.n)
      expect(golden.open_time_ms[0]).toBe(bars.t[0])
      expect(golden.open_time_ms[bars.n - 1]).toBe(bars.t[bars.n - 1])
    }
  })

  for (const symbol of GOLDEN_SYMBOLS) {
    test(`${symbol}: every reference column matches to 1e-9 relative (1e-9 absolute near zero), same first bar`, () => {
      const { golden, kernels, registry } = data.find((d) => d.symbol === symbol)!
      expect(goldenColumns.length).toBeGreaterThanOrEqual(28)
      for (const name of goldenColumns) {
        const ref = golden[name]
        for (const [path, cols] of [['kernel', kernels], ['registry', registry]] as const) {
          const got = cols[name]
          if (!got) {
            if (path === 'registry' && name === 'stddev_20_pop') continue // no registry field for σ alone
            throw new Error(`${path}: no column for ${name}`)
          }
          expect({ column: name, path, first: firstValued(got) }).toEqual({ column: name, path, first: firstValued(ref) })
          expect({ column: name, path, bad: disagreements(got, ref, 1e-9, 1e-9) }).toEqual({ column: name, path, bad: [] })
        }
      }
    })
  }

  test('SMA, Bollinger bands and σ are exact: within 1e-13 (σ 1e-12) relative of the compensated reference', () => {
    for (const { kernels, golden } of data) {
      for (const name of ['sma_20', 'bb_mid_20_2', 'bb_upper_20_2', 'bb_lower_20_2']) {
        expect({ name, bad: disagreements(kernels[name], golden[name], 1e-13, 0) }).toEqual({ name, bad: [] })
      }
      expect(disagreements(kernels.stddev_20_pop, golden.stddev_20_pop, 1e-12, 0)).toEqual([])
    }
  })
})
