import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { capacityCurve } from '../src/engine/capacity'
import { DEFAULT_MAKER_FEE_FRAC, type Execution } from '../src/engine/execution'
import { bracketOf, liquidationPrice, type MarginBracket } from '../src/engine/margin-brackets'
import { coinCostSeries, fillCostInputs, type FillCostInputs } from '../src/engine/slippage'
import { tradeTableOf } from '../src/engine/trade-table'
import { simulateCoin } from '../src/engine/trade-model'
import { isLeverageTiers, parseLeverageTiers } from '../src/market/leverage-tiers'
import type { Bars } from '../src/market/types'
import { DAY_MS, HOUR_MS } from '../src/time'
import { barsOf, flat, hasSharedData, maskOf, params, realBars, SHARED_DATA } from './engine-fixtures'
import { referenceMask } from './helpers/reference-trades'

const TIERS = join(SHARED_DATA, 'binance-usdm-leverage-tiers-2024-10.json')
const tiers = () => {
  const doc = JSON.parse(readFileSync(TIERS, 'utf8'))
  expect(isLeverageTiers(doc)).toBe(true)
  return parseLeverageTiers(doc)
}

const exec = (over: Partial<Execution> = {}): Execution => ({
  slippage: 'impact', impactK: 1, tpOrder: 'market', makerFeeFrac: DEFAULT_MAKER_FEE_FRAC, liquidationFeeFrac: 0.0125, margin: 'brackets', notionalUsd: 600, ...over,
})

describe.skipIf(!hasSharedData)('liquidation prices on Binance brackets of 2024-10-24 (hand-computed)', () => {
  test('the ccxt document is recognised, USDT perpetuals kept, the others skipped', () => {
    const p = tiers()
    expect(p.errors).toEqual([])
    expect(p.brackets.BTCUSDT.length).toBe(12)
    expect(p.skipped).toBeGreaterThan(0) // BTC/USDC:USDC, dated BTC/USDT:USDT-241227, …
    expect(p.brackets['BTC/USDC:USDC']).toBeUndefined()
  })

  // BTCUSDT long at 60,000, leverage 10: L = E · (1 − 1/lev − cum/N) / (1 − mmr)
  test.each([
    // N = 10,000: bracket 1 (0–50,000], mmr 0.4 %, cum 0 → 60000 · 0.9 / 0.996
    [10_000, 1, 54216.867469879515],
    // N = 1,000,000: bracket 3 (600,000–3,000,000], mmr 0.65 %, cum 950 → 60000 · (0.9 − 0.00095) / 0.9935
    [1_000_000, 3, 54295.92350276799],
    // N = 20,000,000: bracket 5 (12M–70M], mmr 2 %, cum 131,450 → 60000 · (0.9 − 0.0065725) / 0.98
    [20_000_000, 5, 54699.64285714286],
  ])('BTCUSDT long, notional %d: bracket %d, L = %d', (notional, bracket, expected) => {
    const bs = tiers().brackets.BTCUSDT
    const b = bracketOf(bs, notional)!
    expect(b.bracket).toBe(bracket)
    const L = liquidationPrice(true, 60_000, 10, notional, b, 0.005)
    expect(L).toBeCloseTo(expected, 6)
    // at L the margin plus the loss equals the maintenance margin N_L · mmr − cum
    const q = notional / 60_000
    expect(notional / 10 + q * (L - 60_000)).toBeCloseTo(q * L * b.mmrFrac - b.cumUsd, 6)
  })

  // HIFIUSDT (a thin coin: first bracket only 5,000 USD) short at 0.5, leverage 5: L = E · (1 + 1/lev + cum/N) / (1 + mmr)
  test.each([
    // N = 2,000: bracket 1, mmr 1.5 %, cum 0 → 0.5 · 1.2 / 1.015
    [2_000, 1, 0.5911330049261084],
    // N = 100,000: bracket 3 (25,000–200,000], mmr 5 %, cum 675 → 0.5 · (1.2 + 0.00675) / 1.05
    [100_000, 3, 0.5746428571428571],
    // N = 300,000: bracket 4 (200,000–500,000], mmr 10 %, cum 10,675, max leverage 5 → 0.5 · (1.2 + 10675/300000) / 1.1
    [300_000, 4, 0.5616287878787878],
  ])('HIFIUSDT short, notional %d: bracket %d, L = %d', (notional, bracket, expected) => {
    const bs = tiers().brackets.HIFIUSDT
    const b = bracketOf(bs, notional)!
    expect(b.bracket).toBe(bracket)
    const L = liquidationPrice(false, 0.5, 5, notional, b, 0.005)
    expect(L).toBeCloseTo(expected, 12)
    const q = notional / 0.5
    expect(notional / 5 - q * (L - 0.5)).toBeCloseTo(q * L * b.mmrFrac - b.cumUsd, 6)
  })

  test('the trade model liquidates at the bracket price, and charges the liquidation fee', () => {
    const bs = tiers().brackets.HIFIUSDT
    // a long at 1.0, leverage 5, 100,000 USD notional (bracket 3): L = (1 − 0.2 − 0.00675) / 0.95 = 0.835
    const L = (1 - 0.2 - 675 / 100_000) / 0.95
    const bars = barsOf([flat(1), flat(1), [1, 1.001, 0.84, 0.85], [0.85, 0.86, L, 0.84], flat(0.84)])
    const p = params({ leverage: 5, slPct: 50, tpPct: 50, feeFrac: 0.0005, execution: exec({ slippage: 'none', notionalUsd: 100_000 }) })
    const [tr] = simulateCoin({ symbol: 'HIFIUSDT', bars, entry: maskOf(5, 0), exit: null, fromIdx: 0, toIdx: 4, funding: null, brackets: bs }, p)
    expect(tr.exitReason).toBe('liquidation')
    expect(tr.exitIdx).toBe(3)
    expect(tr.exitPrice).toBeCloseTo(L, 12)
    expect(tr.pnlPct).toBe(-100)
    // taker fees on both sides plus 1.25 % of the notional at L, all in % of margin
    expect(tr.feePct).toBeCloseTo(5 * 100 * (0.0005 * (1 + L) + 0.0125 * L), 9)
    // the flat rate (0.5 %) would have liquidated at 1 − 0.2 + 0.005 = 0.805: bar 3 does not reach it
    const [flatTr] = simulateCoin({ symbol: 'HIFIUSDT', bars, entry: maskOf(5, 0), exit: null, fromIdx: 0, toIdx: 4, funding: null, brackets: bs }, { ...p, execution: exec({ slippage: 'none', margin: 'flat', notionalUsd: 100_000 }) })
    expect(flatTr.exitReason).toBe('end_of_data')
  })
})

