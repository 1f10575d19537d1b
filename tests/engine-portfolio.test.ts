import { describe, expect, test } from 'bun:test'
import type { MarkToMarket } from '../src/engine/equity-curve'
import { IndexHeap } from '../src/engine/index-heap'
import { entryOrder } from '../src/engine/entry-order'
import { book, headlineFigures } from '../src/engine/run'
import { acceptSteps, acceptTrades, runPortfolio as runPortfolioOnTable, takesTheSame, tradesInEntryOrder, type PortfolioOptions } from '../src/engine/portfolio'
import { finish } from '../src/engine/steps'
import { tradeTableOf } from '../src/engine/trade-table'
import type { Trade } from '../src/engine/types'
import type { Bars } from '../src/market/types'
import { DAY_MS, HOUR_MS } from '../src/time'
import { barsOf, expectAllClose, flat, T0, type Ohlc } from './engine-fixtures'

const H = HOUR_MS

/** the portfolio of trade objects (a table of them, direction of the first), with its accepted trades in entry order */
function runPortfolio(trades: Trade[], o: PortfolioOptions, mark: MarkToMarket) {
  const r = runPortfolioOnTable(tradeTableOf(trades), o, mark)
  return { ...r, taken: tradesInEntryOrder(r) }
}

function tradeOf(symbol: string, entryH: number, exitH: number, pnlPct: number, over: Partial<Trade> = {}): Trade {
  return {
    symbol,
    direction: 'long',
    entryIdx: entryH,
    exitIdx: exitH,
    entryTimeMs: T0 + entryH * H,
    exitTimeMs: T0 + exitH * H,
    entryPrice: 100,
    exitPrice: 100 + pnlPct,
    barsHeld: exitH - entryH,
    exitReason: pnlPct > 0 ? 'tp' : 'sl',
    pnlPct,
    grossPct: pnlPct,
    feePct: 0,
    fundingPct: 0,
    slTpSameBar: false,
    fundingEvents: 0,
    fundingEventsReal: 0,
    ...over,
  }
}

const opts = (over: Partial<PortfolioOptions> = {}): PortfolioOptions => ({
  perCoinUsd: 100,
  maxConcurrent: 10,
  compounding: false,
  leverage: 1,
  coinCount: 10,
  ...over,
})

/** a mark without bars over the first three days (open positions valued at entry) */
const noMark: MarkToMarket = { barsOf: () => undefined, fromDayMs: T0, toDayMs: T0 + 2 * DAY_MS }

describe('one timeline', () => {
  test('trades are taken in entry-time order whatever the input order', () => {
    const r = runPortfolio([tradeOf('ETH', 5, 6, 1), tradeOf('BTC', 1, 2, 1)], opts(), noMark)
    expect(r.taken.map((t) => t.symbol)).toEqual(['BTC', 'ETH'])
    // the table keeps the order given; entryOrder maps entry order onto its rows
    expect(Array.from(r.trades.coin, (c) => r.trades.symbols[c])).toEqual(['ETH', 'BTC'])
    expect(Array.from(r.entryOrder)).toEqual([1, 0])
  })

  test('entries at the same instant go in the order given (the universe order)', () => {
    const a = tradeOf('BTC', 10, 20, 1)
    const b = tradeOf('ETH', 10, 15, 1)
    expect(runPortfolio([a, b], opts({ maxConcurrent: 1 }), noMark).taken.map((t) => t.symbol)).toEqual(['BTC'])
    expect(runPortfolio([b, a], opts({ maxConcurrent: 1 }), noMark).taken.map((t) => t.symbol)).toEqual(['ETH'])
  })
})

describe('max_concurrent_positions', () => {
  test('an entry beyond the cap is skipped and counted', () => {
    const trades = [tradeOf('A', 1, 10, 1), tradeOf('B', 2, 12, 1), tradeOf('C', 3, 5, 1), tradeOf('D', 11, 14, 1)]
    const r = runPortfolio(trades, opts({ maxConcurrent: 2 }), noMark)
    // C finds A and B open; D enters after A's exit
    expect(r.taken.map((t) => t.symbol)).toEqual(['A', 'B', 'D'])
    expect(r.positionsSkipped).toBe(1)
  })

  test('a slot freed by an exit at the entry instant is free for that entry', () => {
    const r = runPortfolio([tradeOf('A', 1, 10, 1), tradeOf('B', 10, 12, 1)], opts({ maxConcurrent: 1 }), noMark)
    expect([r.trades.n, r.positionsSkipped]).toEqual([2, 0])
  })
})

