import { describe, expect, test } from 'bun:test'
import { MergeColumns, mergeCoinTables, onLoan, rowsWhereEntry, selectRows, tradeAt, tradeTableOf, TradeTableBuilder, type TradeTable } from '../src/engine/trade-table'
import type { Trade } from '../src/engine/types'
import { acceptTrades, sizeSteps, tradesInEntryOrder, type PortfolioResult, type PortfolioTrade } from '../src/engine/portfolio'
import { finish } from '../src/engine/steps'
import { tradeItemsFrom } from '../src/runs/present'
import { roundTo } from '../src/round'
import { isoInstant } from '../src/time'

const H = 3_600_000

/** A listed trade as the contract spells it, from a trade object: the reference the columns' items are held to. */
function tradeItem(t: PortfolioTrade) {
  const round = (x: number) => (Number.isFinite(x) ? roundTo(x, 6) : 0)
  return {
    symbol: t.symbol,
    direction: t.direction,
    entry_time: isoInstant(t.entryTimeMs),
    exit_time: isoInstant(t.exitTimeMs),
    entry_price: t.entryPrice,
    exit_price: t.exitPrice,
    bars_held: t.barsHeld,
    exit_reason: t.exitReason,
    pnl_pct: round(t.pnlPct),
    pnl_usd: round(t.pnlUsd),
    fee_pct: round(t.feePct),
    funding_pct: round(t.fundingPct),
    sl_tp_same_bar: t.slTpSameBar,
    exit_resolution: t.exitResolution ?? 'bar',
    slippage_pct: round(t.slippagePct ?? 0),
  }
}
const T0 = Date.UTC(2025, 0, 1)

function trade(symbol: string, entryH: number, pnlPct: number, over: Partial<Trade> = {}): Trade {
  return {
    symbol,
    direction: 'short',
    entryIdx: entryH,
    exitIdx: entryH + 3,
    entryTimeMs: T0 + entryH * H,
    exitTimeMs: T0 + (entryH + 3) * H,
    entryPrice: 100 + entryH,
    exitPrice: 100 + entryH - pnlPct,
    barsHeld: 3,
    exitReason: pnlPct > 0 ? 'tp' : 'sl',
    pnlPct,
    grossPct: pnlPct + 0.1,
    feePct: 0.1,
    fundingPct: 0.01 * entryH,
    slTpSameBar: entryH % 2 === 0,
    fundingEvents: 1,
    fundingEventsReal: entryH % 2,
    // the size-dependent cost columns (issue 25) travel with the row like the others
    slippagePct: 0.001 * entryH,
    slipSpread: 0.0001 * entryH,
    slipImpact: 1e-6 * entryH,
    maeFrac: 0.002 * entryH,
    fillsUnestimated: entryH % 3,
    ...over,
  }
}

/** A worker's chunk: its coins coin by coin, each trade with `marks` midnight marks. */
function chunk(symbols: string[], trades: Trade[], marks: (t: Trade) => number[]): TradeTable {
  const b = new TradeTableBuilder('short', symbols, 1) // capacity 1: every push past the first grows it
  for (const t of trades) {
    for (const m of marks(t)) b.addMark(m)
    b.push(t, symbols.indexOf(t.symbol))
  }
  return b.finish()
}

const rows = (t: TradeTable) => Array.from({ length: t.n }, (_, i) => tradeAt(t, i))
const marksOf = (t: TradeTable, i: number) => Array.from(t.marks!.move.subarray(t.marks!.start[i], t.marks!.start[i + 1]))

