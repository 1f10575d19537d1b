/**
 * The condition-tree compiler on tiny hand-made series, against a small catalog of
 * indicators defined here (so these tests pin the compiler, not the indicator maths).
 */
import { describe, expect, test } from 'bun:test'
import type { IndicatorDef } from '../src/indicators/types'
import type { Bars } from '../src/market/types'
import type { IndicatorCatalog } from '../src/strategies/catalog'
import { compileStrategy, indicatorsUsed, prepareStrategy, type IndicatorColumns } from '../src/strategies/compile'
import { type ConditionNode, conditionsCount } from '../src/strategies/conditions'
import { StrategyValidationError } from '../src/strategies/validate'
import { IndicatorColumnCache } from '../src/runs/compute/indicator-columns'
import { signalBars } from '../src/engine/trade-model'

const HOUR = 3_600_000

function bars(close: number[], open?: number[], t0Ms = Date.UTC(2024, 0, 1)): Bars {
  const n = close.length
  const c = Float64Array.from(close)
  const o = Float64Array.from(open ?? close)
  return {
    t: Float64Array.from({ length: n }, (_, i) => t0Ms + i * HOUR),
    o,
    h: c.map((x, i) => Math.max(x, o[i])),
    l: c.map((x, i) => Math.min(x, o[i])),
    c,
    v: new Float64Array(n).fill(1),
    n,
    stepMs: HOUR,
  }
}

let computeCalls: Record<string, number> = {}

const tiny: Record<string, IndicatorDef> = {
  sma: {
    id: 'sma',
    name: 'Simple moving average',
    fields: [{ name: 'sma', type: 'number', description: 'mean of the last `period` closes' }],
    params: { period: { default: 3, min: 2, max: 10, integer: true, description: 'bars' } },
    compute(b, p, out) {
      computeCalls.sma = (computeCalls.sma ?? 0) + 1
      const s = out.sma
      for (let i = 0; i < b.n; i++) {
        if (i < p.period - 1) {
          s[i] = Number.NaN
          continue
        }
        let sum = 0
        for (let k = 0; k < p.period; k++) sum += b.c[i - k]
        s[i] = sum / p.period
      }
    },
  },
  flags: {
    id: 'flags',
    name: 'Candle flags',
    fields: [
      { name: 'green', type: 'boolean', description: 'close above open' },
      { name: 'prev_close', type: 'number', description: "previous bar's close" },
    ],
    params: {},
    compute(b, _p, out) {
      computeCalls.flags = (computeCalls.flags ?? 0) + 1
      // compute fills the fields it is asked for (IndicatorDef's contract)
      for (let i = 0; i < b.n; i++) {
        if (out.green) out.green[i] = b.c[i] > b.o[i] ? 1 : 0
        if (out.prev_close) out.prev_close[i] = i === 0 ? Number.NaN : b.c[i - 1]
      }
    },
  },
}

const catalog: IndicatorCatalog = {
  defs: tiny,
  validateParams(id, params) {
    const errs: string[] = []
    for (const [k, v] of Object.entries(params)) {
      const spec = tiny[id].params[k]
      if (!spec) errs.push(`unknown param '${k}'`)
      else if (typeof v !== 'number' || v < spec.min || v > spec.max) errs.push(`${k} must be from ${spec.min} to ${spec.max}`)
    }
    return errs
  },
}

const mask = (entry: ConditionNode, b: Bars, indicators: Record<string, Record<string, number>> = {}) =>
  Array.from(compileStrategy({ indicators, entry }, b, catalog).entry)

const leaf = (field: string, op: string, value: unknown, extra: object = {}) => ({ field, op, value, ...extra }) as ConditionNode

