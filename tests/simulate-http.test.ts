import { afterAll, describe, expect, test } from 'bun:test'
import { listStrategies } from '../src/strategies/registry'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const T0 = Date.UTC(2025, 0, 1)
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'BNBUSDT', 'ADAUSDT', 'DOGEUSDT']

const fill = (store: any) => fillWalkUniverse(store, COINS, T0, 150, 11)

const h = makeHarness({ fill })
afterAll(() => h.cleanup())

describe('POST /simulate', () => {
  test('runs a registry strategy with the universe accounting and a result hash', async () => {
    const r = await h.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-short', top_n: 535 } })
    expect(r.status).toBe(200)
    expect(r.body.strategy).toBe('bb-squeeze-short')
    expect(r.body.top_n_requested).toBe(535)
    expect(r.body.eligible_universe).toBe(7)
    expect(r.body.universe_capped).toBe(true)
    expect(r.body.coins_used).toBe(7)
    for (const k of ['direction', 'total_trades', 'win_rate', 'profit_factor', 'total_return_pct', 'sharpe_ratio', 'max_drawdown_pct', 'avg_bars_held', 'coins_missing_data', 'reliability_warning', 'reliability_checks', 'equity_curve'])
      expect(r.body).toHaveProperty(k)
  })

  test('deflated_sharpe is the DSR (a number), its computation deflated_sharpe_info; exit counts add up; the run stops at ruin by default', async () => {
    const r = await h.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-short', top_n: 535 } })
    expect(typeof r.body.deflated_sharpe).toBe('number')
    expect(r.body.deflated_sharpe_info.dsr).toBe(r.body.deflated_sharpe)
    const counts = (x: any) => x.tp_count + x.sl_count + x.timeout_count + x.trailing_count + x.signal_count + x.liquidation_count + x.end_of_data_count
    expect(counts(r.body)).toBe(r.body.total_trades)
    for (const c of r.body.coin_results) expect(counts(c)).toBe(c.trades)
    expect(r.body.stop_at_ruin).toBe(true)
    expect(r.body.ruined_at).toBeNull()
    expect(r.body.ruin_index).toBeNull()
  })

  test('stop_at_ruin is part of the run: false is another result hash, and ruin is reported in both', async () => {
    const json = { strategy: 'bb-squeeze-short', top_n: 535, leverage: 100, max_concurrent_positions: 1 }
    const stop = await h.req('/simulate', { method: 'POST', json })
    const fresh = await h.req('/simulate', { method: 'POST', json: { ...json, stop_at_ruin: false } })
    expect(stop.body.result_hash).not.toBe(fresh.body.result_hash)
    expect(stop.body.ruined_at).not.toBeNull()
    expect(fresh.body.ruined_at).toBe(stop.body.ruined_at)
    expect(fresh.body.stop_at_ruin).toBe(false)
    expect(fresh.body.total_trades).toBeGreaterThan(stop.body.total_trades)
    for (const b of [stop.body, fresh.body]) {
      expect(b.max_drawdown_pct).toBeLessThanOrEqual(100)
      expect(b.reliability_checks.find((c: any) => c.axis_id === 'ruin').verdict).toBe('fail')
    }
  })

  test('an unknown strategy id is a 404 listing the valid ids', async () => {
    const r = await h.req('/simulate', { method: 'POST', json: { strategy: 'nope-short' } })
    expect(r.status).toBe(404)
    expect(r.body.detail).toContain('bb-squeeze-short')
  })

  test('spot runs have no funding and no leverage', async () => {
    const r = await h.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-long', market_type: 'spot' } })
    expect(r.body.leverage).toBe(1)
    expect(r.body.total_funding_pct).toBe(0)
    expect(r.body.fee_pct).toBe(0.001)
  })

  test('fee_pct above 0.01 is a 422', async () => {
    const r = await h.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-long', fee_pct: 0.05 } })
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['body', 'fee_pct'])
  })
})

