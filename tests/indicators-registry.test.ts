import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  INDICATORS,
  computeIndicator,
  defaultParams,
  indicatorOfField,
  indicatorWarmupBars,
  listIndicators,
  resolveParams,
  validateParams,
} from '../src/indicators/registry'
import type { IndicatorDef } from '../src/indicators/types'
import { rng, syntheticBars } from './indicators-synthetic'

const bars = syntheticBars(2000, 11)

const firstValued = (c: Float64Array) => c.findIndex((x) => !Number.isNaN(x))

function randomValidParams(def: IndicatorDef, seed: number): Record<string, number> {
  const r = rng(seed)
  for (;;) {
    const p: Record<string, number> = {}
    for (const [name, spec] of Object.entries(def.params)) {
      const hi = spec.integer ? Math.min(spec.max, 150) : spec.max
      const x = spec.min + r() * (hi - spec.min)
      p[name] = spec.integer ? Math.round(x) : x
    }
    if (validateParams(def.id, p).length === 0) return p
  }
}

describe('registry shape', () => {
  test('the default set bb, ema, volume and candle has the contract fields', () => {
    const fields = (id: string) => INDICATORS[id].fields.map((f) => f.name)
    expect(fields('bb')).toEqual(
      expect.arrayContaining(['bb_upper', 'bb_lower', 'bb_mid', 'bb_width', 'bb_width_ma', 'bb_width_change']),
    )
    expect(fields('bb')).toEqual(expect.arrayContaining(['is_squeeze', 'recent_squeeze', 'bb_expanding']))
    expect(fields('ema')).toEqual(['ema_fast', 'ema_slow', 'uptrend', 'downtrend'])
    expect(fields('volume')).toEqual(['vol_ratio'])
    expect(fields('candle')).toEqual(
      expect.arrayContaining(['body_pct', 'upper_wick_pct', 'lower_wick_pct', 'range_pct', 'is_bullish', 'is_bearish']),
    )
    expect(fields('candle')).toEqual(
      expect.arrayContaining(['bullish_engulfing', 'bearish_engulfing', 'hammer', 'shooting_star', 'doji']),
    )
    expect(Object.keys(INDICATORS.bb.params)).toEqual(['period', 'std', 'squeeze_lookback', 'squeeze_threshold', 'ddof'])
    expect(defaultParams('bb')).toEqual({ period: 20, std: 2, squeeze_lookback: 10, squeeze_threshold: 0.8, ddof: 0 })
    expect(defaultParams('ema')).toEqual({ fast: 20, slow: 50, adjust: 0 })
    expect(defaultParams('volume')).toEqual({ period: 20 })
    expect(defaultParams('candle')).toEqual({})
  })

  test('the issue’s indicators are all there, each with its named fields', () => {
    const want: Record<string, string[]> = {
      atr: ['atr', 'natr', 'tr', 'atr_ratio'],
      adx: ['adx', 'plus_di', 'minus_di'],
      rsi: ['rsi'],
      macd: ['macd', 'macd_signal', 'macd_hist', 'macd_above_signal'],
      stoch: ['stoch_k', 'stoch_d'],
      stochrsi: ['stochrsi_k', 'stochrsi_d'],
      willr: ['willr'],
      cci: ['cci'],
      mfi: ['mfi'],
      obv: ['obv'],
      aroon: ['aroon_up', 'aroon_down'],
      sar: ['sar', 'sar_bullish'],
      roc: ['roc'],
      donchian: ['dc_upper', 'dc_lower', 'dc_mid', 'dc_upper_prev'],
      keltner: ['kc_upper', 'kc_lower', 'kc_mid'],
      supertrend: ['supertrend', 'st_bullish'],
      ichimoku: ['tenkan', 'kijun', 'senkou_a', 'senkou_b', 'above_cloud', 'below_cloud'],
      heikin_ashi: ['ha_open', 'ha_close', 'ha_high', 'ha_low', 'ha_bullish'],
      hv: ['hv'],
      sma: ['sma_fast', 'sma_slow'],
    }
    for (const [id, fields] of Object.entries(want)) {
      expect({ id, fields: INDICATORS[id]?.fields.map((f) => f.name) }).toEqual({ id, fields: expect.arrayContaining(fields) })
    }
  })

  test('every entry is well formed: id, name, typed one-line fields, sane param ranges', () => {
    expect(listIndicators().map((d) => d.id)).toEqual(Object.keys(INDICATORS))
    for (const [key, def] of Object.entries(INDICATORS)) {
      expect(def.id).toBe(key)
      expect(def.name.length).toBeGreaterThan(0)
      expect(def.fields.length).toBeGreaterThan(0)
      for (const f of def.fields) {
        expect(f.name).toMatch(/^[a-z][a-z0-9_]*$/)
        expect(['number', 'boolean']).toContain(f.type)
        expect(f.description.length).toBeGreaterThan(5)
        expect(f.description).not.toContain('\n')
      }
      for (const [name, p] of Object.entries(def.params)) {
        const where = `${key}.${name}`
        expect({ where, ordered: p.min <= p.default && p.default <= p.max }).toEqual({ where, ordered: true })
        if (p.integer) expect({ where, integral: [p.min, p.default, p.max].every(Number.isInteger) }).toEqual({ where, integral: true })
        expect(p.description.length).toBeGreaterThan(5)
      }
      expect(validateParams(key, defaultParams(key))).toEqual([])
    }
  })

  test('field names are unique across the registry, so a condition can name a field alone', () => {
    const all = listIndicators().flatMap((d) => d.fields.map((f) => f.name))
    expect(new Set(all).size).toBe(all.length)
    for (const def of listIndicators()) for (const f of def.fields) expect(indicatorOfField(f.name)).toBe(def.id)
    expect(indicatorOfField('no_such_field')).toBeUndefined()
  })
})

