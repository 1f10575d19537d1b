import { describe, expect, test } from 'bun:test'
import { HOUR_MS } from '../src/time'
import { signalBars, simulateCoin } from '../src/engine/trade-model'
import { barsInsideWindows, maskOutsideWindows } from '../src/engine/tradable-windows'
import { barsOf, flat, only, params, sim, type Ohlc } from './engine-fixtures'

const H = HOUR_MS

/** signal at bar 0 (flat 100), entry at bar 1's open 100, then the given bars */
function afterEntry(...rows: Ohlc[]): Ohlc[] {
  return [flat(100), ...rows, flat(100), flat(100)]
}

describe('entry', () => {
  test("a signal at bar i's close enters at bar i+1's open", () => {
    const bars = barsOf([flat(100), flat(100), [101, 102, 100.5, 101.5], flat(101), flat(101)])
    const tr = only(sim(bars, [1], params({ maxBars: 2 })))
    expect(tr.entryIdx).toBe(2)
    expect(tr.entryPrice).toBe(101)
    expect(tr.entryTimeMs).toBe(bars.t[2])
  })

  test('signals before the window start open no trade; a signal at the start does', () => {
    const bars = barsOf(Array.from({ length: 8 }, () => flat(100)))
    expect(sim(bars, [0, 1], params({ maxBars: 1 }), { fromIdx: 2 })).toEqual([])
    expect(only(sim(bars, [2], params({ maxBars: 1 }), { fromIdx: 2 })).entryIdx).toBe(3)
  })

  test("a signal at the window's last bar opens no trade", () => {
    const bars = barsOf(Array.from({ length: 8 }, () => flat(100)))
    expect(sim(bars, [5], params(), { toIdx: 5 })).toEqual([])
    expect(sim(bars, [7], params())).toEqual([])
  })
})

describe('take profit and stop loss (long: stop 90, take profit 110)', () => {
  test('the take profit fills at its level when the high touches it', () => {
    const bars = barsOf(afterEntry([100, 105, 98, 104], [104, 111, 103, 109]))
    const tr = only(sim(bars, [0], params()))
    expect(tr.exitReason).toBe('tp')
    expect(tr.exitPrice).toBeCloseTo(110, 10)
    expect(tr.exitIdx).toBe(2)
    expect(tr.barsHeld).toBe(2)
    expect(tr.pnlPct).toBeCloseTo(10, 10)
    expect(tr.slTpSameBar).toBe(false)
  })

  test('a bar opening beyond the take profit still fills at the take-profit level', () => {
    const bars = barsOf(afterEntry([100, 104, 99, 103], [115, 118, 114, 116]))
    const tr = only(sim(bars, [0], params()))
    expect(tr.exitReason).toBe('tp')
    expect(tr.exitPrice).toBeCloseTo(110, 10)
  })

  test('the stop fills at its level when the low touches it', () => {
    const bars = barsOf(afterEntry([100, 101, 95, 99], [99, 100, 89, 92]))
    const tr = only(sim(bars, [0], params()))
    expect(tr.exitReason).toBe('sl')
    expect(tr.exitPrice).toBeCloseTo(90, 10)
    expect(tr.pnlPct).toBeCloseTo(-10, 10)
  })

  test('a bar opening beyond the stop fills at its open', () => {
    const bars = barsOf(afterEntry([100, 101, 95, 99], [85, 88, 80, 86]))
    const tr = only(sim(bars, [0], params()))
    expect(tr.exitReason).toBe('sl')
    expect(tr.exitPrice).toBe(85)
    expect(tr.exitIdx).toBe(2)
    // filled at bar 2's open: bars 1 only was held
    expect(tr.barsHeld).toBe(1)
    expect(tr.exitTimeMs).toBe(bars.t[2])
    expect(tr.pnlPct).toBeCloseTo(-15, 10)
  })

  test('when the stop and the take profit are touched in one bar the stop is taken and counted', () => {
    const bars = barsOf(afterEntry([100, 101, 95, 99], [100, 112, 88, 100]))
    const tr = only(sim(bars, [0], params()))
    expect(tr.exitReason).toBe('sl')
    expect(tr.exitPrice).toBeCloseTo(90, 10)
    expect(tr.slTpSameBar).toBe(true)
  })

  test('exits are checked from the entry bar on', () => {
    const bars = barsOf(afterEntry([100, 112, 99, 111]))
    const tr = only(sim(bars, [0], params()))
    expect(tr.exitReason).toBe('tp')
    expect(tr.exitIdx).toBe(1)
    expect(tr.barsHeld).toBe(1)
  })

  test('an intrabar exit is stamped at the middle of its bar', () => {
    const bars = barsOf(afterEntry([100, 105, 98, 104], [104, 111, 103, 109]))
    expect(only(sim(bars, [0], params())).exitTimeMs).toBe(bars.t[2] + H / 2)
  })

  test('a short takes profit below and stops above the entry', () => {
    const p = params({ direction: 'short' })
    const tp = only(sim(barsOf(afterEntry([100, 101, 95, 96], [96, 97, 89, 91])), [0], p))
    expect([tp.exitReason, tp.exitPrice]).toEqual(['tp', 90])
    expect(tp.pnlPct).toBeCloseTo(10, 10)
    const sl = only(sim(barsOf(afterEntry([100, 105, 99, 104], [104, 111, 103, 105])), [0], p))
    expect([sl.exitReason, sl.exitPrice]).toEqual(['sl', 110])
    expect(sl.pnlPct).toBeCloseTo(-10, 10)
    const gap = only(sim(barsOf(afterEntry([100, 105, 99, 104], [115, 116, 112, 113])), [0], p))
    expect([gap.exitReason, gap.exitPrice]).toEqual(['sl', 115])
    expect(gap.pnlPct).toBeCloseTo(-15, 10)
    const both = only(sim(barsOf(afterEntry([100, 101, 99, 100], [100, 111, 89, 100])), [0], p))
    expect([both.exitReason, both.slTpSameBar]).toEqual(['sl', true])
  })
})

