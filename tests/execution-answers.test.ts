/**
 * Which answers carry a run's `execution`, `costs` and `capacity` (docs/api.md "Execution"):
 * /simulate/coin and /simulate/validate carry their run's, the same figures /simulate
 * answers for the same run; /simulate/compare carries each strategy's costs and capacity
 * (tests/compare-blocks.test.ts); /simulate/optimize carries none (its answer is per-cell metrics).
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const T0 = Date.UTC(2025, 0, 1)
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'BNBUSDT']

const h = makeHarness({
  fill: store => {
    fillWalkUniverse(store, COINS, T0, 150, 11)
    store.addBrackets({ asOfMs: T0, source: 'import', brackets: { ETHUSDT: [{ bracket: 1, floorUsd: 0, capUsd: 50_000, mmrFrac: 0.004, cumUsd: 0, maxLeverage: 125 }] } })
  },
})
afterAll(() => h.cleanup())

describe('execution, costs and capacity beyond /simulate', () => {
  test('/simulate/coin carries its run\'s, equal to /simulate over the same coin with one position', async () => {
    const coin = await h.req('/simulate/coin', { method: 'POST', json: { symbol: 'ETHUSDT', strategy: 'bb-squeeze-short', leverage: 3, impact_k: 2 } })
    expect(coin.status).toBe(200)
    expect(coin.body.execution).toMatchObject({ slippage: 'impact', impact_k: 2, margin: 'brackets', coins_with_brackets: 1, coins_flat_margin: [], liquidation_price_source: 'last' })
    expect(coin.body.costs.traded_notional_usd).toBeGreaterThan(0)
    expect(coin.body.costs.slippage_usd).toBeGreaterThan(0)
    expect(coin.body.capacity.curve.map((p: { multiple: number }) => p.multiple)).toEqual([1, 10, 100, 1000, 10000])
    const sim = await h.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-short', symbols: ['ETHUSDT'], sl_pct: 10, tp_pct: 8, max_bars: 48, leverage: 3, impact_k: 2, max_concurrent_positions: 1 } })
    expect(sim.status).toBe(200)
    expect(sim.body.total_trades).toBe(coin.body.total_trades)
    expect(coin.body.costs).toEqual(sim.body.costs)
    expect(coin.body.execution).toEqual(sim.body.execution)
    expect(coin.body.capacity).toEqual(sim.body.capacity)
  })

  test('/simulate/coin with the reference settings: no slippage, flat margin', async () => {
    const r = await h.req('/simulate/coin', { method: 'POST', json: { symbol: 'XRPUSDT', slippage: 'none', margin: 'flat' } })
    expect(r.status).toBe(200)
    expect(r.body.execution).toMatchObject({ slippage: 'none', margin: 'flat', coins_flat_margin: ['XRPUSDT'] })
    expect(r.body.costs.traded_notional_usd).toBeGreaterThan(0)
    expect(r.body.costs.slippage_usd).toBe(0)
  })

  test('/simulate/validate carries its whole-window run\'s', async () => {
    const r = await h.req('/simulate/validate', { method: 'POST', json: { strategy: 'bb-squeeze-short', top_n: 5, n_simulations: 50, oos_pct: 30, tp_order: 'limit' } })
    expect(r.status).toBe(200)
    expect(r.body.execution).toMatchObject({ tp_order: 'limit', coins_with_brackets: 1 })
    expect(r.body.execution.coins_flat_margin.length).toBe(4)
    expect(r.body.costs.fees_usd).toBeGreaterThan(0)
    expect(r.body.capacity.curve.length).toBe(5)
  })

  test('/simulate/compare answers costs per strategy, not for the whole; /simulate/optimize answers metrics only', async () => {
    const c = await h.req('/simulate/compare', { method: 'POST', json: { top_n: 3 } })
    expect(c.status).toBe(200)
    expect(c.body.costs).toBeUndefined()
    expect(c.body.strategies[0].costs.traded_notional_usd).toBeGreaterThanOrEqual(0)
    const o = await h.req('/simulate/optimize', { method: 'POST', json: { strategy: 'bb-squeeze-short', top_n: 3, sl_values: [5, 10], tp_values: [5] } })
    expect(o.status).toBe(200)
    expect(o.body.costs).toBeUndefined()
  })
})
