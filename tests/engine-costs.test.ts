import { describe, expect, test } from 'bun:test'
import { HOUR_MS } from '../src/time'
import { barsOf, flat, fundingOf, only, params, sim, T0, type Ohlc } from './engine-fixtures'

const H = HOUR_MS

/**
 * 24 one-hour bars of 2024-01-01 at 100, except bar 8 (08:00) at 101, bar 16 (16:00)
 * at 102 and bar 20's close at 110. A signal at bar 0 enters at 01:00 (bar 1) at 100; with
 * max_bars 20 it times out at bar 20's close (21:00) at 110.
 */
function day(): Ohlc[] {
  const rows: Ohlc[] = Array.from({ length: 24 }, () => flat(100))
  rows[8] = flat(101)
  rows[16] = flat(102)
  rows[20] = [100, 110, 99.5, 110]
  return rows
}
const timeout20 = params({ maxBars: 20, tpPct: 50 })

describe('fees', () => {
  test('a taker fee per side on notional, in % of margin', () => {
    const tr = only(sim(barsOf(day()), [0], { ...timeout20, feeFrac: 0.0005 }))
    expect(tr.exitReason).toBe('timeout')
    expect(tr.grossPct).toBeCloseTo(10, 10)
    // entry 0.05 % of 100, exit 0.05 % of 110, per 100 of margin
    expect(tr.feePct).toBeCloseTo(0.05 + 0.055, 12)
    expect(tr.pnlPct).toBeCloseTo(10 - 0.105, 10)
  })

  test('leverage multiplies the price move and the fees in % of margin', () => {
    const tr = only(sim(barsOf(day()), [0], { ...timeout20, feeFrac: 0.0005, leverage: 5 }))
    expect(tr.grossPct).toBeCloseTo(50, 9)
    expect(tr.feePct).toBeCloseTo(0.525, 12)
    expect(tr.pnlPct).toBeCloseTo(50 - 0.525, 9)
  })

  test('a liquidated trade loses exactly its margin; fees and funding are reported but inside that loss', () => {
    const rows = day()
    rows[3] = [100, 100.5, 94, 96]
    const tr = only(sim(barsOf(rows), [0], { ...timeout20, feeFrac: 0.0005, leverage: 20 }, { funding: null }))
    expect(tr.exitReason).toBe('liquidation')
    expect(tr.feePct).toBeCloseTo(0.0005 * 20 * 100 * (1 + 0.955), 10)
    expect(tr.pnlPct).toBe(-100)
  })
})

describe('funding at real event times', () => {
  // events at 00:00 (before the entry) and 00:00 the next day (after the exit) are not charged
  const eightHourly = fundingOf([
    [T0, 0.0001],
    [T0 + 8 * H, 0.0001],
    [T0 + 16 * H, 0.0003],
    [T0 + 24 * H, 0.0001],
  ])
  const expected8h = (0.0001 * 101 + 0.0003 * 102) / 100 * 100

  test('a long pays qty × the open of the bar starting at T × rate at each 8h event it spans', () => {
    const tr = only(sim(barsOf(day()), [0], timeout20, { funding: eightHourly }))
    expect(tr.fundingPct).toBeCloseTo(expected8h, 12)
    expect([tr.fundingEvents, tr.fundingEventsReal]).toEqual([2, 2])
    expect(tr.pnlPct).toBeCloseTo(10 - expected8h, 10)
  })

  test('a short receives positive rates', () => {
    const tr = only(sim(barsOf(day()), [0], { ...timeout20, direction: 'short' }, { funding: eightHourly }))
    expect(tr.fundingPct).toBeCloseTo(-expected8h, 12)
    expect(tr.pnlPct).toBeCloseTo(-10 + expected8h, 10)
  })

  test('funding in % of margin scales with leverage', () => {
    const tr = only(sim(barsOf(day()), [0], { ...timeout20, leverage: 3 }, { funding: eightHourly }))
    expect(tr.fundingPct).toBeCloseTo(3 * expected8h, 12)
  })

  test('4h intervals are charged at their own times, negative rates paying longs', () => {
    const rows = day()
    rows[4] = flat(99)
    rows[12] = flat(98)
    const rates: [number, number][] = [0, 4, 8, 12, 16, 20, 24].map((h, j) => [T0 + h * H, j % 2 ? 0.0002 : -0.0001])
    const tr = only(sim(barsOf(rows), [0], timeout20, { funding: fundingOf(rates) }))
    // charged: 04:00 (0.0002 at 99), 08:00 (−0.0001 at 101), 12:00 (0.0002 at 98), 16:00 (−0.0001 at 102), 20:00 (0.0002 at 100)
    const paid = 0.0002 * 99 - 0.0001 * 101 + 0.0002 * 98 - 0.0001 * 102 + 0.0002 * 100
    expect(tr.fundingPct).toBeCloseTo(paid, 12)
    expect([tr.fundingEvents, tr.fundingEventsReal]).toEqual([5, 5])
  })

  test('a coin without events is charged 0.01 % at 00/08/16 UTC', () => {
    const tr = only(sim(barsOf(day()), [0], timeout20, { funding: null }))
    expect(tr.fundingPct).toBeCloseTo(0.0001 * (101 + 102), 12)
    expect([tr.fundingEvents, tr.fundingEventsReal]).toEqual([2, 0])
  })

  test('stand-ins fill the time before the first real event, and coverage counts real events', () => {
    const real = fundingOf([12, 16, 20, 24].map((h): [number, number] => [T0 + h * H, 0.0002]))
    const tr = only(sim(barsOf(day()), [0], timeout20, { funding: real }))
    // 08:00 stand-in at 101; 12:00, 16:00 (102) and 20:00 real
    expect(tr.fundingPct).toBeCloseTo(0.0001 * 101 + 0.0002 * (100 + 102 + 100), 12)
    expect([tr.fundingEvents, tr.fundingEventsReal]).toEqual([4, 3])
  })

  test('stand-ins resume after the last real event', () => {
    const real = fundingOf([4, 8].map((h): [number, number] => [T0 + h * H, 0.0002]))
    const tr = only(sim(barsOf(day()), [0], timeout20, { funding: real }))
    // 04:00 and 08:00 real, 16:00 stand-in
    expect(tr.fundingPct).toBeCloseTo(0.0002 * (100 + 101) + 0.0001 * 102, 12)
    expect([tr.fundingEvents, tr.fundingEventsReal]).toEqual([3, 2])
  })

  test('spot pays no funding', () => {
    const tr = only(sim(barsOf(day()), [0], { ...timeout20, marketType: 'spot' }, { funding: eightHourly }))
    expect([tr.fundingPct, tr.fundingEvents]).toEqual([0, 0])
  })
})