describe('trailing stop', () => {
  const trailing = params({ tpSource: 'trailing', trailingPct: 5 })

  test('the stop trails the best high through the previous bar by the trail distance', () => {
    // bar 1 reaches 110 but its own low 96 is tested against the stop from the entry (95)
    const bars = barsOf(afterEntry([100, 110, 96, 108], [108, 109, 104, 106]))
    const tr = only(sim(bars, [0], trailing))
    expect(tr.exitReason).toBe('trailing')
    expect(tr.exitIdx).toBe(2)
    expect(tr.exitPrice).toBeCloseTo(104.5, 10)
    expect(tr.pnlPct).toBeCloseTo(4.5, 10)
  })

  test('there is no fixed take profit when trailing', () => {
    const bars = barsOf(afterEntry([100, 130, 99, 129], flat(129)))
    const tr = only(sim(bars, [0], params({ tpSource: 'trailing', trailingPct: 5, tpPct: 10, maxBars: 2 })))
    expect(tr.exitReason).toBe('timeout')
  })

  test('a bar opening beyond the trailing stop fills at its open', () => {
    const bars = barsOf(afterEntry([100, 110, 96, 108], [103, 104, 101, 102]))
    const tr = only(sim(bars, [0], trailing))
    expect([tr.exitReason, tr.exitPrice]).toEqual(['trailing', 103])
  })

  test('without trailing_pct the trail distance is tp_pct', () => {
    const bars = barsOf(afterEntry([100, 110, 96, 108], [108, 109, 104, 106]))
    const tr = only(sim(bars, [0], params({ tpSource: 'trailing', trailingPct: null, tpPct: 5 })))
    expect(tr.exitPrice).toBeCloseTo(104.5, 10)
  })

  test('the hard stop still applies while it is nearer than the trailing level', () => {
    const p = params({ tpSource: 'trailing', trailingPct: 20, slPct: 5 })
    const hard = only(sim(barsOf(afterEntry([100, 101, 97, 98], [98, 99, 94, 95])), [0], p))
    expect([hard.exitReason, hard.exitPrice]).toEqual(['sl', 95])
    // after a run to 130 the trailing level (104) is above the hard stop (95)
    const trail = only(sim(barsOf(afterEntry([100, 130, 99, 128], [128, 129, 103, 104])), [0], p))
    expect(trail.exitReason).toBe('trailing')
    expect(trail.exitPrice).toBeCloseTo(104, 10)
  })

  test('a short trails the lowest low', () => {
    const bars = barsOf(afterEntry([100, 104, 90, 92], [92, 95, 91, 94]))
    const tr = only(sim(bars, [0], params({ direction: 'short', tpSource: 'trailing', trailingPct: 5 })))
    expect(tr.exitReason).toBe('trailing')
    expect(tr.exitPrice).toBeCloseTo(94.5, 10)
    expect(tr.pnlPct).toBeCloseTo(5.5, 10)
  })
})