describe('sizing', () => {
  test('without compounding each margin is per_coin_usd and the capital is per_coin_usd × min(cap, coins)', () => {
    const trades = [tradeOf('A', 1, 5, 10), tradeOf('B', 2, 6, -4)]
    const r = runPortfolio(trades, opts({ perCoinUsd: 100, maxConcurrent: 3, coinCount: 5 }), noMark)
    expect(r.initialCapitalUsd).toBe(300)
    expect(r.taken.map((t) => [t.marginUsd, t.pnlUsd])).toEqual([
      [100, 10],
      [100, -4],
    ])
    expect(r.finalEquityUsd).toBe(306)
    expect(runPortfolio(trades, opts({ perCoinUsd: 100, maxConcurrent: 3, coinCount: 2 }), noMark).initialCapitalUsd).toBe(200)
  })

  test('with compounding a margin is the realised equity at entry / max_concurrent_positions', () => {
    const trades = [tradeOf('A', 0, 5, 10), tradeOf('B', 1, 8, -20), tradeOf('C', 6, 7, 10), tradeOf('D', 9, 10, 10)]
    const r = runPortfolio(trades, opts({ perCoinUsd: 1000, maxConcurrent: 2, compounding: true }), noMark)
    expect(r.initialCapitalUsd).toBe(1000)
    // A: 1000/2; B: A still open, 1000/2; C: after A's +50, 1050/2; D: after B's −100 and C's +52.5, 1002.5/2
    expect(r.taken.map((t) => t.marginUsd)).toEqual([500, 500, 525, 501.25])
    expect(r.taken.map((t) => t.pnlUsd)).toEqual([50, -100, 52.5, 50.125])
    expect(r.finalEquityUsd).toBe(1052.625)
  })
})

describe('daily equity, marked at each day close', () => {
  // 1H bars of one coin for three days; closes 110 at the end of day 1 and 90 at the end of day 2
  function markBars(): Bars {
    const rows: Ohlc[] = Array.from({ length: 72 }, () => flat(100))
    rows[23] = [100, 110, 100, 110]
    rows[47] = [100, 100, 90, 90]
    return barsOf(rows)
  }
  const mark = (bars: Bars): MarkToMarket => ({ barsOf: (s) => (s === 'A' ? bars : undefined), fromDayMs: T0, toDayMs: T0 + 2 * DAY_MS })

  test('an open position is valued at its coin\'s last close of the day, times the leverage', () => {
    // long at 100 from day 1 12:00 to day 3 12:00, +6 % net
    const r = runPortfolio([tradeOf('A', 12, 60, 6)], opts({ perCoinUsd: 100, maxConcurrent: 1, coinCount: 1, leverage: 2 }), mark(markBars()))
    expect(r.equityCurve.map((p) => p.tMs)).toEqual([T0, T0 + DAY_MS, T0 + 2 * DAY_MS])
    expectAllClose(r.equityCurve.map((p) => p.equityUsd), [120, 80, 106])
    expectAllClose(r.equityCurve.map((p) => p.returnPct), [20, -20, 6])
    expect(r.equityCurve[1].drawdownPct).toBeCloseTo((40 / 120) * 100, 12)
    expect(r.equityCurve[2].drawdownPct).toBeCloseTo((14 / 120) * 100, 12)
  })

  test('a short gains when the mark falls', () => {
    const r = runPortfolio([tradeOf('A', 12, 60, 6, { direction: 'short' })], opts({ maxConcurrent: 1, coinCount: 1 }), mark(markBars()))
    expectAllClose(r.equityCurve.map((p) => p.equityUsd), [90, 110, 106])
  })

  test('an open position is never marked below the loss of its margin', () => {
    const r = runPortfolio([tradeOf('A', 12, 60, -100)], opts({ maxConcurrent: 1, coinCount: 1, leverage: 20 }), mark(markBars()))
    expect(r.equityCurve[1].equityUsd).toBe(0)
  })

  test('a trade closing at a midnight is realised in the day that ends there', () => {
    const r = runPortfolio([tradeOf('A', 12, 24, 5)], opts({ maxConcurrent: 1, coinCount: 1 }), mark(markBars()))
    expectAllClose(r.equityCurve.map((p) => p.equityUsd), [105, 105, 105])
  })
})

