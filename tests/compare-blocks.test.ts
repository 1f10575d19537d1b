/**
 * /simulate/compare answers each strategy's `intrabar`, `costs` and `capacity` (issue 25
 * §1–2; docs/api.md "POST /simulate/compare"): the blocks /simulate and /simulate/coin
 * answer for the same strategy on the same coins, built by the same code on the workers
 * (and read from a cached full result when there is one), and its request takes the
 * execution settings /simulate takes.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { generateSyntheticUniverse } from '../src/market/synthetic'
import { executionSpecOf } from '../src/runs/execution-spec'
import { registrySpec } from '../src/runs/spec'
import { listStrategies } from '../src/strategies/registry'
import { fillWalkUniverse } from './helpers/fixtures'
import { makeHarness } from './helpers/harness'

const NOW = Date.UTC(2026, 10, 22)
// every coin of a synthetic store has (derived) minutes: the ambiguous bars are replayed
const synthetic = makeHarness({ nowMs: NOW, fill: store => generateSyntheticUniverse(store, { coins: 10, days: 150, seed: 7, endMs: NOW }) })
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT']
const plain = makeHarness({
  nowMs: NOW,
  fill: store => {
    fillWalkUniverse(store, COINS, Date.UTC(2025, 0, 1), 150, 4)
    store.addBrackets({ asOfMs: Date.UTC(2025, 0, 1), source: 'import', brackets: { ETHUSDT: [{ bracket: 1, floorUsd: 0, capUsd: 50_000, mmrFrac: 0.004, cumUsd: 0, maxLeverage: 125 }] } })
  },
})
afterAll(() => {
  synthetic.cleanup()
  plain.cleanup()
})

/** tight exits: many bars touch both the stop and the take profit, so replays change trades */
const EXITS = { sl_pct: 1, tp_pct: 1.5, max_bars: 24 }
const NO_CACHE = { 'cache-control': 'no-cache' }
const blocks = (x: any) => ({ intrabar: x.intrabar, costs: x.costs, capacity: x.capacity })
const byId = (body: any, id: string) => body.strategies.find((s: any) => s.strategy_id === id)

describe('each compared strategy carries its intrabar, costs and capacity', () => {
  test('every strategy row has the three blocks, complete', async () => {
    const r = await synthetic.req('/simulate/compare', { method: 'POST', json: { ...EXITS, top_n: 3 }, headers: NO_CACHE })
    expect(r.status).toBe(200)
    expect(r.body.strategies.map((s: any) => s.strategy_id)).toEqual(listStrategies().map(s => s.id))
    for (const row of r.body.strategies) {
      expect(row.intrabar.mode).toBe('detail')
      expect(row.intrabar.detail_timeframe).toBe('1m')
      expect(row.intrabar.coins_without_detail).toBe(0)
      expect(Object.keys(row.costs).sort()).toEqual(['fees_pct', 'fees_usd', 'funding_pct', 'funding_usd', 'slippage_pct', 'slippage_usd', 'traded_notional_usd'])
      expect(row.capacity.curve.map((p: any) => p.multiple)).toEqual([1, 10, 100, 1000, 10000])
      expect(row.capacity.curve[0].per_coin_usd).toBe(60)
      // the detail side of rule_bias is the row's own figures
      expect(row.intrabar.rule_bias.detail).toEqual({ total_return_pct: row.total_return_pct, win_rate: row.win_rate, profit_factor: row.profit_factor })
      if (row.total_trades > 0) expect(row.costs.fees_usd).toBeGreaterThan(0)
      else expect(row.costs.traded_notional_usd).toBe(0)
    }
    // the tight exits make the minutes decide some trades differently from the bar rule
    expect(r.body.strategies.some((s: any) => s.intrabar.trades_changed > 0)).toBe(true)
    // the contract's fields are still there
    for (const k of ['strategy_id', 'name', 'win_rate', 'profit_factor', 'total_trades']) expect(r.body.strategies[0]).toHaveProperty(k)
  })

  test('the blocks equal /simulate\'s for the same strategy and coins, computed on the workers and read from a cached result alike', async () => {
    const first = await synthetic.req('/simulate/compare', { method: 'POST', json: { ...EXITS, top_n: 3 }, headers: NO_CACHE })
    expect(first.status).toBe(200)
    const changed = first.body.strategies.filter((s: any) => s.intrabar.trades_changed > 0 && s.total_trades > 0).map((s: any) => s.strategy_id)
    expect(changed.length).toBeGreaterThan(0)
    const ids = [...new Set(['bb-squeeze-short', changed[0]])]
    for (const id of ids) {
      const sim = await synthetic.req('/simulate', { method: 'POST', json: { strategy: id, top_n: 3, ...EXITS } })
      expect(sim.status).toBe(200)
      expect(sim.body.total_trades).toBe(byId(first.body, id).total_trades)
      expect(blocks(byId(first.body, id))).toEqual(blocks(sim.body))
    }
    // a full result of the same run is now cached: a compare that may read it answers the same
    const second = await synthetic.req('/simulate/compare', { method: 'POST', json: { ...EXITS, top_n: 3 } })
    expect(second.status).toBe(200)
    expect(second.body.strategies.map(blocks)).toEqual(first.body.strategies.map(blocks))
  })

  test('on one coin they equal /simulate/coin\'s costs and capacity and /simulate\'s intrabar', async () => {
    const cmp = await synthetic.req('/simulate/compare', { method: 'POST', json: { ...EXITS, top_n: 1 }, headers: NO_CACHE })
    expect(cmp.status).toBe(200)
    for (const id of ['bb-squeeze-short', 'donchian-breakout-long']) {
      const row = byId(cmp.body, id)
      const sim = await synthetic.req('/simulate', { method: 'POST', json: { strategy: id, top_n: 1, ...EXITS } })
      expect(sim.status).toBe(200)
      const symbol = sim.body.coin_results[0].symbol
      const coin = await synthetic.req('/simulate/coin', { method: 'POST', json: { symbol, strategy: id, ...EXITS } })
      expect(coin.status).toBe(200)
      expect(coin.body.total_trades).toBe(row.total_trades)
      expect(row.costs).toEqual(coin.body.costs)
      expect(row.capacity).toEqual(coin.body.capacity)
      expect(row.intrabar).toEqual(sim.body.intrabar)
    }
  })

  test('metrics cached without the blocks (a metrics-only batch of the same runs) do not leave a compare without them', async () => {
    // the specs compare builds for its body, run first as a metrics-only batch (as the hot strategies run theirs)
    const body = { ...EXITS, top_n: 2 }
    const specs = listStrategies().map(s => synthetic.deps.runs.withUniverse(registrySpec(s, { slPct: body.sl_pct, tpPct: body.tp_pct, maxBars: body.max_bars, topN: 2, ...executionSpecOf({}) }), {}))
    const bare = await synthetic.deps.runs.batch(specs)
    expect(bare.runs.every(r => r.report === undefined)).toBe(true)
    const r = await synthetic.req('/simulate/compare', { method: 'POST', json: body })
    expect(r.status).toBe(200)
    r.body.strategies.forEach((row: any, i: number) => {
      expect(row.total_trades).toBe(bare.runs[i].metrics.total_trades)
      expect(row.costs).toBeDefined()
      expect(row.capacity.curve.length).toBe(5)
      expect(row.intrabar.mode).toBe('detail')
    })
  })
})