describe('comparison operators against a constant', () => {
  const b = bars([1, 2, 3, 2, 1])
  test('> and >= differ exactly at equality', () => {
    expect(mask(leaf('close', '>', 2), b)).toEqual([0, 0, 1, 0, 0])
    expect(mask(leaf('close', '>=', 2), b)).toEqual([0, 1, 1, 1, 0])
  })
  test('< and <= differ exactly at equality', () => {
    expect(mask(leaf('close', '<', 2), b)).toEqual([1, 0, 0, 0, 1])
    expect(mask(leaf('close', '<=', 2), b)).toEqual([1, 1, 0, 1, 1])
  })
  test('== and != are complements on bars with a value', () => {
    expect(mask(leaf('close', '==', 2), b)).toEqual([0, 1, 0, 1, 0])
    expect(mask(leaf('close', '!=', 2), b)).toEqual([1, 0, 1, 0, 1])
  })
  test('crosses_above is true only on the bar that moves from at-or-below to above', () => {
    expect(mask(leaf('close', 'crosses_above', 1.5), bars([1, 2, 3, 1, 2]))).toEqual([0, 1, 0, 0, 1])
    // touching the level and then rising is a cross; staying on it is not
    expect(mask(leaf('close', 'crosses_above', 2), bars([2, 2, 3, 3]))).toEqual([0, 0, 1, 0])
  })
  test('crosses_below is true only on the bar that moves from at-or-above to below', () => {
    expect(mask(leaf('close', 'crosses_below', 1.5), bars([1, 2, 3, 1, 2]))).toEqual([0, 0, 0, 1, 0])
  })
})

describe('comparing two fields', () => {
  test('close > sma compares bar by bar and the warm-up never signals', () => {
    const b = bars([1, 2, 3, 1, 5])
    // sma(3): NaN NaN 2 2 3
    expect(mask(leaf('close', '>', { field: 'sma' }), b, { sma: {} })).toEqual([0, 0, 1, 0, 1])
    expect(mask(leaf('close', '<=', { field: 'sma' }), b, { sma: {} })).toEqual([0, 0, 0, 1, 0])
  })
  test('!= with a warm-up NaN on either side is false', () => {
    const b = bars([1, 2, 3, 1, 5])
    expect(mask(leaf('close', '!=', { field: 'sma' }), b, { sma: {} })).toEqual([0, 0, 1, 1, 1])
    expect(mask(leaf('sma', '!=', { field: 'close' }), b, { sma: {} })).toEqual([0, 0, 1, 1, 1])
  })
  test('crosses_above two columns: a[i] > b[i] and a[i-1] <= b[i-1]', () => {
    const b = bars([1, 2, 3, 1, 5, 6, 1])
    // sma: NaN NaN 2 2 3 4 4; close above: - - y n y y n
    expect(mask(leaf('close', 'crosses_above', { field: 'sma' }), b, { sma: {} })).toEqual([0, 0, 0, 0, 1, 0, 0])
    expect(mask(leaf('close', 'crosses_below', { field: 'sma' }), b, { sma: {} })).toEqual([0, 0, 0, 1, 0, 0, 1])
  })
  test('params given in indicators override the defaults', () => {
    const b = bars([1, 3, 2, 4])
    // sma(2): NaN 2 2.5 3
    expect(mask(leaf('close', '>', { field: 'sma' }), b, { sma: { period: 2 } })).toEqual([0, 1, 0, 1])
  })
})

describe('shift reads earlier bars', () => {
  const b = bars([1, 2, 3, 2, 1])
  test('a shifted field compares the value k bars back', () => {
    expect(mask(leaf('close', '>', 1, { shift: 2 }), b)).toEqual([0, 0, 0, 1, 1])
  })
  test('close < close 1 bar back marks falling bars; the first bar has no previous', () => {
    expect(mask(leaf('close', '<', { field: 'close', shift: 1 }), b)).toEqual([0, 0, 0, 1, 1])
  })
  test('a shift longer than the series signals nothing', () => {
    expect(mask(leaf('close', '>', 0, { shift: 50 }), b)).toEqual([0, 0, 0, 0, 0])
  })
  test('a shifted cross needs one more bar of history', () => {
    // close 1 bar back crosses above 1.5 at i where c[i-1] > 1.5 and c[i-2] <= 1.5
    expect(mask(leaf('close', 'crosses_above', 1.5, { shift: 1 }), bars([1, 2, 3, 1, 2, 2]))).toEqual([0, 0, 1, 0, 0, 1])
  })
})