describe('entry order', () => {
  /** coins concatenated in universe order, each in time order; `jitterMs` moves times off the hour grid */
  function randomTrades(rnd: () => number, jitterMs: boolean): Trade[] {
    const trades: Trade[] = []
    for (let c = 0; c < 1 + Math.floor(rnd() * 8); c++) {
      let h = Math.floor(rnd() * 5)
      for (let k = 0; k < Math.floor(rnd() * 10); k++) {
        const tr = tradeOf(`C${c}`, h, h + 1, 1)
        if (jitterMs && rnd() < 0.5) tr.entryTimeMs += Math.floor(rnd() * 3) * 0.5
        trades.push(tr)
        h += 1 + Math.floor(rnd() * 3)
      }
    }
    return trades
  }

  test('equals a stable sort by entry time, on the bar grid and off it', () => {
    let s = 5
    const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32)
    for (let round = 0; round < 100; round++) {
      const trades = randomTrades(rnd, round % 2 === 1)
      const reference = trades.map((_, i) => i).sort((a, b) => trades[a].entryTimeMs - trades[b].entryTimeMs)
      expect([...entryOrder(trades)]).toEqual(reference)
    }
  })
})

describe('the index heap', () => {
  test('pops in (key, tie) order through any mix of push, pop and replaceTop', () => {
    let s = 17
    const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32)
    const heap = new IndexHeap(64)
    const model: [number, number, number][] = []
    const byKeyTie = (a: [number, number, number], b: [number, number, number]) => a[0] - b[0] || a[1] - b[1]
    for (let step = 0; step < 5000; step++) {
      const op = rnd()
      const item: [number, number, number] = [Math.floor(rnd() * 10), (step * 7919) % 100_003, step]
      if (model.length === 0 || (op < 0.5 && model.length < 64)) {
        heap.push(...item)
        model.push(item)
      } else {
        model.sort(byKeyTie)
        const expected = model.shift()![2]
        if (op < 0.75) expect(heap.pop()).toBe(expected)
        else {
          expect(heap.replaceTop(...item)).toBe(expected)
          model.push(item)
        }
      }
      expect(heap.size).toBe(model.length)
    }
  })
})

