import { afterAll, describe, expect, test } from 'bun:test'
import type { CandleStore } from '../src/market/candle-store'
import type { MarginBracket } from '../src/market/types'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const T0 = Date.UTC(2025, 0, 1)
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'BNBUSDT', 'ADAUSDT', 'DOGEUSDT']

/** Binance's BTCUSDT brackets 1–3 (2024-10) and a thin coin's (HIFIUSDT) */
const BTC: MarginBracket[] = [
  { bracket: 1, floorUsd: 0, capUsd: 50_000, mmrFrac: 0.004, cumUsd: 0, maxLeverage: 125 },
  { bracket: 2, floorUsd: 50_000, capUsd: 600_000, mmrFrac: 0.005, cumUsd: 50, maxLeverage: 100 },
  { bracket: 3, floorUsd: 600_000, capUsd: 3_000_000, mmrFrac: 0.0065, cumUsd: 950, maxLeverage: 75 },
]
const THIN: MarginBracket[] = [
  { bracket: 1, floorUsd: 0, capUsd: 5_000, mmrFrac: 0.015, cumUsd: 0, maxLeverage: 50 },
  { bracket: 2, floorUsd: 5_000, capUsd: 25_000, mmrFrac: 0.025, cumUsd: 50, maxLeverage: 20 },
  { bracket: 3, floorUsd: 25_000, capUsd: 200_000, mmrFrac: 0.05, cumUsd: 675, maxLeverage: 10 },
]

function fill(store: CandleStore) {
  fillWalkUniverse(store, COINS, T0, 150, 11)
  store.addBrackets({ asOfMs: T0, source: 'import', brackets: { BTCUSDT: BTC, ETHUSDT: BTC, SOLUSDT: THIN, XRPUSDT: THIN, BNBUSDT: THIN, ADAUSDT: THIN } })
}

const h = makeHarness({ fill })
afterAll(() => h.cleanup())

const BODY = { strategy: 'bb-squeeze-short', top_n: 535 }
const REFERENCE = { slippage: 'none', tp_order: 'market', margin: 'flat' }