describe('boolean fields', () => {
  const b = bars([2, 1, 3, 3], [1, 2, 2, 3])
  test('== true / == false select the 1 and 0 bars', () => {
    expect(mask(leaf('green', '==', true), b, { flags: {} })).toEqual([1, 0, 1, 0])
    expect(mask(leaf('green', '==', false), b, { flags: {} })).toEqual([0, 1, 0, 1])
    expect(mask(leaf('green', '!=', true), b, { flags: {} })).toEqual([0, 1, 0, 1])
  })
  test('the legacy value_bool means the same as a boolean value', () => {
    const legacy = { field: 'green', op: '==', value_bool: true } as ConditionNode
    expect(mask(legacy, b, { flags: {} })).toEqual(mask(leaf('green', '==', true), b, { flags: {} }))
  })
  test('a boolean compared with its own previous bar finds flips', () => {
    // green: 1 0 1 0 -> became green at bar 2
    const flip: ConditionNode = {
      type: 'AND',
      conditions: [leaf('green', '==', true), leaf('green', '==', false, { shift: 1 })],
    }
    expect(mask(flip, b, { flags: {} })).toEqual([0, 0, 1, 0])
  })
})

describe('AND, OR and NOT', () => {
  const b = bars([1, 2, 3, 4, 5])
  const gt2 = leaf('close', '>', 2)
  const lt5 = leaf('close', '<', 5)
  test('AND keeps bars where every child holds', () => {
    expect(mask({ type: 'AND', conditions: [gt2, lt5] }, b)).toEqual([0, 0, 1, 1, 0])
  })
  test('OR keeps bars where any child holds', () => {
    expect(mask({ type: 'OR', conditions: [leaf('close', '<', 2), leaf('close', '>', 4)] }, b)).toEqual([1, 0, 0, 0, 1])
  })
  test('NOT inverts its child, in both accepted forms', () => {
    expect(mask({ type: 'NOT', condition: gt2 }, b)).toEqual([1, 1, 0, 0, 0])
    expect(mask({ type: 'NOT', conditions: [gt2] }, b)).toEqual([1, 1, 0, 0, 0])
  })
  test('nested groups combine without disturbing each other', () => {
    const tree: ConditionNode = {
      type: 'OR',
      conditions: [
        { type: 'AND', conditions: [gt2, { type: 'NOT', condition: leaf('close', '==', 4) }, lt5] },
        { type: 'AND', conditions: [leaf('close', '<', 2), { type: 'OR', conditions: [leaf('close', '==', 1), leaf('close', '==', 9)] }] },
      ],
    }
    expect(mask(tree, b)).toEqual([1, 0, 1, 0, 0])
  })
})

// a small deterministic generator (mulberry32), so a failure names a tree that can be rerun
function rng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const OPS = ['==', '!=', '>', '>=', '<', '<=', 'crosses_above', 'crosses_below']

