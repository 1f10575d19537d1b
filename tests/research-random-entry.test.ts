import { describe, expect, test } from 'bun:test'
import { entryCandidates, randomEntrySums, RandomEntryScratch, TradeOutcomes, type RandomEntryCoin } from '../src/engine/random-entry'
import { DEFAULT_MAKER_FEE_FRAC, type Execution } from '../src/engine/execution'
import { keptFunding } from '../src/engine/funding'
import type { MarginBracket } from '../src/engine/margin-brackets'
import { coinCostSeries } from '../src/engine/slippage'
import { quietExtremes } from '../src/engine/quiet-blocks'
import { simulateCoin } from '../src/engine/trade-model'
import type { TradeParams } from '../src/engine/types'
import type { Bars, FundingSeries } from '../src/market/types'
import { HOUR_MS } from '../src/time'

const T0 = Date.UTC(2024, 0, 1)

/** A volatile random walk (±3 % bars, a gap now and then), so stops, take profits, gaps and liquidations all happen. */
function volatileBars(n: number, seed: number): Bars {
  let s = seed
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32)
  const col = () => new Float64Array(n)
  const bars = { t: col(), o: col(), h: col(), l: col(), c: col(), v: col(), n, stepMs: HOUR_MS }
  let level = 100
  for (let i = 0; i < n; i++) {
    const open = rnd() < 0.03 ? level * (1 + (rnd() - 0.5) * 0.08) : level
    const close = open * (1 + (rnd() - 0.5) * 0.06)
    bars.t[i] = T0 + i * HOUR_MS
    bars.o[i] = open
    bars.h[i] = Math.max(open, close) * (1 + rnd() * 0.01)
    bars.l[i] = Math.min(open, close) * (1 - rnd() * 0.01)
    bars.c[i] = close
    bars.v[i] = 1
    level = close
  }
  return bars
}

/** Real events every 8 h over the middle third of the bars; stand-ins outside. */
function someFunding(bars: Bars): FundingSeries {
  const from = bars.t[Math.floor(bars.n / 3)], to = bars.t[Math.floor((2 * bars.n) / 3)]
  const t: number[] = [], rate: number[] = []
  for (let x = from; x <= to; x += 8 * HOUR_MS) {
    t.push(x)
    rate.push(((t.length % 7) - 3) * 0.0001)
  }
  return { t: Float64Array.from(t), rate: Float64Array.from(rate), n: t.length }
}

function params(over: Partial<TradeParams>): TradeParams {
  return { direction: 'long', slPct: 3, tpPct: 4, tpSource: 'custom_pct', trailingPct: null, maxBars: 24, leverage: 1, feeFrac: 0.0005, mmrFrac: 0.005, marketType: 'futures', ...over }
}

const CONFIGS: [string, Partial<TradeParams>][] = [
  ['long, fixed SL/TP', {}],
  ['short, fixed SL/TP', { direction: 'short' }],
  ['long, trailing', { tpSource: 'trailing', trailingPct: 4 }],
  ['short, trailing on tp_pct', { direction: 'short', tpSource: 'trailing', tpPct: 5 }],
  ['long, 50x (liquidations)', { leverage: 50 }],
  ['short, 40x (liquidations)', { direction: 'short', leverage: 40, slPct: 5 }],
  ['spot long', { marketType: 'spot', leverage: 1, feeFrac: 0.001 }],
  ['short, long timeout', { direction: 'short', maxBars: 168, slPct: 8, tpPct: 9 }],
]