describe('slippage: half the Abdi–Ranaldo spread plus k · σ_daily · sqrt(N / ADV), from the 30 days before', () => {
  // 40 days of hourly candles: close alternates around 100 with a fixed range, volume 1,000 coins an hour
  function steadyBars(days: number, dailyMove = 0.01): Bars {
    const n = days * 24
    const col = () => new Float64Array(n)
    const b = { t: col(), o: col(), h: col(), l: col(), c: col(), v: col(), n, stepMs: HOUR_MS }
    for (let i = 0; i < n; i++) {
      const day = Math.floor(i / 24)
      const mid = 100 * Math.exp((day % 2 === 0 ? 1 : -1) * dailyMove * 0.5)
      b.t[i] = Date.UTC(2024, 0, 1) + i * HOUR_MS
      b.o[i] = mid
      b.c[i] = mid * (i % 2 ? 1.001 : 0.999)
      b.h[i] = mid * 1.002
      b.l[i] = mid * 0.998
      b.v[i] = 1_000
    }
    return b
  }

  test('no estimate before 5 days of candles; none reads the fill day', () => {
    const bars = steadyBars(40)
    const s = coinCostSeries(bars)!
    const out: FillCostInputs = { halfSpread: -1, impactPerSqrtUsd: -1 }
    expect(fillCostInputs(s, bars.t[4 * 24 + 3], out)).toBe(false)
    expect(out.halfSpread).toBe(-1)
    expect(fillCostInputs(s, bars.t[35 * 24], out)).toBe(true)
    // changing the fill's own day (and every later one) changes nothing
    const before = { ...out }
    const later = steadyBars(40)
    for (let i = 35 * 24; i < later.n; i++) (later.v as Float64Array)[i] = 1e9
    fillCostInputs(coinCostSeries(later)!, bars.t[35 * 24 + 10], out)
    expect(out).toEqual(before)
  })

  test('σ and ADV as written: daily log returns of ±1 %, 24 · 1,000 coins ≈ 2.4 million USD a day', () => {
    const bars = steadyBars(40)
    const out: FillCostInputs = { halfSpread: 0, impactPerSqrtUsd: 0 }
    fillCostInputs(coinCostSeries(bars)!, bars.t[35 * 24], out)
    // the window: days 5–34; daily closes alternate e^{±0.005}·100·1.001 → returns ±0.01
    let quote = 0
    for (let i = 5 * 24; i < 35 * 24; i++) quote += bars.v[i] * bars.c[i]
    const adv = quote / 30
    const rets: number[] = []
    for (let d = 5; d < 35; d++) rets.push(Math.log(bars.c[d * 24 + 23] / bars.c[d * 24 - 1]))
    const m = rets.reduce((a, b) => a + b, 0) / rets.length
    const sd = Math.sqrt(rets.reduce((a, b) => a + (b - m) ** 2, 0) / (rets.length - 1))
    expect(out.impactPerSqrtUsd).toBeCloseTo(sd / Math.sqrt(adv), 12)
    expect(out.halfSpread).toBeGreaterThan(0)
    expect(out.halfSpread).toBeLessThan(0.002)
  })

  test('a trade pays more slippage at a larger size, and a limit take profit only fills when traded through', () => {
    const bars = steadyBars(40)
    const entry = maskOf(bars.n, 35 * 24)
    const run = (ex: Execution, tpPct = 0.4) => simulateCoin({ symbol: 'X', bars, entry, exit: null, fromIdx: 0, toIdx: bars.n - 1, funding: null, costs: coinCostSeries(bars) }, params({ tpPct, slPct: 5, maxBars: 5, feeFrac: 0.0005, execution: ex }))[0]
    const small = run(exec({ notionalUsd: 1_000 }))
    const big = run(exec({ notionalUsd: 1_000_000 }))
    expect(small.slippagePct!).toBeGreaterThan(0)
    expect(big.slippagePct!).toBeGreaterThan(small.slippagePct!)
    expect(big.pnlPct).toBeCloseTo(small.pnlPct + small.slippagePct! - big.slippagePct!, 9)
    // the entry bar's high is exactly mid · 1.002; a take profit at that level is touched, not traded through
    const e = 35 * 24 + 1
    const tpAtHigh = ((bars.h[e] / bars.o[e]) - 1) * 100
    expect(run(exec({ tpOrder: 'market' }), tpAtHigh).exitReason).toBe('tp')
    const limit = run(exec({ tpOrder: 'limit' }), tpAtHigh)
    expect(limit.exitReason).not.toBe('tp')
    // below the high it fills, at the maker fee and with no exit slippage
    const maker = run(exec({ tpOrder: 'limit' }), tpAtHigh / 2)
    const taker = run(exec({ tpOrder: 'market' }), tpAtHigh / 2)
    expect(maker.exitReason).toBe('tp')
    expect(maker.feePct).toBeCloseTo(100 * (0.0005 + 0.0002 * (maker.exitPrice / maker.entryPrice)), 12)
    expect(maker.slippagePct!).toBeLessThan(taker.slippagePct!)
  })
})