describe('an AND of comparisons, evaluated on the list of bars where its leaves hold', () => {
  const FIELDS = ['close', 'open', 'sma', 'prev_close']
  const ones = (m: number[]) => m.flatMap((x, i) => (x ? [i] : []))

  test('every AND gives the mask of its De Morgan form NOT(OR(NOT …)), which is combined mask by mask', () => {
    const r = rng(30)
    for (let k = 0; k < 300; k++) {
      const n = 1 + Math.floor(r() * 60)
      // few distinct prices, so == and crosses hold somewhere; NaN closes now and then
      const close = Array.from({ length: n }, () => (r() < 0.05 ? Number.NaN : 1 + Math.floor(r() * 5)))
      const open = close.map(c => (c !== c ? 3 : c + Math.floor(r() * 3) - 1))
      const b = bars(close, open)
      const leafOf = () => {
        const field = FIELDS[Math.floor(r() * FIELDS.length)]
        const op = OPS[Math.floor(r() * OPS.length)]
        const shift = r() < 0.3 ? { shift: 1 + Math.floor(r() * 4) } : {}
        const value = r() < 0.5 ? 1 + Math.floor(r() * 5) : { field: FIELDS[Math.floor(r() * FIELDS.length)], ...(r() < 0.3 ? { shift: Math.floor(r() * 3) } : {}) }
        return leaf(field, op, value, shift)
      }
      const children: ConditionNode[] = Array.from({ length: 1 + Math.floor(r() * 4) }, leafOf)
      // groups beside the leaves: evaluated only while some bar is left
      if (r() < 0.3) children.push({ type: 'OR', conditions: [leafOf(), leafOf()] })
      if (r() < 0.2) children.push({ type: 'NOT', condition: leafOf() })
      if (r() < 0.2) children.push(leaf('hour', 'in', [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]))
      // list leaves, tested on the listed bars alone: in and not_in, lists of small integers
      // (a table) and of any numbers, on fields with NaNs and halves (sma), shifted or not
      if (r() < 0.4) {
        const field = [...FIELDS, 'hour'][Math.floor(r() * (FIELDS.length + 1))]
        const values = r() < 0.5 ? [1, 3, 4] : [1.5, 2, 300, -1]
        children.push(leaf(field, r() < 0.5 ? 'in' : 'not_in', values, r() < 0.4 ? { shift: 1 + Math.floor(r() * 4) } : {}))
      }
      const and: ConditionNode = { type: 'AND', conditions: children }
      const deMorgan: ConditionNode = { type: 'NOT', condition: { type: 'OR', conditions: children.map(c => ({ type: 'NOT', condition: c }) as ConditionNode) } }
      const indicators = { sma: { period: 2 }, flags: {} }
      const got = mask(and, b, indicators)
      expect([k, ones(got)]).toEqual([k, ones(mask(deMorgan, b, indicators))])
      // and nested one level down (its list and mask are another depth's)
      const nested: ConditionNode = { type: 'OR', conditions: [leaf('close', '>', 99), and] }
      expect([k, ones(mask(nested, b, indicators))]).toEqual([k, ones(got)])
    }
  })
  test('a leaf whose shift reaches before the first bar is false there, whichever leaf narrows first', () => {
    const b = bars([1, 2, 3, 4, 5, 6])
    // close > 0 holds everywhere; close > close 3 bars back only from bar 3 on
    expect(mask({ type: 'AND', conditions: [leaf('close', '>', 0), leaf('close', '>', { field: 'close', shift: 3 })] }, b)).toEqual([0, 0, 0, 1, 1, 1])
    expect(mask({ type: 'AND', conditions: [leaf('close', '>', { field: 'close', shift: 3 }), leaf('close', '>', 0)] }, b)).toEqual([0, 0, 0, 1, 1, 1])
    expect(mask({ type: 'AND', conditions: [leaf('close', '!=', 9), leaf('close', '!=', 9, { shift: 2 })] }, b)).toEqual([0, 0, 1, 1, 1, 1])
  })
})

