import { afterAll, describe, expect, test } from 'bun:test'
import { makeHarness } from './helpers/harness'
import { addCoins, ALWAYS, DAY, drift, T0 } from './research-fixtures'

/**
 * One coin over 100 days: +0.1 % per bar for 70 days, then −0.1 % per bar. An always-true
 * long entry with a 24-bar timeout (stops far away) takes one trade a day, entering at
 * 01:00 and leaving at the next day's 01:00: 70 winners, then 30 losers.
 */
const RISE_DAYS = 70
const bars = drift(100 * 24, 100, i => (i < RISE_DAYS * 24 ? 1.001 : 0.999))
const h = makeHarness({ fill: store => addCoins(store, [{ symbol: 'BTCUSDT', bars }]) })
afterAll(() => h.cleanup())

// the hand-computed trades below are the model without slippage and brackets (issue 25): its settings are given explicitly
const BODY = { entry: ALWAYS, indicators: {}, direction: 'long', sl_pct: 50, tp_pct: 100, max_bars: 24, oos_pct: 30, n_simulations: 200, slippage: 'none', margin: 'flat' }

/**
 * Net % of a long held over `bars` bars of constant factor f, by hand: the price move, the
 * 0.05 % taker fee on both fills' notional, and the 0.01 % stand-in funding (no real
 * events in the store) at the 00/08/16 UTC instants strictly inside the holding, each
 * priced at that hour's open. `last` overrides the last bar's factor.
 */
function longPnl(f: number, held: number, fundingOffsets: number[], last = f): number {
  const ratio = f ** (held - 1) * last
  const fees = 0.05 * (1 + ratio)
  const funding = fundingOffsets.reduce((s, k) => s + 0.01 * f ** k, 0)
  return (ratio - 1) * 100 - fees - funding
}

