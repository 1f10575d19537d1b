/**
 * Leaves across timeframes, coins and derivatives data (docs/conditions.md "Other
 * timeframes and other coins", "Funding, basis and open interest"): what a leaf sees at a
 * bar, that it never sees a bar still forming, that absent data makes it false and is
 * counted, and, on the real 28 coins, that the compiler's masks equal a plain loop.
 */
import { describe, expect, test } from 'bun:test'
import { resample } from '../src/market/resample'
import { TIMEFRAME_MS, type Timeframe } from '../src/market/timeframe'
import type { Bars, FundingSeries, SampleKind, SampleSeries } from '../src/market/types'
import { MARKET_DATA_STALE_MS, prepareStrategy, type MarketData } from '../src/strategies/compile'
import type { ConditionNode, StrategySpec } from '../src/strategies/conditions'
import { crossDataProblems, symbolsRead, validateStrategy } from '../src/strategies/validate'
import { DEFAULT_CATALOG } from '../src/strategies/default-catalog'
import { hasRealData, headOf, loadRealBars, loadRealFunding, REAL_DATA_MISSING, realSymbols } from './helpers/real-data'

const HOUR = 3_600_000
const T0 = Date.UTC(2024, 0, 1) // a Monday, 00:00 UTC: 4H and 1D buckets start here

function hourly(close: number[], t0 = T0, times?: number[]): Bars {
  const n = close.length
  const c = Float64Array.from(close)
  return {
    t: Float64Array.from(times ?? Array.from({ length: n }, (_, i) => t0 + i * HOUR)),
    o: c.slice(),
    h: c.map(x => x + 0.5),
    l: c.map(x => x - 0.5),
    c,
    v: new Float64Array(n).fill(1),
    n,
    stepMs: HOUR,
  }
}

/** A MarketData over hand-given series; other timeframes through the product's resample (as the workers do). */
function marketOf(
  symbol: string,
  coins: Record<string, Bars>,
  funding: Record<string, FundingSeries> = {},
  samples: Partial<Record<SampleKind, Record<string, SampleSeries>>> = {},
): MarketData {
  return {
    symbol,
    bars: (s, tf) => (coins[s] ? resample(coins[s], tf) : undefined),
    funding: s => funding[s],
    samples: (k, s) => samples[k]?.[s],
  }
}

const spec = (entry: ConditionNode, indicators: StrategySpec['indicators'] = {}): StrategySpec => ({ indicators, entry })
const ones = (m: Uint8Array) => [...m].flatMap((x, i) => (x ? [i] : []))

describe('a higher timeframe: the last completed bar at the run bar', () => {
  const bars = hourly(Array.from({ length: 16 }, (_, i) => i))

  test("a 4H close is seen from the 1H bar that completes it until the next one's last hour", () => {
    const c = prepareStrategy(spec({ field: 'close', timeframe: '4H', op: '==', value: 3 }))
    const m = c.signals(bars, marketOf('AUSDT', { AUSDT: bars }))
    // bucket 00:00-04:00 closes with bar 3 (close 3); bucket 04:00-08:00 with bar 7
    expect(ones(m.entry)).toEqual([3, 4, 5, 6])
    // before bar 3 no 4H bar has completed: absent, not a warm-up
    expect(ones(m.absent!)).toEqual([0, 1, 2])
  })

  test('shift and windows count bars of the leaf timeframe', () => {
    const shifted = prepareStrategy(spec({ field: 'close', timeframe: '4H', shift: 1, op: '==', value: 3 }))
    expect(ones(shifted.signals(bars, marketOf('AUSDT', { AUSDT: bars })).entry)).toEqual([7, 8, 9, 10])
    const max = prepareStrategy(spec({ field: 'close', timeframe: '4H', op: '==', value: { field: 'high', timeframe: '4H', stat: 'max', bars: 2, offset: -0.5 } }))
    // close of the last 4H bar == highest high of the last two 4H bars − 0.5 on a rising series
    expect(ones(max.signals(bars, marketOf('AUSDT', { AUSDT: bars })).entry)).toEqual([7, 8, 9, 10, 11, 12, 13, 14, 15])
  })

  test('the forming 4H bar is never seen: changing its hours changes nothing before it completes', () => {
    const c = prepareStrategy(spec({ field: 'close', timeframe: '4H', op: '>', value: { field: 'close', timeframe: '4H', shift: 1 } }))
    const base = c.signals(bars, marketOf('AUSDT', { AUSDT: bars })).entry.slice()
    for (let from = 4; from < 16; from++) {
      const changed = hourly([...bars.c].map((x, i) => (i >= from ? 100 - x : x)))
      const m = c.signals(changed, marketOf('AUSDT', { AUSDT: changed })).entry
      // bar i sees the 4H bars closed by i + 1 hours; a change at hour `from` first shows at the end of its bucket
      const firstSeen = Math.floor(from / 4) * 4 + 3
      for (let i = 0; i < Math.min(firstSeen, 16); i++) expect(m[i]).toBe(base[i])
    }
  })
})