describe('indicator columns kept between strategies', () => {
  /** a keeper with no budget: it wants every column, and keeps every column offered */
  function keeper(wants = true) {
    const kept = new Map<string, Float64Array>()
    const offered: string[] = []
    const columns: IndicatorColumns = {
      get: key => kept.get(key),
      wants: () => wants,
      column: n => new Float64Array(n),
      put: (key, col) => {
        offered.push(key)
        kept.set(key, col)
      },
    }
    return { kept, offered, columns }
  }
  const b = bars([1, 3, 2, 5, 4, 6, 2, 8])

  test('a new tree on indicators an earlier tree computed compares on the kept columns and computes nothing', () => {
    const k = keeper()
    computeCalls = {}
    const first = prepareStrategy({ indicators: { sma: {} }, entry: leaf('close', '>', { field: 'sma' }) }, catalog).signals(b, undefined, k.columns)
    expect(computeCalls).toEqual({ sma: 1 })
    expect(k.offered).toEqual(['sma(period=3)|sma'])
    const tree: ConditionNode = { type: 'AND', conditions: [leaf('sma', '>', 3), leaf('close', '<', { field: 'sma', shift: 1 })] }
    const again = prepareStrategy({ indicators: { sma: {} }, entry: tree }, catalog).signals(b, undefined, k.columns)
    expect(computeCalls).toEqual({ sma: 1 })
    expect(Array.from(again.entry)).toEqual(mask(tree, b, { sma: {} }))
    expect(Array.from(first.entry)).toEqual(mask(leaf('close', '>', { field: 'sma' }), b, { sma: {} }))
  })
  test('other params are another column; a field not kept is computed alone and offered', () => {
    const k = keeper()
    computeCalls = {}
    prepareStrategy({ indicators: { sma: {}, flags: {} }, entry: { type: 'AND', conditions: [leaf('close', '>', { field: 'sma' }), leaf('green', '==', true)] } }, catalog).signals(b, undefined, k.columns)
    prepareStrategy({ indicators: { sma: { period: 2 } }, entry: leaf('close', '>', { field: 'sma' }) }, catalog).signals(b, undefined, k.columns)
    expect(computeCalls).toEqual({ sma: 2, flags: 1 })
    const tree: ConditionNode = { type: 'AND', conditions: [leaf('green', '==', true), leaf('close', '>', { field: 'prev_close' })] }
    const m = prepareStrategy({ indicators: { flags: {} }, entry: tree }, catalog).signals(b, undefined, k.columns)
    expect(computeCalls).toEqual({ sma: 2, flags: 2 })
    expect(k.offered).toEqual(['sma(period=3)|sma', 'flags()|green', 'sma(period=2)|sma', 'flags()|prev_close'])
    expect(Array.from(m.entry)).toEqual(mask(tree, b, { flags: {} }))
  })
  test('a column the keeper does not want is computed in scratch and not offered', () => {
    const k = keeper(false)
    computeCalls = {}
    const tree: ConditionNode = { type: 'AND', conditions: [leaf('close', '>', { field: 'sma' }), leaf('sma', '>', 2)] }
    const s = prepareStrategy({ indicators: { sma: {} }, entry: tree }, catalog)
    const first = Array.from(s.signals(b, undefined, k.columns).entry)
    expect(Array.from(s.signals(b, undefined, k.columns).entry)).toEqual(first)
    expect(computeCalls).toEqual({ sma: 2 })
    expect(k.offered).toEqual([])
    expect(first).toEqual(mask(tree, b, { sma: {} }))
  })
})