describe('which events a trade spans', () => {
  const at = (h: number, rate: number) =>
    fundingOf([
      [T0 - 8 * H, 0],
      [T0 + h * H, rate],
      [T0 + 48 * H, 0],
    ])
  const quiet = () => Array.from({ length: 8 }, () => flat(100))

  test("an event at the entry bar's open is not charged", () => {
    const tr = only(sim(barsOf(quiet()), [0], params({ maxBars: 3 }), { funding: at(1, 0.01) }))
    expect([tr.fundingPct, tr.fundingEvents]).toEqual([0, 0])
  })

  test("an event at the exit bar's open is charged when the exit fills inside that bar", () => {
    const rows = quiet()
    rows[2] = [100, 100.5, 89, 92]
    const tr = only(sim(barsOf(rows), [0], params(), { funding: at(2, 0.001) }))
    expect(tr.exitReason).toBe('sl')
    expect(tr.fundingPct).toBeCloseTo(0.1, 12)
    expect(tr.fundingEvents).toBe(1)
  })

  test("an event at the exit bar's open is not charged when the exit fills at that open", () => {
    const tr = only(sim(barsOf(quiet()), [0], params(), { exit: [1], funding: at(2, 0.001) }))
    expect([tr.exitReason, tr.exitIdx, tr.fundingEvents]).toEqual(['signal', 2, 0])
  })

  test("an event at a timeout's close is not charged", () => {
    const tr = only(sim(barsOf(quiet()), [0], params({ maxBars: 1 }), { funding: at(2, 0.001) }))
    expect([tr.exitTimeMs, tr.fundingEvents]).toEqual([T0 + 2 * H, 0])
  })

  test('on 4H bars an event inside a bar is priced at that bar\'s open; an intrabar exit is charged up to the bar\'s middle', () => {
    const rows: Ohlc[] = [flat(100), flat(100), [99, 99.5, 89, 91], flat(91), flat(91)]
    const bars = barsOf(rows, 4 * H)
    const hourly = fundingOf(Array.from({ length: 24 }, (_, h): [number, number] => [T0 + h * H, 0.0001]))
    const tr = only(sim(bars, [0], params(), { funding: hourly }))
    expect(tr.exitReason).toBe('sl')
    expect(tr.exitTimeMs).toBe(T0 + 10 * H)
    // entry 04:00; charged 05, 06, 07 (bar 1, open 100) and 08, 09 (bar 2, open 99)
    expect(tr.fundingEvents).toBe(5)
    expect(tr.fundingPct).toBeCloseTo(0.0001 * (3 * 100 + 2 * 99), 12)
  })
})