describe('POST /simulate/coin', () => {
  test('results stay within tp, sl and timeout and each trade says why it closed', async () => {
    const r = await h.req('/simulate/coin', { method: 'POST', json: { symbol: 'BTCUSDT', sl_pct: 2, tp_pct: 2, max_bars: 24 } })
    expect(r.status).toBe(200)
    expect(r.body.strategy).toBe('bb-squeeze-short')
    expect(r.body.total_trades).toBe(r.body.trades.length)
    for (const t of r.body.trades) {
      expect(['tp', 'sl', 'timeout']).toContain(t.result)
      expect(['tp', 'sl', 'trailing', 'signal', 'timeout', 'liquidation', 'end_of_data']).toContain(t.exit_reason)
    }
    // one count per exit reason, each counting only its own exits
    const counts = { tp: r.body.tp_count, sl: r.body.sl_count, timeout: r.body.timeout_count, trailing: r.body.trailing_count, signal: r.body.signal_count, liquidation: r.body.liquidation_count, end_of_data: r.body.end_of_data_count }
    for (const [reason, n] of Object.entries(counts)) expect([reason, n]).toEqual([reason, r.body.trades.filter((t: any) => t.exit_reason === reason).length])
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(r.body.total_trades)
  })

  test('a liquidation is counted as one, and the ruin it causes is reported', async () => {
    const r = await h.req('/simulate/coin', { method: 'POST', json: { symbol: 'XRPUSDT', sl_pct: 20, tp_pct: 20, max_bars: 48, leverage: 100 } })
    expect(r.body.liquidation_count).toBeGreaterThan(0)
    expect(r.body.sl_count).toBe(r.body.trades.filter((t: any) => t.exit_reason === 'sl').length)
    expect(r.body.ruined_at).not.toBeNull()
    expect(r.body.stop_at_ruin).toBe(true)
    expect(r.body.max_drawdown_pct).toBeLessThanOrEqual(100)
  })

  test('an unknown symbol is a 404', async () => {
    const r = await h.req('/simulate/coin', { method: 'POST', json: { symbol: 'NOPEUSDT' } })
    expect(r.status).toBe(404)
  })
})

describe('POST /simulate/compare', () => {
  test('runs every registry strategy on 5 coins when top_n is null', async () => {
    const r = await h.req('/simulate/compare', { method: 'POST', json: {} })
    expect(r.status).toBe(200)
    expect(r.body.top_n_requested).toBe(5)
    expect(r.body.coins_used).toBe(5)
    expect(r.body.strategies.map((s: any) => s.strategy_id)).toEqual(listStrategies().map(s => s.id))
    expect(r.body.run_cap).toBeNull()
    expect(r.body.run_cap_reason).toBeNull()
    expect(r.body.coins_not_computed).toEqual([])
    // each row says whether its run was ruined, and its drawdown is the portfolio's (at most 100 %)
    for (const row of r.body.strategies) {
      expect(row).toHaveProperty('ruined_at')
      expect(row.max_drawdown_pct).toBeLessThanOrEqual(100)
    }
  })

  test("each strategy's figures are those /simulate gives for it on the same coins and exits", async () => {
    const exits = { sl_pct: 4, tp_pct: 6, max_bars: 30 }
    const r = await h.req('/simulate/compare', { method: 'POST', json: { ...exits, top_n: 3 } })
    expect(r.status).toBe(200)
    for (const id of ['bb-squeeze-short', 'donchian-breakout-long', 'ma-cross-long']) {
      const c = r.body.strategies.find((s: any) => s.strategy_id === id)
      const one = await h.req('/simulate', { method: 'POST', json: { strategy: id, top_n: 3, ...exits } })
      const pick = (x: any) => [x.total_trades, x.win_rate, x.profit_factor, x.total_return_pct, x.max_drawdown_pct, x.sharpe_ratio]
      expect(pick(c)).toEqual(pick(one.body))
      expect(r.body.data_range).toBe(one.body.data_range)
    }
    expect(r.body.strategies.some((s: any) => s.total_trades > 0)).toBe(true)
  })

  test('top_n from 6 to 535 is a 400 that names /simulate', async () => {
    for (const n of [6, 535]) {
      const r = await h.req('/simulate/compare', { method: 'POST', json: { top_n: n } })
      expect(r.status).toBe(400)
      expect(r.body.detail).toMatchObject({ max_top_n: 5, requested: n, alternative: '/simulate' })
    }
  })

  test('top_n above 535 is a 422', async () => {
    const r = await h.req('/simulate/compare', { method: 'POST', json: { top_n: 536 } })
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['body', 'top_n'])
  })
})