describe.skipIf(!hasSharedData)('the capacity curve', () => {
  test('on a thin coin (real ETH candles scaled to 2 million USD a day, HIFI brackets) it falls with the size', () => {
    const eth = realBars('ETHUSDT')
    // scale the volume so the median day trades about 2 million USD
    let quote = 0
    for (let i = 0; i < eth.n; i++) quote += eth.v[i] * eth.c[i]
    const perDay = quote / (eth.n / 24)
    const bars: Bars = { ...eth, v: eth.v.map(x => (x * 2e6) / perDay) }
    const brackets: MarginBracket[] = tiers().brackets.HIFIUSDT
    const ex = exec({ notionalUsd: 600 })
    const p = params({ direction: 'long', slPct: 8, tpPct: 6, maxBars: 72, leverage: 5, feeFrac: 0.0005, execution: ex })
    const trades = simulateCoin({ symbol: 'HIFIUSDT', bars, entry: referenceMask(bars.n, 4), exit: null, fromIdx: 0, toIdx: bars.n - 1, funding: null, costs: coinCostSeries(bars), brackets }, p)
    const table = tradeTableOf(trades, ['HIFIUSDT'], 'long')
    const cap = capacityCurve({ trades: table, perCoinUsd: 120, notionalUsd: 600, leverage: 5, long: true, flatMmr: 0.005, brackets: [brackets] })
    const ret = cap.curve.map(c => c.totalReturnPct)
    expect(cap.curve.map(c => c.perCoinUsd)).toEqual([120, 1_200, 12_000, 120_000, 1_200_000])
    // 1× is the run itself
    expect(ret[0]).toBeCloseTo(trades.reduce((a, t) => a + t.pnlPct, 0), 6)
    for (let i = 1; i < ret.length; i++) expect(ret[i]).toBeLessThan(ret[i - 1])
    const pf = cap.curve.map(c => c.profitFactor)
    for (let i = 1; i < pf.length; i++) expect(pf[i]).toBeLessThanOrEqual(pf[i - 1])
    // 1,200,000 USD of margin at leverage 5 is 6 million notional: above HIFI's largest bracket at that leverage
    expect(cap.curve[4].leverageAllowed).toBe(false)
    expect(cap.curve[4].liquidations).toBeGreaterThan(cap.curve[0].liquidations)
    // this one makes money at 120 USD a position; its edge per trade halves somewhere on the curve
    expect(ret[0]).toBeGreaterThan(0)
    const half = cap.sizeAtHalfEdgeUsd!
    expect(half).toBeGreaterThan(120)
    expect(half).toBeLessThan(1_200_000)
    const at = (usd: number) => capacityCurve({ trades: table, perCoinUsd: usd, notionalUsd: usd * 5, leverage: 5, long: true, flatMmr: 0.005, brackets: [brackets] }).curve[0].totalReturnPct / trades.length
    // re-booked at that size (the curve's 1× point at a base of that size), the mean is half the run's
    const edge = ret[0] / trades.length
    expect(at(half) / edge).toBeCloseTo(0.5, 3)
  })
})