describe('compare takes the execution settings', () => {
  test("slippage 'none', a limit take profit and intrabar 'bar' reach every strategy's run and blocks", async () => {
    const r = await synthetic.req('/simulate/compare', { method: 'POST', json: { ...EXITS, top_n: 2, slippage: 'none', tp_order: 'limit', intrabar: 'bar' } })
    expect(r.status).toBe(200)
    for (const row of r.body.strategies) {
      expect(row.costs.slippage_usd).toBe(0)
      expect(row.intrabar).toEqual({ mode: 'bar', detail_timeframe: null, bars_replayed: 0, bars_left_to_rule: 0, trades_changed: 0, coins_without_detail: 0, rule_bias: null })
    }
    const d = await synthetic.req('/simulate/compare', { method: 'POST', json: { ...EXITS, top_n: 2 } })
    expect(d.body.strategies.some((s: any) => s.costs.slippage_usd > 0)).toBe(true)
    // the same settings on /simulate give the same blocks
    const sim = await synthetic.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-short', top_n: 2, ...EXITS, slippage: 'none', tp_order: 'limit', intrabar: 'bar' } })
    expect(blocks(byId(r.body, 'bb-squeeze-short'))).toEqual(blocks(sim.body))
  })

  test('an unknown value or impact_k out of range is a 422 naming the field', async () => {
    for (const [field, value] of [['slippage', 'free'], ['tp_order', 'iceberg'], ['impact_k', 9], ['intrabar', 'tick']] as const) {
      const r = await synthetic.req('/simulate/compare', { method: 'POST', json: { top_n: 2, [field]: value } })
      expect(r.status).toBe(422)
      expect(r.body.detail[0].loc).toEqual(['body', field])
    }
  })

  test('on a store without minutes: the bars are left to the rule and the coins counted; brackets and margin reach costs', async () => {
    const r = await plain.req('/simulate/compare', { method: 'POST', json: { top_n: 3 } })
    expect(r.status).toBe(200)
    for (const row of r.body.strategies) {
      expect(row.intrabar.mode).toBe('detail')
      expect(row.intrabar.coins_without_detail).toBe(3)
      expect(row.intrabar.bars_replayed).toBe(0)
      expect(row.intrabar.trades_changed).toBe(0)
    }
    const sim = await plain.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-short', top_n: 3, sl_pct: 10, tp_pct: 8, max_bars: 48 } })
    expect(blocks(byId(r.body, 'bb-squeeze-short'))).toEqual(blocks(sim.body))
    const req = await plain.req('/simulate/compare', { method: 'POST', json: { top_n: 3, intrabar: 'detail_required' } })
    expect(req.status).toBe(422)
    expect(req.body.detail[0].loc).toEqual(['body', 'intrabar'])
  })
})