describe('another coin: its field at the same instant', () => {
  test('values at the same open time; a hole in the other coin is absent and false', () => {
    const a = hourly([1, 1, 1, 1, 1, 1])
    // BUSDT has no bar at hour 2 and starts at hour 1
    const b = hourly([10, 30, 40, 50, 60], T0, [1, 3, 4, 5, 6].map(h => T0 + h * HOUR))
    const c = prepareStrategy(spec({ field: 'close', symbol: 'BUSDT', op: '>', value: 5 }))
    const m = c.signals(a, marketOf('AUSDT', { AUSDT: a, BUSDT: b }))
    expect(ones(m.entry)).toEqual([1, 3, 4, 5])
    expect(ones(m.absent!)).toEqual([0, 2])
  })

  test('a coin the store does not hold is absent on every bar', () => {
    const a = hourly([1, 2, 3])
    const m = prepareStrategy(spec({ field: 'close', symbol: 'ZZZUSDT', op: '>', value: 0 })).signals(a, marketOf('AUSDT', { AUSDT: a }))
    expect(ones(m.entry)).toEqual([])
    expect(ones(m.absent!)).toEqual([0, 1, 2])
  })

  test('both sides may name coins and timeframes: this coin against BTC on the same bar', () => {
    const a = hourly([5, 6, 7, 8])
    const btc = hourly([6, 6, 6, 6])
    const m = prepareStrategy(spec({ field: 'close', op: '>', value: { field: 'close', symbol: 'BTCUSDT' } })).signals(a, marketOf('AUSDT', { AUSDT: a, BTCUSDT: btc }))
    expect(ones(m.entry)).toEqual([2, 3])
    expect(ones(m.absent!)).toEqual([])
  })
})

