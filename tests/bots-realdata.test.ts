/** The bots on the real Binance BTCUSDT candles and funding (skipped without ../shared/data). */
import { describe, expect, test } from 'bun:test'
import { simulateDca } from '../src/engine/bots/dca'
import { simulateGrid } from '../src/engine/bots/grid'
import { hasRealData, loadRealBars, loadRealFunding, REAL_DATA_MISSING } from './helpers/real-data'

const real = hasRealData()
if (!real) console.warn(REAL_DATA_MISSING)

describe.skipIf(!real)('bots on real BTCUSDT', () => {
  test('two years of DCA and a 100-level grid: real funding charged, totals consistent, equity at the end = capital + P&L', () => {
    const bars = loadRealBars('BTCUSDT')
    const funding = loadRealFunding('BTCUSDT')
    const lastIdx = bars.n - 1
    const fromIdx = Math.max(0, bars.n - 2 * 365 * 24)
    let lo = Infinity
    let hi = -Infinity
    for (let i = fromIdx; i <= lastIdx; i++) {
      lo = Math.min(lo, bars.l[i])
      hi = Math.max(hi, bars.h[i])
    }
    const dca = simulateDca({ bars, funding, fromIdx, lastIdx }, {
      direction: 'long', baseOrderUsdt: 100, safetyOrderUsdt: 100, maxSafetyOrders: 5, priceDeviationPct: 1, safetyStepScale: 1.5, safetyVolumeScale: 1.2,
      takeProfitPct: 1.5, stopLossPct: null, leverage: 2, cooldownBars: 0, feeFrac: 0.0005, mmrFrac: 0.005,
    })
    expect(dca.deals.length).toBeGreaterThan(50)
    const net = dca.deals.reduce((s, d) => s + d.netPnlUsdt, 0)
    expect(dca.equityUsdt[dca.equityUsdt.length - 1]).toBeCloseTo(dca.maxCapitalRequiredUsdt + net, 6)
    if (funding) expect(dca.fundingEventsReal / dca.fundingEvents).toBeGreaterThan(0.9)

    const grid = simulateGrid({ bars, funding, fromIdx, lastIdx }, {
      lowerPrice: lo, upperPrice: hi, gridCount: 100, spacing: 'geometric', investmentUsdt: 1000, leverage: 1, direction: 'long', stopLossPrice: null, takeProfitPrice: null, feeFrac: 0.0005, mmrFrac: 0.005,
    })
    expect(grid.roundTrips).toBeGreaterThan(100)
    expect(grid.exitReason).toBe('end')
    expect(grid.totalPnlUsdt).toBeCloseTo(grid.gridProfitUsdt + grid.floatingPnlUsdt - grid.fundingUsdt, 6)
    expect(grid.equityUsdt[grid.equityUsdt.length - 1]).toBeCloseTo(1000 + grid.totalPnlUsdt, 6)
    if (funding) expect(grid.fundingEventsReal / grid.fundingEvents).toBeGreaterThan(0.9)
    // the same range as a neutral grid at 2×: short above the start through BTC's rally, it is liquidated and loses the investment whole
    const neutral = simulateGrid({ bars, funding, fromIdx, lastIdx }, {
      lowerPrice: lo, upperPrice: hi, gridCount: 100, spacing: 'geometric', investmentUsdt: 1000, leverage: 2, direction: 'neutral', stopLossPrice: null, takeProfitPrice: null, feeFrac: 0.0005, mmrFrac: 0.005,
    })
    if (neutral.exitReason === 'liquidation') {
      expect(neutral.totalPnlUsdt).toBe(-1000)
      expect(neutral.equityUsdt[neutral.equityUsdt.length - 1]).toBe(0)
    }
  })
})