describe('random-entry trades', () => {
  const bars = volatileBars(3000, 5)
  const funding = someFunding(bars)
  const exit = new Uint8Array(bars.n)
  for (let i = 0; i < bars.n; i += 37) exit[i] = 1

  for (const [name, over] of CONFIGS) {
    for (const withExit of [false, true]) {
      test(`each outcome equals simulateCoin's trade from the same bar (${name}${withExit ? ', exit signals' : ''})`, () => {
        const p = params(over)
        const coin: RandomEntryCoin = { bars, exit: withExit ? exit : null, allowed: null, fromIdx: 100, toIdx: 2900, funding }
        const outcomes = new TradeOutcomes(coin, p)
        const cands = entryCandidates(coin)
        const mask = new Uint8Array(bars.n)
        const reasons = new Set<string>()
        for (let j = 0; j < cands.length; j += 7) {
          const s = cands[j]
          mask[s] = 1
          const ref = simulateCoin({ symbol: 'X', bars, entry: mask, exit: coin.exit, fromIdx: s, toIdx: coin.toIdx, funding }, p)[0]
          mask[s] = 0
          reasons.add(ref.exitReason)
          // the same exits exactly; funding from prefix sums agrees to rounding
          expect(outcomes.pnlPct(s)).toBeCloseTo(ref.pnlPct, 9)
          if (ref.fundingPct === 0) expect(outcomes.pnlPct(s)).toBe(ref.pnlPct)
        }
        // the fixture really exercises more than one exit rule
        expect(reasons.size).toBeGreaterThan(1)
      })
    }
  }

  test('candidates are the window bars that can still enter, minus the calendar-filtered ones', () => {
    const allowed = new Uint8Array(bars.n).fill(1)
    allowed[150] = 0
    const cands = Array.from(entryCandidates({ bars, exit: null, allowed, fromIdx: 100, toIdx: 200, funding: null }))
    expect(cands[0]).toBe(100)
    expect(cands.at(-1)).toBe(199)
    expect(cands).not.toContain(150)
    expect(cands.length).toBe(99)
  })

  test('the same seed gives the same sums; another seed other sums', () => {
    const coin: RandomEntryCoin = { bars, exit: null, allowed: null, fromIdx: 0, toIdx: bars.n - 1, funding }
    const p = params({})
    const a = randomEntrySums(coin, p, 12, 50, 42)
    const b = randomEntrySums(coin, p, 12, 50, 42)
    const c = randomEntrySums(coin, p, 12, 50, 43)
    expect(Array.from(a)).toEqual(Array.from(b))
    expect(Array.from(a)).not.toEqual(Array.from(c))
  })

  test('one-trade simulations draw single candidate outcomes', () => {
    const coin: RandomEntryCoin = { bars, exit: null, allowed: null, fromIdx: 10, toIdx: 60, funding }
    const p = params({})
    const outcomes = new TradeOutcomes(coin, p)
    const possible = new Set(Array.from(entryCandidates(coin), s => outcomes.pnlPct(s)))
    for (const x of randomEntrySums(coin, p, 1, 200, 7)) expect(possible.has(x)).toBe(true)
  })

  test("with bracket margin and impact slippage an outcome is still simulateCoin's net P&L to the bit (the null tracks no adverse excursion)", () => {
    const brackets: MarginBracket[] = [
      { bracket: 1, floorUsd: 0, capUsd: 1_000, mmrFrac: 0.01, cumUsd: 0, maxLeverage: 50 },
      { bracket: 2, floorUsd: 1_000, capUsd: 1e12, mmrFrac: 0.05, cumUsd: 40, maxLeverage: 10 },
    ]
    const execution: Execution = { slippage: 'impact', impactK: 1, tpOrder: 'market', makerFeeFrac: DEFAULT_MAKER_FEE_FRAC, liquidationFeeFrac: 0.0125, margin: 'brackets', notionalUsd: 5_000 }
    const costs = coinCostSeries(bars)
    for (const over of [{ leverage: 10 }, { direction: 'short' as const, leverage: 20 }]) {
      const p = params({ ...over, execution })
      const coin: RandomEntryCoin = { bars, exit, allowed: null, fromIdx: 100, toIdx: 2900, funding, brackets, costs }
      const outcomes = new TradeOutcomes(coin, p)
      const mask = new Uint8Array(bars.n)
      let slipped = 0
      for (const s of Array.from(entryCandidates(coin)).filter((_, j) => j % 11 === 0)) {
        mask[s] = 1
        const ref = simulateCoin({ symbol: 'X', ...coin, entry: mask, fromIdx: s }, p)[0]
        mask[s] = 0
        // the reference tracks the adverse excursion the capacity curve reads; the null's outcome needs none of it
        expect(ref.maeFrac).toBeGreaterThan(0)
        if ((ref.slippagePct ?? 0) > 0) slipped++
        if (ref.fundingPct === 0) expect(outcomes.pnlPct(s)).toBe(ref.pnlPct)
        else expect(outcomes.pnlPct(s)).toBeCloseTo(ref.pnlPct, 9)
      }
      expect(slipped).toBeGreaterThan(0)
    }
  })

  test('inputs kept between runs (whole-bar quiet extremes and funding amounts, a reused scratch) give the same bits as fresh ones', () => {
    const bits = (x: Float64Array) => Buffer.from(x.buffer).toString('hex')
    // a worker keeps them over the coin's whole bars; a run's window is a stretch inside
    const quiet = quietExtremes(bars)
    const whole = keptFunding(bars, funding)
    expect(whole!.realAmt.length).toBeGreaterThan(0)
    expect(whole!.gridAmt.some(x => x !== 0)).toBe(true)
    const scratch = new RandomEntryScratch()
    let compared = 0
    // whole, the real events' span (bars 1000–2000) inside, across either end, the stand-ins only before and after it
    const windows = [[0, bars.n - 1], [1200, 1800], [400, 1600], [1500, 2999], [777, 2345], [5, 400], [2100, 2900]]
    for (const [fromIdx, toIdx] of windows) {
      for (const [, over] of CONFIGS) {
        for (const withExit of [false, true]) {
          const p = params(over)
          const coin: RandomEntryCoin = { bars, exit: withExit ? exit : null, allowed: null, fromIdx, toIdx, funding }
          const fresh = randomEntrySums(coin, p, 9, 40, 11)
          const kept = randomEntrySums({ ...coin, quietExtremes: () => quiet, keptFunding: () => whole }, p, 9, 40, 11, scratch)
          expect(bits(kept)).toBe(bits(fresh))
          compared++
        }
      }
    }
    expect(compared).toBe(windows.length * CONFIGS.length * 2)
  })

  test("simulateCoin's trades with the kept funding amounts are the same bits as with a price lookup per event", () => {
    // an irregular series: 8-hourly, then hourly (24 events a day), a few ms late, one at each window's edges' bars
    const t: number[] = [], rate: number[] = []
    for (let x = bars.t[300]; x < bars.t[1400]; x += 8 * HOUR_MS) t.push(x)
    for (let x = bars.t[1400] + 3; x < bars.t[2200]; x += HOUR_MS) t.push(x)
    t.forEach((_, k) => rate.push(((k % 5) - 2) * 0.00013))
    const irregular: FundingSeries = { t: Float64Array.from(t), rate: Float64Array.from(rate), n: t.length }
    const bits = (x: number) => Buffer.from(Float64Array.of(x).buffer).toString('hex')
    let s = 3
    const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32)
    const entry = new Uint8Array(bars.n)
    for (let i = 0; i < bars.n; i++) if (rnd() < 0.1) entry[i] = 1
    let charged = 0
    for (const series of [funding, irregular, null]) {
      const whole = keptFunding(bars, series)
      for (const [fromIdx, toIdx] of [[0, bars.n - 1], [1200, 1800], [250, 2500], [1390, 2999], [5, 400]]) {
        for (const [, over] of CONFIGS) {
          const p = params(over)
          const input = { symbol: 'X', bars, entry, exit: null, fromIdx, toIdx, funding: series }
          const looked = simulateCoin(input, p)
          const kept = simulateCoin({ ...input, keptFunding: () => whole }, p)
          expect(kept.map(tr => [bits(tr.fundingPct), tr.fundingEvents, tr.fundingEventsReal, bits(tr.pnlPct)])).toEqual(looked.map(tr => [bits(tr.fundingPct), tr.fundingEvents, tr.fundingEventsReal, bits(tr.pnlPct)]))
          expect(kept).toEqual(looked)
          charged += looked.filter(tr => tr.fundingEventsReal > 0).length
        }
      }
    }
    expect(charged).toBeGreaterThan(1000)
  })

  test('a window with no bar that can enter gives NaN sums', () => {
    const sums = randomEntrySums({ bars, exit: null, allowed: null, fromIdx: 50, toIdx: 50, funding: null }, params({}), 3, 4, 1)
    expect(Array.from(sums).every(Number.isNaN)).toBe(true)
  })
})

