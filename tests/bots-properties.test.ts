/** Invariants of the bot engines on random candles (fast-check). */
import { expect, test } from 'bun:test'
import fc from 'fast-check'
import { simulateDca } from '../src/engine/bots/dca'
import { simulateGrid } from '../src/engine/bots/grid'
import { barsOf } from './bots-engine-fixtures'

/** Random candles: a walk with gaps between a close and the next open. */
const candles = fc
  .array(fc.tuple(fc.double({ min: -0.03, max: 0.03, noNaN: true }), fc.double({ min: -0.01, max: 0.01, noNaN: true }), fc.double({ min: 0, max: 0.02, noNaN: true }), fc.double({ min: 0, max: 0.02, noNaN: true })), { minLength: 2, maxLength: 120 })
  .map(steps => {
    let p = 100
    return steps.map(([move, gap, up, down]): [number, number, number, number] => {
      const o = p * (1 + gap)
      const c = o * (1 + move)
      const row: [number, number, number, number] = [o, Math.max(o, c) * (1 + up), Math.min(o, c) * (1 - down), c]
      p = c
      return row
    })
  })

test('DCA: every deal nets gross − fees − funding (−margin when liquidated), the ladder is never overfilled, and the equity ends at capital + Σ net', () => {
  fc.assert(
    fc.property(candles, fc.integer({ min: 0, max: 4 }), fc.constantFrom('long' as const, 'short' as const), fc.integer({ min: 1, max: 20 }), (rows, maxSafety, direction, leverage) => {
      const bars = barsOf(rows)
      const r = simulateDca({ bars, funding: null, fromIdx: 0, lastIdx: bars.n - 1 }, {
        direction, baseOrderUsdt: 50, safetyOrderUsdt: 30, maxSafetyOrders: maxSafety, priceDeviationPct: 1.5, safetyStepScale: 1.2, safetyVolumeScale: 1.5,
        takeProfitPct: 2, stopLossPct: 6, leverage, cooldownBars: 1, feeFrac: 0.0005, mmrFrac: 0.005,
      })
      let net = 0
      for (const d of r.deals) {
        expect(d.safetyOrdersFilled).toBeLessThanOrEqual(maxSafety)
        expect(d.feesUsdt).toBeGreaterThan(0)
        if (d.exitReason === 'liquidation') expect(d.netPnlUsdt).toBe(-d.marginUsdt)
        else expect(d.netPnlUsdt).toBeCloseTo(d.grossPnlUsdt - d.feesUsdt - d.fundingUsdt, 9)
        expect(d.closeTimeMs).toBeGreaterThanOrEqual(d.openTimeMs)
        net += d.netPnlUsdt
      }
      // deals never overlap
      for (let i = 1; i < r.deals.length; i++) expect(r.deals[i].openIdx).toBeGreaterThan(r.deals[i - 1].closeIdx)
      expect(r.equityUsdt[r.equityUsdt.length - 1]).toBeCloseTo(r.maxCapitalRequiredUsdt + net, 8)
    }),
    { numRuns: 300 },
  )
})

test('grid: without fees every round trip earns (fills at a line or better), the totals add up, and round trips never outnumber the closing fills', () => {
  fc.assert(
    fc.property(candles, fc.constantFrom('long' as const, 'short' as const, 'neutral' as const), fc.integer({ min: 2, max: 30 }), fc.constantFrom('arithmetic' as const, 'geometric' as const), (rows, direction, gridCount, spacing) => {
      const bars = barsOf(rows)
      const base = { lowerPrice: 85, upperPrice: 115, gridCount, spacing, investmentUsdt: 1000, leverage: 1, direction, stopLossPrice: null, takeProfitPrice: null, mmrFrac: 0.005 }
      const free = simulateGrid({ bars, funding: null, fromIdx: 0, lastIdx: bars.n - 1 }, { ...base, feeFrac: 0 })
      expect(free.gridProfitUsdt).toBeGreaterThanOrEqual(0)
      if (free.roundTrips > 0) expect(free.gridProfitUsdt).toBeGreaterThan(0)
      const r = simulateGrid({ bars, funding: null, fromIdx: 0, lastIdx: bars.n - 1 }, { ...base, feeFrac: 0.0005 })
      expect(r.roundTrips).toBe(free.roundTrips)
      expect(r.roundTrips).toBeLessThanOrEqual(Math.min(r.buys, r.sells))
      expect(r.totalPnlUsdt).toBeCloseTo(r.gridProfitUsdt + r.closeoutPnlUsdt + r.floatingPnlUsdt - r.fundingUsdt, 8)
      expect(r.equityUsdt[r.equityUsdt.length - 1]).toBeCloseTo(1000 + r.totalPnlUsdt, 8)
      // the net position is a whole number of lots
      expect(Math.abs(r.finalPositionQty / r.qtyPerOrder - Math.round(r.finalPositionQty / r.qtyPerOrder))).toBeLessThan(1e-9)
    }),
    { numRuns: 300 },
  )
})