describe('funding, basis and open interest at the bar close', () => {
  const bars = hourly(Array.from({ length: 48 }, () => 1))
  // settlements at 00:00, 08:00, 16:00 of day one; none on day two after 08:00
  const funding: FundingSeries = {
    t: Float64Array.from([T0, T0 + 8 * HOUR, T0 + 16 * HOUR, T0 + 32 * HOUR]),
    rate: Float64Array.from([0.0001, 0.0003, -0.0002, 0.0005]),
    n: 4,
  }
  const data = marketOf('AUSDT', { AUSDT: bars }, { AUSDT: funding })

  test('funding_rate is the last settlement at or before the close', () => {
    const c = prepareStrategy(spec({ field: 'funding_rate', op: '>', value: 0.0002 }))
    const m = c.signals(bars, data)
    // the 08:00 settlement is known at the close of bar 7 (07:00-08:00) until bar 14; 32:00's from bar 31
    expect(ones(m.entry)).toEqual([7, 8, 9, 10, 11, 12, 13, 14, ...Array.from({ length: 17 }, (_, k) => 31 + k)])
    expect(ones(m.absent!)).toEqual([])
  })

  test('funding_rate_mean averages the last `events` settlements; fewer is a warm-up, not absent', () => {
    const c = prepareStrategy(spec({ field: 'funding_rate_mean', events: 2, op: '==', value: (0.0003 + -0.0002) / 2 }))
    const m = c.signals(bars, data)
    expect(ones(m.entry)).toEqual(Array.from({ length: 16 }, (_, k) => 15 + k))
    const warm = prepareStrategy(spec({ field: 'funding_rate_mean', events: 4, op: '!=', value: 123 })).signals(bars, data)
    expect(ones(warm.entry)).toEqual(Array.from({ length: 17 }, (_, k) => 31 + k))
    expect(ones(warm.absent!)).toEqual([])
  })

  test('no settlement within a day of the close, or no funding at all, is absent', () => {
    const late = hourly(Array.from({ length: 80 }, () => 1))
    const m = prepareStrategy(spec({ field: 'funding_rate', op: '!=', value: 9 })).signals(late, marketOf('AUSDT', { AUSDT: late }, { AUSDT: funding }))
    // the last settlement is at 32:00; from the bar closing after 56:00 it is stale
    const staleFrom = (32 * HOUR + MARKET_DATA_STALE_MS) / HOUR // bar whose close is one hour past the day
    expect(ones(m.absent!)).toEqual(Array.from({ length: 80 - staleFrom }, (_, k) => staleFrom + k))
    const none = prepareStrategy(spec({ field: 'funding_rate', op: '!=', value: 9 })).signals(bars, marketOf('AUSDT', { AUSDT: bars }))
    expect(ones(none.absent!)).toHaveLength(48)
    expect(ones(none.entry)).toEqual([])
  })

  test('basis and open interest read the store samples known at the close; another coin funding too', () => {
    const premium: SampleSeries = { t: Float64Array.from([T0 + HOUR, T0 + 2 * HOUR, T0 + 3 * HOUR]), value: Float64Array.from([0.001, -0.002, 0.003]), n: 3 }
    const oi: SampleSeries = { t: Float64Array.from([T0 + 30 * 60_000, T0 + 2 * HOUR]), value: Float64Array.from([100, 250]), n: 2 }
    const d = marketOf('AUSDT', { AUSDT: bars, BTCUSDT: bars }, { BTCUSDT: funding }, { premium_index: { AUSDT: premium }, open_interest: { AUSDT: oi } })
    const basis = prepareStrategy(spec({ field: 'basis', op: '<', value: 0 })).signals(bars, d)
    expect(ones(basis.entry)).toEqual([1])
    const o = prepareStrategy(spec({ field: 'open_interest', op: '>', value: { field: 'open_interest', shift: 1, mult: 2 } })).signals(bars, d)
    expect(ones(o.entry)).toEqual([1])
    const btcFunding = prepareStrategy(spec({ field: 'funding_rate', symbol: 'BTCUSDT', op: '<', value: 0 })).signals(bars, d)
    expect(ones(btcFunding.entry)).toEqual([15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30])
  })

  test("another coin's columns kept between coins follow its funding when only the funding grows", () => {
    const c = prepareStrategy(spec({ field: 'funding_rate', symbol: 'BTCUSDT', op: '>', value: 0.0004 }))
    const short: FundingSeries = { t: funding.t.slice(0, 3), rate: funding.rate.slice(0, 3), n: 3 }
    const before = c.signals(bars, marketOf('AUSDT', { AUSDT: bars, BTCUSDT: bars }, { BTCUSDT: short }))
    expect(ones(before.entry)).toEqual([])
    // the same candles, one more settlement: the kept columns must not be reused
    const after = c.signals(bars, marketOf('AUSDT', { AUSDT: bars, BTCUSDT: bars }, { BTCUSDT: funding }))
    expect(ones(after.entry)).toEqual(Array.from({ length: 17 }, (_, k) => 31 + k))
  })

  test('a tree reading market data refuses to run without it; one that does not has no absent mask', () => {
    expect(() => prepareStrategy(spec({ field: 'funding_rate', op: '>', value: 0 })).signals(bars)).toThrow(/needs the market data/)
    expect(prepareStrategy(spec({ field: 'close', op: '>', value: 0 })).signals(bars).absent).toBeNull()
  })
})