describe('trade tables', () => {
  test('a table gives back the trade objects it was made of', () => {
    const trades = [trade('B', 1, 2), trade('A', 5, -1, { exitReason: 'liquidation' }), trade('B', 9, 0, { exitReason: 'end_of_data' })]
    const t = tradeTableOf(trades, ['A', 'B', 'C'])
    expect(t.symbols).toEqual(['A', 'B', 'C'])
    expect(rows(t)).toEqual(trades)
    // coins not in the list are appended in order of appearance
    expect(tradeTableOf([trade('Z', 1, 1), trade('Y', 2, 1)], ['A']).symbols).toEqual(['A', 'Z', 'Y'])
  })

  test('the builder keeps every row and its marks through growth', () => {
    const trades = Array.from({ length: 37 }, (_, k) => trade(k < 20 ? 'A' : 'B', k * 4, (k % 5) - 2))
    const t = chunk(['A', 'B'], trades, tr => Array.from({ length: tr.entryIdx % 3 }, (_, j) => tr.entryIdx + j / 10))
    expect(rows(t)).toEqual(trades)
    trades.forEach((tr, i) => expect(marksOf(t, i)).toEqual(Array.from({ length: tr.entryIdx % 3 }, (_, j) => tr.entryIdx + j / 10)))
  })

  test('chunks merge into universe order, coin blocks and marks intact, whatever the split', () => {
    const universe = ['A', 'B', 'C', 'D', 'E']
    const byCoin = (s: string, k: number) => [trade(s, k, k - 2), trade(s, k + 10, 1)]
    const all = universe.flatMap((s, k) => byCoin(s, k))
    const marks = (t: Trade) => [t.entryIdx, -t.entryIdx]
    // interleaved chunks, as the service cuts them; D has no trades
    const parts = [0, 1].map(c => universe.filter((_, k) => k % 2 === c))
    const tables = parts.map(p => chunk(p, all.filter(t => p.includes(t.symbol) && t.symbol !== 'D'), marks))
    const merged = mergeCoinTables(universe, 'short', tables)
    const expected = all.filter(t => t.symbol !== 'D')
    expect(rows(merged)).toEqual(expected)
    expected.forEach((t, i) => expect(marksOf(merged, i)).toEqual(marks(t)))
    // one chunk gives the same table
    const single = mergeCoinTables(universe, 'short', [chunk(universe, expected, marks)])
    expect(rows(single)).toEqual(rows(merged))
    expect(Array.from(single.marks!.move)).toEqual(Array.from(merged.marks!.move))
  })

  test('a coin outside the run, or split over two chunks, is refused', () => {
    const a = chunk(['A'], [trade('A', 1, 1)], () => [])
    expect(() => mergeCoinTables(['B'], 'short', [a])).toThrow(/not a coin of the run/)
    expect(() => mergeCoinTables(['A'], 'short', [a, a])).toThrow(/not in one block/)
  })

  test('selected rows carry their columns, marks and sizes', () => {
    const trades = Array.from({ length: 8 }, (_, k) => trade('A', k * 5, k - 3))
    const t = chunk(['A'], trades, tr => Array.from({ length: tr.entryIdx % 4 }, () => tr.pnlPct))
    const sized = Object.assign(t, { marginUsd: Float64Array.from(trades, (_, k) => 10 + k), pnlUsd: Float64Array.from(trades, (_, k) => k) })
    const pick = rowsWhereEntry(sized, ms => ms >= T0 + 10 * H && ms < T0 + 30 * H)
    expect(Array.from(pick)).toEqual([2, 3, 4, 5])
    const s = selectRows(sized, pick)
    expect(rows(s)).toEqual(trades.slice(2, 6))
    expect(Array.from(s.marginUsd)).toEqual([12, 13, 14, 15])
    expect(Array.from(s.pnlUsd)).toEqual([2, 3, 4, 5])
    ;[2, 3, 4, 5].forEach((r, i) => expect(marksOf(s, i)).toEqual(marksOf(t, r)))
  })

  test("a run's listed trades read from the columns are the items of its trade objects", () => {
    const trades = Array.from({ length: 9 }, (_, k) =>
      trade(k % 2 ? 'A' : 'B', k * 7, (k % 4) - 1.2345678912, {
        exitReason: (['tp', 'sl', 'liquidation', 'end_of_data'] as const)[k % 4],
        ...(k % 3 === 0 ? { exitResolution: 'detail' as const, exitChanged: k % 2 === 0 } : {}),
      }),
    )
    const t = tradeTableOf(trades, ['A', 'B'])
    const sized = Object.assign(t, { marginUsd: Float64Array.from(trades, (_, k) => 10 + k / 3), pnlUsd: Float64Array.from(trades, (_, k) => (k - 4) / 7) })
    const portfolio = { trades: sized, entryOrder: Int32Array.from([3, 0, 8, 1, 2, 7, 4, 6, 5]) } as unknown as PortfolioResult
    for (const from of [0, 4, 9]) expect(tradeItemsFrom(portfolio, from)).toEqual(tradesInEntryOrder(portfolio, from).map(tradeItem))
    // the same keys in the same order: the answer's bytes follow them
    expect(JSON.stringify(tradeItemsFrom(portfolio))).toBe(JSON.stringify(tradesInEntryOrder(portfolio).map(tradeItem)))
  })
})

