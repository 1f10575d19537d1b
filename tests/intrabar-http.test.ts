/**
 * The request field `intrabar` and the answer's `intrabar` block (docs/api.md), on a
 * synthetic store (every coin has derived minutes) and on a store without any detail.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { generateSyntheticUniverse } from '../src/market/synthetic'
import { responseBody } from '../src/runs/present'
import { simulateSpec } from '../src/runs/simulate-spec'
import { fillWalkUniverse } from './helpers/fixtures'
import { makeHarness } from './helpers/harness'

const NOW = Date.UTC(2026, 10, 22)
const synthetic = makeHarness({ nowMs: NOW, fill: store => generateSyntheticUniverse(store, { coins: 12, days: 150, seed: 5, endMs: NOW }) })
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT']
const plain = makeHarness({ nowMs: NOW, fill: store => fillWalkUniverse(store, COINS, Date.UTC(2025, 0, 1), 150, 3) })
afterAll(() => {
  synthetic.cleanup()
  plain.cleanup()
})

const RUN = { strategy: 'bb-squeeze-short', top_n: 535, sl_pct: 1, tp_pct: 1.5 }

describe('intrabar on a store with minute detail', () => {
  test('the default replays the ambiguous bars; the bar rule\'s figures sit beside the detail ones', async () => {
    const r = await synthetic.req('/simulate', { method: 'POST', json: RUN })
    expect(r.status).toBe(200)
    const ib = r.body.intrabar
    expect(ib.mode).toBe('detail')
    expect(ib.detail_timeframe).toBe('1m')
    expect(ib.bars_replayed).toBeGreaterThan(0)
    expect(ib.bars_left_to_rule).toBe(0)
    expect(ib.coins_without_detail).toBe(0)
    expect(ib.trades_changed).toBeGreaterThan(0)
    expect(ib.rule_bias.detail).toEqual({ total_return_pct: r.body.total_return_pct, win_rate: r.body.win_rate, profit_factor: r.body.profit_factor })
    const resolutions = new Set(r.body.trades.map((t: any) => t.exit_resolution))
    expect(resolutions).toEqual(new Set(['detail', 'bar']))
    expect(r.body.warnings.some((w: string) => w.startsWith('intrabar'))).toBe(false)

    // intrabar "bar" is today's rule: exactly the figures rule_bias gave for it
    const bar = await synthetic.req('/simulate', { method: 'POST', json: { ...RUN, intrabar: 'bar' } })
    expect(bar.status).toBe(200)
    expect(bar.body.intrabar).toEqual({ mode: 'bar', detail_timeframe: null, bars_replayed: 0, bars_left_to_rule: 0, trades_changed: 0, coins_without_detail: 0, rule_bias: null })
    expect(ib.rule_bias.bar.win_rate).toBeCloseTo(bar.body.win_rate, 6)
    expect(ib.rule_bias.bar.profit_factor).toBeCloseTo(bar.body.profit_factor, 6)
    expect(ib.rule_bias.bar.total_return_pct).toBeCloseTo(bar.body.total_return_pct, 4)
    expect(bar.body.trades.every((t: any) => t.exit_resolution === 'bar')).toBe(true)
    expect(bar.body.result_hash).not.toBe(r.body.result_hash)
  })

  test('a replayed exit is stamped at its minute, not the bar\'s midpoint', async () => {
    const r = await synthetic.req('/simulate', { method: 'POST', json: RUN })
    const detail = r.body.trades.filter((t: any) => t.exit_resolution === 'detail')
    expect(detail.length).toBeGreaterThan(0)
    for (const t of detail) {
      const ms = Date.parse(t.exit_time)
      expect(ms % 60_000).toBe(30_000) // a minute's midpoint (no gaps inside a synthetic hour)
    }
  })

  test('/backtest and /simulate/coin take it too', async () => {
    const bt = await synthetic.req('/backtest', {
      method: 'POST',
      json: { entry: { field: 'close', op: '>', value: 0 }, top_n: 3, sl_pct: 1, tp_pct: 1, max_bars: 12, intrabar: 'detail_required' },
    })
    expect(bt.status).toBe(200)
    expect(bt.body.intrabar.mode).toBe('detail_required')
    expect(bt.body.intrabar.bars_replayed).toBeGreaterThan(0)
  })

  test("intrabar 'bar' is the model before the setting: the same trades, figures and curves as a spec stored without it", async () => {
    const body = { strategy: 'bb-squeeze-short', market_type: 'futures' as const, top_n: 535, timeframe: '1H' as const, start_date: null, end_date: null, leverage: 3, fee_pct: null, per_coin_usd: 60, max_concurrent_positions: 100, compounding: false, include_stablecoins: false, sl_pct: 1, tp_pct: 1.5, intrabar: 'bar' as const }
    const withBar = simulateSpec(body)
    const { intrabar: _drop, ...without } = withBar
    const a = responseBody(await synthetic.deps.runs.run(withBar))
    const b = responseBody(await synthetic.deps.runs.run(without))
    expect(b.intrabar).toBeUndefined()
    // everything but the statistics (their resampling is seeded by the result hash, which the setting is part of)
    const run = (x: any) => [x.trades, x.equity_curve, x.coin_results, x.monthly_stats, x.warnings, x.total_trades, x.total_return_pct, x.win_rate, x.profit_factor, x.max_drawdown_pct, x.sharpe_ratio, x.sl_count, x.tp_count, x.liquidation_count]
    expect(run(a)).toEqual(run(b))
    expect(a.trades.some(t => t.sl_tp_same_bar)).toBe(true)
  })

  test('an unknown value is a 422 naming the field', async () => {
    const r = await synthetic.req('/simulate', { method: 'POST', json: { ...RUN, intrabar: 'minute' } })
    expect(r.status).toBe(422)
    expect(JSON.stringify(r.body.detail)).toContain('intrabar')
  })
})

describe('intrabar on a store without detail', () => {
  test("'detail' resolves by the bar rule, counts the bars and warns; the figures are the bar rule's", async () => {
    const body = { entry: { field: 'close', op: '>', value: 0 }, symbols: COINS, sl_pct: 0.5, tp_pct: 0.5, max_bars: 12 }
    const d = await plain.req('/backtest', { method: 'POST', json: body })
    const b = await plain.req('/backtest', { method: 'POST', json: { ...body, intrabar: 'bar' } })
    expect(d.status).toBe(200)
    expect(d.body.trades.some((t: any) => t.sl_tp_same_bar)).toBe(true)
    expect(d.body.intrabar.coins_without_detail).toBe(COINS.length)
    expect(d.body.intrabar.bars_replayed).toBe(0)
    expect(d.body.intrabar.bars_left_to_rule).toBeGreaterThan(0)
    expect(d.body.warnings.some((w: string) => w.startsWith('intrabar:') && w.includes('BTCUSDT'))).toBe(true)
    for (const k of ['total_trades', 'total_return_pct', 'win_rate', 'profit_factor', 'max_drawdown_pct']) expect(d.body[k]).toBe(b.body[k])
  })

  test("'detail_required' is a 422 naming the coins without detail", async () => {
    const r = await plain.req('/simulate', { method: 'POST', json: { ...RUN, intrabar: 'detail_required' } })
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['body', 'intrabar'])
    for (const s of COINS) expect(r.body.detail[0].msg).toContain(s)
  })
})