describe('validation', () => {
  test('shapes: an unknown timeframe, a symbol that is not a coin, events on another field or out of range', () => {
    const errors = validateStrategy({
      indicators: {},
      entry: {
        type: 'AND',
        conditions: [
          { field: 'close', timeframe: '3H', op: '>', value: 1 },
          { field: 'close', symbol: 'btcusdt', op: '>', value: 1 },
          { field: 'close', events: 3, op: '>', value: 1 },
          { field: 'funding_rate_mean', events: 0, op: '>', value: 0 },
          { field: 'close', op: '>', value: { field: 'close', timeframe: '1D', symbol: 'BTC' } },
        ],
      },
    })
    expect(errors).toEqual([
      "entry.conditions[0].timeframe: unknown timeframe \"3H\"; expected one of 1H, 2H, 4H, 6H, 12H, 1D, 1W",
      'entry.conditions[1].symbol: expected a coin\'s symbol such as BTCUSDT (upper case, ending in USDT), got "btcusdt"',
      "entry.conditions[2].events: events applies to funding_rate_mean only, not 'close'",
      'entry.conditions[3].events: events must be an integer from 1 to 500 (funding settlements averaged), got 0',
      'entry.conditions[4].value.symbol: expected a coin\'s symbol such as BTCUSDT (upper case, ending in USDT), got "BTC"',
    ])
  })

  test('the market fields are known without listing an indicator', () => {
    for (const field of ['funding_rate', 'funding_rate_mean', 'basis', 'open_interest'])
      expect(validateStrategy({ indicators: {}, entry: { field, op: '>', value: 0 } })).toEqual([])
  })

  test("against the run: a timeframe below the run's, and a coin the store lacks, each named by place", () => {
    const tree = {
      type: 'AND',
      conditions: [
        { field: 'close', timeframe: '1H', op: '>', value: 1 },
        { field: 'close', op: '>', value: { field: 'close', symbol: 'NOPEUSDT', offset: { field: 'close', timeframe: '2H' } } },
        { field: 'close', symbol: 'BTCUSDT', timeframe: '1D', op: '>', value: 1 },
      ],
    }
    const problems = crossDataProblems(tree, ['body', 'entry'], '4H', s => s === 'BTCUSDT')
    expect(problems).toEqual([
      { loc: ['body', 'entry', 'conditions', 0, 'timeframe'], msg: "timeframe 1H is lower than the run's 4H; a field may be read on the run's timeframe or a higher one (its last completed bar)", input: '1H' },
      { loc: ['body', 'entry', 'conditions', 1, 'value', 'symbol'], msg: "unknown symbol 'NOPEUSDT': the store has no candles for it", input: 'NOPEUSDT' },
      { loc: ['body', 'entry', 'conditions', 1, 'value', 'offset', 'timeframe'], msg: "timeframe 2H is lower than the run's 4H; a field may be read on the run's timeframe or a higher one (its last completed bar)", input: '2H' },
    ])
    expect(crossDataProblems(tree, ['body', 'entry'], '1H', () => true)).toEqual([])
    expect(symbolsRead(tree)).toEqual(['BTCUSDT', 'NOPEUSDT'])
  })
})

// ---------- the real 28 coins: the compiler against a plain loop ----------