describe('synthetic brackets (demo and generated stores)', () => {
  const { syntheticBrackets } = require('../src/market/synthetic-brackets') as typeof import('../src/market/synthetic-brackets')
  const { bracketProblems } = require('../src/market/leverage-tiers') as typeof import('../src/market/leverage-tiers')
  test('are sound, continuous in maintenance margin, and looser for more liquid coins', () => {
    const thin = syntheticBrackets(2e6)
    const major = syntheticBrackets(5e9)
    for (const bs of [thin, major]) {
      expect(bracketProblems(bs)).toEqual([])
      // Binance's cum makes notional · mmr − cum continuous at every floor
      for (let i = 1; i < bs.length; i++) expect(bs[i].floorUsd * bs[i].mmrFrac - bs[i].cumUsd).toBeCloseTo(bs[i].floorUsd * bs[i - 1].mmrFrac - bs[i - 1].cumUsd, 6)
    }
    expect(thin[0]).toMatchObject({ capUsd: 5_000, mmrFrac: 0.015, maxLeverage: 50 })
    expect(major[0]).toMatchObject({ capUsd: 50_000, mmrFrac: 0.004, maxLeverage: 125 })
  })
})

describe('the capacity curve re-prices liquidation by the bar rule', () => {
  // a long at 1.0, leverage 5, stop 5 %: bar 2 falls to 0.90 and the stop (0.95) fills
  const bars = barsOf([flat(1), flat(1), [1, 1.001, 0.9, 0.91], flat(0.91)])
  const brackets = (mmr2: number): MarginBracket[] => [
    { bracket: 1, floorUsd: 0, capUsd: 1_000, mmrFrac: 0.01, cumUsd: 0, maxLeverage: 50 },
    { bracket: 2, floorUsd: 1_000, capUsd: 1e12, mmrFrac: mmr2, cumUsd: 1_000 * (mmr2 - 0.01), maxLeverage: 5 },
  ]
  const curveWith = (mmr2: number) => {
    const bs = brackets(mmr2)
    const p = params({ leverage: 5, slPct: 5, tpPct: 50, feeFrac: 0.0005, execution: exec({ slippage: 'none', notionalUsd: 600 }) })
    const trades = simulateCoin({ symbol: 'X', bars, entry: maskOf(4, 0), exit: null, fromIdx: 0, toIdx: 3, funding: null, brackets: bs }, p)
    expect(trades.map(t => [t.exitReason, t.exitPrice])).toEqual([['sl', 0.95]])
    return capacityCurve({ trades: tradeTableOf(trades, ['X'], 'long'), perCoinUsd: 120, notionalUsd: 600, leverage: 5, long: true, flatMmr: 0.005, brackets: [bs] }).curve
  }

  test('a larger size whose liquidation price lies beyond the stop keeps the stop (the stop is met first)', () => {
    // at 6 million notional: L = (1 − 0.2 − 120/6e6) / 0.87 = 0.9194, below the stop 0.95 but above the bar's low 0.90
    const curve = curveWith(0.13)
    expect(curve.map(c => c.liquidations)).toEqual([0, 0, 0, 0, 0])
  })

  test('a larger size whose liquidation price lies between the entry and the stop is liquidated', () => {
    // L = (1 − 0.2 − 150/N) / 0.84: 0.9226 at N = 6,000 and 0.9494 at 60,000 (below the stop 0.95: the stop stands),
    // 0.9521 at 600,000 and 0.9524 at 6 million (above the stop: met first, a liquidation)
    const curve = curveWith(0.16)
    expect(curve.map(c => c.liquidations)).toEqual([0, 0, 0, 1, 1])
    expect(curve[3].totalReturnPct).toBe(-100)
  })
})