describe('execution settings on /simulate (issue 25 §2–3)', () => {
  test('the defaults: impact slippage, market take profit, brackets; the answer says which coins lack brackets', async () => {
    const r = await h.req('/simulate', { method: 'POST', json: BODY })
    expect(r.status).toBe(200)
    const ex = r.body.execution
    expect(ex).toMatchObject({ slippage: 'impact', impact_k: 1, tp_order: 'market', maker_fee_pct: 0.02, liquidation_fee_pct: 1.25, margin: 'brackets', position_notional_usd: 60, liquidation_price_source: 'last' })
    expect(ex.coins_with_brackets).toBe(6)
    expect(ex.coins_flat_margin).toEqual(['DOGEUSDT'])
    expect(r.body.warnings.some((w: string) => w.startsWith('margin: 1 coin(s) have no leverage brackets') && w.includes('DOGEUSDT'))).toBe(true)
    // costs: USD sums and their share of the notional traded
    const c = r.body.costs
    expect(c.slippage_usd).toBeGreaterThan(0)
    expect(c.fees_pct).toBeCloseTo((100 * c.fees_usd) / c.traded_notional_usd, 4)
    expect(c.slippage_pct).toBeCloseTo((100 * c.slippage_usd) / c.traded_notional_usd, 4)
    // every trade lists its slippage; the net P&L is after it
    expect(r.body.trades.every((t: any) => t.slippage_pct >= 0)).toBe(true)
    // capacity: five sizes, the first is the run itself, returns fall with the size
    const curve = r.body.capacity.curve
    expect(curve.map((p: any) => p.per_coin_usd)).toEqual([60, 600, 6_000, 60_000, 600_000])
    expect(curve[0].total_return_pct).toBeCloseTo(r.body.total_return_pct, 4)
    for (let i = 1; i < curve.length; i++) expect(curve[i].total_return_pct).toBeLessThanOrEqual(curve[i - 1].total_return_pct)
    expect(curve[4].total_return_pct).toBeLessThan(curve[0].total_return_pct)
  })

  test('slippage "none", tp_order "market", margin "flat" is the model before them: no slippage, no flat-margin warning, its own hash', async () => {
    const ref = await h.req('/simulate', { method: 'POST', json: { ...BODY, ...REFERENCE } })
    const dflt = await h.req('/simulate', { method: 'POST', json: BODY })
    expect(ref.status).toBe(200)
    expect(ref.body.costs.slippage_usd).toBe(0)
    expect(ref.body.execution.coins_flat_margin.length).toBe(7)
    expect(ref.body.warnings.some((w: string) => w.startsWith('margin:'))).toBe(false)
    expect(ref.body.result_hash).not.toBe(dflt.body.result_hash)
    // same entries and exits (slippage and brackets at 60 USD change costs only here), lower costs
    expect(ref.body.total_trades).toBe(dflt.body.total_trades)
    expect(ref.body.total_return_pct).toBeGreaterThan(dflt.body.total_return_pct)
    // without slippage the capacity curve is flat (fees and funding do not grow with size)
    const curve = ref.body.capacity.curve
    for (const p of curve) expect(p.total_return_pct).toBeCloseTo(curve[0].total_return_pct, 6)
    expect(ref.body.capacity.size_at_half_edge_usd).toBeNull()
  })

  test('a limit take profit pays the maker fee and fills only when traded through', async () => {
    const near = { ...BODY, tp_pct: 1, slippage: 'none', margin: 'flat' }
    const mkt = await h.req('/simulate', { method: 'POST', json: near })
    const lim = await h.req('/simulate', { method: 'POST', json: { ...near, tp_order: 'limit', maker_fee_pct: 0 } })
    expect(lim.status).toBe(200)
    expect(lim.body.execution.tp_order).toBe('limit')
    expect(mkt.body.tp_count).toBeGreaterThan(0)
    expect(lim.body.tp_count).toBeLessThanOrEqual(mkt.body.tp_count)
    expect(lim.body.costs.fees_usd).toBeLessThan(mkt.body.costs.fees_usd)
  })

  test('a leverage above the bracket of the position is a 422 naming the coin and the bracket', async () => {
    // 600 USD × 30 = 18,000 USD notional: the thin coins' bracket 2 allows at most 20×
    const r = await h.req('/simulate', { method: 'POST', json: { ...BODY, leverage: 30, per_coin_usd: 600 } })
    expect(r.status).toBe(422)
    const msgs = r.body.detail.map((d: any) => d.msg)
    expect(r.body.detail[0].loc).toEqual(['body', 'leverage'])
    expect(msgs.some((m: string) => m.startsWith('SOLUSDT: leverage 30 is above the maximum 20 of bracket 2'))).toBe(true)
    expect(msgs.some((m: string) => m.startsWith('BTCUSDT'))).toBe(false)
    // above the largest bracket
    const big = await h.req('/simulate', { method: 'POST', json: { ...BODY, leverage: 10, per_coin_usd: 100_000 } })
    expect(big.status).toBe(422)
    expect(big.body.detail.some((d: any) => d.msg.includes('above the largest bracket (bracket 3, up to 200000 USD)'))).toBe(true)
    // margin 'flat' asks for no bracket
    const flat = await h.req('/simulate', { method: 'POST', json: { ...BODY, leverage: 30, per_coin_usd: 600, margin: 'flat' } })
    expect(flat.status).toBe(200)
  })

  test.each([
    [{ slippage: 'fixed' }, 'slippage'],
    [{ tp_order: 'stop' }, 'tp_order'],
    [{ margin: 'cross' }, 'margin'],
    [{ impact_k: 6 }, 'impact_k'],
    [{ impact_k: -1 }, 'impact_k'],
    [{ maker_fee_pct: 2 }, 'maker_fee_pct'],
    [{ liquidation_fee_pct: 10 }, 'liquidation_fee_pct'],
  ])('%j is a 422 naming %s', async (over, field) => {
    const r = await h.req('/simulate', { method: 'POST', json: { ...BODY, ...over } })
    expect(r.status).toBe(422)
    expect(r.body.detail.some((d: any) => d.loc.includes(field))).toBe(true)
  })

  test('/backtest takes the same settings', async () => {
    const entry = { type: 'AND', conditions: [{ field: 'close', op: '>', value: { field: 'bb_upper' } }] }
    const a = await h.req('/backtest', { method: 'POST', json: { entry, indicators: { bb: {} }, top_n: 10, ...REFERENCE } })
    const b = await h.req('/backtest', { method: 'POST', json: { entry, indicators: { bb: {} }, top_n: 10 } })
    expect(a.status).toBe(200)
    expect(a.body.execution.slippage).toBe('none')
    expect(b.body.execution.slippage).toBe('impact')
    expect(b.body.costs.slippage_usd).toBeGreaterThan(0)
  })
})
