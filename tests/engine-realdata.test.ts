import { describe, expect, test } from 'bun:test'
import { simulateAndBook as runBacktest } from '../src/engine/run'
import { simulateCoin, type CoinSimInput } from '../src/engine/trade-model'
import type { Trade, TradeParams } from '../src/engine/types'
import type { Bars, FundingSeries } from '../src/market/types'
import { DAY_MS } from '../src/time'
import { fundingOf, hasSharedData, params, realBars, realFunding } from './engine-fixtures'

/** A seeded mask with about `share` of the bars set. */
function randomMask(n: number, share: number, seed: number): Uint8Array {
  let s = seed >>> 0
  const m = new Uint8Array(n)
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    if (s / 2 ** 32 < share) m[i] = 1
  }
  return m
}

/** Funding of one trade the slow way: every event and every 8h stand-in, one by one. */
function referenceFundingPct(tr: Trade, bars: Bars, funding: FundingSeries | null, lev: number): [number, number, number] {
  const openAt = (T: number) => {
    let j = 0
    for (let i = 0; i < bars.n; i++) if (bars.t[i] <= T) j = i
    return bars.o[j]
  }
  let sum = 0
  let events = 0
  let real = 0
  const n = funding?.n ?? 0
  for (let j = 0; j < n; j++) {
    const T = funding!.t[j]
    if (T > tr.entryTimeMs && T < tr.exitTimeMs) {
      sum += funding!.rate[j] * openAt(T)
      events++
      real++
    }
  }
  const first = n > 0 ? funding!.t[0] : Infinity
  const last = n > 0 ? funding!.t[n - 1] : -Infinity
  for (let T = Math.ceil(tr.entryTimeMs / (8 * 3_600_000)) * 8 * 3_600_000; T < tr.exitTimeMs; T += 8 * 3_600_000) {
    if (T > tr.entryTimeMs && (T < first || T > last)) {
      sum += 0.0001 * openAt(T)
      events++
    }
  }
  const sign = tr.direction === 'long' ? 1 : -1
  return [(sign * sum * lev * 100) / tr.entryPrice, events, real]
}

describe.skipIf(!hasSharedData)('on real Binance data (../shared/data)', () => {
  if (!hasSharedData) console.warn('engine-realdata: ../shared/data is absent, skipping')
  const btc = hasSharedData ? realBars('BTCUSDT') : (null as unknown as Bars)
  const btcFunding = hasSharedData ? realFunding('BTCUSDT') : null
  // the real series from 2022 on only: earlier trades fall back to stand-ins
  const from2022 = btcFunding === null ? null : fundingOf([...btcFunding.t].map((t, j): [number, number] => [t, btcFunding.rate[j]]).filter(([t]) => t >= Date.UTC(2022, 0, 1)))
  const p: TradeParams = params({ direction: 'short', slPct: 5, tpPct: 4, maxBars: 48, leverage: 10, feeFrac: 0.0005 })

  function run(funding: FundingSeries | null, over: Partial<TradeParams> = {}): Trade[] {
    const input: CoinSimInput = { symbol: 'BTCUSDT', bars: btc, entry: randomMask(btc.n, 0.02, 7), exit: randomMask(btc.n, 0.01, 8), fromIdx: 0, toIdx: btc.n - 1, funding }
    return simulateCoin(input, { ...p, ...over })
  }

  test('every trade\'s funding equals an event-by-event reference, with partial coverage', () => {
    const trades = run(from2022)
    expect(trades.length).toBeGreaterThan(200)
    let events = 0
    let real = 0
    // the reference is slow: check every 7th trade
    for (let k = 0; k < trades.length; k += 7) {
      const tr = trades[k]
      const [pct, ev, re] = referenceFundingPct(tr, btc, from2022, 10)
      expect(tr.fundingPct).toBeCloseTo(pct, 10)
      expect([tr.fundingEvents, tr.fundingEventsReal]).toEqual([ev, re])
      events += ev
      real += re
    }
    expect(real).toBeGreaterThan(0)
    expect(real).toBeLessThan(events)
  })

  test('trades are consistent: the P&L identity, one position at a time, bars held within max_bars', () => {
    for (const over of [{}, { direction: 'long' as const, tpSource: 'trailing' as const, trailingPct: 2 }, { leverage: 40 }]) {
      const trades = run(btcFunding, over)
      const entry = randomMask(btc.n, 0.02, 7)
      let prevExit = -1
      const reasons = new Set<string>()
      for (const tr of trades) {
        reasons.add(tr.exitReason)
        expect(entry[tr.entryIdx - 1]).toBe(1)
        expect(tr.entryIdx).toBeGreaterThan(prevExit)
        expect(tr.barsHeld).toBeGreaterThanOrEqual(1)
        expect(tr.barsHeld).toBeLessThanOrEqual(48)
        if (tr.exitReason === 'liquidation') expect(tr.pnlPct).toBe(-100)
        else expect(tr.pnlPct).toBeCloseTo(tr.grossPct - tr.feePct - tr.fundingPct, 9)
        prevExit = tr.exitIdx
      }
      expect(reasons.size).toBeGreaterThanOrEqual(3)
    }
  })

  test('a multi-coin backtest is deterministic and its coin results add up', () => {
    const symbols = ['BTCUSDT', 'ETHUSDT', 'XRPUSDT', 'SOLUSDT']
    const barsBy = new Map(symbols.map((s) => [s, realBars(s)]))
    const coins: CoinSimInput[] = symbols.map((s, k) => {
      const bars = barsBy.get(s)!
      return { symbol: s, bars, entry: randomMask(bars.n, 0.01, 11 + k), exit: null, fromIdx: 0, toIdx: bars.n - 1, funding: realFunding(s) }
    })
    const first = barsBy.get('BTCUSDT')!
    const mark = {
      barsOf: (s: string) => barsBy.get(s),
      fromDayMs: Math.floor(first.t[0] / DAY_MS) * DAY_MS,
      toDayMs: Math.floor(first.t[first.n - 1] / DAY_MS) * DAY_MS,
    }
    // random shorts at 10x ruin this portfolio early; the bookkeeping of every simulated trade is checked on fresh capital
    const req = { coins, params: p, perCoinUsd: 60, maxConcurrent: 3, compounding: false, stopAtRuin: false, mark }
    const a = runBacktest(req)
    const b = runBacktest(req)
    expect(b).toEqual(a)
    const m = a.metrics
    expect(a.portfolio.positionsSkipped).toBeGreaterThan(0)
    expect(m.total_trades + a.portfolio.positionsSkipped).toBe(a.simulatedTrades)
    const coinSum = m.coin_results.reduce((s, c) => s + c.total_return_pct, 0)
    expect(coinSum).toBeCloseTo(m.total_return_pct, 6)
    expect(m.tp_count + m.sl_count + m.timeout_count + m.trailing_count + m.signal_count + m.liquidation_count + m.end_of_data_count).toBe(m.total_trades)
    expect(a.portfolio.ruinedAtMs).not.toBeNull()
    expect(m.max_drawdown_pct).toBeLessThanOrEqual(100)
    // SOLUSDT has no funding file here: its events are stand-ins
    expect(m.funding_coverage_pct!).toBeGreaterThan(50)
    expect(m.funding_coverage_pct!).toBeLessThan(100)
    const last = a.portfolio.equityCurve[a.portfolio.equityCurve.length - 1]
    expect(last.equityUsd).toBeCloseTo(a.portfolio.initialCapitalUsd + m.total_return_usd, 6)
  })
})