describe('POST /simulate/validate', () => {
  test('splits the window at 70 % of its days and books each part on its own', async () => {
    const r = await h.req('/simulate/validate', { method: 'POST', json: BODY })
    expect(r.status).toBe(200)
    expect(r.body.data_range).toBe('2025-01-01 to 2025-04-10')
    expect(r.body.total_trades).toBe(100)
    const { oos } = r.body
    expect(oos.split_date).toBe(new Date(T0 + 70 * DAY).toISOString().slice(0, 10))
    expect(oos.is_metrics.date_range).toBe('2025-01-01 to 2025-03-11')
    expect(oos.oos_metrics.date_range).toBe('2025-03-12 to 2025-04-10')
    expect(oos.is_metrics.total_trades).toBe(70)
    expect(oos.oos_metrics.total_trades).toBe(30)
    expect(oos.is_metrics.win_rate).toBe(100)
    expect(oos.oos_metrics.win_rate).toBe(0)
    expect(oos.is_metrics.profit_factor).toBe(999)
    expect(oos.oos_metrics.profit_factor).toBe(0)
  })

  test('the in- and out-of-sample average trades are the hand-computed ones, and their ratio gives the verdict', async () => {
    const r = await h.req('/simulate/validate', { method: 'POST', json: BODY })
    const { oos } = r.body
    // in sample: 69 trades rising all the way; the 70th meets the first falling bar last
    const isRegular = longPnl(1.001, 24, [7, 15, 23])
    const isLast = longPnl(1.001, 24, [7, 15, 23], 0.999)
    const isAvg = (69 * isRegular + isLast) / 70
    // out of sample: 29 falling days; the last trade ends with the data after 23 bars, at
    // the 00:00 that closes the window, so that instant's funding is not charged
    const oosAvg = (29 * longPnl(0.999, 24, [7, 15, 23]) + longPnl(0.999, 23, [7, 15])) / 30
    expect(oos.is_metrics.avg_trade_pct).toBeCloseTo(isAvg, 9)
    expect(oos.oos_metrics.avg_trade_pct).toBeCloseTo(oosAvg, 9)
    expect(oos.is_metrics.total_return_pct).toBeCloseTo(70 * isAvg, 7)
    expect(oos.degradation_ratio).toBeCloseTo(oosAvg / isAvg, 9)
    expect(oos.verdict).toBe('overfit')
    expect(oos.risk).toBe('high')
    expect(oos.thresholds).toEqual({ min_trades_per_part: 10, robust_ratio: 0.5, overfit_ratio: 0 })
  })

  test('each part says whether its portfolio was ruined (ruined_at), as a run does; its drawdown stays within 100 %', async () => {
    // 50x long: the first falling day (−2.4 %) liquidates the out-of-sample part's only margin
    const r = await h.req('/simulate/validate', { method: 'POST', json: { ...BODY, leverage: 50 } })
    expect(r.status).toBe(200)
    const { is_metrics, oos_metrics } = r.body.oos
    expect(is_metrics.ruined_at).toBeNull()
    expect(oos_metrics.ruined_at).toMatch(/^2025-03-1\dT\d{2}:\d{2}:00Z$/)
    expect(Date.parse(oos_metrics.ruined_at)).toBeGreaterThanOrEqual(T0 + RISE_DAYS * DAY)
    expect(oos_metrics.max_drawdown_pct).toBe(100)
    // stop_at_ruin (default true): nothing is opened after the ruin
    expect(oos_metrics.total_trades).toBe(1)
    const fresh = await h.req('/simulate/validate', { method: 'POST', json: { ...BODY, leverage: 50, stop_at_ruin: false } })
    expect(fresh.body.oos.oos_metrics.total_trades).toBeGreaterThan(1)
    expect(fresh.body.oos.oos_metrics.ruined_at).toBe(oos_metrics.ruined_at)
  })

  test('oos_pct moves the split day', async () => {
    const r = await h.req('/simulate/validate', { method: 'POST', json: { ...BODY, oos_pct: 50 } })
    expect(r.body.oos.split_date).toBe(new Date(T0 + 50 * DAY).toISOString().slice(0, 10))
    expect(r.body.oos.is_metrics.total_trades).toBe(50)
    expect(r.body.oos_pct).toBe(50)
  })

  test('the Monte Carlo is fixed by the seed: the same numbers twice, other numbers for another seed', async () => {
    const a = await h.req('/simulate/validate', { method: 'POST', json: { ...BODY, seed: 7 } })
    const b = await h.req('/simulate/validate', { method: 'POST', json: { ...BODY, seed: 7 }, headers: { 'cache-control': 'no-cache' } })
    const c = await h.req('/simulate/validate', { method: 'POST', json: { ...BODY, seed: 8 } })
    expect(a.body.monte_carlo.seed).toBe(7)
    expect(b.body.monte_carlo).toEqual(a.body.monte_carlo)
    expect(c.body.monte_carlo.final_return_pct).not.toEqual(a.body.monte_carlo.final_return_pct)
  })

  test('without a seed the result hash fixes it', async () => {
    const a = await h.req('/simulate/validate', { method: 'POST', json: BODY })
    expect(a.body.monte_carlo.seed).toBe(Number.parseInt(a.body.result_hash.slice(0, 8), 16))
  })

  test('the bootstrap reports percentiles, the chance of a gain and bands that end at the trade count', async () => {
    const r = await h.req('/simulate/validate', { method: 'POST', json: BODY })
    const mc = r.body.monte_carlo
    expect(mc.method).toBe('trade_bootstrap')
    expect(mc.runs).toBe(200)
    expect(mc.trades_per_run).toBe(100)
    const q = mc.final_return_pct
    expect(Object.keys(q)).toEqual(['p5', 'p25', 'p50', 'p75', 'p95'])
    expect(q.p5).toBeLessThanOrEqual(q.p50)
    expect(q.p50).toBeLessThanOrEqual(q.p95)
    expect(mc.max_drawdown_pct.p5).toBeGreaterThanOrEqual(0)
    expect(mc.probability_positive).toBeGreaterThanOrEqual(0)
    expect(mc.probability_positive).toBeLessThanOrEqual(1)
    const bands = mc.equity_bands
    expect(bands.steps[0]).toBe(0)
    expect(bands.steps.at(-1)).toBe(100)
    for (const k of ['p5', 'p50', 'p95', 'observed']) expect(bands[k].length).toBe(bands.steps.length)
    // the observed path books the trades in exit order with the run's sizing
    expect(bands.observed.at(-1)).toBeCloseTo(mc.observed.final_return_pct, 9)
    // one coin, 60 USD a trade on 60 USD of capital: the path's return is the summed return
    expect(mc.observed.final_return_pct).toBeCloseTo(r.body.oos.is_metrics.total_return_pct + r.body.oos.oos_metrics.total_return_pct, 6)
    expect(mc.random_entry.runs).toBe(200)
    expect((mc.random_entry.p_value * 201) % 1).toBeCloseTo(0, 6)
  })

  test('an unknown strategy is a 404 and an invalid tree a 422 with the validation messages', async () => {
    const a = await h.req('/simulate/validate', { method: 'POST', json: { strategy: 'nope-short' } })
    expect(a.status).toBe(404)
    const b = await h.req('/simulate/validate', { method: 'POST', json: { entry: { type: 'AND', conditions: [{ field: 'bb_uper', op: '>', value: 1 }] }, indicators: { bb: {} } } })
    expect(b.status).toBe(422)
    expect(b.body.detail[0].loc).toEqual(['body', 'entry'])
    expect(b.body.detail[0].msg).toContain('bb_uper')
  })

  test('strategy and entry: one of them, not both, not neither', async () => {
    expect((await h.req('/simulate/validate', { method: 'POST', json: {} })).status).toBe(422)
    expect((await h.req('/simulate/validate', { method: 'POST', json: { strategy: 'bb-squeeze-short', entry: ALWAYS } })).status).toBe(422)
  })

  test('oos_pct outside 10–50 and more than 10,000 simulations are 422s', async () => {
    for (const bad of [{ oos_pct: 5 }, { oos_pct: 60 }, { n_simulations: 10_001 }]) {
      const r = await h.req('/simulate/validate', { method: 'POST', json: { ...BODY, ...bad } })
      expect(r.status).toBe(422)
      expect(r.body.detail[0].loc).toEqual(['body', Object.keys(bad)[0]])
    }
  })
})

