/**
 * The shortcuts that keep minute detail cheap (issue 25 § Speed) give what the long way
 * gives:
 * - the bar rule's twin that simulateCoin fills (only the changed trades priced again) is
 *   simulateCoin's own result without detail, also where a trailing stop makes the paths part;
 * - a replay's derived minutes without the volume split have the same prices;
 * - a stored reader's `prices` (one read at the hour's minute offset) are `rows`' prices,
 *   also where minutes are missing or the hour spans two segments;
 * - the thread's minute cache never holds more than its bound, and a run through a tiny
 *   cache gets the trades of a run through a large one.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { simulateCoin, simulateCoinRows, writeTradeRow, type BarRuleTwin, type TradeModel } from '../src/engine/trade-model'
import { tradeTableOf, TradeTableBuilder, TRADE_COLUMNS } from '../src/engine/trade-table'
import type { TradeParams } from '../src/engine/types'
import { CandleStore } from '../src/market/candle-store'
import { generateSyntheticUniverse } from '../src/market/synthetic'
import { minuteLabel, syntheticMinutes } from '../src/market/synthetic-minutes'
import { DerivedMinutes, MinuteCache } from '../src/runs/compute/intrabar-detail'

const SEED = 33
const dir = mkdtempSync(join(tmpdir(), 'perpsim-shortcuts-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const store = CandleStore.open(dir)
generateSyntheticUniverse(store, { coins: 24, days: 60, seed: SEED, endMs: Date.UTC(2026, 3, 1) })
const symbols = store.symbols().filter(s => store.bars(s)!.n > 200)

function rand(seed: number) {
  let x = seed >>> 0
  return () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32)
}

/** a dense entry mask: a signal on about one bar in six */
function entries(n: number, r: () => number): Uint8Array {
  const m = new Uint8Array(n)
  for (let i = 0; i < n; i++) m[i] = r() < 0.17 ? 1 : 0
  return m
}

/** Trade parameters of case n, drawn from r: long and short, fixed and trailing exits, three leverages. */
function paramsOf(n: number, r: () => number): TradeParams {
  const trailing = n % 3 === 0
  return {
    direction: n % 2 === 0 ? 'long' : 'short',
    slPct: 0.4 + r() * 2,
    tpPct: 0.4 + r() * 2,
    tpSource: trailing ? 'trailing' : 'custom_pct',
    trailingPct: trailing ? 0.2 + r() : null,
    maxBars: 4 + Math.floor(r() * 40),
    leverage: [1, 5, 20][n % 3],
    feeFrac: 0.0005,
    mmrFrac: 0.005,
    marketType: 'futures',
  }
}

const strip = (trades: object[]) => trades.map(t => JSON.stringify({ ...t, exitResolution: undefined, exitChanged: undefined, slTpSameBar: undefined }))

describe('the bar rule twin of simulateCoin', () => {
  test('equals simulateCoin without detail, coin by coin, with fixed and trailing exits (paths that part included)', () => {
    const r = rand(7)
    let changedCoins = 0, parted = 0
    for (let n = 0; n < 60; n++) {
      const symbol = symbols[n % symbols.length]
      const bars = store.bars(symbol)!
      const p = paramsOf(n, r)
      const input = { symbol, bars, entry: entries(bars.n, r), exit: null, fromIdx: 0, toIdx: bars.n - 1, funding: null }
      const twin: BarRuleTwin = { trades: null }
      const detail = simulateCoin({ ...input, detail: new DerivedMinutes(bars, SEED, symbol) }, p, { replayed: 0, leftToRule: 0 }, twin)
      const bar = simulateCoin(input, p)
      const anyChanged = detail.some(t => t.exitChanged === true)
      // null exactly where no replay changed a trade: then the detail's trades are the bar rule's
      expect(twin.trades === null).toBe(!anyChanged)
      const twinTrades = twin.trades ?? detail
      // the bar rule's trades to the last bit (an unchanged replayed exit keeps its detail keys, and may call a gap at the stop a same-bar touch)
      expect(strip(twinTrades)).toEqual(strip(bar))
      if (anyChanged) changedCoins++
      if (twinTrades.length !== detail.length || twinTrades.some((t, k) => t.entryIdx !== detail[k].entryIdx)) parted++
    }
    // the cases the shortcut is about happened
    expect(changedCoins).toBeGreaterThan(20)
    expect(parted).toBeGreaterThan(3)
  })
})

describe('the rows of simulateCoinRows (a worker\'s coin task, no Trade objects)', () => {
  test('are the rows of simulateCoin\'s trades, column by column, in one builder kept from coin to coin', () => {
    const r = rand(11)
    const kept = new TradeTableBuilder('long', [], 2) // small: the rows grow it, and it is restarted per coin
    let changedCoins = 0
    for (let n = 0; n < 30; n++) {
      const symbol = symbols[n % symbols.length]
      const bars = store.bars(symbol)!
      const p = paramsOf(n, r)
      const input = { symbol, bars, entry: entries(bars.n, r), exit: null, fromIdx: 0, toIdx: bars.n - 1, funding: store.funding(symbol) ?? null, detail: new DerivedMinutes(bars, SEED, symbol) }
      const countsA = { replayed: 0, leftToRule: 0 }
      const countsB = { replayed: 0, leftToRule: 0 }
      const trades = simulateCoin(input, p, countsA)
      kept.restart(p.direction, ['_', symbol])
      const changed = simulateCoinRows(input, p, {
        take: (m: TradeModel, e: number) => {
          // the row first: a full builder grows into new columns, which `rows` then gives
          const i = kept.append(1)
          writeTradeRow(kept.rows, i, m, bars, e)
        },
      }, countsB)
      const got = kept.takeRows()
      const want = tradeTableOf(trades, ['_', symbol], p.direction)
      expect(got.n).toBe(want.n)
      for (const c of TRADE_COLUMNS) expect(Array.from(got[c])).toEqual(Array.from(want[c]))
      expect(changed).toBe(trades.some(t => t.exitChanged === true))
      expect(countsB).toEqual(countsA)
      if (changed) changedCoins++
    }
    expect(changedCoins).toBeGreaterThan(5)
  })
})

