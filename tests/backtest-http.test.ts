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
