/**
 * The indicator columns a worker thread keeps between strategies (runs/compute/
 * indicator-columns.ts): wanted from a key's second miss on, scoped to a coin's bars on a
 * timeframe, least recently used out first within the byte budget, and a column dropped
 * while its coin is being computed is never handed out to be written again.
 */
import { describe, expect, test } from 'bun:test'
import type { Bars } from '../src/market/types'
import { IndicatorColumnCache } from '../src/runs/compute/indicator-columns'

const HOUR = 3_600_000
function bars(n: number, t0 = Date.UTC(2025, 0, 1)): Bars {
  const z = new Float64Array(n)
  return { t: Float64Array.from({ length: n }, (_, i) => t0 + i * HOUR), o: z, h: z, l: z, c: z, v: z, n, stepMs: HOUR }
}
const col = (n: number, x: number) => new Float64Array(n).fill(x)

describe('indicator columns kept per coin, timeframe and bars', () => {
  test('a column is found only for the coin, timeframe and bars it was computed on', () => {
    const cache = new IndicatorColumnCache(1 << 20)
    const b = bars(10)
    cache.of('BTCUSDT', '1H', b).put('rsi(period=14)|rsi', col(10, 1))
    expect(cache.of('BTCUSDT', '1H', b).get('rsi(period=14)|rsi')?.[0]).toBe(1)
    expect(cache.of('BTCUSDT', '1H', b).get('rsi(period=7)|rsi')).toBeUndefined()
    expect(cache.of('ETHUSDT', '1H', b).get('rsi(period=14)|rsi')).toBeUndefined()
    expect(cache.of('BTCUSDT', '4H', b).get('rsi(period=14)|rsi')).toBeUndefined()
    // one more candle (the store grew): other bars, other columns
    expect(cache.of('BTCUSDT', '1H', bars(11)).get('rsi(period=14)|rsi')).toBeUndefined()
    expect(cache.of('BTCUSDT', '1H', bars(10, Date.UTC(2025, 0, 2))).get('rsi(period=14)|rsi')).toBeUndefined()
    cache.clear()
    expect(cache.of('BTCUSDT', '1H', b).get('rsi(period=14)|rsi')).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  test('a column is wanted from its second miss on: a key never seen again costs no kept column', () => {
    const cache = new IndicatorColumnCache(1 << 20)
    const k = cache.of('BTCUSDT', '1H', bars(10))
    expect(k.wants('rsi(period=14)|rsi')).toBe(false)
    expect(k.wants('rsi(period=7)|rsi')).toBe(false)
    expect(k.wants('rsi(period=14)|rsi')).toBe(true)
    // another coin's miss is its own
    expect(cache.of('ETHUSDT', '1H', bars(10)).wants('rsi(period=7)|rsi')).toBe(false)
    expect(k.wants('rsi(period=7)|rsi')).toBe(true)
  })

  test('over the budget the least recently used columns go first', () => {
    const b = bars(100) // 800 bytes a column
    const cache = new IndicatorColumnCache(3 * 800)
    const k = cache.of('BTCUSDT', '1H', b)
    k.put('a', col(100, 1))
    k.put('b', col(100, 2))
    k.put('c', col(100, 3))
    k.get('a') // a is now the most recently used
    k.put('d', col(100, 4))
    expect(cache.size).toBe(3 * 800)
    expect(k.get('b')).toBeUndefined()
    for (const key of ['a', 'c', 'd']) expect(k.get(key)).toBeDefined()
    // a column larger than the whole budget is not kept, and evicts nothing
    cache.of('BTCUSDT', '1H', bars(1000)).put('e', col(1000, 5))
    expect(cache.size).toBe(3 * 800)
  })

  test('trees cycling over more columns than fit keep hitting the ones kept; columns gone unused make room', () => {
    const b = bars(100)
    const cache = new IndicatorColumnCache(3 * 800)
    const k = cache.of('BTCUSDT', '1H', b)
    // what the compiler does per field: a hit, or a compute offered when wanted
    const pass = (keys: string[]) => {
      let hits = 0
      for (const key of keys) {
        if (k.get(key)) hits++
        else if (k.wants(key)) k.put(key, k.column(100))
      }
      return hits
    }
    const five = ['a', 'b', 'c', 'd', 'e']
    for (let i = 0; i < 3; i++) pass(five)
    // least recently used alone would evict every column before its next use: no hit at all
    expect([pass(five), pass(five), pass(five)]).toEqual([3, 3, 3])
    // another set of columns: the old ones, unused, give way within a few passes
    const other = ['f', 'g', 'h']
    for (let i = 0; i < 6; i++) pass(other)
    expect(pass(other)).toBe(3)
    expect(cache.size).toBe(3 * 800)
  })

  test("a leaf's bar set is kept from its second use on, in a budget of its own that full columns do not take", () => {
    const b = bars(100) // 800 bytes a column, 16 bytes a bit set
    const cache = new IndicatorColumnCache(2 * 800, 2 * 16)
    const k = cache.of('BTCUSDT', '1H', b)
    k.put('a', col(100, 1))
    k.put('b', col(100, 2))
    const set = (x: number) => new Uint32Array(4).fill(x)
    expect(k.wantsLeaf!('leaf:c@0 4 =1')).toBe(false)
    expect(k.wantsLeaf!('leaf:c@0 4 =1')).toBe(true)
    k.putLeaf!('leaf:c@0 4 =1', set(1))
    k.putLeaf!('leaf:c@0 4 =2', set(2))
    expect(k.leaf!('leaf:c@0 4 =1')?.[0]).toBe(1)
    expect(k.leaf!('leaf:c@0 4 =9')).toBeUndefined()
    // a column key is not a leaf key, nor the other way round
    expect(k.leaf!('a')).toBeUndefined()
    expect(k.get('leaf:c@0 4 =1')).toBeUndefined()
    expect(cache.size).toBe(2 * 800 + 2 * 16)
    // a third set evicts the least recently used set, no column
    k.putLeaf!('leaf:c@0 4 =3', set(3))
    expect(k.leaf!('leaf:c@0 4 =2')).toBeUndefined()
    for (const key of ['a', 'b']) expect(k.get(key)).toBeDefined()
    expect(cache.of('ETHUSDT', '1H', b).leaf!('leaf:c@0 4 =1')).toBeUndefined()
    cache.clear()
    expect(k.leaf!('leaf:c@0 4 =1')).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  test("an AND's list of bars and a column's values on it are kept from their second use on, in a budget of their own, and never handed out as a column", () => {
    const b = bars(100)
    const cache = new IndicatorColumnCache(2 * 800, 2 * 16, 2 * 80)
    const k = cache.of('BTCUSDT', '1H', b)
    k.put('a', col(100, 1))
    k.put('b', col(100, 2))
    k.putLeaf!('leaf:c@0 4 =1', new Uint32Array(4))
    const list = Int32Array.from({ length: 20 }, (_, i) => 5 * i)
    expect(k.wantsSparse!('list:x', 80)).toBe(false)
    expect(k.wantsSparse!('list:x', 80)).toBe(true)
    k.putSparse!('list:x', list)
    const values = new Float64Array(10).fill(7)
    k.putSparse!('list:x#rsi@0', values)
    expect(k.sparse!('list:x')).toBe(list)
    expect(k.sparse!('list:x#rsi@0')).toBe(values)
    // the keys of one kind never find another's
    expect(k.get('list:x')).toBeUndefined()
    expect(k.leaf!('list:x')).toBeUndefined()
    expect(k.sparse!('a')).toBeUndefined()
    expect(k.sparse!('leaf:c@0 4 =1')).toBeUndefined()
    expect(cache.size).toBe(2 * 800 + 16 + 80 + 80)
    // a third array evicts the least recently used one of its own budget alone
    k.putSparse!('list:y', new Int32Array(20))
    expect(k.sparse!('list:x')).toBeUndefined()
    expect(k.sparse!('list:x#rsi@0')).toBe(values)
    for (const key of ['a', 'b']) expect(k.get(key)).toBeDefined()
    expect(k.leaf!('leaf:c@0 4 =1')).toBeDefined()
    expect(cache.of('ETHUSDT', '1H', b).sparse!('list:x#rsi@0')).toBeUndefined()
    // an evicted array of values is no spare column, even of the right length for another coin
    const eth = cache.of('ETHUSDT', '1H', bars(10))
    eth.putSparse!('list:z', new Int32Array(20))
    eth.putSparse!('list:z#rsi@0', new Float64Array(10))
    expect(k.sparse!('list:x#rsi@0')).toBeUndefined()
    expect(eth.column(10)).not.toBe(values)
    cache.clear()
    expect(k.sparse!('list:y')).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  test('an evicted column is reused for another coin, never for the coin being computed', () => {
    const b = bars(100)
    const cache = new IndicatorColumnCache(2 * 800)
    const btc = cache.of('BTCUSDT', '1H', b)
    const first = col(100, 1)
    btc.put('a', first)
    btc.put('b', col(100, 2))
    // ETH's column evicts BTC's oldest: BTC is not being computed, so its column is spare
    const eth = cache.of('ETHUSDT', '1H', b)
    eth.put('a', col(100, 3))
    expect(btc.get('a')).toBeUndefined()
    expect(eth.column(100)).toBe(first)
    // a column evicted by its own coin's put may still be read by that coin's tree
    const alone = new IndicatorColumnCache(2 * 800)
    const sol = alone.of('SOLUSDT', '1H', b)
    const own = col(100, 4)
    sol.put('x', own)
    sol.put('y', col(100, 5))
    sol.put('z', col(100, 6))
    expect(sol.get('x')).toBeUndefined()
    expect(sol.column(100)).not.toBe(own)
  })
})

describe("a worker's task context keeps a custom tree's indicator columns", () => {
  const n = 600
  const walk = (seed: number) => {
    let s = seed
    let p = 100
    const c = Float64Array.from({ length: n }, () => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0
      return (p *= 1 + (s / 2 ** 32 - 0.5) * 0.04)
    })
    const b = bars(n)
    return { ...b, o: c, h: c.map(x => x * 1.01), l: c.map(x => x * 0.99), c, v: c.map((x, i) => 1000 + (i % 17) * 50) }
  }
  const coins: Record<string, Bars> = { AAAUSDT: walk(1), BBBUSDT: walk(2) }
  const view = {
    bars: (s: string) => coins[s],
    funding: () => undefined,
    marginBrackets: () => undefined,
    dataVersion: () => 'v1',
    detailInfo: () => ({ syntheticSeed: null, storedDir: '', stored: [] }),
  }
  const spec = (rsiBelow: number, strategyId: string | null = null) =>
    ({
      strategyId,
      timeframe: '1H',
      strategy: {
        indicators: { bb: {}, rsi: {} },
        entry: { type: 'AND', conditions: [{ field: 'close', op: '<', value: { field: 'bb_mid' } }, { field: 'rsi', op: '<', value: rsiBelow }] },
      },
    }) as never

  test('trees run after others over the same indicators give the masks a fresh thread gives', async () => {
    const { TaskContext, strategyKeyOf } = await import('../src/runs/compute/context')
    const warm = new TaskContext(view)
    const masks = (ctx: InstanceType<typeof TaskContext>, s: { strategy: never }) => Object.keys(coins).map(sym => Array.from(ctx.signals(s as never, strategyKeyOf(s.strategy), sym, coins[sym]).entry))
    // three trees before: the columns are kept from their second use on
    for (const x of [40, 41, 42]) masks(warm, spec(x))
    for (const x of [45, 50, 60]) {
      const fresh = new TaskContext(view)
      expect(masks(warm, spec(x))).toEqual(masks(fresh, spec(x)))
      // a registry strategy of the same tree: its own masks, the columns not consulted
      expect(masks(warm, spec(x, 'some-strategy'))).toEqual(masks(fresh, spec(x)))
    }
    expect(masks(new TaskContext(view), spec(50)).flat().some(x => x === 1)).toBe(true)
  })

  test('a sparse entry is kept as its list: the coin tasks step along it, and a reader of the mask gets the mask a fresh compile gives, counted from then on', async () => {
    const { TaskContext, strategyKeyOf } = await import('../src/runs/compute/context')
    const { coinMasks } = await import('../src/runs/compute/coin-tasks')
    const { prepareStrategy } = await import('../src/strategies/compile')
    const { signalBars } = await import('../src/engine/trade-model')
    const { entryMaskOf } = await import('../src/engine/entry-mask')
    const filters = (avoidHours: number[]) => ({ avoidHours, avoidMonths: null, minVolRegime: null })
    const ctx = new TaskContext(view)
    const bytes = () => (ctx as unknown as { signalBytes: number }).signalBytes
    let signals = 0
    for (const x of [29, 30, 31, 32, 33, 33.5, 34]) {
      const s = { ...(spec(x) as object), ...filters([]) } as never as Parameters<typeof coinMasks>[1]
      const key = strategyKeyOf(s.strategy)
      for (const sym of Object.keys(coins)) {
        const b = coins[sym]
        const plain = prepareStrategy(s.strategy).signals(b).entry
        const list = signalBars(plain)
        expect(list).not.toBeNull()
        const before = bytes()
        const m = coinMasks(ctx, s, key, sym, b)
        expect(m.entry).toBeNull()
        expect(m.entryBars).toEqual(list)
        signals += list!.length
        // nothing but the list kept: the mask is made when read, and counted then
        const kept = bytes() - before
        expect(kept).toBe(list!.byteLength)
        expect(Array.from(ctx.signals(s, key, sym, b).entry)).toEqual(Array.from(plain))
        expect(bytes() - before).toBe(kept + b.n)
        // an entry filter reads the mask: the filtered mask of a fresh compile's
        const hours = [0, 5, 11]
        const f = { ...(s as object), ...filters(hours) } as never as Parameters<typeof coinMasks>[1]
        expect(Array.from(coinMasks(ctx, f, key, sym, b).entry!)).toEqual(Array.from(entryMaskOf(plain, b, filters(hours))))
      }
    }
    expect(signals).toBeGreaterThan(20)
  })
})
