/**
 * The strategy registry and the builder presets: every entry is a valid condition tree
 * with sane settings, signals only from the past, and fires on real candles.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Bars } from '../src/market/types'
import { prepareStrategy } from '../src/strategies/compile'
import { conditionsCount } from '../src/strategies/conditions'
import { validateStrategy } from '../src/strategies/validate'
import { PRESETS, getPreset, listPresets } from '../src/strategies/presets'
import { STRATEGIES, getStrategy, listStrategies } from '../src/strategies/registry'
import { STATUS_DEFINITIONS } from '../src/strategies/status'
import { REAL_DATA_MISSING, hasRealData, headOf, loadRealBars, realSymbols } from './helpers/real-data'
import { rng } from './indicators-synthetic'

const strategies = listStrategies()

describe('the registry', () => {
  test('has at least 14 strategies with unique ids of the form <name>-<direction>', () => {
    expect(strategies.length).toBeGreaterThanOrEqual(14)
    expect(new Set(strategies.map(s => s.id)).size).toBe(strategies.length)
    for (const s of strategies) expect(s.id).toBe(`${s.id.slice(0, s.id.lastIndexOf('-'))}-${s.direction}`)
  })
  test('holds the strategies the regime table recommends', () => {
    for (const id of ['bb-squeeze-short', 'bb-squeeze-long', 'atr-breakout-short', 'atr-breakout-long', 'adx-trend-short'])
      expect(getStrategy(id)?.id).toBe(id)
  })
  test('holds every strategy of spec/named-strategies.md in its directions, and our two without a counterpart', () => {
    const ids = new Set(strategies.map(s => s.id))
    const both = ['bb-squeeze', 'atr-breakout', 'hv-squeeze', 'rsi-divergence', 'macd-cross', 'donchian-breakout', 'mean-reversion', 'supertrend', 'keltner-squeeze', 'stochastic-rsi', 'ma-cross', 'adx-trend', 'ichimoku', 'heikin-ashi', 'volume-profile', 'momentum-breakout', 'rsi-reversal']
    const expected = [...both.flatMap(f => [`${f}-long`, `${f}-short`]), 'momentum-long']
    expect([...ids].sort()).toEqual(expected.sort())
  })
  test('unknown ids give undefined, including inherited object keys', () => {
    expect(getStrategy('nope-long')).toBeUndefined()
    expect(getStrategy('toString')).toBeUndefined()
  })
  test.each(strategies.map(s => [s.id, s] as const))('%s is a valid tree with settings inside the backtest ranges', (_id, s) => {
    expect(validateStrategy(s)).toEqual([])
    expect(s.description.length).toBeGreaterThan(40)
    expect(Object.hasOwn(STATUS_DEFINITIONS, s.status)).toBe(true)
    expect(s.sl_pct).toBeGreaterThanOrEqual(0.5)
    expect(s.sl_pct).toBeLessThanOrEqual(50)
    expect(s.tp_pct).toBeGreaterThanOrEqual(0.5)
    expect(s.tp_pct).toBeLessThanOrEqual(100)
    expect(Number.isInteger(s.max_bars) && s.max_bars >= 1 && s.max_bars <= 168).toBe(true)
    // every indicator the strategy lists is one its trees read: the params shown are the ones used
    expect(prepareStrategy(s).indicatorsUsed.sort()).toEqual(Object.keys(s.indicators).sort())
  })
  test('docs/strategies.md repeats every status definition word for word', () => {
    const doc = readFileSync(join(import.meta.dir, '../docs/strategies.md'), 'utf8')
    for (const d of Object.values(STATUS_DEFINITIONS)) {
      expect(doc).toContain(d.meaning)
      for (const c of d.criteria) expect(doc).toContain(`- ${c}`)
    }
  })
  test('the long and short side of a family differ', () => {
    for (const s of strategies.filter(x => x.direction === 'long')) {
      const mirror = STRATEGIES[s.id.replace(/-long$/, '-short')]
      if (mirror) expect(JSON.stringify(mirror.entry)).not.toBe(JSON.stringify(s.entry))
    }
  })
  test('a strategy labelled verified or testing has its measurement in docs/strategies.md', () => {
    const doc = readFileSync(join(import.meta.dir, '../docs/strategies.md'), 'utf8')
    for (const s of strategies.filter(x => x.status !== 'research')) {
      const row = doc.split('\n').find(line => line.startsWith(`| ${s.id} |`))
      expect(row, `${s.id} has no row in the measurement table`).toBeDefined()
      expect(row).toContain(s.status)
    }
  })
})

describe('the presets', () => {
  const presets = Object.values(PRESETS)
  test('there are at least 8, each a valid full preset', () => {
    expect(presets.length).toBeGreaterThanOrEqual(8)
    for (const p of presets) {
      expect(validateStrategy(p), p.id).toEqual([])
      expect(p.sl_pct >= 0.5 && p.sl_pct <= 50 && p.tp_pct >= 0.5 && p.tp_pct <= 100).toBe(true)
      expect(Number.isInteger(p.max_bars) && p.max_bars >= 1 && p.max_bars <= 168).toBe(true)
    }
  })
  test('list items name the indicators as ids and count the leaves of the entry tree', () => {
    for (const item of listPresets()) {
      const full = PRESETS[item.id]
      expect(item.indicators).toEqual(Object.keys(full.indicators))
      expect(item.conditions_count).toBe(conditionsCount(full.entry))
      expect([item.name, item.direction, item.sl_pct, item.tp_pct]).toEqual([full.name, full.direction, full.sl_pct, full.tp_pct])
    }
  })
  test('getPreset hands out a copy, so a caller cannot change the preset for everyone', () => {
    const p = getPreset('rsi-oversold-bounce')!
    p.sl_pct = 49
    expect(getPreset('rsi-oversold-bounce')!.sl_pct).not.toBe(49)
    expect(getPreset('nope')).toBeUndefined()
  })
})


/** hourly random walk with volatility clustering, consistent OHLC */
function syntheticBars(n: number, seed: number): Bars {
  const r = rng(seed)
  const t = new Float64Array(n)
  const o = new Float64Array(n)
  const h = new Float64Array(n)
  const l = new Float64Array(n)
  const c = new Float64Array(n)
  const v = new Float64Array(n)
  let price = 100
  let vol = 0.01
  for (let i = 0; i < n; i++) {
    vol = Math.min(0.05, Math.max(0.002, vol * (0.9 + 0.2 * r()) + (r() < 0.02 ? 0.01 : 0)))
    const open = price
    const close = open * Math.exp(vol * (r() + r() + r() - 1.5) * 2)
    t[i] = Date.UTC(2022, 0, 1) + i * 3_600_000
    o[i] = open
    c[i] = close
    h[i] = Math.max(open, close) * (1 + vol * r())
    l[i] = Math.min(open, close) * (1 - vol * r())
    v[i] = 1000 * (0.3 + r() * (1 + 20 * vol))
    price = close
  }
  return { t, o, h, l, c, v, n, stepMs: 3_600_000 }
}