describe("an AND leaf's bars kept between trees", () => {
  /** the worker's keeper (runs/compute/indicator-columns.ts) with room for everything */
  const keeperOf = (b: Bars) => new IndicatorColumnCache(1 << 24).of('BTCUSDT', '1H', b)

  test('a tree edited in one leaf compares only that leaf: the unchanged leaves read no column, and the masks stay those of no keeper', () => {
    const n = 300
    const r = rng(7)
    const b = bars(Array.from({ length: n }, () => 1 + Math.floor(r() * 9)))
    const k = keeperOf(b)
    const treeAt = (x: number): ConditionNode => ({ type: 'AND', conditions: [leaf('close', '>', { field: 'sma' }), leaf('close', '<', x), leaf('green', '!=', true)] })
    const indicators = { sma: {}, flags: {} }
    // the leaves are kept from their second use on (the first tree's pass lists them; the second keeps them)
    for (const x of [8, 7]) prepareStrategy({ indicators, entry: treeAt(x) }, catalog).signals(b, undefined, k)
    computeCalls = {}
    const got = [6, 5, 4].map(x => Array.from(prepareStrategy({ indicators, entry: treeAt(x) }, catalog).signals(b, undefined, k).entry))
    // close > sma and green != true are kept sets: neither sma nor flags is computed again
    expect(computeCalls).toEqual({})
    expect(got).toEqual([6, 5, 4].map(x => mask(treeAt(x), b, indicators)))
    expect(got[0].some(x => x === 1)).toBe(true)
  })

  test('random trees edited leaf by leaf give the masks of no keeper, whatever is kept', () => {
    const r = rng(31)
    const FIELDS_OF_LEAVES = ['close', 'open', 'sma', 'prev_close']
    for (let c = 0; c < 12; c++) {
      const n = 50 + Math.floor(r() * 400)
      const close = Array.from({ length: n }, () => (r() < 0.03 ? Number.NaN : 1 + Math.floor(r() * 6)))
      const b = bars(close, close.map(x => (x !== x ? 3 : x + Math.floor(r() * 3) - 1)))
      // a small pool of leaves, so trees share them as an edited tree does
      const pool: ConditionNode[] = Array.from({ length: 6 }, () => {
        const value = r() < 0.5 ? 1 + Math.floor(r() * 6) : { field: FIELDS_OF_LEAVES[Math.floor(r() * 4)], ...(r() < 0.3 ? { shift: Math.floor(r() * 3) } : {}) }
        return leaf(FIELDS_OF_LEAVES[Math.floor(r() * 4)], OPS[Math.floor(r() * OPS.length)], value, r() < 0.3 ? { shift: 1 + Math.floor(r() * 3) } : {})
      })
      // a budget that fits some of it, so sets and columns come and go
      const k = new IndicatorColumnCache(r() < 0.5 ? 1 << 24 : 3 * n * 8).of('ETHUSDT', '1H', b)
      for (let t = 0; t < 25; t++) {
        const leaves = Array.from({ length: 1 + Math.floor(r() * 4) }, () => pool[Math.floor(r() * pool.length)])
        const conditions: ConditionNode[] = [...leaves]
        if (r() < 0.3) conditions.push({ type: 'OR', conditions: [pool[0], { type: 'AND', conditions: [pool[1], pool[2]] }] })
        const tree: ConditionNode = r() < 0.2 ? { type: 'NOT', condition: { type: 'AND', conditions } } : { type: 'AND', conditions }
        const indicators = { sma: { period: 2 + (t % 2) }, flags: {} }
        const got = prepareStrategy({ indicators, entry: tree, exit_conditions: { type: 'AND', conditions: leaves.slice().reverse() } }, catalog).signals(b, undefined, k)
        const plain = prepareStrategy({ indicators, entry: tree, exit_conditions: { type: 'AND', conditions: leaves.slice().reverse() } }, catalog).signals(b)
        expect([c, t, Array.from(got.entry)]).toEqual([c, t, Array.from(plain.entry)])
        expect([c, t, Array.from(got.exit!)]).toEqual([c, t, Array.from(plain.exit!)])
      }
    }
  })
})