describe("the null's per-coin inputs a worker keeps between runs", () => {
  const bars = volatileBars(2000, 9)
  let funding = someFunding(bars)
  let coinBars = bars
  const view = {
    bars: () => coinBars,
    funding: () => funding,
    marginBrackets: () => undefined,
    dataVersion: () => 'v1',
    detailInfo: () => ({ syntheticSeed: null, storedDir: '', stored: [] }),
  }

  test('are computed once per coin, equal to a fresh pass, and again for new bars or a grown funding series', async () => {
    const { TaskContext } = await import('../src/runs/compute/context')
    const ctx = new TaskContext(view as never)
    const q1 = ctx.quietExtremes('X', '1H', bars)
    expect(ctx.quietExtremes('X', '1H', bars)).toBe(q1)
    expect(Array.from(q1.low)).toEqual(Array.from(quietExtremes(bars).low))
    // a run's coin tasks take them only where kept: none yet
    expect(ctx.keptFundingIfAny('X', '1H', bars)).toBeNull()
    const f1 = ctx.keptFunding('X', '1H', bars)
    expect(ctx.keptFunding('X', '1H', bars)).toBe(f1)
    expect(ctx.keptFundingIfAny('X', '1H', bars)).toBe(f1)
    expect(ctx.keptFundingIfAny('X', '1H', volatileBars(2000, 9))).toBeNull()
    expect(Array.from(f1!.realAmt)).toEqual(Array.from(keptFunding(bars, funding)!.realAmt))
    // another coin has its own
    expect(ctx.quietExtremes('Y', '1H', bars)).not.toBe(q1)
    // the funding series grew (a new event): its amounts are looked up again
    funding = { t: Float64Array.from([...funding.t, funding.t[funding.n - 1] + 8 * HOUR_MS]), rate: Float64Array.from([...funding.rate, 0.0002]), n: funding.n + 1 }
    expect(ctx.keptFundingIfAny('X', '1H', bars)).toBeNull()
    const f2 = ctx.keptFunding('X', '1H', bars)
    expect(f2).not.toBe(f1)
    expect(f2!.realAmt.length).toBe(f1!.realAmt.length + 1)
    // new bars (the series was appended to): both again
    coinBars = volatileBars(2001, 9)
    expect(ctx.quietExtremes('X', '1H', coinBars)).not.toBe(q1)
    expect(ctx.quietExtremes('X', '1H', coinBars).low.length).toBe(Math.ceil(2001 / 8))
  })
})