/** Plain higher-timeframe bars: UTC buckets, the last one only when its final hour is in the data. */
function plainBuckets(b: Bars, size: number): { t: number[]; h: number[]; c: number[] } {
  const out = { t: [] as number[], h: [] as number[], c: [] as number[] }
  for (let i = 0; i < b.n; i++) {
    const start = Math.floor(b.t[i] / size) * size
    const k = out.t.length - 1
    if (k >= 0 && out.t[k] === start) {
      out.h[k] = Math.max(out.h[k], b.h[i])
      out.c[k] = b.c[i]
    } else {
      out.t.push(start)
      out.h.push(b.h[i])
      out.c.push(b.c[i])
    }
  }
  const last = out.t.length - 1
  if (last >= 0 && b.t[b.n - 1] + HOUR < out.t[last] + size) for (const col of [out.t, out.h, out.c]) col.pop()
  return out
}

/** index of the bucket last completed by `closeMs`, or -1 when none completed within one bucket before it */
function lastCompleted(starts: number[], size: number, closeMs: number): number {
  let k = -1
  for (let j = 0; j < starts.length && starts[j] + size <= closeMs; j++) k = j
  return k >= 0 && starts[k] + size > closeMs - size ? k : -1
}

describe.skipIf(!hasRealData())('on the real 28 coins: the leaves equal a plain loop', () => {
  if (!hasRealData()) console.warn(REAL_DATA_MISSING)
  const symbols = realSymbols()
  const coins: Record<string, Bars> = Object.fromEntries(symbols.map(s => [s, loadRealBars(s)]))
  const funding: Record<string, FundingSeries> = {}
  for (const s of symbols) {
    const f = loadRealFunding(s)
    if (f) funding[s] = f
  }
  const resampled = new Map<string, Bars>()
  const data = (symbol: string): MarketData => ({
    symbol,
    bars: (s, tf: Timeframe) => {
      const key = `${s}|${tf}`
      if (!resampled.has(key) && coins[s]) resampled.set(key, resample(coins[s], tf))
      return resampled.get(key)
    },
    funding: s => funding[s],
    samples: () => undefined,
  })

  test('the set is there in full', () => expect(symbols).toHaveLength(28))

  test('a 4H breakout on a 1H run: close of the last completed 4H bar ≥ the highest high of the six 4H bars before it', () => {
    const size = TIMEFRAME_MS['4H']
    const c = prepareStrategy(spec({ field: 'close', timeframe: '4H', op: '>=', value: { field: 'high', timeframe: '4H', stat: 'max', bars: 6, shift: 1 } }))
    let signals = 0
    for (const s of symbols) {
      const b = coins[s]
      const m = c.signals(b, data(s))
      const q = plainBuckets(b, size)
      const entry = new Uint8Array(b.n)
      const absent = new Uint8Array(b.n)
      let k = -1
      for (let i = 0; i < b.n; i++) {
        const close = b.t[i] + HOUR
        while (k + 1 < q.t.length && q.t[k + 1] + size <= close) k++
        const ok = k >= 0 && q.t[k] + size > close - size
        if (!ok) {
          absent[i] = 1
          continue
        }
        if (k < 6) continue
        let hi = -Infinity
        for (let j = k - 6; j <= k - 1; j++) hi = Math.max(hi, q.h[j])
        entry[i] = q.c[k] >= hi ? 1 : 0
      }
      expect(ones(m.absent!)).toEqual(ones(absent))
      expect(Buffer.from(m.entry).equals(Buffer.from(entry))).toBe(true)
      signals += ones(entry).length
    }
    expect(signals).toBeGreaterThan(1000)
  })

  test("BTC's close above its close 24 bars back, at the same instant, on every coin", () => {
    const btc = coins.BTCUSDT
    const at = new Map<number, number>()
    for (let j = 0; j < btc.n; j++) at.set(btc.t[j], j)
    const c = prepareStrategy(spec({ field: 'close', symbol: 'BTCUSDT', op: '>', value: { field: 'close', symbol: 'BTCUSDT', shift: 24 } }))
    let signals = 0
    let absentBars = 0
    for (const s of symbols) {
      const b = coins[s]
      const m = c.signals(b, data(s))
      const entry = new Uint8Array(b.n)
      const absent = new Uint8Array(b.n)
      for (let i = 0; i < b.n; i++) {
        const j = at.get(b.t[i])
        if (j === undefined) absent[i] = 1
        else if (j >= 24) entry[i] = btc.c[j] > btc.c[j - 24] ? 1 : 0
      }
      expect(ones(m.absent!)).toEqual(ones(absent))
      expect(Buffer.from(m.entry).equals(Buffer.from(entry))).toBe(true)
      signals += ones(entry).length
      absentBars += ones(absent).length
    }
    expect(signals).toBeGreaterThan(10_000)
    void absentBars
  })

  test("BTCUSDT's daily uptrend (the ema indicator on its completed 1D bars) on every coin's 1H bars", () => {
    const size = TIMEFRAME_MS['1D']
    const c = prepareStrategy(spec({ field: 'uptrend', symbol: 'BTCUSDT', timeframe: '1D', op: '==', value: true }, { ema: {} }))
    // the indicator maths is the registry's; what the loop checks is which daily bar each hour sees
    const btc = coins.BTCUSDT
    const daily = resample(btc, '1D')
    const def = DEFAULT_CATALOG.defs.ema
    const params = Object.fromEntries(Object.entries(def.params).map(([k, p]) => [k, p.default]))
    const uptrend = new Float64Array(daily.n)
    def.compute(daily, params, { uptrend })
    const q = plainBuckets(btc, size)
    expect(q.t).toEqual([...daily.t])
    let signals = 0
    for (const s of symbols) {
      const b = coins[s]
      const m = c.signals(b, data(s))
      const entry = new Uint8Array(b.n)
      const absent = new Uint8Array(b.n)
      for (let i = 0; i < b.n; i++) {
        const k = lastCompleted(q.t, size, b.t[i] + HOUR)
        if (k < 0) absent[i] = 1
        else entry[i] = uptrend[k] === 1 ? 1 : 0
      }
      expect(ones(m.absent!)).toEqual(ones(absent))
      expect(Buffer.from(m.entry).equals(Buffer.from(entry))).toBe(true)
      signals += ones(entry).length
    }
    expect(signals).toBeGreaterThan(10_000)
  })

  test('funding_rate and funding_rate_mean over 3 settlements, against a loop over the settlements', () => {
    const c = prepareStrategy(spec({ type: 'AND', conditions: [{ field: 'funding_rate', op: '>', value: 0.0001 }, { field: 'funding_rate_mean', events: 3, op: '>', value: 0.0002 }] }))
    let signals = 0
    for (const s of symbols.filter(x => funding[x])) {
      const b = coins[s]
      const f = funding[s]
      const m = c.signals(b, data(s))
      const entry = new Uint8Array(b.n)
      const absent = new Uint8Array(b.n)
      for (let i = 0; i < b.n; i++) {
        const close = b.t[i] + HOUR
        let j = -1
        for (let k = 0; k < f.n && f.t[k] <= close; k++) j = k
        if (j < 0 || close - f.t[j] > MARKET_DATA_STALE_MS) {
          absent[i] = 1
          continue
        }
        const mean = j >= 2 ? (f.rate[j - 2] + f.rate[j - 1] + f.rate[j]) / 3 : NaN
        entry[i] = f.rate[j] > 0.0001 && mean > 0.0002 ? 1 : 0
      }
      expect(ones(m.absent!)).toEqual(ones(absent))
      expect(Buffer.from(m.entry).equals(Buffer.from(entry))).toBe(true)
      signals += ones(entry).length
    }
    expect(signals).toBeGreaterThan(1000)
  })
})

