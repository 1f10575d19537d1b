import { describe, expect, test } from 'bun:test'
import { dcaLadder, simulateDca, type DcaParams } from '../src/engine/bots/dca'
import { barsOf, flat, fundingOf, HOUR, T0 } from './bots-engine-fixtures'

const base: DcaParams = {
  direction: 'long',
  baseOrderUsdt: 100,
  safetyOrderUsdt: 100,
  maxSafetyOrders: 1,
  priceDeviationPct: 2,
  safetyStepScale: 1,
  safetyVolumeScale: 1,
  takeProfitPct: 1,
  stopLossPct: null,
  leverage: 1,
  cooldownBars: 0,
  feeFrac: 0,
  mmrFrac: 0.005,
}

function run(rows: [number, number, number, number][], p: Partial<DcaParams> = {}, funding = fundingOf([])) {
  const bars = barsOf(rows)
  return simulateDca({ bars, funding, fromIdx: 0, lastIdx: bars.n - 1 }, { ...base, ...p })
}

describe('DCA ladder', () => {
  test('safety order k sits at d_k = d_(k−1) + deviation × step_scale^(k−1) with margin × volume_scale^(k−1)', () => {
    const ladder = dcaLadder({ ...base, maxSafetyOrders: 3, priceDeviationPct: 1, safetyStepScale: 2, safetyVolumeScale: 1.5 })
    expect(ladder.map(r => r.deviationPct)).toEqual([1, 3, 7])
    expect(ladder.map(r => r.marginUsdt)).toEqual([100, 150, 225])
  })

  test('a long ladder reaching 100 % or deeper is flagged and its capital leaves those rungs out', () => {
    const r = run([flat(100), flat(100)], { maxSafetyOrders: 3, priceDeviationPct: 40, safetyStepScale: 1 })
    expect(r.ladder.map(x => x.reachable)).toEqual([true, true, false])
    expect(r.maxCapitalRequiredUsdt).toBe(300)
    expect(r.warnings.some(w => w.includes('safety orders 3–3'))).toBe(true)
  })
})

describe('DCA path rules', () => {
  test('a safety order and the take profit in one bar: low first fills the safety order at its level, then the high takes the new take profit', () => {
    // bar 1: open 99, low 97.9 (1.1 away) before high 101 (2 away)
    const r = run([[100, 100.5, 99.5, 99], [99, 101, 97.9, 100]])
    expect(r.deals).toHaveLength(1)
    const d = r.deals[0]
    expect(d.safetyOrdersFilled).toBe(1)
    const q = 1 + 100 / 98
    expect(d.quantity).toBeCloseTo(q, 12)
    expect(d.avgEntry).toBeCloseTo(200 / q, 10)
    expect(d.exitReason).toBe('take_profit')
    expect(d.exitPrice).toBeCloseTo((200 / q) * 1.01, 10)
    // TP = avg × 1.01 so the gross is 1 % of the 200 USDT notional
    expect(d.grossPnlUsdt).toBeCloseTo(2, 10)
    expect(d.closeIdx).toBe(1)
    expect(d.closeTimeMs).toBe(T0 + HOUR + HOUR / 2)
  })

  test('the same bar with the high nearer the open takes the take profit first and never fills the safety order', () => {
    // bar 1: open 100.5, high 101.2 (0.7 away) before low 97.9
    const r = run([[100, 100.5, 99.5, 100.5], [100.5, 101.2, 97.9, 100]])
    expect(r.deals[0].exitReason).toBe('take_profit')
    expect(r.deals[0].safetyOrdersFilled).toBe(0)
    expect(r.deals[0].exitPrice).toBeCloseTo(101, 12)
  })

  test('a bar that opens beyond the safety level fills it at the open (gap), not at the level', () => {
    const r = run([[100, 100.2, 99.5, 99], flat(97), flat(97)])
    const d = r.deals[0]
    expect(d.safetyOrdersFilled).toBe(1)
    expect(d.quantity).toBeCloseTo(1 + 100 / 97, 12)
    expect(d.exitReason).toBe('end')
    expect(d.exitPrice).toBe(97)
  })

  test('a take profit the bar opens beyond fills at the open', () => {
    const r = run([[100, 100.5, 99.5, 100.4], flat(103)])
    expect(r.deals[0].exitReason).toBe('take_profit')
    expect(r.deals[0].exitPrice).toBe(103)
    expect(r.deals[0].closeTimeMs).toBe(T0 + HOUR)
  })

  test('stop loss before take profit by path order: the low comes first and stops the deal', () => {
    // SL 3 % from 100 = 97; bar 1: open 99, low 96.5 (2.5 away) before high 102 (3 away)
    const r = run([[100, 100.2, 99.5, 99], [99, 102, 96.5, 101]], { maxSafetyOrders: 0, stopLossPct: 3 })
    expect(r.deals[0].exitReason).toBe('stop_loss')
    expect(r.deals[0].exitPrice).toBeCloseTo(97, 12)
    expect(r.deals[0].netPnlUsdt).toBeCloseTo(-3, 10)
  })

  test('…and with the high first, the take profit comes before the stop', () => {
    const r = run([[100, 100.2, 99.5, 100], [100, 101.5, 96.5, 100]], { maxSafetyOrders: 0, stopLossPct: 3 })
    expect(r.deals[0].exitReason).toBe('take_profit')
    expect(r.deals[0].exitPrice).toBeCloseTo(101, 12)
  })

  test('liquidation at entry·(1 − 1/lev + mmr) loses exactly the margin', () => {
    // lev 10: 100 · (1 − 0.1 + 0.005) = 90.5
    const r = run([[100, 100.2, 99.5, 95], [95, 95.5, 90, 92]], { maxSafetyOrders: 0, leverage: 10, feeFrac: 0.0005 })
    const d = r.deals[0]
    expect(d.exitReason).toBe('liquidation')
    expect(d.exitPrice).toBeCloseTo(90.5, 10)
    expect(d.netPnlUsdt).toBe(-100)
    expect(d.netPnlPct).toBe(-100)
  })

  test('the liquidation price follows the average: after a safety order it is avg·(1 − 1/lev + mmr) of the new average, and the deal loses both margins', () => {
    // lev 10: base 1000 notional at 100, safety 1000 notional at 98; avg = 2000 / (10 + 1000/98)
    const r = run([[100, 100.2, 99.5, 99], [99, 99.5, 89, 90]], { leverage: 10 })
    const d = r.deals[0]
    const avg = 2000 / (10 + 1000 / 98)
    expect(d.safetyOrdersFilled).toBe(1)
    expect(d.avgEntry).toBeCloseTo(avg, 10)
    expect(d.exitReason).toBe('liquidation')
    expect(d.exitPrice).toBeCloseTo(avg * 0.905, 10)
    expect(d.netPnlUsdt).toBe(-200)
  })

  test('a short deal mirrors the long: safety order above, take profit below the average', () => {
    // base 100 short; safety at 102; bar 1: open 101, high 102.5 first (1.5) then low 99 (2)
    const r = run([[100, 100.5, 99.5, 101], [101, 102.5, 99, 100]], { direction: 'short' })
    const d = r.deals[0]
    expect(d.safetyOrdersFilled).toBe(1)
    const q = 1 + 100 / 102
    expect(d.avgEntry).toBeCloseTo(200 / q, 10)
    expect(d.exitReason).toBe('take_profit')
    expect(d.exitPrice).toBeCloseTo((200 / q) * 0.99, 10)
    expect(d.grossPnlUsdt).toBeCloseTo(2, 10)
  })

  test('deals repeat: the next opens at the open of the bar after the close plus cooldown_bars', () => {
    const rows: [number, number, number, number][] = [[100, 101.5, 99.9, 101], flat(101), flat(101), flat(101)]
    expect(run(rows).deals.map(d => d.openIdx)).toEqual([0, 1])
    expect(run(rows, { cooldownBars: 2 }).deals.map(d => d.openIdx)).toEqual([0, 3])
  })
})