describe('exit signal, timeout, end of data', () => {
  const quiet = (n: number) => Array.from({ length: n }, () => flat(100))

  test("an exit signal at bar k's close exits at bar k+1's open", () => {
    const rows = quiet(8)
    rows[4] = [102, 102.5, 101.5, 102]
    const bars = barsOf(rows)
    const tr = only(sim(bars, [0], params(), { exit: [0, 3] }))
    expect(tr.exitReason).toBe('signal')
    expect(tr.exitIdx).toBe(4)
    expect(tr.exitPrice).toBe(102)
    expect(tr.exitTimeMs).toBe(bars.t[4])
    // bars 1, 2 and 3 were held; the exit is at bar 4's first instant
    expect(tr.barsHeld).toBe(3)
  })

  test('a trade times out at the close of its max_bars-th bar with bars_held = max_bars', () => {
    const rows = quiet(10)
    rows[3] = [100, 100.5, 99.5, 100.25]
    const bars = barsOf(rows)
    const tr = only(sim(bars, [0], params({ maxBars: 3 })))
    expect(tr.exitReason).toBe('timeout')
    expect(tr.exitIdx).toBe(3)
    expect(tr.barsHeld).toBe(3)
    expect(tr.exitPrice).toBe(100.25)
    expect(tr.exitTimeMs).toBe(bars.t[3] + H)
  })

  test("max_bars 1 closes at the entry bar's close", () => {
    const tr = only(sim(barsOf(quiet(5)), [0], params({ maxBars: 1 })))
    expect([tr.exitReason, tr.exitIdx, tr.barsHeld]).toEqual(['timeout', 1, 1])
  })

  test("a trade still open at the last bar closes at its close as end_of_data", () => {
    const rows = quiet(5)
    rows[4] = [100, 100.5, 99.5, 100.4]
    const tr = only(sim(barsOf(rows), [2], params()))
    expect([tr.exitReason, tr.exitIdx, tr.barsHeld, tr.exitPrice]).toEqual(['end_of_data', 4, 2, 100.4])
  })

  test("a trade still open at the window's last bar closes there, not at the data's end", () => {
    const tr = only(sim(barsOf(quiet(10)), [1], params(), { toIdx: 4 }))
    expect([tr.exitReason, tr.exitIdx]).toEqual(['end_of_data', 4])
  })

  test("a timeout on the window's last bar is a timeout", () => {
    const tr = only(sim(barsOf(quiet(10)), [1], params({ maxBars: 3 }), { toIdx: 4 }))
    expect([tr.exitReason, tr.exitIdx]).toEqual(['timeout', 4])
  })
})