// ---------- causality of the new leaves ----------

const CROSS_TREE: ConditionNode = {
  type: 'OR',
  conditions: [
    { field: 'close', timeframe: '4H', op: 'crosses_above', value: { field: 'close', timeframe: '4H', stat: 'mean', bars: 5 } },
    { field: 'uptrend', symbol: 'BTCUSDT', timeframe: '1D', op: '==', value: true },
    { field: 'rsi', symbol: 'BTCUSDT', op: '<', value: { field: 'rsi', offset: -5 } },
    { field: 'funding_rate_mean', events: 3, op: '>', value: { field: 'funding_rate', symbol: 'BTCUSDT' } },
  ],
}

function cutBars(b: Bars, lastOpenMs: number): Bars {
  let n = 0
  while (n < b.n && b.t[n] <= lastOpenMs) n++
  return headOf(b, n)
}

function cutFunding(f: FundingSeries, lastMs: number): FundingSeries {
  let n = 0
  while (n < f.n && f.t[n] <= lastMs) n++
  return { t: f.t.slice(0, n), rate: f.rate.slice(0, n), n }
}

describe.skipIf(!hasRealData())('no look-ahead in the new leaves (real ETHUSDT and BTCUSDT)', () => {
  const eth = () => headOf(loadRealBars('ETHUSDT'), 6000)
  const btc = () => headOf(loadRealBars('BTCUSDT'), 6000)

  test('held-out truncation: every coin and funding cut at the close of bar i gives the same signals up to i', () => {
    const c = prepareStrategy(spec(CROSS_TREE, { ema: {}, rsi: {} }))
    const E = eth(), B = btc()
    const fe = loadRealFunding('ETHUSDT')!, fb = loadRealFunding('BTCUSDT')!
    const full = c.signals(E, marketOf('ETHUSDT', { ETHUSDT: E, BTCUSDT: B }, { ETHUSDT: fe, BTCUSDT: fb }))
    expect(ones(full.entry).length).toBeGreaterThan(100)
    for (const cut of [700, 1234, 2999, 4001, 5555]) {
      const lastOpen = E.t[cut]
      const E2 = cutBars(E, lastOpen), B2 = cutBars(B, lastOpen)
      const m = c.signals(E2, marketOf('ETHUSDT', { ETHUSDT: E2, BTCUSDT: B2 }, { ETHUSDT: cutFunding(fe, lastOpen + HOUR), BTCUSDT: cutFunding(fb, lastOpen + HOUR) }))
      expect(Buffer.from(m.entry).equals(Buffer.from(full.entry.subarray(0, cut + 1)))).toBe(true)
      expect(Buffer.from(m.absent!).equals(Buffer.from(full.absent!.subarray(0, cut + 1)))).toBe(true)
    }
  })

  test('changing every candle after bar i, of this coin and of BTC, changes no signal at or before i', () => {
    const c = prepareStrategy(spec(CROSS_TREE, { ema: {}, rsi: {} }))
    const E = eth(), B = btc()
    const base = c.signals(E, marketOf('ETHUSDT', { ETHUSDT: E, BTCUSDT: B })).entry.slice()
    const scramble = (b: Bars, from: number): Bars => {
      const x = headOf(b, b.n)
      for (let i = from; i < x.n; i++) {
        const f = 0.5 + ((i * 7919) % 1000) / 1000
        ;(x.c as Float64Array)[i] *= f
        ;(x.o as Float64Array)[i] *= f
        ;(x.h as Float64Array)[i] = Math.max(x.h[i] * f, x.o[i], x.c[i])
        ;(x.l as Float64Array)[i] = Math.min(x.l[i] * f, x.o[i], x.c[i])
      }
      return x
    }
    for (const cut of [900, 2500, 4321]) {
      const E2 = scramble(E, cut + 1)
      let from = 0
      while (from < B.n && B.t[from] <= E.t[cut]) from++
      const B2 = scramble(B, from)
      const m = c.signals(E2, marketOf('ETHUSDT', { ETHUSDT: E2, BTCUSDT: B2 })).entry
      for (let i = 0; i <= cut; i++) if (m[i] !== base[i]) throw new Error(`signal at bar ${i} changed when bars after ${cut} did`)
    }
  })
})
