/**
 * The synthetic universe's delistings (docs/data.md "Listings and delistings"): coins
 * generated beside the list that collapse and are delisted inside the window, without
 * changing any listed coin's series; today's universe leaves them out, the rank history
 * has them on the days they traded, and demo mode never continues them.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { CandleStore } from '../src/market/candle-store'
import { RankHistory } from '../src/market/rank-history'
import { appendDemoCandles, generateSyntheticUniverse } from '../src/market/synthetic'
import { DELISTINGS } from '../src/market/synthetic-model'
import { Universe } from '../src/market/universe'
import { DAY_MS, HOUR_MS } from '../src/time'
import { tempDir } from './helpers/harness'

const END = Date.UTC(2026, 5, 1)
const GEN = { coins: 30, days: 200, seed: 5, endMs: END }
const dirs: string[] = []
const open = () => {
  const d = tempDir()
  dirs.push(d)
  return CandleStore.open(d)
}
afterAll(() => dirs.forEach(d => rmSync(d, { recursive: true, force: true })))

describe('synthetic delistings', () => {
  const plain = open()
  generateSyntheticUniverse(plain, GEN)
  const withDelistings = open()
  generateSyntheticUniverse(withDelistings, { ...GEN, delistings: 3 })

  test('the listed coins are the same bytes with or without them', () => {
    expect(withDelistings.symbols().filter(s => !DELISTINGS.some(d => d.symbol === s))).toEqual(plain.symbols())
    for (const s of plain.symbols()) {
      const a = plain.bars(s)!, b = withDelistings.bars(s)!
      expect(Array.from(b.c)).toEqual(Array.from(a.c))
      expect(Array.from(b.v)).toEqual(Array.from(a.v))
    }
  })

  test('each collapses and is delisted inside the window: status, date_to, no rank today', () => {
    const first = withDelistings.bars('BTCUSDT')!.t[0]
    const span = GEN.days * DAY_MS
    for (const d of DELISTINGS.slice(0, 3)) {
      const meta = withDelistings.meta(d.symbol)!
      const b = withDelistings.bars(d.symbol)!
      expect(meta).toMatchObject({ status: 'delisted', delistedMs: b.t[b.n - 1], rank: null })
      expect(b.t[b.n - 1]).toBeGreaterThanOrEqual(first + 0.35 * span - HOUR_MS)
      expect(b.t[b.n - 1]).toBeLessThanOrEqual(first + 0.8 * span)
      // the collapse: the last close far below the high of the 30 days before the delisting
      let high = 0
      for (let i = 0; i < b.n; i++) if (b.t[i] >= b.t[b.n - 1] - 30 * DAY_MS) high = Math.max(high, b.h[i])
      expect(b.c[b.n - 1] / high).toBeLessThan(Math.exp(d.collapse / 2))
    }
    expect(() => generateSyntheticUniverse(open(), { ...GEN, delistings: DELISTINGS.length + 1 })).toThrow(RangeError)
  })

  test("today's universe leaves them out; the rank history has LUNA near the top before its collapse", () => {
    const universe = new Universe(withDelistings)
    expect(universe.eligible().some(c => c.meta.status === 'delisted')).toBe(false)
    expect(universe.all().filter(c => c.meta.status === 'delisted').length).toBe(3)
    const history = new RankHistory(withDelistings)
    const luna = withDelistings.bars('LUNAUSDT')!
    const before = Math.floor((luna.t[luna.n - 1] - 40 * DAY_MS) / DAY_MS) * DAY_MS
    const rank = history.rankedOn(before).findIndex(c => c.symbol === 'LUNAUSDT')
    expect(rank).toBeGreaterThanOrEqual(0)
    expect(rank).toBeLessThan(10)
    const after = Math.floor(luna.t[luna.n - 1] / DAY_MS) * DAY_MS + 2 * DAY_MS
    expect(history.rankedOn(after).some(c => c.symbol === 'LUNAUSDT')).toBe(false)
  })

  test('demo mode continues the listed coins, never a delisted one', () => {
    const lunaBefore = withDelistings.bars('LUNAUSDT')!.n
    const btcBefore = withDelistings.bars('BTCUSDT')!.n
    withDelistings.setSyntheticSeed(GEN.seed)
    expect(appendDemoCandles(withDelistings, END + 3 * HOUR_MS, GEN.seed)).toBeGreaterThan(0)
    expect(withDelistings.bars('BTCUSDT')!.n).toBeGreaterThan(btcBefore)
    expect(withDelistings.bars('LUNAUSDT')!.n).toBe(lunaBefore)
  })
})