describe("a replay's minutes", () => {
  test('derived without the volume: the same prices to the last bit', () => {
    const symbol = symbols[0]
    const b = store.bars(symbol)!
    const full = { t: new Float64Array(60), o: new Float64Array(60), h: new Float64Array(60), l: new Float64Array(60), c: new Float64Array(60), v: new Float64Array(60) }
    const prices = { t: new Float64Array(60), o: new Float64Array(60), h: new Float64Array(60), l: new Float64Array(60), c: new Float64Array(60) }
    for (let k = 0; k < b.n; k++) {
      syntheticMinutes(minuteLabel(SEED, symbol), b.t[k], b.o[k], b.h[k], b.l[k], b.c[k], b.v[k], full, 0)
      syntheticMinutes(minuteLabel(SEED, symbol), b.t[k], b.o[k], b.h[k], b.l[k], b.c[k], b.v[k], prices, 0)
      for (const c of ['t', 'o', 'h', 'l', 'c'] as const) expect(Array.from(prices[c])).toEqual(Array.from(full[c]))
    }
  })

  test("stored: prices at the hour's offset are the rows' prices, with minutes missing and across segments", () => {
    const d = mkdtempSync(join(tmpdir(), 'perpsim-prices-'))
    try {
      const s = CandleStore.open(d)
      const T0 = Date.UTC(2024, 0, 31, 20)
      const MIN = 60_000
      // minutes of 31 Jan 20:00 … 1 Feb 04:00 (two monthly segments) with a gap in the hour 22:00 and a lone missing minute at 02:17
      const rows: number[][] = []
      for (let i = 0; i < 8 * 60; i++) {
        if ((i >= 125 && i < 140) || i === 6 * 60 + 17) continue
        const o = 100 + Math.sin(i / 9)
        rows.push([T0 + i * MIN, o, o + 0.2, o - 0.2, o + 0.05, 1 + (i % 3)])
      }
      const cols = [0, 1, 2, 3, 4, 5].map(k => Float64Array.from(rows, r => r[k]))
      // the January part in two appends: a month in two segments, the second starting mid-hour (21:30)
      const split = rows.findIndex(r => r[0] === T0 + 90 * MIN)
      const feb = rows.findIndex(r => r[0] >= Date.UTC(2024, 1, 1))
      s.appendDetail('ABCUSDT', cols.map(c => c.subarray(0, split)), split, { durable: false })
      s.appendDetail('ABCUSDT', cols.map(c => c.subarray(split)), rows.length - split, { durable: false })
      expect(feb).toBeGreaterThan(split)
      const reader = () => s.detail.reader('ABCUSDT')!
      for (let h = -1; h <= 8; h++) {
        const a = T0 + h * 60 * MIN
        const want = reader().rows(a, a + 60 * MIN)
        const got = reader().prices(a, a + 60 * MIN)
        if (want === null) {
          expect(got).toBeNull()
          continue
        }
        expect(got!.n).toBe(want.n)
        for (const c of ['t', 'o', 'h', 'l', 'c'] as const) expect(Array.from(got![c].subarray(0, got!.n))).toEqual(Array.from(want[c].subarray(0, want.n)))
      }
    } finally {
      rmSync(d, { recursive: true, force: true })
    }
  })
})

describe('the thread minute cache', () => {
  test('holds at most its bound; a run through a tiny cache gets the trades of one through a large one', () => {
    const tiny = new MinuteCache(5 * 60)
    const large = new MinuteCache()
    const p: TradeParams = { direction: 'short', slPct: 0.6, tpPct: 0.9, tpSource: 'custom_pct', trailingPct: null, maxBars: 24, leverage: 5, feeFrac: 0.0005, mmrFrac: 0.005, marketType: 'futures' }
    const r = rand(11)
    let replayed = 0
    for (const symbol of symbols.slice(0, 8)) {
      const bars = store.bars(symbol)!
      const input = { symbol, bars, entry: entries(bars.n, r), exit: null, fromIdx: 0, toIdx: bars.n - 1, funding: null }
      const counts = { replayed: 0, leftToRule: 0 }
      // twice through each: the second run finds (some of) its bars kept
      for (let rep = 0; rep < 2; rep++) {
        const a = simulateCoin({ ...input, detail: new DerivedMinutes(bars, SEED, symbol, tiny) }, p, counts)
        const b = simulateCoin({ ...input, detail: new DerivedMinutes(bars, SEED, symbol, large) }, p)
        expect(a).toEqual(b)
        expect(tiny.size()).toBeLessThanOrEqual(5 * 60)
      }
      replayed += counts.replayed
    }
    expect(replayed).toBeGreaterThan(50)
    expect(large.size()).toBeGreaterThan(5 * 60)
    large.clear()
    expect(large.size()).toBe(0)
  })
})
