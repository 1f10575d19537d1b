import { tradesInEntryOrder } from '../src/engine/portfolio'
import { afterAll, describe, expect, test } from 'bun:test'
import { dailyReturns } from '../src/engine/metrics'
import { deflatedSharpe, edgePValue, walkForward } from '../src/engine/statistics'
import { bootstrapResamples, mcCoins, MC_SIMULATIONS } from '../src/runs/statistics-inputs'
import { getStrategy, listStrategies } from '../src/strategies/registry'
import { makeHarness, walkCandles } from './helpers/harness'
import { addCoins, BULLISH, DAY, drift, pumps, T0 } from './research-fixtures'

const STATS = [
  'edge_p_value', 'walk_forward_consistency', 'walk_forward_details', 'deflated_sharpe', 'deflated_sharpe_info', 'dsr_haircut_pct', 'mc_p_value', 'mc_percentile',
  'jensens_alpha', 'profit_factor_ci', 'sharpe_ci', 'regime_performance', 'strategy_grade', 'grade_details',
] as const
const statsOf = (body: any) => Object.fromEntries(STATS.map(k => [k, body[k]]))

/**
 * BTC rising steadily for 300 days; from day 210 on, coins whose only bullish candles come
 * right before 24 bars of gaps up (UP…) or down (DN…), every 4 days. A long entry on
 * the bullish candle with a 24-bar timeout wins (or loses) every trade, and a random entry
 * mostly sits in the flat part of the pattern.
 */
const COINS_FROM = T0 + 210 * DAY
const pumpStore = (withBtc: boolean) => (store: any) =>
  addCoins(store, [
    ...(withBtc ? [{ symbol: 'BTCUSDT', bars: drift(300 * 24, 100, () => 1.0001) }] : []),
    { symbol: 'UPAUSDT', bars: pumps(22, 1.005), t0: COINS_FROM },
    { symbol: 'UPBUSDT', bars: pumps(22, 1.005, 50), t0: COINS_FROM },
    { symbol: 'DNAUSDT', bars: pumps(22, 0.995), t0: COINS_FROM },
  ])

const PUMP = { entry: BULLISH, indicators: { candle: {} }, direction: 'long', sl_pct: 50, tp_pct: 100, max_bars: 24 }