describe('ruin: the realised equity reaching zero', () => {
  // one coin, one slot, 100 USD: −60 %, −60 % (equity 100 → 40 → −20: ruined at hour 10), then +10 % and −30 %
  const losing = () => [tradeOf('A', 1, 5, -60), tradeOf('A', 6, 10, -60), tradeOf('A', 12, 14, 10), tradeOf('A', 20, 22, -30)]
  const one = (over: Partial<PortfolioOptions> = {}) => opts({ perCoinUsd: 100, maxConcurrent: 1, coinCount: 1, ...over })

  test('is noted at the exit that takes the equity to zero, and by default no trade opens from then on', () => {
    const r = runPortfolio(losing(), one(), noMark)
    expect(r.ruinedAtMs).toBe(T0 + 10 * H)
    expect(r.taken.map((t) => t.entryTimeMs)).toEqual([T0 + H, T0 + 6 * H])
    expect(r.entriesAfterRuin).toBe(2)
    expect(r.positionsSkipped).toBe(0)
    expect(r.finalEquityUsd).toBe(-20)
  })

  test('an entry at the instant of ruin is not opened either', () => {
    const r = runPortfolio([...losing().slice(0, 2), tradeOf('A', 10, 11, 5)], one(), noMark)
    expect(r.taken).toHaveLength(2)
    expect(r.entriesAfterRuin).toBe(1)
  })

  test('stopAtRuin false keeps trading on fresh capital, and still says when the equity reached zero', () => {
    const r = runPortfolio(losing(), one({ stopAtRuin: false }), noMark)
    expect(r.ruinedAtMs).toBe(T0 + 10 * H)
    expect(r.taken).toHaveLength(4)
    expect(r.entriesAfterRuin).toBe(0)
    expect(r.finalEquityUsd).toBe(-40)
  })

  test('with compounding and stopAtRuin false an entry without equity is skipped, as before', () => {
    const r = runPortfolio([tradeOf('A', 1, 5, -100), tradeOf('A', 6, 8, 10)], one({ compounding: true, stopAtRuin: false }), noMark)
    expect(r.ruinedAtMs).toBe(T0 + 5 * H)
    expect([r.taken.length, r.positionsSkipped, r.entriesAfterRuin]).toEqual([1, 1, 0])
  })

  test('the exits after the last entry can ruin the portfolio', () => {
    expect(runPortfolio([tradeOf('A', 1, 5, -100)], one(), noMark).ruinedAtMs).toBe(T0 + 5 * H)
    expect(runPortfolio([tradeOf('A', 1, 5, -99)], one(), noMark).ruinedAtMs).toBeNull()
  })

  test('the exits of one instant are booked together before the equity is judged', () => {
    // 200 USD: A loses its 100 at hour 5; at hour 10 A loses 100 more while B gains 50 (equity 50, never zero after an instant)
    const trades = [tradeOf('A', 1, 5, -100), tradeOf('A', 6, 10, -100), tradeOf('B', 6, 10, 50)]
    const r = runPortfolio(trades, opts({ perCoinUsd: 100, maxConcurrent: 2, coinCount: 2 }), noMark)
    expect(r.ruinedAtMs).toBeNull()
    expect(r.finalEquityUsd).toBe(50)
  })

  test('the daily drawdown is at most 100 %: equity below zero is no more lost than all of it', () => {
    const mark: MarkToMarket = { barsOf: () => undefined, fromDayMs: T0, toDayMs: T0 + 2 * DAY_MS }
    const r = runPortfolio(losing(), one({ stopAtRuin: false }), mark)
    expect(r.equityCurve.map((p) => p.equityUsd)).toEqual([-40, -40, -40])
    expect(r.equityCurve.map((p) => p.drawdownPct)).toEqual([100, 100, 100])
  })
})

describe("headlineFigures: a run's four figures from the portfolio's choice alone", () => {
  // coin by coin, each coin's trades in time order (as the run's table is), overlapping across coins
  function coinTrades(seed: number, coins: number, perCoin: number): Trade[] {
    let x = seed
    const rnd = () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32)
    const out: Trade[] = []
    for (let c = 0; c < coins; c++) {
      let h = Math.floor(rnd() * 10)
      for (let k = 0; k < perCoin; k++) {
        const held = 1 + Math.floor(rnd() * 30)
        out.push(tradeOf(`C${c}`, h, h + held, (rnd() - 0.52) * 17.3))
        h += held + Math.floor(rnd() * 5)
      }
    }
    return out
  }
  const cases: [string, Trade[], Partial<PortfolioOptions>][] = [
    ['every trade taken', coinTrades(1, 4, 30), { maxConcurrent: 10, coinCount: 4 }],
    ['slots full: entries skipped', coinTrades(2, 12, 40), { maxConcurrent: 3, coinCount: 12 }],
    ['compounding', coinTrades(3, 8, 40), { maxConcurrent: 4, coinCount: 8, compounding: true }],
    ['ruined, then no entry', [...coinTrades(4, 3, 10).map(t => ({ ...t, pnlPct: -90 })), ...coinTrades(5, 2, 20)], { maxConcurrent: 2, coinCount: 5 }],
  ]
  for (const [name, trades, over] of cases)
    test(`the numbers book gives, to the last bit: ${name}`, () => {
      const table = tradeTableOf(trades)
      const o = opts(over)
      const { metrics } = book(table, o, noMark)
      expect(headlineFigures(table, o)).toEqual({ total_return_pct: metrics.total_return_pct, win_rate: metrics.win_rate, profit_factor: metrics.profit_factor, total_trades: metrics.total_trades })
    })
})