describe('compute', () => {
  for (const def of listIndicators()) {
    test(`${def.id}: warm-up rows are NaN (never 0), every field has a value from indicatorWarmupBars on, booleans are 1/0`, () => {
      for (const params of [{}, randomValidParams(def, def.id.length + 3)]) {
        const out = computeIndicator(def.id, bars, params)
        const warm = indicatorWarmupBars(def.id, params)
        let latest = 0
        for (const f of def.fields) {
          const col = out[f.name]
          const first = firstValued(col)
          latest = Math.max(latest, first)
          const where = { field: f.name, params }
          expect({ ...where, first: first >= 0 && first <= warm }).toEqual({ ...where, first: true })
          const missing = col.subarray(warm, bars.n).findIndex((x) => Number.isNaN(x))
          expect({ ...where, nanAfterWarmup: missing }).toEqual({ ...where, nanAfterWarmup: -1 })
          if (f.type === 'boolean') {
            const odd = Array.from(col.subarray(first)).find((x) => x !== 0 && x !== 1)
            expect({ ...where, nonBoolean: odd }).toEqual({ ...where, nonBoolean: undefined })
          }
        }
        // the bound is tight: some field is still empty one row earlier
        expect({ params, latest }).toEqual({ params, latest: warm })
      }
    })
  }

  test('compute writes every row of every field, so column buffers can be reused', () => {
    for (const def of listIndicators()) {
      const fresh = computeIndicator(def.id, bars)
      const reused: Record<string, Float64Array> = {}
      for (const f of def.fields) reused[f.name] = new Float64Array(bars.n).fill(12345.678)
      def.compute(bars, {}, reused)
      for (const f of def.fields) {
        const same = fresh[f.name].every((x, i) => Object.is(x, reused[f.name][i]))
        expect({ field: f.name, same }).toEqual({ field: f.name, same: true })
      }
    }
  })

  test('compute fills only the columns it is given, with the same values as a full compute', () => {
    const full = computeIndicator('bb', bars)
    const only = { is_squeeze: new Float64Array(bars.n) }
    INDICATORS.bb.compute(bars, {}, only)
    expect(Array.from(only.is_squeeze)).toEqual(Array.from(full.is_squeeze))
  })

  test('missing params take their defaults', () => {
    const a = computeIndicator('macd', bars, { signal: 5 })
    const b = computeIndicator('macd', bars, { fast: 12, slow: 26, signal: 5 })
    expect(Array.from(a.macd_signal)).toEqual(Array.from(b.macd_signal))
    expect(resolveParams('macd', { signal: 5 })).toEqual({ fast: 12, slow: 26, signal: 5 })
  })
})