describe('statistics of a result, on hand-built candles', () => {
  const h = makeHarness({ fill: pumpStore(true) })
  afterAll(() => h.cleanup())
  const up = () => h.req('/backtest', { method: 'POST', json: { ...PUMP, symbols: ['UPAUSDT', 'UPBUSDT'] } })
  const down = () => h.req('/backtest', { method: 'POST', json: { ...PUMP, symbols: ['DNAUSDT'] } })

  test('every trade wins: the profit factor is capped at 999, its interval is null, the edge p-value is ~0', async () => {
    const r = await up()
    expect(r.status).toBe(200)
    expect(r.body.total_trades).toBe(44)
    expect(r.body.wins).toBe(44)
    expect(r.body.profit_factor).toBe(999)
    expect(r.body.profit_factor_ci).toBeNull()
    expect(r.body.edge_p_value).toBeLessThan(1e-6)
    expect(r.body.sharpe_ci).toMatchObject({ level: 0.95, method: 'percentile bootstrap', resamples: 1000 })
    expect(r.body.sharpe_ci.low).toBeLessThanOrEqual(r.body.sharpe_ci.high)
  })

  test('trades spread over the window: every walk-forward fold is profitable', async () => {
    const r = await up()
    expect(r.body.walk_forward_consistency).toBe(1)
    expect(r.body.walk_forward_details).toStartWith('5 of 5 folds profitable')
  })

  test('random entries cannot match entries before every rise: the smallest Monte Carlo p-value, 1/(n+1)', async () => {
    const r = await up()
    expect(r.body.mc_p_value).toBe(1 / (MC_SIMULATIONS + 1))
    expect(r.body.mc_percentile).toBe(100)
    expect(r.body.grade_details).toContain(`Monte Carlo p-value ${(1 / (MC_SIMULATIONS + 1)).toPrecision(2)} → 10/10`)
  })

  test('every trade loses: profit factor 0, grade F, no haircut, Monte Carlo p-value 1', async () => {
    const r = await down()
    expect(r.body.wins).toBe(0)
    expect(r.body.profit_factor).toBe(0)
    expect(r.body.strategy_grade).toBe('F')
    expect(r.body.grade_details).toStartWith('F (0/100)')
    expect(r.body.dsr_haircut_pct).toBeNull()
    expect(r.body.mc_p_value).toBe(1)
    expect(r.body.mc_percentile).toBe(0)
  })

  test('BTC above its 200-day mean labels every trade up; the alpha against it is a number', async () => {
    const r = await up()
    const reg = r.body.regime_performance
    expect(reg.btc_up.trades).toBe(r.body.total_trades)
    expect(reg.btc_down.trades).toBe(0)
    expect(reg.unlabelled_trades).toBe(0)
    expect(reg.high_vol.trades + reg.low_vol.trades).toBe(r.body.total_trades)
    expect(reg.btc_up.win_rate).toBe(100)
    expect(Number.isFinite(r.body.jensens_alpha)).toBe(true)
  })

  test('a custom tree is one trial; the deflated Sharpe falls as the trial count grows', async () => {
    const r = await up()
    const d = r.body.deflated_sharpe_info
    // the contract's deflated_sharpe is the DSR itself, a number; its computation is deflated_sharpe_info
    expect(r.body.deflated_sharpe).toBe(d.dsr)
    expect(d.n_trials).toBe(1)
    expect(d.dsr).toBe(d.sensitivity['1'])
    expect(d.sensitivity['1']).toBeGreaterThan(d.sensitivity['10'])
    expect(d.sensitivity['10']).toBeGreaterThan(d.sensitivity['100'])
    expect(d.sensitivity['100']).toBeGreaterThan(d.sensitivity['1000'])
    // one trial: nothing to select from, nothing to cut
    expect(r.body.dsr_haircut_pct).toBe(0)
  })

  test('each statistic is computed from the run’s own trades and daily equity', async () => {
    const r = await up()
    const run = (await h.deps.runs.byHash(r.body.result_hash))!
    const p = run.assembled.portfolio
    const pnl = tradesInEntryOrder(p).map(t => t.pnlPct)
    const daily = dailyReturns(p.equityCurve, p.initialCapitalUsd)
    expect(r.body.edge_p_value).toBe(edgePValue(pnl))
    expect(r.body.deflated_sharpe_info).toEqual(deflatedSharpe(daily, 1))
    expect(r.body.deflated_sharpe).toBe(deflatedSharpe(daily, 1)!.dsr)
    const from = p.equityCurve[0].tMs
    const to = p.equityCurve.at(-1)!.tMs + DAY - 1
    expect(r.body.walk_forward_details).toBe(walkForward(tradesInEntryOrder(p), from, to, 5)!.details)
  })

  test('no trade: every statistic is null and nothing is graded', async () => {
    const r = await h.req('/backtest', { method: 'POST', json: { ...PUMP, entry: { type: 'AND', conditions: [{ field: 'close', op: '<', value: 0 }] }, symbols: ['UPAUSDT'] } })
    expect(r.body.total_trades).toBe(0)
    for (const k of STATS.filter(k => !['strategy_grade', 'grade_details', 'walk_forward_details'].includes(k))) expect(r.body[k]).toBeNull()
    expect(r.body.strategy_grade).toBe('')
    expect(r.body.grade_details).toBe('not graded: no trades')
  })
})

describe('statistics without BTC in the store', () => {
  const h = makeHarness({ fill: pumpStore(false) })
  afterAll(() => h.cleanup())

  test('no Jensen’s alpha and no regimes; the rest is there', async () => {
    const r = await h.req('/backtest', { method: 'POST', json: { ...PUMP, symbols: ['UPAUSDT'] } })
    expect(r.body.total_trades).toBe(22)
    expect(r.body.jensens_alpha).toBeNull()
    expect(r.body.regime_performance).toBeNull()
    expect(r.body.mc_p_value).not.toBeNull()
    expect(r.body.deflated_sharpe).not.toBeNull()
  })
})

/** Random walks, as the other simulate tests use. */
const WALK_COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'BNBUSDT', 'ADAUSDT', 'DOGEUSDT']
function walkStore(store: any) {
  WALK_COINS.forEach((s, k) => {
    const cols = walkCandles(24 * 150, T0, 11 + k)
    store.appendCandles(s, cols, cols[0].length)
  })
  store.upsertMeta(WALK_COINS.map((s, k) => ({ symbol: s, name: s, rank: k + 1, stablecoin: false, assetClass: 'crypto', listingMs: T0 })), 'binance-csv')
}

