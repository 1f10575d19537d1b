import { describe, expect, test } from 'bun:test'
import { gridLevels, simulateGrid, type GridParams } from '../src/engine/bots/grid'
import { barsOf, flat, fundingOf, HOUR, T0 } from './bots-engine-fixtures'

// lines 98, 99, 100, 101, 102; mids sum to 400, so 1000 USDT at 1× buys 2.5 per order
const base: GridParams = {
  lowerPrice: 98,
  upperPrice: 102,
  gridCount: 4,
  spacing: 'arithmetic',
  investmentUsdt: 1000,
  leverage: 1,
  direction: 'long',
  stopLossPrice: null,
  takeProfitPrice: null,
  feeFrac: 0.0005,
  mmrFrac: 0.005,
}

function run(rows: [number, number, number, number][], p: Partial<GridParams> = {}, funding = fundingOf([])) {
  const bars = barsOf(rows)
  return simulateGrid({ bars, funding, fromIdx: 0, lastIdx: bars.n - 1 }, { ...base, ...p })
}

describe('grid levels', () => {
  test('arithmetic lines are evenly spaced, geometric lines evenly spaced in ratio; grid_count intervals, grid_count + 1 lines', () => {
    expect([...gridLevels(base)]).toEqual([98, 99, 100, 101, 102])
    const g = gridLevels({ lowerPrice: 100, upperPrice: 400, gridCount: 2, spacing: 'geometric' })
    expect(g[0]).toBe(100)
    expect(g[1]).toBeCloseTo(200, 10)
    expect(g[2]).toBe(400)
  })
})

describe('grid direction', () => {
  test('long: the intervals above the start price are bought at the first open; short: those below are sold; neutral starts flat', () => {
    const q = 2.5
    // start 100.4: only [101, 102] lies above; [98, 99] and [99, 100] lie below
    expect(run([flat(100.4)]).finalPositionQty).toBeCloseTo(q, 12)
    expect(run([flat(100.4)], { direction: 'short' }).finalPositionQty).toBeCloseTo(-2 * q, 12)
    expect(run([flat(100.4)], { direction: 'neutral' }).finalPositionQty).toBe(0)
  })

  test('neutral: a fall buys on the long intervals below the start, a rise sells on the short intervals above it', () => {
    // start 100.6, in the upper half of [100, 101]: that interval is long (its far line, 100, carries its order)
    const down = run([[100.6, 100.6, 98.8, 98.8]], { direction: 'neutral' })
    expect(down.buys).toBe(2) // 100, 99
    expect(down.finalPositionQty).toBeCloseTo(5, 12)
    const up = run([[100.6, 102, 100.6, 102]], { direction: 'neutral' })
    expect(up.sells).toBe(1) // 102: the short interval [101, 102] sells at its upper line
    expect(up.finalPositionQty).toBeCloseTo(-2.5, 12)
  })
})