describe('the open positions close in exit order, ties in the order they opened', () => {
  // the accounting as it stood with a heap of (exit instant, acceptance count): the reference
  function acceptedByHeap(t: { n: number; entryMs: Float64Array; exitMs: Float64Array; pnlPct: Float64Array }, o: PortfolioOptions) {
    const order = entryOrder(Array.from({ length: t.n }, (_, i) => ({ entryTimeMs: t.entryMs[i] }) as Trade))
    const open = new IndexHeap(o.maxConcurrent + 1)
    const margin = new Float64Array(t.n)
    const taken: number[] = []
    let realised = 0
    let ruinedAt: number | null = null
    let skipped = 0
    const initial = o.compounding ? o.perCoinUsd : o.perCoinUsd * Math.max(1, Math.min(o.maxConcurrent, o.coinCount))
    const settle = (until: number) => {
      while (open.size > 0 && open.peekKey() <= until) {
        const at = open.peekKey()
        while (open.size > 0 && open.peekKey() === at) {
          const j = open.pop()
          realised += (margin[j] * t.pnlPct[j]) / 100
        }
        if (ruinedAt === null && initial + realised <= initial * 1e-9) ruinedAt = at
      }
    }
    for (const i of order) {
      settle(t.entryMs[i])
      if (ruinedAt !== null && o.stopAtRuin !== false) continue
      const m = o.compounding ? (initial + realised) / o.maxConcurrent : o.perCoinUsd
      if (open.size >= o.maxConcurrent || !(m > 0)) {
        skipped++
        continue
      }
      margin[i] = m
      open.push(t.exitMs[i], taken.length, i)
      taken.push(i)
    }
    settle(Infinity)
    return { taken, margin: Array.from(margin), skipped, ruinedAt }
  }

  test('as a heap closes them, over many exits at the same instants and caps small and large', () => {
    let x = 17
    const rnd = () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32)
    for (let run = 0; run < 60; run++) {
      const trades: Trade[] = []
      const coins = 1 + Math.floor(rnd() * 40)
      for (let c = 0; c < coins; c++)
        for (let h = Math.floor(rnd() * 5), k = 0; k < 30; k++, h += 1 + Math.floor(rnd() * 6)) trades.push(tradeOf(`C${c}`, h, h + Math.floor(rnd() * 12), rnd() < 0.05 ? -100 : (rnd() - 0.5) * 30))
      const o = opts({ maxConcurrent: 1 + Math.floor(rnd() * (run % 3 === 0 ? 200 : 20)), coinCount: coins, compounding: run % 2 === 0, stopAtRuin: run % 5 !== 0 })
      const table = tradeTableOf(trades)
      const r = runPortfolioOnTable(table, o, noMark)
      const want = acceptedByHeap(table, o)
      expect(Array.from(r.entryOrder, k => r.trades.entryMs[k])).toEqual(want.taken.map(i => table.entryMs[i]))
      expect(r.trades.n).toBe(want.taken.length)
      expect(Array.from(r.trades.marginUsd)).toEqual(want.taken.slice().sort((a, b) => a - b).map(i => want.margin[i]))
      expect(r.positionsSkipped).toBe(want.skipped)
      expect(r.ruinedAtMs).toBe(want.ruinedAt)
    }
  })
})