describe('statistics of registry runs', () => {
  const h = makeHarness({ fill: walkStore })
  const pool = makeHarness({ fill: walkStore, workers: 2 })
  afterAll(() => {
    h.cleanup()
    pool.cleanup()
  })
  const SIM = { strategy: 'bb-squeeze-short', sl_pct: 3, tp_pct: 3 }

  test('/simulate counts every registry strategy as a trial; the same trades from a custom tree count one and deflate less', async () => {
    const s = getStrategy('bb-squeeze-short')!
    const sim = await h.req('/simulate', { method: 'POST', json: SIM })
    const bt = await h.req('/backtest', {
      method: 'POST',
      json: { entry: s.entry, indicators: s.indicators, direction: s.direction, sl_pct: 3, tp_pct: 3, max_bars: s.max_bars },
    })
    expect(bt.body.total_trades).toBe(sim.body.total_trades)
    expect(sim.body.total_trades).toBeGreaterThan(10)
    expect(sim.body.deflated_sharpe_info.n_trials).toBe(listStrategies().length)
    expect(bt.body.deflated_sharpe_info.n_trials).toBe(1)
    expect(sim.body.deflated_sharpe_info.sharpe_annualized).toBe(bt.body.deflated_sharpe_info.sharpe_annualized)
    expect(typeof sim.body.deflated_sharpe).toBe('number')
    expect(sim.body.deflated_sharpe).toBeLessThan(bt.body.deflated_sharpe)
  })

  test('the same request twice gives the same statistics, Monte Carlo and bootstraps included', async () => {
    const a = await h.req('/simulate', { method: 'POST', json: SIM, headers: { 'cache-control': 'no-cache' } })
    const b = await h.req('/simulate', { method: 'POST', json: SIM, headers: { 'cache-control': 'no-cache' } })
    expect(a.body.mc_p_value).not.toBeNull()
    expect(a.body.profit_factor_ci).not.toBeNull()
    expect(statsOf(b.body)).toEqual(statsOf(a.body))
  })

  test('in-process and on two workers the statistics are identical', async () => {
    const a = await h.req('/simulate', { method: 'POST', json: SIM })
    const b = await pool.req('/simulate', { method: 'POST', json: SIM })
    expect(b.body.result_hash).toBe(a.body.result_hash)
    expect(statsOf(b.body)).toEqual(statsOf(a.body))
    const va = await h.req('/simulate/validate', { method: 'POST', json: { ...SIM, n_simulations: 300 } })
    const vb = await pool.req('/simulate/validate', { method: 'POST', json: { ...SIM, n_simulations: 300 } })
    expect(vb.body.monte_carlo).toEqual(va.body.monte_carlo)
    expect(vb.body.oos).toEqual(va.body.oos)
  })
})

describe('budgets', () => {
  test('the random-entry null takes coins in a seeded order while their trades fit the budget, in universe order', () => {
    const coins = Array.from({ length: 20 }, (_, i) => ({ symbol: `C${i}`, index: i, trades: i === 3 ? 0 : 10 }))
    const picked = mcCoins(coins, { maxCoins: 50, maxTrades: 55 }, 42)
    expect(picked.length).toBe(5)
    expect(picked.every(c => c.trades > 0)).toBe(true)
    expect(picked.map(c => c.index)).toEqual([...picked.map(c => c.index)].sort((a, b) => a - b))
    expect(mcCoins(coins, { maxCoins: 50, maxTrades: 55 }, 42)).toEqual(picked)
    expect(mcCoins(coins, { maxCoins: 50, maxTrades: 55 }, 43)).not.toEqual(picked)
    expect(mcCoins(coins, { maxCoins: 3, maxTrades: 1e9 }, 1).length).toBe(3)
    // a coin above the budget alone is still tested
    expect(mcCoins([{ trades: 5000 }], { maxCoins: 50, maxTrades: 2000 }, 1).length).toBe(1)
  })

  test('bootstrap resamples: 1000 for ordinary samples, fewer for very large ones, never below 100', () => {
    expect(bootstrapResamples(730)).toBe(1000)
    expect(bootstrapResamples(2000)).toBe(1000)
    expect(bootstrapResamples(10_000)).toBe(200)
    expect(bootstrapResamples(1_000_000)).toBe(100)
  })
})