describe('liquidation (isolated margin, mmr 0.5 %)', () => {
  test('at 20x a long is liquidated at entry·(1 − 1/20 + 0.005) before its 10 % stop', () => {
    const bars = barsOf(afterEntry([100, 101, 97, 99], [99, 100, 94, 97]))
    const tr = only(sim(bars, [0], params({ leverage: 20, feeFrac: 0.0005 })))
    expect(tr.exitReason).toBe('liquidation')
    expect(tr.exitPrice).toBeCloseTo(95.5, 10)
    expect(tr.grossPct).toBeCloseTo(-90, 8)
    expect(tr.pnlPct).toBe(-100)
  })

  test('at 5x the 10 % stop comes before the liquidation price (80.5)', () => {
    const bars = barsOf(afterEntry([100, 101, 97, 99], [99, 100, 85, 87]))
    const tr = only(sim(bars, [0], params({ leverage: 5 })))
    expect(tr.exitReason).toBe('sl')
    expect(tr.pnlPct).toBeCloseTo(-50, 8)
  })

  test('a bar opening beyond the liquidation price liquidates at its open', () => {
    const bars = barsOf(afterEntry([100, 101, 97, 99], [95, 96, 93, 94]))
    const tr = only(sim(bars, [0], params({ leverage: 20 })))
    expect([tr.exitReason, tr.exitPrice, tr.exitTimeMs, tr.pnlPct]).toEqual(['liquidation', 95, bars.t[2], -100])
  })

  test('a short is liquidated at entry·(1 + 1/20 − 0.005)', () => {
    const bars = barsOf(afterEntry([100, 103, 99, 102], [102, 106, 101, 103]))
    const tr = only(sim(bars, [0], params({ direction: 'short', leverage: 20 })))
    expect(tr.exitReason).toBe('liquidation')
    expect(tr.exitPrice).toBeCloseTo(104.5, 10)
    expect(tr.pnlPct).toBe(-100)
  })

  test('a liquidation in a bar that also touched the take profit is counted as both touched', () => {
    const bars = barsOf(afterEntry([100, 111, 94, 100]))
    const tr = only(sim(bars, [0], params({ leverage: 20 })))
    expect([tr.exitReason, tr.slTpSameBar]).toEqual(['liquidation', true])
  })

  test('spot is never liquidated and ignores the leverage', () => {
    const bars = barsOf(afterEntry([100, 101, 94, 99], [99, 100, 85, 87]))
    const tr = only(sim(bars, [0], params({ leverage: 20, marketType: 'spot' })))
    expect(tr.exitReason).toBe('sl')
    expect(tr.pnlPct).toBeCloseTo(-10, 10)
  })
})

describe('one position per coin', () => {
  const quiet = (n: number) => Array.from({ length: n }, () => flat(100))

  test('signals while in a position are ignored; a signal at the exit bar enters at the next bar', () => {
    const trades = sim(barsOf(quiet(12)), [0, 1, 2, 3], params({ maxBars: 3 }))
    expect(trades.map((t) => [t.entryIdx, t.exitIdx])).toEqual([
      [1, 3],
      [4, 6],
    ])
  })

  test('after an exit at bar k+1 open, a signal at bar k does not re-enter at that same instant', () => {
    const trades = sim(barsOf(quiet(12)), [0, 2, 3], params(), { exit: [2], toIdx: 6 })
    expect(trades.map((t) => [t.entryIdx, t.exitIdx, t.exitReason])).toEqual([
      [1, 3, 'signal'],
      [4, 6, 'end_of_data'],
    ])
  })
})

describe('no look-ahead', () => {
  function randomBars(seed: number, n: number) {
    let s = seed >>> 0
    const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32)
    const rows: Ohlc[] = []
    let p = 100
    for (let i = 0; i < n; i++) {
      const o = p
      const c = o * (1 + (rnd() - 0.5) * 0.06)
      rows.push([o, Math.max(o, c) * (1 + rnd() * 0.02), Math.min(o, c) * (1 - rnd() * 0.02), c])
      p = c
    }
    return { rows, rnd }
  }

  test('changing the bars after a trade exits never changes that trade', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const { rows, rnd } = randomBars(seed, 120)
      const p = params({ direction: seed % 2 ? 'long' : 'short', slPct: 3, tpPct: 4, maxBars: 20, leverage: 10, tpSource: seed % 3 ? 'custom_pct' : 'trailing' })
      const signals = [5, 30, 60]
      const before = sim(barsOf(rows), signals, p, { funding: null })
      const first = before[0]
      const changed = rows.map((r, i): Ohlc => (i > first.exitIdx ? [r[0] * 1.3, r[1] * 1.5, r[2] * 0.6, r[3] * (0.7 + rnd())] : r))
      for (let i = first.exitIdx + 1; i < changed.length; i++) {
        const [o, h, l, c] = changed[i]
        changed[i] = [o, Math.max(h, o, c), Math.min(l, o, c), c]
      }
      const after = sim(barsOf(changed), signals, p, { funding: null })
      expect(after[0]).toEqual(first)
    }
  })
})

