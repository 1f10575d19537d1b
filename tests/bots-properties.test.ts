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

/**
 * An independent grid: a plain list of resting orders (price, side, interval), filled in
 * price order along each monotone piece of the path, each fill replacing its order with the
 * opposite one a line away. No SL/TP/liquidation (leverage 1, none set).
 */
function oracleGrid(rows: [number, number, number, number][], lines: number[], direction: 'long' | 'short' | 'neutral', qty: number, fee: number) {
  type Order = { price: number; side: 'buy' | 'sell'; j: number }
  const S = rows[0][0]
  const orders: Order[] = []
  const lot = new Map<number, { side: 'long' | 'short'; entry: number }>()
  let buys = 0, sells = 0, roundTrips = 0, profit = 0
  const n = lines.length - 1
  for (let j = 1; j <= n; j++) {
    const lo = lines[j - 1], hi = lines[j]
    const kind = direction === 'long' ? 'long' : direction === 'short' ? 'short' : hi <= S ? 'long' : lo >= S ? 'short' : S >= (lo + hi) / 2 ? 'long' : 'short'
    if (kind === 'long' && direction === 'long' && lo >= S) { lot.set(j, { side: 'long', entry: S }); buys++; orders.push({ price: hi, side: 'sell', j }) }
    else if (kind === 'short' && direction === 'short' && hi <= S) { lot.set(j, { side: 'short', entry: S }); sells++; orders.push({ price: lo, side: 'buy', j }) }
    else orders.push(kind === 'long' ? { price: lo, side: 'buy', j } : { price: hi, side: 'sell', j })
  }
  const kindOf = new Map<number, 'long' | 'short'>()
  for (const o of orders) kindOf.set(o.j, lot.get(o.j)?.side ?? (o.side === 'buy' ? 'long' : 'short'))
  const fill = (o: Order, price: number) => {
    orders.splice(orders.indexOf(o), 1)
    const held = lot.get(o.j)
    if (o.side === 'buy') buys++
    else sells++
    if (held) {
      const dir = held.side === 'long' ? 1 : -1
      profit += dir * qty * (price - held.entry) - fee * qty * (held.entry + price)
      roundTrips++
      lot.delete(o.j)
    } else lot.set(o.j, { side: o.side === 'buy' ? 'long' : 'short', entry: price })
    const kind = kindOf.get(o.j)!
    const opened = lot.has(o.j)
    // a long interval: buy at its lower line, sell at its upper; a short one the other way round
    const next: Order = kind === 'long' ? (opened ? { price: lines[o.j], side: 'sell', j: o.j } : { price: lines[o.j - 1], side: 'buy', j: o.j }) : opened ? { price: lines[o.j - 1], side: 'buy', j: o.j } : { price: lines[o.j], side: 'sell', j: o.j }
    orders.push(next)
  }
  const move = (from: number, to: number, gap: boolean) => {
    for (;;) {
      const down = to < from
      const ready = orders.filter(o => (down ? o.side === 'buy' && o.price >= to && o.price <= from : o.side === 'sell' && o.price <= to && o.price >= from)).sort((a, b) => (down ? b.price - a.price : a.price - b.price))
      if (to === from || ready.length === 0) return
      const o = ready[0]
      fill(o, gap ? to : o.price)
      from = gap ? from : o.price
    }
  }
  rows.forEach(([o, h, l, c], k) => {
    if (k > 0) move(rows[k - 1][3], o, true)
    const hf = h - o <= o - l
    const path = [o, hf ? h : l, hf ? l : h, c]
    for (let s = 0; s < 3; s++) move(path[s], path[s + 1], false)
  })
  let position = 0
  for (const v of lot.values()) position += v.side === 'long' ? qty : -qty
  return { buys, sells, roundTrips, profit, position }
}

test('grid: the engine equals an independent order-list grid on random candles', () => {
  fc.assert(
    fc.property(candles, fc.constantFrom('long' as const, 'short' as const, 'neutral' as const), fc.integer({ min: 2, max: 25 }), fc.constantFrom('arithmetic' as const, 'geometric' as const), (rows, direction, gridCount, spacing) => {
      const bars = barsOf(rows)
      const r = simulateGrid({ bars, funding: null, fromIdx: 0, lastIdx: bars.n - 1 }, { lowerPrice: 88, upperPrice: 112, gridCount, spacing, investmentUsdt: 1000, leverage: 1, direction, stopLossPrice: null, takeProfitPrice: null, feeFrac: 0.0005, mmrFrac: 0.005 })
      const want = oracleGrid(rows, [...r.levels], direction, r.qtyPerOrder, 0.0005)
      expect({ buys: r.buys, sells: r.sells, roundTrips: r.roundTrips }).toEqual({ buys: want.buys, sells: want.sells, roundTrips: want.roundTrips })
      expect(r.gridProfitUsdt).toBeCloseTo(want.profit, 9)
      expect(r.finalPositionQty).toBeCloseTo(want.position, 9)
    }),
    { numRuns: 400 },
  )
})