/** the same bars up to and including `cut`, different (but still consistent) after it */
function rewriteAfter(b: Bars, cut: number, seed: number): Bars {
  const r = rng(seed)
  const copy = headOf(b, b.n)
  const o = copy.o as Float64Array
  const h = copy.h as Float64Array
  const l = copy.l as Float64Array
  const c = copy.c as Float64Array
  const v = copy.v as Float64Array
  for (let i = cut + 1; i < b.n; i++) {
    const k = 0.7 + 0.6 * r()
    o[i] *= k
    c[i] *= 0.7 + 0.6 * r()
    h[i] = Math.max(o[i], c[i]) * (1 + 0.02 * r())
    l[i] = Math.min(o[i], c[i]) * (1 - 0.02 * r())
    v[i] *= 0.1 + 5 * r()
  }
  return copy
}

function prefixEqual(a: Uint8Array, b: Uint8Array, through: number): boolean {
  for (let i = 0; i <= through; i++) if (a[i] !== b[i]) return false
  return true
}

const lookAheadCases = [...strategies.map(s => [s.id, s] as const), ...Object.values(PRESETS).map(p => [`preset ${p.id}`, p] as const)]

describe('no look-ahead: changing any candle after bar i changes no signal at or before i', () => {
  const series: [string, Bars][] = [['synthetic', syntheticBars(3000, 7)]]
  if (hasRealData()) series.push(['ETHUSDT', headOf(loadRealBars('ETHUSDT'), 3000)])
  test.each(lookAheadCases)('%s', (_id, spec) => {
    const compiled = prepareStrategy(spec)
    const r = rng(spec.entry ? JSON.stringify(spec.entry).length : 1)
    for (const [, bars] of series) {
      const base = compiled.signals(bars)
      const baseEntry = base.entry.slice()
      const baseExit = base.exit ? base.exit.slice() : null
      for (let k = 0; k < 4; k++) {
        const cut = 100 + Math.floor(r() * (bars.n - 200))
        const changed = compiled.signals(rewriteAfter(bars, cut, 1000 + k))
        expect(prefixEqual(baseEntry, changed.entry, cut)).toBe(true)
        if (baseExit) expect(prefixEqual(baseExit, changed.exit!, cut)).toBe(true)
      }
    }
  })
})

describe.skipIf(!hasRealData())('on the real 28-coin set', () => {
  if (!hasRealData()) console.warn(REAL_DATA_MISSING)
  const symbols = realSymbols()
  test('the set is there in full', () => {
    expect(symbols).toHaveLength(28)
  })
  test.each(lookAheadCases)('%s compiles and signals at least once', (_id, spec) => {
    const compiled = prepareStrategy(spec)
    let entries = 0
    let exits = 0
    for (const sym of symbols) {
      const m = compiled.signals(loadRealBars(sym))
      for (let i = 0; i < m.entry.length; i++) entries += m.entry[i]
      if (m.exit) for (let i = 0; i < m.exit.length; i++) exits += m.exit[i]
    }
    expect(entries).toBeGreaterThan(0)
    if ('exit_conditions' in spec && spec.exit_conditions) expect(exits).toBeGreaterThan(0)
  })
})
