/**
 * Demo mode: appendDemoCandles continues a synthetic store hour by hour, deterministically,
 * with funding at the settlement hours crossed. Every clock value here is explicit.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { CandleStore } from '../src/market/candle-store'
import { returnFacts } from '../src/market/stylized-facts'
import { appendDemoCandles, generateSyntheticUniverse } from '../src/market/synthetic'
import { HOUR_MS } from '../src/time'

const END_MS = Date.UTC(2026, 10, 22, 12, 30) // last candle opens 11:00 and closes 12:00
const SEED = 7
const GEN = { coins: 20, days: 40, seed: SEED, endMs: END_MS }
const dirs: string[] = []

function generated(): { dir: string; store: CandleStore } {
  const dir = mkdtempSync(join(tmpdir(), 'perpsim-demo-'))
  dirs.push(dir)
  const store = CandleStore.open(dir)
  generateSyntheticUniverse(store, GEN)
  return { dir, store }
}

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function snapshot(store: CandleStore): string {
  const parts: string[] = []
  for (const s of store.symbols()) {
    const b = store.bars(s)!
    const f = store.funding(s)
    parts.push(`${s}|${Array.from(b.t).join()}|${Array.from(b.o).join()}|${Array.from(b.h).join()}|${Array.from(b.l).join()}|${Array.from(b.c).join()}|${Array.from(b.v).join()}|${f ? Array.from(f.t).join() + '/' + Array.from(f.rate).join() : ''}`)
  }
  return parts.join('\n')
}

describe('appendDemoCandles', () => {
  test('appends every completed hour to every coin, up to the last hour closed by now', () => {
    const { store } = generated()
    const before = new Map(store.symbols().map(s => [s, store.bars(s)!.n]))
    const now = END_MS + 5 * HOUR_MS // 17:30: hours 12:00..16:00 have closed
    const rows = appendDemoCandles(store, now, SEED)
    expect(rows).toBe(5 * GEN.coins)
    for (const s of store.symbols()) {
      const b = store.bars(s)!
      expect(b.n - before.get(s)!).toBe(5)
      expect(b.t[b.n - 1]).toBe(Date.UTC(2026, 10, 22, 16))
      expect(b.t[b.n - 1] + HOUR_MS).toBeLessThanOrEqual(now)
      for (let i = before.get(s)!; i < b.n; i++) {
        expect(b.t[i] - b.t[i - 1]).toBe(HOUR_MS)
        expect(b.l[i]).toBeLessThanOrEqual(Math.min(b.o[i], b.c[i]))
        expect(b.h[i]).toBeGreaterThanOrEqual(Math.max(b.o[i], b.c[i]))
        expect(b.l[i]).toBeGreaterThan(0)
        expect(Math.abs(b.o[i] / b.c[i - 1] - 1)).toBeLessThan(0.01)
      }
    }
  })

  test('does nothing before the next hour has closed, and nothing twice', () => {
    const { store } = generated()
    expect(appendDemoCandles(store, END_MS + 20 * 60_000, SEED)).toBe(0) // 12:50: 12:00 still open
    expect(appendDemoCandles(store, Date.UTC(2026, 10, 22, 13), SEED)).toBe(GEN.coins)
    expect(appendDemoCandles(store, Date.UTC(2026, 10, 22, 13, 59), SEED)).toBe(0)
  })

  test('writes funding events at the 16:00 UTC settlement it crosses', () => {
    const { store } = generated()
    const counts = new Map(store.symbols().map(s => [s, store.funding(s)!.n]))
    appendDemoCandles(store, END_MS + 5 * HOUR_MS, SEED) // bars 12:00..16:00
    for (const s of store.symbols()) {
      const f = store.funding(s)!
      const added = Array.from(f.t.subarray(counts.get(s)!))
      const step = f.t[counts.get(s)! - 1] - f.t[counts.get(s)! - 2]
      const expected = step === 8 * HOUR_MS ? [Date.UTC(2026, 10, 22, 16)] : [Date.UTC(2026, 10, 22, 12), Date.UTC(2026, 10, 22, 16)]
      expect(added).toEqual(expected)
      for (const r of f.rate.subarray(counts.get(s)!)) expect(Math.abs(r)).toBeLessThan(0.03)
    }
  })

  test('one catch-up call writes exactly what hourly calls write, across restarts', () => {
    const a = generated(), b = generated()
    const target = END_MS + 9 * HOUR_MS
    appendDemoCandles(a.store, target, SEED)
    let store = b.store
    for (let now = END_MS + HOUR_MS; now <= target; now += HOUR_MS) {
      appendDemoCandles(store, now, SEED)
      store = CandleStore.open(b.dir) // the service restarted
    }
    expect(snapshot(store)).toBe(snapshot(a.store))
  })

  test("the forming candle's open is known when its hour opens, and is the open it is stored with when the hour is over", () => {
    const { dir, store: first } = generated()
    let store = first
    appendDemoCandles(store, END_MS, SEED) // 12:30: 12:00 is forming
    for (let hour = 0; hour < 12; hour++) {
      const formingMs = Date.UTC(2026, 10, 22, 12 + hour)
      const drawn = new Map(store.symbols().map(s => [s, store.formingOpen(s)]))
      for (const [s, f] of drawn) expect(f).toEqual({ t: formingMs, o: expect.any(Number) })
      // the next hour, after a restart every other hour (the store keeps no forming open on disk)
      if (hour % 2 === 1) {
        store = CandleStore.open(dir)
        for (const s of store.symbols()) expect(store.formingOpen(s)).toBeUndefined()
      }
      appendDemoCandles(store, formingMs + HOUR_MS + 5_000, SEED)
      for (const [s, f] of drawn) {
        const b = store.bars(s)!
        expect(b.t[b.n - 1]).toBe(formingMs)
        expect(b.o[b.n - 1]).toBe(f!.o)
      }
    }
  })

  test('another seed continues differently', () => {
    const a = generated(), b = generated()
    appendDemoCandles(a.store, END_MS + 3 * HOUR_MS, SEED)
    appendDemoCandles(b.store, END_MS + 3 * HOUR_MS, SEED + 1)
    expect(snapshot(a.store)).not.toBe(snapshot(b.store))
  })

  test('never touches a store that holds imported data', () => {
    const { store } = generated()
    store.addSource('binance-csv')
    expect(appendDemoCandles(store, END_MS + 5 * HOUR_MS, SEED)).toBe(0)
  })

  test('keeps the market alive for weeks: volatility and volume stay at their level, BTC leads', () => {
    const { store } = generated()
    const n0 = store.bars('ETHUSDT')!.n
    // the level the market was at when the demo took over: its last week
    const volBefore = returnFacts(store.bars('ETHUSDT')!, 24, n0 - 168).volHourly
    const quoteOf = (s: string, from: number, to: number) => {
      const b = store.bars(s)!
      let q = 0
      for (let i = from; i < to; i++) q += b.v[i] * b.c[i]
      return q / (to - from)
    }
    const quoteBefore = quoteOf('ETHUSDT', n0 - 168, n0)
    appendDemoCandles(store, END_MS + 21 * 24 * HOUR_MS, SEED)
    const eth = store.bars('ETHUSDT')!
    expect(eth.n - n0).toBe(21 * 24)
    const volAfter = returnFacts(eth, 24, n0).volHourly
    expect(volAfter / volBefore).toBeGreaterThan(0.4)
    expect(volAfter / volBefore).toBeLessThan(2.5)
    const qRatio = quoteOf('ETHUSDT', n0, eth.n) / quoteBefore
    expect(qRatio).toBeGreaterThan(0.4)
    expect(qRatio).toBeLessThan(2.5)
    // alts keep following BTC
    const btc = store.bars('BTCUSDT')!
    let sxy = 0, sxx = 0, syy = 0
    for (let i = n0; i < eth.n; i++) {
      const x = Math.log(btc.c[i] / btc.c[i - 1]), y = Math.log(eth.c[i] / eth.c[i - 1])
      sxy += x * y; sxx += x * x; syy += y * y
    }
    expect(sxy / Math.sqrt(sxx * syy)).toBeGreaterThan(0.4)
  })
})