describe('DCA costs', () => {
  test('fees are the fee rate on every fill’s notional, the exit included', () => {
    const r = run([[100, 100.5, 99, 99], [99, 101, 97.9, 100]], { feeFrac: 0.0005, leverage: 3 })
    const d = r.deals[0]
    // notional 300 + 300 in, q · exit out
    expect(d.feesUsdt).toBeCloseTo(0.0005 * (600 + d.quantity * d.exitPrice), 12)
    expect(d.netPnlUsdt).toBeCloseTo(d.grossPnlUsdt - d.feesUsdt - d.fundingUsdt, 12)
    expect(d.marginUsdt).toBe(200)
    expect(d.notionalUsdt).toBe(600)
  })

  test('funding is charged at each event on the quantity held across it: a safety order filled at the event’s own instant is not charged there', () => {
    const rate = 0.001
    // events at the opens of bars 1 and 2; bar 1 gaps through the safety level (98) and fills at 97
    const r = run([[100, 100.2, 99.5, 99], flat(97), flat(96), flat(96)], {}, fundingOf([[T0 + HOUR, rate], [T0 + 2 * HOUR, rate]]))
    const d = r.deals[0]
    const q = 1 + 100 / 97
    expect(d.fundingUsdt).toBeCloseTo(1 * rate * 97 + q * rate * 96, 12)
    expect(r.fundingEvents).toBe(2)
    expect(r.fundingEventsReal).toBe(2)
    // a short receives what a long pays
    const s = run([[100, 100.2, 99.5, 99.5], flat(99.5), flat(99.5)], { direction: 'short' }, fundingOf([[T0 + HOUR, rate]]))
    expect(s.deals[0].fundingUsdt).toBeCloseTo(-1 * rate * 99.5, 12)
  })

  test('where the store has no funding events, stand-ins of 0.01 % at 00/08/16 UTC are charged', () => {
    // 07:00 to 10:00: the 08:00 stand-in
    const bars = barsOf([flat(100), flat(100), flat(100)], Date.UTC(2024, 0, 1, 7))
    const r = simulateDca({ bars, funding: null, fromIdx: 0, lastIdx: 2 }, { ...base, maxSafetyOrders: 0 })
    expect(r.deals[0].fundingUsdt).toBeCloseTo(1 * 0.0001 * 100, 12)
    expect(r.fundingEvents).toBe(1)
    expect(r.fundingEventsReal).toBe(0)
  })

  test('the equity curve ends at the capital plus every deal’s net, and its drawdown is read from it', () => {
    const r = run([[100, 100.5, 99, 99], [99, 101, 97.9, 100], [100, 100, 95, 96], flat(96)], { feeFrac: 0.0005 })
    const net = r.deals.reduce((s, d) => s + d.netPnlUsdt, 0)
    expect(r.equityUsdt[r.equityUsdt.length - 1]).toBeCloseTo(r.maxCapitalRequiredUsdt + net, 10)
    expect(r.maxDrawdownUsdt).toBeGreaterThan(0)
    expect(r.maxFloatingLossUsdt).toBeGreaterThan(0)
  })
})