describe('GET /export/csv', () => {
  test('lists every trade of a result with a header, also after the cache is gone', async () => {
    const r = await h.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-short', sl_pct: 3, tp_pct: 3 } })
    const csv = await h.req(`/export/csv?hash=${r.body.result_hash}`)
    expect(csv.status).toBe(200)
    expect(csv.headers.get('content-type')).toContain('text/csv')
    const lines = String(csv.body).trim().split('\n')
    expect(lines[0]).toBe('symbol,direction,entry_time,exit_time,entry_price,exit_price,bars_held,exit_reason,pnl_pct,pnl_usd,fee_pct,funding_pct,sl_tp_same_bar,slippage_pct')
    expect(lines.length - 1).toBe(r.body.total_trades)
    // a new service over the same DB (a restart) recomputes from the stored request
    const { RunService } = await import('../src/runs/service')
    const { inProcessTransport } = await import('../src/runs/transport')
    const fresh = new RunService({ ...h.deps, transport: inProcessTransport(h.deps.store), cacheSize: 0 })
    const again = await fresh.byHash(r.body.result_hash)
    expect(again!.assembled.portfolio.trades.n).toBe(r.body.total_trades)
  })

  test('a cached result lists the same trades after other runs have merged theirs into the columns it was merged in', async () => {
    // a run's table of every candidate trade is written into columns kept for the next run
    // (trade-table.ts MergeColumns); a portfolio taking every trade (a slot per coin here)
    // must keep copies of its rows, not those columns
    const noCache = { 'cache-control': 'no-cache' }
    const a = { strategy: 'bb-squeeze-short', top_n: 535, max_concurrent_positions: 7 }
    const first = await h.req('/simulate', { method: 'POST', json: a, headers: noCache })
    const csv = await h.req(`/export/csv?hash=${first.body.result_hash}`)
    expect(first.body.total_trades).toBeGreaterThan(0)
    // the same signals with wider exits: fewer candidates, merged into the same columns
    for (const b of [
      { ...a, sl_pct: 20, tp_pct: 20 },
      { ...a, sl_pct: 15, tp_pct: 25, leverage: 2 },
    ])
      expect((await h.req('/simulate', { method: 'POST', json: b, headers: noCache })).status).toBe(200)
    const again = await h.req('/simulate', { method: 'POST', json: a })
    const { compute_time_ms: _a, ...before } = first.body
    const { compute_time_ms: _b, ...after } = again.body
    expect(after).toEqual(before)
    expect((await h.req(`/export/csv?hash=${first.body.result_hash}`)).body).toBe(csv.body)
  })

  test('an unknown hash is a 404 and a malformed one a 422', async () => {
    expect((await h.req(`/export/csv?hash=${'0'.repeat(64)}`)).status).toBe(404)
    expect((await h.req('/export/csv?hash=xyz')).status).toBe(422)
  })
})

describe('daily marks computed with the trades in the workers', () => {
  test('give the curve the portfolio computes from the candles itself, on 1H and 4H, long and leveraged', async () => {
    const { runPortfolio } = await import('../src/engine/portfolio')
    const { daySpan } = await import('../src/engine/run')
    for (const json of [
      { strategy: 'bb-squeeze-short', top_n: 535, max_bars: 96 },
      { strategy: 'donchian-breakout-long', top_n: 535, timeframe: '4H', leverage: 3, max_bars: 40, max_concurrent_positions: 3 },
    ]) {
      const r = await h.req('/simulate', { method: 'POST', json })
      const run = (await h.deps.runs.byHash(r.body.result_hash))!
      const p = run.assembled.portfolio
      expect(p.trades.marks!.move.length).toBeGreaterThan(0)
      const span = daySpan(run.assembled.portfolio.trades.n ? [{ fromMs: p.equityCurve[0].tMs, toMs: p.equityCurve.at(-1)!.tMs }] : [])!
      // the same accepted trades without their marks: runPortfolio values them on the 1H candles
      const { marks, marginUsd, pnlUsd, ...plain } = p.trades
      const again = runPortfolio(plain, { perCoinUsd: 60, maxConcurrent: run.spec.maxConcurrent, compounding: false, leverage: run.spec.leverage, coinCount: run.symbols.length }, { barsOf: s => h.deps.store.bars(s), ...span })
      expect(again.trades.n).toBe(p.trades.n)
      expect(again.equityCurve).toEqual(p.equityCurve)
    }
  })
})
