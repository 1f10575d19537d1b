import { afterAll, describe, expect, test } from 'bun:test'
import { makeHarness, walkCandles } from './helpers/harness'

const T0 = Date.UTC(2025, 0, 1)
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'USDCUSDT', 'XAUUSDT', 'DEADUSDT']

function fill(store: any) {
  COINS.forEach((s, k) => {
    const cols = walkCandles(24 * 200, T0, k + 1, s === 'USDCUSDT' ? 1 : 100)
    if (s === 'DEADUSDT') cols[5] = cols[5].map(() => 0.01)
    store.appendCandles(s, cols, cols[0].length)
  })
  store.upsertMeta(
    COINS.map((s, k) => ({ symbol: s, name: s, rank: k + 1, stablecoin: s === 'USDCUSDT', assetClass: s === 'XAUUSDT' ? 'commodity' : 'crypto', listingMs: T0 })),
    'binance-csv',
  )
}

const h = makeHarness({ fill })
afterAll(() => h.cleanup())

const ENTRY = { type: 'AND', conditions: [{ field: 'close', op: '>', value: { field: 'bb_upper' } }] }

describe('POST /backtest', () => {
  test('runs a custom tree over the eligible universe with the contract accounting', async () => {
    const r = await h.req('/backtest', { method: 'POST', json: { entry: ENTRY, indicators: { bb: {} }, top_n: 10 } })
    expect(r.status).toBe(200)
    expect(r.body.executed).toBe(true)
    expect(r.body.direction_source).toBe('default_short')
    expect(r.body.top_n_requested).toBe(10)
    // stablecoin, commodity and the dead market are not eligible
    expect(r.body.eligible_universe).toBe(4)
    expect(r.body.universe_capped).toBe(true)
    expect(r.body.coins_used).toBe(4)
    expect(r.body.coins_missing_data).toBe(0)
    expect(r.body.total_trades).toBeGreaterThan(0)
    expect(r.body.result_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(r.body.reliability_checks.map((c: any) => c.axis_id)).toEqual(['trades', 'ruin', 'sample', 'leverage', 'diversification'])
  })

  test('an invalid strategy answers 200 with executed false and every problem', async () => {
    const r = await h.req('/backtest', { method: 'POST', json: { entry: { type: 'AND', conditions: [{ field: 'bb_uper', op: '>', value: 1 }, { field: 'uptrend', op: '>', value: 1 }] }, indicators: { bb: {} } } })
    expect(r.status).toBe(200)
    expect(r.body.executed).toBe(false)
    expect(r.body.is_valid).toBe(false)
    expect(r.body.validation_errors.length).toBeGreaterThanOrEqual(2)
    expect(r.body.total_trades).toBe(0)
  })

  test('a tree that would read later bars (negative shift or bars) is a 422 naming each place, never run', async () => {
    const entry = {
      type: 'AND',
      conditions: [
        { field: 'close', op: '>', value: 1, shift: -1 },
        { field: 'close', op: '>', value: { field: 'close', stat: 'max', bars: -5 } },
        { type: 'ANY_PRIOR', bars: -3, condition: { field: 'close', op: '>', value: { field: 'open', offset: { field: 'open', shift: -2 } } } },
      ],
    }
    const r = await h.req('/backtest', { method: 'POST', json: { entry, indicators: {} } })
    expect(r.status).toBe(422)
    const locs = r.body.detail.map((d: any) => d.loc.join('.'))
    expect(locs.sort()).toEqual(
      ['body.entry.conditions.0.shift', 'body.entry.conditions.1.value.bars', 'body.entry.conditions.2.bars', 'body.entry.conditions.2.condition.value.offset.shift'].sort(),
    )
    for (const d of r.body.detail) expect(d.msg).toContain('look-ahead')
  })

  test('out-of-range fields give the 422 detail list', async () => {
    const r = await h.req('/backtest', { method: 'POST', json: { entry: ENTRY, sl_pct: 0.1, max_bars: 500 } })
    expect(r.status).toBe(422)
    const locs = r.body.detail.map((d: any) => d.loc.join('.'))
    expect(locs).toContain('body.sl_pct')
    expect(locs).toContain('body.max_bars')
    for (const d of r.body.detail) expect(Object.keys(d).sort()).toEqual(['input', 'loc', 'msg', 'type'])
  })

  test('a date that does not exist is a 422, not a silent clamp', async () => {
    const r = await h.req('/backtest', { method: 'POST', json: { entry: ENTRY, start_date: '2025-02-30' } })
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['body', 'start_date'])
  })

  test('the same request twice gives the same result and hash', async () => {
    const a = await h.req('/backtest', { method: 'POST', json: { entry: ENTRY, symbols: ['BTCUSDT', 'ETHUSDT'] } })
    const b = await h.req('/backtest', { method: 'POST', json: { symbols: ['BTCUSDT', 'ETHUSDT'], entry: ENTRY }, headers: { 'cache-control': 'no-cache' } })
    expect(a.body.result_hash).toBe(b.body.result_hash)
    const strip = (x: any) => ({ ...x, compute_time_ms: 0 })
    expect(strip(b.body)).toEqual(strip(a.body))
    expect(a.body.top_n_requested).toBeNull()
    expect(a.body.eligible_universe).toBeNull()
  })
})