describe('the signal scan', () => {
  test('finds every signal bar wherever it sits, in aligned and unaligned masks', () => {
    let s = 99
    const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32)
    for (let round = 0; round < 300; round++) {
      const n = 2 + Math.floor(rnd() * 40)
      const bars = barsOf(Array.from({ length: n }, () => flat(100)))
      const offset = Math.floor(rnd() * 4)
      const backing = new Uint8Array(n + 8)
      const mask = backing.subarray(offset, offset + n)
      for (let i = 0; i < n; i++) if (rnd() < 0.3) mask[i] = 1
      const fromIdx = Math.floor(rnd() * n)
      const toIdx = fromIdx + Math.floor(rnd() * (n - fromIdx))
      // max_bars 1 on quiet bars: every signal in [fromIdx, toIdx) enters at the next bar
      const expected = [...mask.keys()].filter((i) => mask[i] === 1 && i >= fromIdx && i < toIdx)
      const trades = simulateCoin({ symbol: 'X', bars, entry: mask, exit: null, fromIdx, toIdx, funding: null }, params({ maxBars: 1 }))
      expect(trades.map((t) => t.entryIdx - 1)).toEqual(expected)
    }
  })

  test('a mask read from its list of signal bars gives the same trades as its scan, and a list cut to a membership as the cut mask', () => {
    let s = 7
    const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32)
    let listed = 0
    for (let round = 0; round < 300; round++) {
      const n = 40 + Math.floor(rnd() * 600)
      // random walks, some bars opening at no price (no trade enters there), held 1 to 12 bars
      let p = 100
      const rows = Array.from({ length: n }, (): Ohlc => {
        p *= 1 + (rnd() - 0.5) * 0.06
        return rnd() < 0.03 ? [0, p * 1.01, 0, p] : [p, p * 1.02, p * 0.98, p * (1 + (rnd() - 0.5) * 0.02)]
      })
      const bars = barsOf(rows)
      const offset = Math.floor(rnd() * 4)
      const mask = new Uint8Array(n + 8).subarray(offset, offset + n)
      const density = [0.005, 0.02, 0.04, 0.3][round % 4]
      for (let i = 0; i < n; i++) if (rnd() < density) mask[i] = 1
      const list = signalBars(mask)
      const set = [...mask.keys()].filter((i) => mask[i] === 1)
      // listed while at most one bar in 32 carries a signal, exactly the set bars; else not listed
      if (set.length * 32 <= n) expect(list === null ? null : [...list]).toEqual(set)
      else expect(list).toBeNull()
      if (list !== null) listed++
      const fromIdx = Math.floor(rnd() * n * 0.3)
      const toIdx = n - 1 - Math.floor(rnd() * n * 0.3)
      const input = { symbol: 'X', bars, entry: mask, exit: null, fromIdx, toIdx, funding: null }
      const p1 = params({ maxBars: 1 + Math.floor(rnd() * 12), direction: round % 2 === 0 ? 'long' : 'short', slPct: 3, tpPct: 3 })
      expect(simulateCoin({ ...input, entryBars: list }, p1)).toEqual(simulateCoin(input, p1))
      if (list !== null) {
        // a point-in-time membership: the list cut to it alone (no mask) trades as the cut mask
        const edges = Array.from({ length: 2 * (1 + Math.floor(rnd() * 3)) }, () => bars.t[0] + Math.floor((rnd() * 1.2 - 0.1) * n) * H).sort((a, b) => a - b)
        const cut = { ...input, entry: maskOutsideWindows(mask, bars, edges) }
        expect(simulateCoin({ ...input, entry: null, entryBars: barsInsideWindows(list, bars, edges) }, p1)).toEqual(simulateCoin(cut, p1))
      }
    }
    expect(listed).toBeGreaterThan(100)
  })
})

test('parameters that would never end a trade are refused', () => {
  const bars = barsOf(Array.from({ length: 5 }, () => flat(100)))
  expect(() => sim(bars, [0], params({ maxBars: 0 }))).toThrow(RangeError)
  expect(() => sim(bars, [0], params({ leverage: 0 }))).toThrow(RangeError)
})
