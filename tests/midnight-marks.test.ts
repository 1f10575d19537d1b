/**
 * A trade's midnight marks priced from its coin's MidnightCloses (engine/equity-curve.ts
 * markMovesAt, what a chunk's coin task writes) against markMovesOf, which searches the
 * bars for every mark: the same marks, bit for bit (−0 included), on bars with holes, coins
 * listed late, trades before the first bar and after the last, and no bars at all.
 */
import { describe, expect, test } from 'bun:test'
import { markMovesAt, markMovesOf, midnightClosesOf } from '../src/engine/equity-curve'
import type { Bars } from '../src/market/types'
import { DAY_MS, HOUR_MS } from '../src/time'

function rng(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

/** 1H bars from `t0`, some hours missing (holes), closes wandering, a few zero or NaN */
function barsOf(r: () => number, t0: number, n: number, step = HOUR_MS): Bars {
  const t: number[] = []
  let at = t0
  for (let i = 0; i < n; i++) {
    t.push(at)
    at += step * (r() < 0.05 ? 1 + Math.floor(r() * 60) : 1)
  }
  let p = 100
  const c = t.map(() => {
    p *= 1 + (r() - 0.5) * 0.05
    const u = r()
    return u < 0.01 ? 0 : u < 0.02 ? Number.NaN : p
  })
  const col = Float64Array.from(c)
  return { t: Float64Array.from(t), o: col, h: col, l: col, c: col, v: col, n, stepMs: step }
}

const marksOf = (f: (out: { addMark(m: number): void }) => number) => {
  const got: number[] = []
  const count = f({ addMark: m => void got.push(m) })
  expect(count).toBe(got.length)
  return got
}

/** the same numbers to the bit: Object.is tells −0 from 0 and NaN from itself */
const same = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]))

describe("a trade's midnight marks from its coin's midnight closes", () => {
  test('equal markMovesOf on random coins and trades, inside and around the bars', () => {
    const r = rng(5)
    let marks = 0
    for (let k = 0; k < 40; k++) {
      // some coins start mid-day, some at a midnight; 1H bars, now and then 4H
      const t0 = Date.UTC(2024, 0, 1) + Math.floor(r() * 400) * HOUR_MS + (r() < 0.3 ? 0 : Math.floor(r() * 59) * 60_000)
      const step = r() < 0.2 ? 4 * HOUR_MS : HOUR_MS
      const b = barsOf(r, t0, 24 + Math.floor(r() * 3000), step)
      const days = midnightClosesOf(b)
      const last = b.t[b.n - 1]
      for (let i = 0; i < 200; i++) {
        // entries a few days before the first bar to a few after the last; exits up to 20 days on
        const entryMs = t0 - 4 * DAY_MS + Math.floor(r() * (last - t0 + 8 * DAY_MS))
        const exitMs = entryMs + Math.floor(r() * 20 * DAY_MS * (r() < 0.5 ? 0.05 : 1))
        const entryIdx = r() < 0.5 ? Math.floor(r() * b.n) : -1
        const entryPrice = r() < 0.05 ? 0.5 : 50 + r() * 100
        const direction = r() < 0.5 ? 'long' : 'short'
        const leverage = 1 + Math.floor(r() * 20)
        const want = marksOf(out => markMovesOf(entryMs, exitMs, entryPrice, entryIdx, direction, leverage, b, out))
        const got = marksOf(out => markMovesAt(entryMs, exitMs, entryPrice, direction, leverage, days, out))
        if (!same(got, want)) expect([k, i, got]).toEqual([k, i, want])
        marks += want.length
      }
    }
    expect(marks).toBeGreaterThan(10_000)
  })

  test('without bars every mark is the entry price: 0, and −0 for a short', () => {
    const empty: Bars = { t: new Float64Array(0), o: new Float64Array(0), h: new Float64Array(0), l: new Float64Array(0), c: new Float64Array(0), v: new Float64Array(0), n: 0, stepMs: HOUR_MS }
    expect(midnightClosesOf(empty)).toBeNull()
    expect(midnightClosesOf(undefined)).toBeNull()
    const entryMs = Date.UTC(2024, 5, 1, 13)
    for (const direction of ['long', 'short'] as const) {
      const want = marksOf(out => markMovesOf(entryMs, entryMs + 3 * DAY_MS, 10, -1, direction, 5, undefined, out))
      const got = marksOf(out => markMovesAt(entryMs, entryMs + 3 * DAY_MS, 10, direction, 5, null, out))
      expect(got.length).toBe(3)
      expect(same(got, want)).toBe(true)
      expect(Object.is(got[0], direction === 'short' ? -0 : 0)).toBe(true)
    }
  })

  test('a close of the day before the midnight: the last bar whose close is at or before it', () => {
    // bars at 22:00 and 23:00 close at 23:00 and at midnight: the 23:00 bar prices the midnight
    const t0 = Date.UTC(2024, 0, 1, 22)
    const b: Bars = { t: Float64Array.from([t0, t0 + HOUR_MS, t0 + 2 * HOUR_MS]), o: new Float64Array(3), h: new Float64Array(3), l: new Float64Array(3), c: Float64Array.from([10, 20, 40]), v: new Float64Array(3), n: 3, stepMs: HOUR_MS }
    const got = marksOf(out => markMovesAt(t0, t0 + 30 * HOUR_MS, 10, 'long', 1, midnightClosesOf(b), out))
    expect(got).toEqual([1, 3])
  })
})