describe('POST /backtest: the figures of the contract', () => {
  const EXIT_COUNTS = ['tp_count', 'sl_count', 'timeout_count', 'trailing_count', 'signal_count', 'liquidation_count', 'end_of_data_count'] as const
  const sumOfCounts = (x: any) => EXIT_COUNTS.reduce((s, k) => s + x[k], 0)
  const countOf = (trades: any[], reason: string) => trades.filter(t => t.exit_reason === reason).length

  test('deflated_sharpe is the DSR, a number; the whole computation is deflated_sharpe_info', async () => {
    const r = await h.req('/backtest', { method: 'POST', json: { entry: ENTRY, indicators: { bb: {} }, symbols: ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'] } })
    expect(typeof r.body.deflated_sharpe).toBe('number')
    expect(r.body.deflated_sharpe_info.dsr).toBe(r.body.deflated_sharpe)
    expect(r.body.deflated_sharpe_info.n_trials).toBe(1)
  })

  test('each exit reason has its own count, tp/sl/timeout only their own, and the counts add up to the trades, per coin too', async () => {
    // exits by a signal, a trailing stop, timeouts and the end of the window all happen here
    const json = {
      entry: ENTRY,
      exit_conditions: { type: 'AND', conditions: [{ field: 'close', op: '<', value: { field: 'bb_mid' } }] },
      indicators: { bb: {} },
      symbols: ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'],
      tp_source: 'trailing',
      tp_pct: 1,
      sl_pct: 3,
      max_bars: 6,
      leverage: 40,
    }
    const r = await h.req('/backtest', { method: 'POST', json })
    expect(r.body.total_trades).toBeGreaterThan(0)
    expect(r.body.total_trades).toBeLessThanOrEqual(1000) // every trade is listed
    expect(sumOfCounts(r.body)).toBe(r.body.total_trades)
    for (const [k, reason] of [['tp_count', 'tp'], ['sl_count', 'sl'], ['timeout_count', 'timeout'], ['trailing_count', 'trailing'], ['signal_count', 'signal'], ['liquidation_count', 'liquidation'], ['end_of_data_count', 'end_of_data']] as const)
      expect([k, r.body[k]]).toEqual([k, countOf(r.body.trades, reason)])
    expect(r.body.signal_count + r.body.trailing_count).toBeGreaterThan(0)
    for (const c of r.body.coin_results) {
      expect(sumOfCounts(c)).toBe(c.trades)
      expect(c.signal_count).toBe(r.body.trades.filter((t: any) => t.symbol === c.symbol && t.exit_reason === 'signal').length)
    }
  })

  // one coin, one slot of 60 USD at 50x: the first liquidation takes all the equity
  const RUIN = { entry: { type: 'AND', conditions: [{ field: 'close', op: '>', value: 0 }] }, indicators: {}, symbols: ['BTCUSDT'], leverage: 50, max_concurrent_positions: 1 }

  test('a portfolio whose equity reaches zero is ruined: ruined_at, a failed ruin check naming the day, and by default no trade after it', async () => {
    const r = await h.req('/backtest', { method: 'POST', json: RUIN })
    expect(r.status).toBe(200)
    expect(r.body.stop_at_ruin).toBe(true)
    expect(r.body.ruined_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
    const ruinedMs = Date.parse(r.body.ruined_at)
    expect(r.body.trades.every((t: any) => Date.parse(t.entry_time) < ruinedMs)).toBe(true)
    expect(r.body.trades.some((t: any) => Date.parse(t.exit_time) === ruinedMs)).toBe(true)
    const ruin = r.body.reliability_checks.find((c: any) => c.axis_id === 'ruin')
    expect(ruin.verdict).toBe('fail')
    expect(ruin.message).toContain(r.body.ruined_at.slice(0, 10))
    expect(r.body.equity_curve[r.body.ruin_index].t).toBe(r.body.ruined_at.slice(0, 10))
    expect(r.body.warnings.some((w: string) => w.startsWith('ruined:') && w.includes(r.body.ruined_at))).toBe(true)
    expect(r.body.max_drawdown_pct).toBeLessThanOrEqual(100)
  })

  test('stop_at_ruin false keeps trading as if fresh capital were added, says so, and still reads at most a 100 % drawdown', async () => {
    const stop = await h.req('/backtest', { method: 'POST', json: RUIN })
    const r = await h.req('/backtest', { method: 'POST', json: { ...RUIN, stop_at_ruin: false } })
    expect(r.body.stop_at_ruin).toBe(false)
    expect(r.body.result_hash).not.toBe(stop.body.result_hash)
    expect(r.body.ruined_at).toBe(stop.body.ruined_at)
    expect(r.body.total_trades).toBeGreaterThan(stop.body.total_trades)
    expect(r.body.warnings.some((w: string) => w.includes('stop_at_ruin is false'))).toBe(true)
    // the equity goes far below zero, which is a loss of everything, not more
    expect(Math.min(...r.body.equity_curve.map((p: any) => p.equity_usd))).toBeLessThan(0)
    expect(r.body.max_drawdown_pct).toBe(100)
    expect(r.body.equity_curve.every((p: any) => p.drawdown_pct >= 0 && p.drawdown_pct <= 100)).toBe(true)
    expect(r.body.max_drawdown_usd).toBeGreaterThan(r.body.initial_capital_usd)
  })

  test('stop_at_ruin must be a boolean', async () => {
    const r = await h.req('/backtest', { method: 'POST', json: { ...RUIN, stop_at_ruin: 'sometimes' } })
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['body', 'stop_at_ruin'])
  })

  test('an invalid strategy answers the new fields too: no ruin, zero counts, no DSR', async () => {
    const r = await h.req('/backtest', { method: 'POST', json: { entry: { type: 'AND', conditions: [{ field: 'bb_uper', op: '>', value: 1 }] }, indicators: { bb: {} } } })
    expect(r.body.executed).toBe(false)
    expect([r.body.ruined_at, r.body.deflated_sharpe, r.body.deflated_sharpe_info, r.body.stop_at_ruin]).toEqual([null, null, null, true])
    expect(sumOfCounts(r.body)).toBe(0)
  })
})