describe('POST /simulate/validate on a large universe', () => {
  const COINS = Array.from({ length: 52 }, (_, k) => ({ symbol: `C${String(k).padStart(2, '0')}XUSDT`, bars: drift(20 * 24, 100, i => (i % 7 < 3 ? 1.002 : 0.9985)) }))
  const big = makeHarness({ fill: store => addCoins(store, COINS) })
  afterAll(() => big.cleanup())

  test('computes at most 50 coins and reports the cap as compare does', async () => {
    const r = await big.req('/simulate/validate', { method: 'POST', json: { ...BODY, top_n: 100, n_simulations: 20 } })
    expect(r.status).toBe(200)
    expect(r.body.top_n_requested).toBe(100)
    expect(r.body.eligible_universe).toBe(52)
    expect(r.body.universe_capped).toBe(true)
    expect(r.body.coins_used).toBe(50)
    expect(r.body.run_cap).toBe(50)
    expect(r.body.run_cap_reason).toBe('indicator_cache')
  })

  test('no cap when the run fits', async () => {
    const r = await big.req('/simulate/validate', { method: 'POST', json: { ...BODY, top_n: 10, n_simulations: 20 } })
    expect(r.body.coins_used).toBe(10)
    expect(r.body.run_cap).toBeNull()
    expect(r.body.run_cap_reason).toBeNull()
  })
})