describe("an AND's kept list of bars and the edited leaf's values on it", () => {
  /** the worker's keeper with no room for columns (a leaf that needs its column computes it), room for the sets and lists */
  const keeperOf = (b: Bars, columns = 0) => new IndicatorColumnCache(columns, 1 << 20, 1 << 20).of('BTCUSDT', '1H', b)

  test('a tree edited in the same leaf again compares it on its kept values: no indicator computed, the masks and signal bars those of no keeper', () => {
    const n = 8000
    const r = rng(11)
    // closes 1 … 40 and a few values between them, so that the comparisons meet ties
    const close = Array.from({ length: n }, () => (r() < 0.03 ? 40 : 1 + Math.floor(r() * 40)))
    const b = bars(close, close.map(x => x + Math.floor(r() * 3) - 1))
    const k = keeperOf(b)
    // close == 40 and green != true are kept sets (a few % of the bars); the edited leaf reads
    // sma against a constant, or prev_close against sma a bar back under each operator
    const FIELD_OPS = ['<', '<=', '>', '>=', '==', '!=', '<', '<=', '>', '>=']
    const trees = [
      (t: number): ConditionNode => ({ type: 'AND', conditions: [leaf('close', '==', 40), leaf('sma', '<', 39 - 2 * t), leaf('green', '!=', true)] }),
      (t: number): ConditionNode => ({ type: 'AND', conditions: [leaf('close', '==', 40), leaf('green', '!=', true), leaf('prev_close', FIELD_OPS[t], { field: 'sma', shift: 1 })] }),
    ]
    const indicators = { sma: {}, flags: {} }
    for (const treeAt of trees) {
      // the sets kept by the second tree, the list by the fourth (seen by the third), its values by the fifth (seen by the fourth)
      for (let t = 0; t < 5; t++) prepareStrategy({ indicators, entry: treeAt(t) }, catalog).signals(b, undefined, k)
      computeCalls = {}
      const xs = [5, 6, 7, 8, 9]
      const got = xs.map(x => prepareStrategy({ indicators, entry: treeAt(x) }, catalog).signals(b, undefined, k))
      expect(computeCalls).toEqual({})
      const plain = xs.map(x => compileStrategy({ indicators, entry: treeAt(x) }, b, catalog))
      expect(got.map(m => Array.from(m.entry))).toEqual(plain.map(m => Array.from(m.entry)))
      expect(got.map(m => m.entryBars)).toEqual(plain.map(m => signalBars(m.entry)))
      expect(got.some(m => m.entry.some(x => x === 1))).toBe(true)
      expect(got.some(m => m.entry.some((x, i) => x === 0 && close[i] === 40 && b.o[i] >= close[i]))).toBe(true)
    }
  })

  test('random trees edited leaf by leaf give the masks and signal bars of no keeper, whatever is kept', () => {
    const r = rng(57)
    const FIELDS_OF_LEAVES = ['close', 'open', 'sma', 'prev_close']
    for (let c = 0; c < 10; c++) {
      const n = 300 + Math.floor(r() * 3000)
      const close = Array.from({ length: n }, () => (r() < 0.02 ? Number.NaN : 1 + Math.floor(r() * 30)))
      const b = bars(close, close.map(x => (x !== x ? 3 : x + Math.floor(r() * 3) - 1)))
      const ops = ['==', '==', '!=', '>', '>=', '<', '<=', 'crosses_above']
      const pool: ConditionNode[] = Array.from({ length: 7 }, () => {
        const value = r() < 0.6 ? 1 + Math.floor(r() * 30) : { field: FIELDS_OF_LEAVES[Math.floor(r() * 4)], ...(r() < 0.3 ? { shift: Math.floor(r() * 3) } : {}) }
        return leaf(FIELDS_OF_LEAVES[Math.floor(r() * 4)], ops[Math.floor(r() * ops.length)], value, r() < 0.3 ? { shift: 1 + Math.floor(r() * 3) } : {})
      })
      const budget = r()
      const k = new IndicatorColumnCache(budget < 0.5 ? 1 << 24 : 0, 1 << 20, budget < 0.25 ? 1 << 20 : 40 * n).of('ETHUSDT', '1H', b)
      for (let t = 0; t < 30; t++) {
        const leaves = Array.from({ length: 2 + Math.floor(r() * 3) }, () => pool[Math.floor(r() * pool.length)])
        const conditions: ConditionNode[] = [...leaves]
        if (r() < 0.2) conditions.push({ type: 'OR', conditions: [pool[0], { type: 'AND', conditions: [pool[1], pool[2]] }] })
        const tree: ConditionNode = r() < 0.15 ? { type: 'NOT', condition: { type: 'AND', conditions } } : { type: 'AND', conditions }
        const spec = { indicators: { sma: { period: 2 + (t % 2) }, flags: {} }, entry: tree, exit_conditions: { type: 'AND', conditions: leaves.slice().reverse() } as ConditionNode }
        const got = prepareStrategy(spec, catalog).signals(b, undefined, k)
        const plain = prepareStrategy(spec, catalog).signals(b)
        expect([c, t, Array.from(got.entry)]).toEqual([c, t, Array.from(plain.entry)])
        expect([c, t, Array.from(got.exit!)]).toEqual([c, t, Array.from(plain.exit!)])
        if (got.entryBars !== undefined) expect([c, t, got.entryBars]).toEqual([c, t, signalBars(got.entry)])
        expect(got.entryBars === undefined).toBe(tree.type === 'NOT')
      }
    }
  })
})

describe('time fields', () => {
  test('hour is the UTC hour of the bar open time', () => {
    const b = bars(new Array(26).fill(1), undefined, Date.UTC(2024, 0, 1, 22))
    // bars open at 22:00, 23:00, 00:00, … 23:00 (26 bars)
    const ones = (m: number[]) => m.flatMap((x, i) => (x ? [i] : []))
    expect(ones(mask(leaf('hour', '==', 0), b))).toEqual([2])
    expect(ones(mask(leaf('hour', '==', 23), b))).toEqual([1, 25])
  })
  test('weekday counts Monday as 0 and Sunday as 6', () => {
    // 2024-01-01 was a Monday; 2024-01-07 a Sunday
    const mon = bars([1], undefined, Date.UTC(2024, 0, 1, 5))
    const sun = bars([1], undefined, Date.UTC(2024, 0, 7, 23))
    expect(mask(leaf('weekday', '==', 0), mon)).toEqual([1])
    expect(mask(leaf('weekday', '==', 6), sun)).toEqual([1])
  })
})