describe('grid path rules', () => {
  test('a short grid sells on the way up and buys back one line down: one round trip, counted once, net of both fees', () => {
    // short, start 100.4: [98, 99] and [99, 100] are sold at the open; [100, 101] waits to sell at 101.
    // the path: high 101.3 first (0.9 vs 1.0), then low 99.4, close 99.6
    const r = run([[100.4, 101.3, 99.4, 99.6]], { direction: 'short' })
    // sells: two initial lots, then 101; buys: 100 (closing the lot sold at 101); 99's buy back is not reached
    expect(r.sells).toBe(3)
    expect(r.buys).toBe(1)
    expect(r.roundTrips).toBe(1)
    expect(r.gridProfitUsdt).toBeCloseTo(2.5 * (101 - 100) - 0.0005 * 2.5 * (101 + 100), 12)
    // the initial lots of [98, 99] and [99, 100], sold at 100.4, marked at 99.6
    expect(r.floatingPnlUsdt).toBeCloseTo(2 * 2.5 * (100.4 - 99.6) - 2 * 0.0005 * 2.5 * 100.4, 12)
    expect(r.finalPositionQty).toBeCloseTo(-5, 12)
  })


  test('a line crossed twice in one bar’s path fills twice: buy at 100, sell at 101 (one round trip), buy at 100 again', () => {
    // open 100.4: low 99.8 (0.6 away) first, then high 101.2, then close 99.9
    const r = run([[100.4, 101.2, 99.8, 99.9]])
    expect(r.buys).toBe(3) // initial lot of [101, 102], then 100 twice
    expect(r.sells).toBe(1)
    expect(r.roundTrips).toBe(1)
    // 2.5 · (101 − 100) − fees 2.5 · 100 · 0.0005 − 2.5 · 101 · 0.0005
    expect(r.gridProfitUsdt).toBeCloseTo(2.5 - 0.125 - 0.12625, 12)
    // open lots at the close 99.9: [101, 102] from 100.4 and [100, 101] from 100, net of their entry fees
    expect(r.floatingPnlUsdt).toBeCloseTo(2.5 * (99.9 - 100.4) + 2.5 * (99.9 - 100) - 2.5 * 100.4 * 0.0005 - 2.5 * 100 * 0.0005, 12)
    expect(r.totalPnlUsdt).toBeCloseTo(r.gridProfitUsdt + r.floatingPnlUsdt, 12)
    expect(r.feesUsdt).toBeCloseTo(0.0005 * 2.5 * (100.4 + 100 + 101 + 100), 12)
  })

  test('a one-way bar through four lines is four fills and no round trip', () => {
    const r = run([[102.5, 102.6, 97.5, 97.6]], { direction: 'neutral' })
    expect(r.buys).toBe(4)
    expect(r.sells).toBe(0)
    expect(r.roundTrips).toBe(0)
    expect(r.gridProfitUsdt).toBe(0)
  })

  test('lines the price jumps over between a close and the next open fill at that open', () => {
    const r = run([flat(100.4), flat(98.5), flat(98.5)])
    // buys at 100 and 99 both at 98.5
    expect(r.buys).toBe(3)
    expect(r.floatingPnlUsdt).toBeCloseTo(2.5 * (98.5 - 100.4) - 2.5 * 100.4 * 0.0005 - 2 * 2.5 * 98.5 * 0.0005, 12)
  })

  test('the stop-loss price closes everything where the path crosses it, and the grid stops', () => {
    const r = run([flat(100.4), [100.4, 100.5, 97, 97.5], [97.5, 103, 97.5, 103]], { stopLossPrice: 97.2 })
    expect(r.exitReason).toBe('stop_loss')
    expect(r.exitIdx).toBe(1)
    expect(r.exitPrice).toBe(97.2)
    expect(r.finalPositionQty).toBe(0)
    expect(r.floatingPnlUsdt).toBe(0)
    // bought [101,102] at 100.4, then 100, 99, 98 on the way down; all closed at 97.2
    const closeout = 2.5 * ((97.2 - 100.4) + (97.2 - 100) + (97.2 - 99) + (97.2 - 98)) - 0.0005 * 2.5 * (100.4 + 100 + 99 + 98) - 0.0005 * 4 * 2.5 * 97.2
    expect(r.closeoutPnlUsdt).toBeCloseTo(closeout, 12)
    expect(r.totalPnlUsdt).toBeCloseTo(closeout, 12)
    expect(r.sells).toBe(4)
  })

  test('the take-profit price above the start closes everything when the path rises to it', () => {
    const r = run([flat(100.4), [100.4, 103, 100.3, 102]], { takeProfitPrice: 102.5 })
    expect(r.exitReason).toBe('take_profit')
    expect(r.exitPrice).toBe(102.5)
    expect(r.roundTrips).toBe(1) // [101, 102] sold at 102 before the trigger at 102.5
  })

  test('liquidation: at 20× the long grid’s isolated margin is gone where equity = mmr · |cost|; the investment is lost whole', () => {
    const r = run([flat(100.4), [100.4, 100.4, 90, 91]], { leverage: 20 })
    expect(r.exitReason).toBe('liquidation')
    expect(r.totalPnlUsdt).toBe(-1000)
    expect(r.equityUsdt[1]).toBe(0)
    // q = 1000 · 20 / 400 = 50. After the initial lot (100.4) and the buys at 100, 99 and 98:
    // Q = 200, cost = 19 870, balance = 1000 − fees (2.51 + 2.5 + 2.475 + 2.45) = 990.065;
    // the liquidation price (cost · (1 + mmr) − balance) / Q = 94.896425, reached before the next (no) line
    expect(r.exitPrice).toBeCloseTo(94.896425, 9)
  })

  test('funding is charged on the net quantity held across each event', () => {
    const rate = 0.001
    // the event at bar 1's open: the long grid holds the initial lot of [101, 102] (2.5)
    const r = run([flat(100.4), flat(100.4), flat(100.4)], {}, fundingOf([[T0 + HOUR, rate], [T0 + 2 * HOUR, -rate]]))
    expect(r.fundingUsdt).toBeCloseTo(2.5 * rate * 100.4 - 2.5 * rate * 100.4, 12)
    // an event at a bar's midpoint, the instant of its path fills: the lot bought and sold (and bought again)
    // inside the bar was not held across it; the initial lot, entered at the open, was
    const mid = run([[100.4, 101.2, 99.8, 99.9]], {}, fundingOf([[T0 + HOUR / 2, rate]]))
    expect(mid.roundTrips).toBe(1)
    expect(mid.fundingUsdt).toBeCloseTo(2.5 * rate * 100.4, 12)
    // an event at the open of a bar that gaps through three buy lines and the stop: every lot is closed at
    // that instant (the three bought at it were never held across it): nothing is charged there
    const gap = run([flat(100.4), flat(97), flat(97)], { stopLossPrice: 97.5 }, fundingOf([[T0 + HOUR, rate]]))
    expect(gap.exitReason).toBe('stop_loss')
    expect(gap.exitPrice).toBe(97)
    expect(gap.fundingUsdt).toBe(0)
    const s = run([flat(100.4), flat(100.4)], { direction: 'short' }, fundingOf([[T0 + HOUR, rate]]))
    expect(s.fundingUsdt).toBeCloseTo(-5 * rate * 100.4, 12)
    expect(s.totalPnlUsdt).toBeCloseTo(s.floatingPnlUsdt - s.fundingUsdt, 12)
  })
})
