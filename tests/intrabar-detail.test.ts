/**
 * Minute detail inside the hour (issue 25 §1), on the synthetic store:
 * - every hour is exactly the aggregate of its 60 derived minutes (every bar of the store);
 * - the minutes are a pure function of (seed, symbol, hour);
 * - 1,000 random trades priced by the trade model with detail get the exits a plain
 *   minute-by-minute loop written here (sharing no code with the engine) gets.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TradeModel } from '../src/engine/trade-model'
import { EXIT_REASONS, type TradeParams } from '../src/engine/types'
import { CandleStore } from '../src/market/candle-store'
import { generateSyntheticUniverse } from '../src/market/synthetic'
import { minuteLabel, syntheticMinutes } from '../src/market/synthetic-minutes'
import type { Bars } from '../src/market/types'
import { DerivedMinutes } from '../src/runs/compute/intrabar-detail'

const SEED = 21
const dir = mkdtempSync(join(tmpdir(), 'perpsim-intrabar-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const store = CandleStore.open(dir)
generateSyntheticUniverse(store, { coins: 40, days: 90, seed: SEED, endMs: Date.UTC(2026, 5, 1) })
const symbols = store.symbols()

function minutesOf(symbol: string, b: Bars, k: number) {
  const cols = { t: new Float64Array(60), o: new Float64Array(60), h: new Float64Array(60), l: new Float64Array(60), c: new Float64Array(60), v: new Float64Array(60) }
  syntheticMinutes(minuteLabel(SEED, symbol), b.t[k], b.o[k], b.h[k], b.l[k], b.c[k], b.v[k], cols, 0)
  return cols
}

describe('synthetic minutes', () => {
  test('every hour of the store is exactly the aggregate of its 60 minutes', () => {
    let bars = 0
    for (const s of symbols) {
      const b = store.bars(s)!
      for (let k = 0; k < b.n; k++) {
        const m = minutesOf(s, b, k)
        let hi = -Infinity, lo = Infinity, vol = 0
        for (let j = 0; j < 60; j++) {
          if (m.h[j] > hi) hi = m.h[j]
          if (m.l[j] < lo) lo = m.l[j]
          vol += m.v[j]
          // a candle of its own: low ≤ open, close ≤ high; times one minute apart
          if (!(m.l[j] <= Math.min(m.o[j], m.c[j]) && m.h[j] >= Math.max(m.o[j], m.c[j]) && m.v[j] >= 0)) throw new Error(`${s} bar ${k} minute ${j} is not a candle`)
          if (m.t[j] !== b.t[k] + j * 60_000) throw new Error(`${s} bar ${k} minute ${j} time`)
          if (j > 0 && m.o[j] !== m.c[j - 1]) throw new Error(`${s} bar ${k} minute ${j} gaps`)
        }
        if (m.o[0] !== b.o[k] || m.c[59] !== b.c[k] || hi !== b.h[k] || lo !== b.l[k]) throw new Error(`${s} bar ${k}: minutes do not aggregate to the hour`)
        // the volume: whole quantity steps, summed in floating point
        if (Math.abs(vol - b.v[k]) > 1e-9 * Math.max(1, b.v[k])) throw new Error(`${s} bar ${k}: volume ${vol} vs ${b.v[k]}`)
        bars++
      }
    }
    expect(bars).toBe(symbols.reduce((n, s) => n + store.bars(s)!.n, 0))
    expect(bars).toBeGreaterThan(60_000)
  })

  test('a pure function of (seed, symbol, hour): the same minutes every time, other ones for another seed or coin', () => {
    const s = symbols[3]
    const b = store.bars(s)!
    const k = 500
    const a = minutesOf(s, b, k)
    const again = minutesOf(s, b, k)
    expect([...again.c]).toEqual([...a.c])
    expect([...again.v]).toEqual([...a.v])
    const other = { t: new Float64Array(60), o: new Float64Array(60), h: new Float64Array(60), l: new Float64Array(60), c: new Float64Array(60), v: new Float64Array(60) }
    syntheticMinutes(minuteLabel(SEED + 1, s), b.t[k], b.o[k], b.h[k], b.l[k], b.c[k], b.v[k], other, 0)
    expect([...other.c]).not.toEqual([...a.c])
  })
})

// ---------- the plain minute loop (written here, sharing nothing with the engine) ----------

interface PlainExit {
  bar: number
  price: number
  reason: string
  timeMs: number
}

function plainMinuteExit(symbol: string, b: Bars, e: number, p: TradeParams, last: number): PlainExit {
  const E = b.o[e]
  const long = p.direction === 'long'
  const lev = p.marketType === 'futures' ? p.leverage : 1
  // the levels as docs/metrics.md §1 writes them, in the engine's order of operations (so floating point agrees)
  const hardStop = long ? E - (E * p.slPct) / 100 : E + (E * p.slPct) / 100
  const trailing = p.tpSource === 'trailing'
  const trail = trailing ? (p.trailingPct ?? p.tpPct) / 100 : 0
  const tp = trailing ? (long ? Infinity : -Infinity) : long ? E + (E * p.tpPct) / 100 : E - (E * p.tpPct) / 100
  const liq = p.marketType === 'futures' ? (long ? E - E * (1 / lev - p.mmrFrac) : E + E * (1 / lev - p.mmrFrac)) : long ? -Infinity : Infinity
  let best = E
  const endBar = Math.min(e + p.maxBars - 1, last)
  for (let k = e; k <= endBar; k++) {
    const m = minutesOf(symbol, b, k)
    for (let j = 0; j < 60; j++) {
      // the stop of this minute: the hard stop or the trail from the best price before it
      let stop = hardStop
      let stopReason = 'sl'
      if (trailing) {
        const tr = long ? best - best * trail : best + best * trail
        if (long ? tr > stop : tr < stop) {
          stop = tr
          stopReason = 'trailing'
        }
      }
      const o = m.o[j], h = m.h[j], l = m.l[j]
      if (long) {
        if (o <= liq) return { bar: k, price: o, reason: 'liquidation', timeMs: m.t[j] }
        if (o <= stop) return { bar: k, price: o, reason: stopReason, timeMs: m.t[j] }
        if (l <= Math.max(stop, liq)) return liq >= stop ? { bar: k, price: liq, reason: 'liquidation', timeMs: m.t[j] + 30_000 } : { bar: k, price: stop, reason: stopReason, timeMs: m.t[j] + 30_000 }
        if (h >= tp) return { bar: k, price: tp, reason: 'tp', timeMs: m.t[j] + 30_000 }
        if (h > best) best = h
      } else {
        if (o >= liq) return { bar: k, price: o, reason: 'liquidation', timeMs: m.t[j] }
        if (o >= stop) return { bar: k, price: o, reason: stopReason, timeMs: m.t[j] }
        if (h >= Math.min(stop, liq)) return liq <= stop ? { bar: k, price: liq, reason: 'liquidation', timeMs: m.t[j] + 30_000 } : { bar: k, price: stop, reason: stopReason, timeMs: m.t[j] + 30_000 }
        if (l <= tp) return { bar: k, price: tp, reason: 'tp', timeMs: m.t[j] + 30_000 }
        if (l < best) best = l
      }
    }
    if (k === e + p.maxBars - 1) return { bar: k, price: b.c[k], reason: 'timeout', timeMs: b.t[k] + 3_600_000 }
    if (k === last) return { bar: k, price: b.c[k], reason: 'end_of_data', timeMs: b.t[k] + 3_600_000 }
  }
  throw new Error('unreachable')
}

/** a small seeded generator for the test's draws (mulberry32) */
function rand(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

describe('the trade model with minute detail', () => {
  test('1,000 random trades get the exits of a plain minute-by-minute loop', () => {
    const r = rand(20251127)
    let detail = 0, changed = 0, trailingDetail = 0, liquidations = 0
    for (let n = 0; n < 1000; n++) {
      const symbol = symbols[Math.floor(r() * symbols.length)]
      const b = store.bars(symbol)!
      if (b.n < 50) {
        n--
        continue
      }
      const trailing = r() < 0.35
      const p: TradeParams = {
        direction: r() < 0.5 ? 'long' : 'short',
        slPct: 0.3 + r() * 4,
        tpPct: 0.3 + r() * 5,
        tpSource: trailing ? 'trailing' : 'custom_pct',
        trailingPct: trailing && r() < 0.5 ? 0.2 + r() * 2 : null,
        maxBars: 1 + Math.floor(r() * 72),
        leverage: [1, 3, 10, 25, 50][Math.floor(r() * 5)],
        feeFrac: 0.0005,
        mmrFrac: 0.005,
        marketType: r() < 0.9 ? 'futures' : 'spot',
      }
      const e = 1 + Math.floor(r() * (b.n - 2))
      const model = new TradeModel({ bars: b, exit: null, fromIdx: 0, toIdx: b.n - 1, funding: null, detail: new DerivedMinutes(b, SEED, symbol) }, p)
      model.tradeFrom(e)
      const want = plainMinuteExit(symbol, b, e, p, b.n - 1)
      const got = { bar: model.exitIdx, price: model.exitPrice, reason: EXIT_REASONS[model.reason] }
      expect(got).toEqual({ bar: want.bar, price: want.price, reason: want.reason as (typeof EXIT_REASONS)[number] })
      if (model.replay!.resolved) {
        // resolved by the minutes: stamped at the minute
        expect(model.exitTimeMs).toBe(want.timeMs)
        detail++
        if (model.replay!.changed) changed++
        if (p.tpSource === 'trailing') trailingDetail++
      } else {
        // a bar whose outcome does not depend on the path: the bar rule's instant, inside the same bar
        expect(model.exitTimeMs).toBeGreaterThanOrEqual(b.t[want.bar])
        expect(model.exitTimeMs).toBeLessThanOrEqual(b.t[want.bar] + 3_600_000)
        if (want.reason !== 'timeout' && want.reason !== 'end_of_data' && want.timeMs !== b.t[want.bar]) expect(model.exitTimeMs).toBe(b.t[want.bar] + 1_800_000)
      }
      if (want.reason === 'liquidation') liquidations++
    }
    // the draws reach every kind of replayed bar
    expect(detail).toBeGreaterThan(30)
    expect(changed).toBeGreaterThan(0)
    expect(trailingDetail).toBeGreaterThan(5)
    expect(liquidations).toBeGreaterThan(5)
  })

  test('without detail the trade is the bar rule\'s, with its midpoint instant', () => {
    const symbol = symbols[5]
    const b = store.bars(symbol)!
    const p: TradeParams = { direction: 'long', slPct: 1, tpPct: 1, tpSource: 'custom_pct', trailingPct: null, maxBars: 48, leverage: 1, feeFrac: 0.0005, mmrFrac: 0.005, marketType: 'futures' }
    const bar = new TradeModel({ bars: b, exit: null, fromIdx: 0, toIdx: b.n - 1, funding: null }, p)
    const none = new TradeModel({ bars: b, exit: null, fromIdx: 0, toIdx: b.n - 1, funding: null, detail: { minutes: () => null } }, p)
    let sameBar = 0
    for (let e = 1; e < b.n - 1; e += 7) {
      bar.tradeFrom(e)
      none.tradeFrom(e)
      expect([none.exitIdx, none.exitPrice, none.reason, none.exitTimeMs, none.pnlPct]).toEqual([bar.exitIdx, bar.exitPrice, bar.reason, bar.exitTimeMs, bar.pnlPct])
      if (bar.sameBar) sameBar++
    }
    // every ambiguous bar was left to the rule and counted
    expect(sameBar).toBeGreaterThan(0)
    expect(none.replay!.leftToRule).toBeGreaterThanOrEqual(sameBar)
    expect(none.replay!.replayed).toBe(0)
  })
})