describe('indicator computation', () => {
  test('each named indicator is computed once per call, and unused ones not at all', () => {
    computeCalls = {}
    const tree: ConditionNode = {
      type: 'AND',
      conditions: [leaf('close', '>', { field: 'sma' }), leaf('sma', '>', 1), leaf('sma', 'crosses_above', { field: 'sma', shift: 1 })],
    }
    compileStrategy({ indicators: { sma: {}, flags: {} }, entry: tree }, bars([1, 2, 3]), catalog)
    expect(computeCalls).toEqual({ sma: 1 })
  })
  test('entry and exit share one computation', () => {
    computeCalls = {}
    const out = compileStrategy(
      { indicators: { sma: {} }, entry: leaf('close', '>', { field: 'sma' }), exit_conditions: leaf('close', '<', { field: 'sma' }) },
      bars([1, 2, 3, 1]),
      catalog,
    )
    expect(computeCalls).toEqual({ sma: 1 })
    expect(Array.from(out.exit!)).toEqual([0, 0, 0, 1])
  })
  test('no exit tree gives a null exit mask', () => {
    expect(compileStrategy({ indicators: {}, entry: leaf('close', '>', 0) }, bars([1]), catalog).exit).toBeNull()
  })
  test('a prepared strategy gives the same masks on every coin it is run on, in any order', () => {
    const s = prepareStrategy({ indicators: { sma: { period: 2 } }, entry: leaf('close', '>', { field: 'sma' }) }, catalog)
    const short = bars([1, 3, 2])
    const long = bars([5, 4, 6, 7, 1, 2, 3, 9])
    const first = Array.from(s.signals(short).entry)
    s.signals(long)
    expect(Array.from(s.signals(short).entry)).toEqual(first)
    expect(first).toEqual([0, 1, 0])
  })
  test('indicatorsUsed lists the indicators the trees read, not every listed one', () => {
    expect(indicatorsUsed({ indicators: { sma: {}, flags: {} }, entry: leaf('green', '==', true) }, catalog)).toEqual(['flags'])
  })
  test('conditionsCount counts leaves at every depth', () => {
    const tree = { type: 'AND', conditions: [leaf('close', '>', 1), { type: 'NOT', condition: { type: 'OR', conditions: [leaf('close', '>', 1), leaf('open', '>', 1)] } }] }
    expect(conditionsCount(tree)).toBe(3)
  })
  test('an invalid strategy is refused with every validation message', () => {
    const bad = { indicators: {}, entry: { type: 'AND', conditions: [leaf('sma', '>', 1), leaf('close', '>>', 1)] } } as never
    try {
      compileStrategy(bad, bars([1]), catalog)
      throw new Error('compiled an invalid strategy')
    } catch (e) {
      expect(e).toBeInstanceOf(StrategyValidationError)
      expect((e as StrategyValidationError).errors).toHaveLength(2)
    }
  })
})

describe('the registry indicators, as the compiler uses them', () => {
  test('every indicator writes every row of every field, so reused buffers never leak values from another coin', async () => {
    const { INDICATORS } = await import('../src/indicators/registry')
    const n = 400
    const close = Array.from({ length: n }, (_, i) => 100 + 10 * Math.sin(i / 7) + (i % 5))
    const b = bars(close, close.map((c, i) => c + Math.cos(i)))
    const SENTINEL = -123456.789
    for (const [id, def] of Object.entries(INDICATORS)) {
      const out: Record<string, Float64Array> = {}
      for (const f of def.fields) out[f.name] = new Float64Array(n).fill(SENTINEL)
      def.compute(b, {}, out)
      for (const f of def.fields) expect(out[f.name].indexOf(SENTINEL), `${id}.${f.name}`).toBe(-1)
    }
  })
})