describe("takesTheSame: the choice over a table whose exits changed at a few rows, told without walking it", () => {
  const traced = (table: Parameters<typeof acceptTrades>[0], o: PortfolioOptions) => finish(acceptSteps(table, o, { trace: true }))
  test('whenever it says the same rows are taken, walking the changed table takes them; and it says so for most small changes', () => {
    let x = 29
    const rnd = () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32)
    let same = 0
    let told = 0
    for (let run = 0; run < 400; run++) {
      const trades: Trade[] = []
      const coins = 1 + Math.floor(rnd() * 30)
      const ruinous = run % 4 === 0
      for (let c = 0; c < coins; c++)
        for (let h = Math.floor(rnd() * 5), k = 0; k < 30; k++, h += 1 + Math.floor(rnd() * 6))
          trades.push(tradeOf(`C${c}`, h, h + 1 + Math.floor(rnd() * 12), ruinous && rnd() < 0.04 ? -100 : (rnd() - 0.5) * 30))
      const o = opts({ maxConcurrent: 1 + Math.floor(rnd() * (run % 3 === 0 ? 60 : 15)), coinCount: coins, compounding: run % 7 === 0, stopAtRuin: run % 5 !== 0 })
      const table = tradeTableOf(trades)
      // a few rows' exits moved by up to 6 hours either way (never before the entry) and their P&L changed
      const rows = Array.from(new Set(Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => Math.floor(rnd() * table.n))))
      const exitMs = table.exitMs.slice()
      const pnlPct = table.pnlPct.slice()
      for (const r of rows) {
        exitMs[r] = Math.max(table.entryMs[r] + H, exitMs[r] + Math.round((rnd() - 0.5) * 12) * H)
        // where losses run high, a changed trade losing its whole margin can ruin the portfolio the run did not
        pnlPct[r] = ruinous && rnd() < 0.5 ? -100 : (rnd() - 0.5) * 40
      }
      const changed = { ...table, exitMs, pnlPct }
      const acceptance = traced(table, o)
      const walked = acceptTrades(changed, o).taken
      if (Array.from(walked).join() === Array.from(acceptance.taken).join()) same++
      if (takesTheSame(acceptance, o, table, changed, rows)) {
        told++
        expect(Array.from(walked)).toEqual(Array.from(acceptance.taken))
      }
    }
    expect(told).toBeGreaterThan(0.6 * same)
  })
  // two slots of 100 USD (200 USD of capital); the second coin's first trade is the one changed, its exit kept
  const ruinCase = (changedPnl: number, firstPnl = -50) => {
    const table = tradeTableOf([tradeOf('A', 0, 2, -100), tradeOf('A', 10, 12, 5), tradeOf('B', 1, 3, firstPnl)])
    const changed = { ...table, pnlPct: Float64Array.from(table.pnlPct, (p, i) => (i === 2 ? changedPnl : p)) }
    const o = opts({ perCoinUsd: 100, maxConcurrent: 2, coinCount: 2 })
    return { same: takesTheSame(traced(table, o), o, table, changed, [2]), walked: acceptTrades(changed, o).taken.length }
  }
  test('a changed loss that ruins the portfolio (no entry after it) is not the same choice', () => {
    expect(ruinCase(-100)).toEqual({ same: false, walked: 2 })
  })
  test('a run that was ruined is not the same choice as one that is not', () => {
    expect(ruinCase(-50, -100)).toEqual({ same: false, walked: 3 })
  })
  test('a change far from the ruin is the same choice', () => {
    expect(ruinCase(-2, -1)).toEqual({ same: true, walked: 3 })
  })
  test('a change after the ruin, the ruin where it was: the same choice', () => {
    // ruined at 3h by A's loss; B's trade (open then) exits an hour earlier, next to C's entry, which the ruin stops in both
    const table = tradeTableOf([tradeOf('A', 0, 3, -250), tradeOf('B', 1, 6, -10), tradeOf('C', 5, 7, 1)])
    const changed = { ...table, exitMs: Float64Array.from(table.exitMs, (e, i) => (i === 1 ? e - H : e)), pnlPct: Float64Array.from(table.pnlPct, (p, i) => (i === 1 ? -20 : p)) }
    const o = opts({ perCoinUsd: 100, maxConcurrent: 2, coinCount: 3 })
    const acceptance = traced(table, o)
    expect(acceptance.ruinedAtMs).toBe(T0 + 3 * H)
    expect(takesTheSame(acceptance, o, table, changed, [1])).toBe(true)
    expect(Array.from(acceptTrades(changed, o).taken)).toEqual(Array.from(acceptance.taken))
  })
  test('an untraced choice is not told from (walked again)', () => {
    const table = tradeTableOf([tradeOf('A', 0, 3, 1), tradeOf('B', 1, 6, -10)])
    const changed = { ...table, exitMs: Float64Array.from(table.exitMs, (e, i) => (i === 1 ? e - H : e)) }
    const o = opts({ coinCount: 2 })
    expect([takesTheSame(acceptTrades(table, o), o, table, changed, [1]), takesTheSame(traced(table, o), o, table, changed, [1])]).toEqual([false, true])
  })
})