describe('validateParams', () => {
  test('defaults, partial params, an empty object and no params at all are valid', () => {
    expect(validateParams('bb', { period: 30 })).toEqual([])
    expect(validateParams('bb', { std: 2.5, squeeze_threshold: 0.75 })).toEqual([])
    expect(validateParams('rsi', {})).toEqual([])
    expect(validateParams('rsi', undefined)).toEqual([])
    expect(validateParams('candle', {})).toEqual([])
  })

  test('an unknown indicator is reported', () => {
    const errors = validateParams('nope', {})
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain('unknown indicator "nope"')
  })

  test('an unknown param name is reported with the known ones', () => {
    const errors = validateParams('bb', { period: 20, length: 5 })
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain('bb.length')
    expect(errors[0]).toContain('period')
    expect(validateParams('candle', { x: 1 })).toHaveLength(1)
  })

  test('non-numbers are reported: strings, null, booleans, NaN, Infinity', () => {
    for (const bad of ['20', null, true, NaN, Infinity, [20]]) {
      const errors = validateParams('rsi', { period: bad })
      expect({ bad: String(bad), n: errors.length }).toEqual({ bad: String(bad), n: 1 })
      expect(errors[0]).toContain('rsi.period')
    }
  })

  test('values outside min..max are reported, the bounds themselves are valid', () => {
    const p = INDICATORS.rsi.params.period
    expect(validateParams('rsi', { period: p.min })).toEqual([])
    expect(validateParams('rsi', { period: p.max })).toEqual([])
    expect(validateParams('rsi', { period: p.min - 1 })[0]).toContain('between')
    expect(validateParams('rsi', { period: p.max + 1 })[0]).toContain('between')
    expect(validateParams('bb', { std: 0 })).toHaveLength(1)
    expect(validateParams('bb', { period: -5 })).toHaveLength(1)
  })

  test('a fraction is reported for an integer param and accepted for a real one', () => {
    expect(validateParams('bb', { period: 20.5 })[0]).toContain('integer')
    expect(validateParams('bb', { std: 2.5 })).toEqual([])
    expect(validateParams('sar', { acceleration: 0.025 })).toEqual([])
  })

  test('several problems give several messages', () => {
    expect(validateParams('bb', { period: 1.5, std: 'x', foo: 1 })).toHaveLength(3)
  })

  test('params that are not an object are reported', () => {
    expect(validateParams('bb', [20])).toHaveLength(1)
    expect(validateParams('bb', 'period=20')).toHaveLength(1)
  })

  test('cross rules: MACD fast must be below slow; SAR acceleration must not exceed its maximum', () => {
    expect(validateParams('macd', { fast: 26, slow: 12 })[0]).toContain('fast')
    expect(validateParams('macd', { fast: 30 })).toHaveLength(1)
    expect(validateParams('macd', { fast: 5, slow: 10 })).toEqual([])
    expect(validateParams('sar', { acceleration: 0.3, maximum: 0.2 })).toHaveLength(1)
  })

  test('indicatorWarmupBars grows with the period and rejects an unknown id', () => {
    expect(indicatorWarmupBars('rsi', { period: 30 })).toBeGreaterThan(indicatorWarmupBars('rsi', { period: 14 }))
    expect(() => indicatorWarmupBars('nope')).toThrow()
  })
})

describe('docs/indicators.md', () => {
  const doc = readFileSync(join(import.meta.dir, '../docs/indicators.md'), 'utf8')

  test('documents every indicator with each param’s type, range and default and each field’s type', () => {
    for (const def of listIndicators()) {
      const start = doc.indexOf(`## \`${def.id}\``)
      expect({ id: def.id, documented: start >= 0 }).toEqual({ id: def.id, documented: true })
      const next = doc.indexOf('\n## ', start + 1)
      const section = doc.slice(start, next < 0 ? undefined : next)
      for (const [name, p] of Object.entries(def.params)) {
        const row = `| ${name} | ${p.integer ? 'integer' : 'number'} | ${p.min}–${p.max} | ${p.default} |`
        expect({ id: def.id, row, found: section.includes(row) }).toEqual({ id: def.id, row, found: true })
      }
      for (const f of def.fields) {
        const row = `| ${f.name} | ${f.type} |`
        expect({ id: def.id, row, found: section.includes(row) }).toEqual({ id: def.id, row, found: true })
      }
      const warm = `Warm-up with the defaults: ${indicatorWarmupBars(def.id)} bars.`
      expect({ id: def.id, warm, found: section.includes(warm) }).toEqual({ id: def.id, warm, found: true })
    }
  })
})
