/**
 * The page's settings: read from and written to the address (the names /share uses), and
 * turned into request bodies that the server's own schemas accept (sent through the app).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Meta } from '../web/meta'
import { coinBody, compareBody, foldBacktestBody, optimizeBody, rowErrors, setPath, shareLink, simulatePlan, spaceDimension, sweepBody, validateBody, walkForwardBody } from '../web/requests'
import { DEFAULTS, fromQuery, merkleDayKey, resolveStrategyId, toQuery, type Settings } from '../web/settings'
import { fillWalkUniverse, makeHarness } from './helpers/harness'
import { T0 } from './research-fixtures'

const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'BNBUSDT', 'ADAUSDT']
const h = makeHarness({ fill: store => fillWalkUniverse(store, COINS, T0, 120, 5) })
afterAll(() => h.cleanup())

let meta: Meta
beforeAll(async () => {
  meta = {
    strategies: (await h.req('/strategies')).body,
    presets: (await h.req('/builder/presets')).body,
    indicators: (await h.req('/builder/indicators')).body,
    symbols: COINS,
  }
})
const ids = () => meta.strategies.map(s => s.id)
const presetIds = () => meta.presets.map(p => p.id)
const settings = (p: Partial<Settings>): Settings => ({ ...DEFAULTS, ...p })

describe('the address', () => {
  test('the query /share redirects with lands as those settings (fee stays a percent)', () => {
    const s = fromQuery('?strategy=bb-squeeze-short&dir=short&sl=10&tp=8&topN=10&lev=5&fee=0.04&from=2026-01-01&to=2026-03-01&tf=4H&bars=24&lang=ko', ids(), presetIds())
    expect(s).toMatchObject({ mode: 'registry', strategy: 'bb-squeeze-short', sl: '10', tp: '8', topN: '10', lev: '5', fee: '0.04', from: '2026-01-01', to: '2026-03-01', tf: '4H', bars: '24', lang: 'ko', view: 'simulate' })
  })

  test('strategy and dir resolve to a registry id; `preset` names a registry strategy or a builder preset', () => {
    expect(resolveStrategyId('bb-squeeze', 'long', ids())).toBe('bb-squeeze-long')
    expect(resolveStrategyId('bb-squeeze-short', 'long', ids())).toBe('bb-squeeze-long')
    expect(resolveStrategyId('ma-cross-long', null, ids())).toBe('ma-cross-long')
    expect(resolveStrategyId('no-such', 'long', ids())).toBe('no-such')
    expect(fromQuery('?preset=rsi-reversal&dir=short', ids(), presetIds())).toMatchObject({ mode: 'registry', strategy: 'rsi-reversal-short' })
    const builderPreset = presetIds()[0]
    expect(fromQuery(`?preset=${builderPreset}&dir=long`, ids(), presetIds())).toMatchObject({ mode: 'builder', preset: builderPreset })
  })

  test('settings survive the round trip through the query, a built strategy included', () => {
    const s = settings({
      mode: 'builder',
      builder: { name: 'Mine', dir: 'short', indicators: { rsi: { period: 9 } }, entry: { type: 'OR', conditions: [{ field: 'rsi', op: '>', value: 70 }] } },
      sl: '4',
      tp: '9',
      topN: '20',
      universe: 'symbols',
      symbols: 'BTCUSDT, ETHUSDT',
      comp: true,
      lang: 'ko',
      view: 'validate',
    })
    expect(fromQuery(`?${toQuery(s, { run: true })}`, ids(), presetIds())).toEqual(s)
    const r = settings({ strategy: 'ma-cross-long', lev: '3' })
    const q = new URLSearchParams(toQuery(r, { run: true }))
    expect(Object.fromEntries(q)).toEqual({ strategy: 'ma-cross-long', dir: 'long', lev: '3' })
  })

  test('the paper view keeps its cycle and the trust view its day in the address', () => {
    expect(fromQuery('?view=paper&cycle=2', ids(), presetIds())).toMatchObject({ view: 'paper', cycle: '2' })
    expect(fromQuery('?view=trust&day=2026-11-24&lang=ko', ids(), presetIds())).toMatchObject({ view: 'trust', tday: '2026-11-24', lang: 'ko' })
    const s = settings({ view: 'trust', tday: '2026-11-24', cycle: '3' })
    expect(fromQuery(`?${toQuery(s)}`, ids(), presetIds())).toEqual(s)
    // the latest cycle and yesterday are the defaults, so they stay out of the address
    expect(toQuery(settings({ view: 'paper' }))).toBe('view=paper')
    expect(merkleDayKey('2026-11-24')).toBe('20261124')
    expect(merkleDayKey('', Date.UTC(2026, 10, 25, 0, 30))).toBe('20261124')
    // not a day: sent as typed, for the server's 422
    expect(merkleDayKey('24.11.2026')).toBe('24.11.2026')
  })

  test('the merkle day a 422 names is shown under the day field: the route answers a bad day with loc date', async () => {
    const r = await h.req(`/trust/merkle/${merkleDayKey('2026-02-30')}`)
    expect(r.status).toBe(422)
    // web/api.ts reads the field as loc[1]
    expect(r.body.detail[0].loc[1]).toBe('date')
  })
})

describe('request bodies the server accepts', () => {
  test('a registry strategy over the top N goes to /simulate with the fee as a fraction; blanks take the strategy’s defaults', async () => {
    const plan = simulatePlan(settings({ strategy: 'ma-cross-long', topN: '4', fee: '0.04', lev: '2' }), meta)
    expect(plan.route).toBe('simulate')
    expect(plan.body).toMatchObject({ strategy: 'ma-cross-long', top_n: 4, fee_pct: 0.0004, leverage: 2 })
    const r = await h.req('/simulate', { method: 'POST', json: plan.body })
    expect(r.status).toBe(200)
    const st = meta.strategies.find(s => s.id === 'ma-cross-long')!
    expect(r.body).toMatchObject({ sl_pct: st.default_params.sl_pct, tp_pct: st.default_params.tp_pct, max_bars: st.default_params.max_bars, fee_pct: 0.0004, coins_used: 4 })
  })

  test('a registry strategy over a symbol list goes to /backtest as its own tree and defaults: the same trades as /simulate on those coins', async () => {
    const plan = simulatePlan(settings({ strategy: 'ma-cross-long', universe: 'symbols', symbols: 'btcusdt ethusdt' }), meta)
    expect(plan.route).toBe('backtest')
    const viaBacktest = await h.req('/backtest', { method: 'POST', json: plan.body })
    expect(viaBacktest.status).toBe(200)
    expect(viaBacktest.body.executed).toBe(true)
    expect(new Set(viaBacktest.body.trades.map((t: { symbol: string }) => t.symbol))).toEqual(new Set(['BTCUSDT', 'ETHUSDT']))
    const viaSimulate = await h.req('/simulate', { method: 'POST', json: simulatePlan(settings({ strategy: 'ma-cross-long', topN: '2' }), meta).body })
    expect(viaBacktest.body.total_trades).toBe(viaSimulate.body.total_trades)
    expect(viaBacktest.body.total_return_pct).toBeCloseTo(viaSimulate.body.total_return_pct, 9)
  })

  test('a built strategy goes to /backtest; validate, optimize, compare and coin bodies are accepted too', async () => {
    const b = settings({
      mode: 'builder',
      builder: { name: 'RSI high', dir: 'short', indicators: { rsi: {} }, entry: { type: 'AND', conditions: [{ field: 'rsi', op: '>', value: 60 }] } },
      topN: '3',
    })
    const plan = simulatePlan(b, meta)
    expect(plan.route).toBe('backtest')
    const bt = await h.req('/backtest', { method: 'POST', json: plan.body })
    expect(bt.status).toBe(200)
    expect(bt.body).toMatchObject({ name: 'RSI high', direction: 'short', executed: true })
    const v = await h.req('/simulate/validate', { method: 'POST', json: validateBody({ ...b, sims: '50' }) })
    expect(v.status).toBe(200)
    expect(v.body.monte_carlo.runs).toBe(50)
    const o = await h.req('/simulate/optimize', { method: 'POST', json: optimizeBody({ ...b, slGrid: '3, 6', tpGrid: '4 8' }) })
    expect(o.status).toBe(200)
    expect(o.body.sl_values).toEqual([3, 6])
    expect(o.body.tp_values).toEqual([4, 8])
    expect(o.body.objective).toBe('profit_factor')
    const vr = await h.req('/simulate/validate', { method: 'POST', json: validateBody(settings({ strategy: 'ma-cross-long', topN: '3', sims: '50' })) })
    expect(vr.status).toBe(200)
    const c = await h.req('/simulate/compare', { method: 'POST', json: compareBody(settings({ cmpN: '2' })) })
    expect(c.status).toBe(200)
    const coin = await h.req('/simulate/coin', { method: 'POST', json: coinBody(settings({ symbol: 'ethusdt', strategy: 'ma-cross-long' }), meta) })
    expect(coin.status).toBe(200)
    expect(coin.body.symbol).toBe('ETHUSDT')
  })

  test("compare's body carries the Execution group's settings; each strategy's costs answer them", async () => {
    const body = compareBody(settings({ cmpN: '2', slip: 'none', tpOrder: 'limit', intrabar: 'bar' }))
    expect(body).toMatchObject({ top_n: 2, slippage: 'none', tp_order: 'limit', intrabar: 'bar', impact_k: 1, maker_fee_pct: 0.02, liquidation_fee_pct: 1.25, margin: 'brackets' })
    const c = await h.req('/simulate/compare', { method: 'POST', json: body })
    expect(c.status).toBe(200)
    for (const row of c.body.strategies) {
      expect(row.costs.slippage_usd).toBe(0)
      expect(row.intrabar.mode).toBe('bar')
    }
    const d = await h.req('/simulate/compare', { method: 'POST', json: compareBody(settings({ cmpN: '2' })) })
    expect(d.body.strategies.some((row: { costs: { slippage_usd: number } }) => row.costs.slippage_usd > 0)).toBe(true)
  })

  test('nothing is clamped: a value out of range or not a number is sent as typed and the 422 names its field', async () => {
    const plan = simulatePlan(settings({ strategy: 'ma-cross-long', sl: '99', tp: 'abc', topN: '3' }), meta)
    expect(plan.body).toMatchObject({ sl_pct: 99, tp_pct: 'abc' })
    const r = await h.req('/simulate', { method: 'POST', json: plan.body })
    expect(r.status).toBe(422)
    expect(r.body.detail.map((d: { loc: string[] }) => d.loc[1]).sort()).toEqual(['sl_pct', 'tp_pct'])
  })
})

describe('the research bodies', () => {
  const space = JSON.stringify([
    { path: 'sl_pct', values: '3,6' },
    { path: 'indicators.ema.fast', values: '20:40:20' },
  ])

  test('a space row is a list (words kept: timeframes) or a range min:max:step', () => {
    expect(spaceDimension({ path: ' sl_pct ', values: '3, 5 8' })).toEqual({ path: 'sl_pct', values: [3, 5, 8] })
    expect(spaceDimension({ path: 'timeframe', values: '1H,4H' })).toEqual({ path: 'timeframe', values: ['1H', '4H'] })
    expect(spaceDimension({ path: 'tp_pct', values: '2:10:2' })).toEqual({ path: 'tp_pct', min: 2, max: 10, step: 2 })
    const o: Record<string, unknown> = { entry: { conditions: [{ value: 1 }, { value: 2 }] } }
    setPath(o, 'entry.conditions[1].value', 9)
    setPath(o, 'indicators.bb.period', 30)
    expect(o).toEqual({ entry: { conditions: [{ value: 1 }, { value: 9 }] }, indicators: { bb: { period: 30 } } })
  })

  test('a sweep and a walk-forward run as the page sends them are accepted; a fold’s in-sample curve is the run the walk-forward chose', async () => {
    const s = settings({ view: 'walkforward', strategy: 'ma-cross-long', topN: '3', minTrades: '0', space, isDays: '30', oosDays: '15', folds: '2' })
    const sw = await h.req('/research/sweeps', { method: 'POST', json: sweepBody(s) })
    expect(sw.status).toBe(202)
    const wf = await h.req('/research/walk-forward', { method: 'POST', json: walkForwardBody(s) })
    expect(wf.status).toBe(202)
    let r: any
    for (let k = 0; k < 600; k++) {
      r = (await h.req(`/research/walk-forward/${wf.body.id}`)).body
      if (r.state !== 'queued' && r.state !== 'running') break
      await Bun.sleep(50)
    }
    expect(r.state).toBe('done')
    expect(r.folds).toHaveLength(2)
    for (const f of r.folds.filter((x: any) => x.params)) {
      // the page's /backtest of the fold's parameters over its in-sample dates: the registry tree with the path set
      const body = foldBacktestBody(s, meta, r.space, f.params, f.in_sample.start_date, f.in_sample.end_date)
      expect((body.indicators as any).ema.fast).toBe(f.params['indicators.ema.fast'])
      const bt = await h.req('/backtest', { method: 'POST', json: body })
      expect(bt.status).toBe(200)
      expect(bt.body.total_trades).toBe(f.in_sample.metrics.total_trades)
      expect(bt.body.sharpe_ratio).toBeCloseTo(f.in_sample.metrics.sharpe_ratio, 9)
    }
  }, 60_000)
})

describe('reading results', () => {
  test('validation errors go to the condition row they name', () => {
    const { rows, rest } = rowErrors(["entry.conditions[1].field: unknown field 'rsix' (did you mean rsi?)", 'entry.field: unknown field', "indicators.rsi.period: must be ≥ 2"])
    expect([...rows.entries()]).toEqual([
      [1, ["entry.conditions[1].field: unknown field 'rsix' (did you mean rsi?)"]],
      [0, ['entry.field: unknown field']],
    ])
    expect(rest).toEqual(['indicators.rsi.period: must be ≥ 2'])
  })

  test('the share link carries /share’s names, or is null when /share cannot describe the run', () => {
    const r = { sl_pct: 6, tp_pct: 12, top_n_requested: 50, leverage: 2, direction: 'long' }
    const link = shareLink(settings({ strategy: 'ma-cross-long', fee: '0.04', from: '2026-01-01', lang: 'ko' }), r, 'http://x')!
    expect(link).toBe('http://x/share?preset=ma-cross-long&dir=long&sl=6&tp=12&topN=50&lev=2&fee=0.04&from=2026-01-01&lang=ko')
    expect(shareLink(settings({ mode: 'builder' }), r, 'http://x')).toBeNull()
    expect(shareLink(settings({ universe: 'symbols', symbols: 'BTCUSDT' }), r, 'http://x')).toBeNull()
    expect(shareLink(settings({ tf: '4H' }), r, 'http://x')).toBeNull()
    expect(shareLink(settings({ comp: true }), r, 'http://x')).toBeNull()
  })
})