describe('a run\'s merged table, its columns lent from one run to the next', () => {
  const universe = ['A', 'B', 'C']
  const marks = (t: Trade) => [t.pnlPct]
  /** two interleaved chunks of the universe's trades, `shift` moving every P&L (another run's rows) */
  const chunks = (shift: number) => {
    const all = universe.flatMap((s, k) => [trade(s, k, k - 1 + shift), trade(s, k + 10, 2 + shift)])
    return [0, 1].map(c => {
      const p = universe.filter((_, k) => k % 2 === c)
      return chunk(p, all.filter(t => p.includes(t.symbol)), marks)
    })
  }

  test('a lent table holds the rows a new one does; given back, its columns are the next run\'s', () => {
    const columns = new MergeColumns(100)
    const own = mergeCoinTables(universe, 'short', chunks(0))
    const lent = mergeCoinTables(universe, 'short', chunks(0), columns)
    expect(onLoan(lent)).toBe(true)
    expect(onLoan(own)).toBe(false)
    expect(rows(lent)).toEqual(rows(own))
    expect(Array.from(lent.marks!.move)).toEqual(Array.from(own.marks!.move))
    // while it is lent, another run's table gets columns of its own
    const meanwhile = mergeCoinTables(universe, 'short', chunks(1), columns)
    expect(meanwhile.pnlPct.buffer).not.toBe(lent.pnlPct.buffer)
    columns.giveBack(lent)
    expect(onLoan(lent)).toBe(false)
    const next = mergeCoinTables(universe, 'short', chunks(5), columns)
    expect(next.pnlPct.buffer).toBe(lent.pnlPct.buffer)
    expect(rows(next)).toEqual(rows(mergeCoinTables(universe, 'short', chunks(5))))
    // a table past the limit has columns of its own, never lent
    const small = new MergeColumns(3)
    expect(onLoan(mergeCoinTables(universe, 'short', chunks(0), small))).toBe(false)
    // a table the keeper did not lend is not taken back
    small.giveBack(own)
    const one = mergeCoinTables(['A'], 'short', [chunk(['A'], [trade('A', 1, 1)], marks)], small)
    expect(onLoan(one)).toBe(true)
    expect(one.pnlPct.buffer).not.toBe(own.pnlPct.buffer)
  })

  test('the portfolio keeps copies of a lent table\'s rows even when it takes every trade', () => {
    const columns = new MergeColumns(100)
    const lent = mergeCoinTables(universe, 'short', chunks(0), columns)
    const opts = { perCoinUsd: 100, maxConcurrent: 100, compounding: false, leverage: 1, coinCount: universe.length }
    const acceptance = acceptTrades(lent, opts)
    expect(acceptance.taken.length).toBe(lent.n)
    const sized = finish(sizeSteps(lent, acceptance)).trades
    const before = rows(sized)
    columns.giveBack(lent)
    // the next run's merge writes the same columns
    mergeCoinTables(universe, 'short', chunks(7), columns)
    expect(rows(sized)).toEqual(before)
    expect(before.map(t => t.pnlPct)).toEqual(rows(mergeCoinTables(universe, 'short', chunks(0))).map(t => t.pnlPct))
    // a table of its own is shared, not copied, as before
    const own = mergeCoinTables(universe, 'short', chunks(0))
    expect(finish(sizeSteps(own, acceptTrades(own, opts))).trades.pnlPct).toBe(own.pnlPct)
  })
})
