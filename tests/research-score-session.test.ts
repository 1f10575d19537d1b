import { afterAll, describe, expect, test } from 'bun:test'
import { makeHarness } from './helpers/harness'

const h = makeHarness()
afterAll(() => h.cleanup())

const score = (trades: unknown[]) => h.req('/simulate/score-session', { method: 'POST', json: { trades } })

/**
 * By hand (net % of margin = d·(X − E)/E·L·100 − f·L·(1 + X/E), floored at −100):
 *   A long  100 → 110, 2x, fee 0.05 %:  +20 − 0.05·2·2.1   = +19.79
 *   B short 200 → 210, 1x, fee 0.1 %:    −5 − 0.1·1·2.05   =  −5.205
 *   C long   50 →  40, 5x, no fee:      −100 (the whole margin: a liquidation)
 *   D short 100 →  90, 1x, no fee:       +10
 * Summed path 19.79, 14.585, −85.415, −75.415: peak 19.79, deepest −85.415, drawdown 105.205.
 */
const SESSION = [
  { direction: 'long', entry_price: 100, exit_price: 110, leverage: 2, fee_pct: 0.05, size_usd: 100 },
  { direction: 'short', entry_price: 200, exit_price: 210, fee_pct: 0.1, size_usd: 50 },
  { direction: 'long', entry_price: 50, exit_price: 40, leverage: 5, size_usd: 10 },
  { direction: 'short', entry_price: 100, exit_price: 90, size_usd: 20 },
]

describe('POST /simulate/score-session', () => {
  test('scores a session computed by hand', async () => {
    const r = await score(SESSION)
    expect(r.status).toBe(200)
    const b = r.body
    expect(b.trades).toBe(4)
    expect(b.wins).toBe(2)
    expect(b.losses).toBe(2)
    expect(b.win_rate).toBe(50)
    expect(b.trade_pnl_pct[0]).toBeCloseTo(19.79, 10)
    expect(b.trade_pnl_pct[1]).toBeCloseTo(-5.205, 10)
    expect(b.trade_pnl_pct[2]).toBe(-100)
    expect(b.trade_pnl_pct[3]).toBeCloseTo(10, 10)
    expect(b.total_return_pct).toBeCloseTo(-75.415, 10)
    expect(b.profit_factor).toBeCloseTo(29.79 / 105.205, 10)
    expect(b.max_drawdown_pct).toBeCloseTo(105.205, 10)
    expect(b.avg_win_pct).toBeCloseTo(14.895, 10)
    expect(b.avg_loss_pct).toBeCloseTo(-52.6025, 10)
    expect(b.expectancy).toBeCloseTo(-18.85375, 10)
    expect(b.liquidations).toBe(1)
    // USD: 19.79 − 2.6025 − 10 + 2; path 19.79, 17.1875, 7.1875, 9.1875
    expect(b.total_pnl_usd).toBeCloseTo(9.1875, 10)
    expect(b.max_drawdown_usd).toBeCloseTo(12.6025, 10)
    expect(b.stored).toBe(false)
  })

  test('with exit times on every trade the drawdown follows them; Unix seconds and zone-less ISO are UTC', async () => {
    // D closes first, then A, B, C: path 10, 29.79, 24.585, −75.415 → drawdown 105.205 from 29.79
    const t = Date.UTC(2026, 0, 1) / 1000
    const timed = [
      { ...SESSION[0], exit_time: '2026-01-01T02:00:00' },
      { ...SESSION[1], exit_time: t + 3 * 3600 },
      { ...SESSION[2], exit_time: '2026-01-01T04:00:00Z' },
      { ...SESSION[3], exit_time: t + 3600 },
    ]
    const r = await score(timed)
    expect(r.status).toBe(200)
    expect(r.body.max_drawdown_pct).toBeCloseTo(29.79 + 75.415, 10)
    // the order given stays in trade_pnl_pct
    expect(r.body.trade_pnl_pct[3]).toBeCloseTo(10, 10)
  })

  test('USD figures need size_usd on every trade', async () => {
    const r = await score([SESSION[0], { ...SESSION[3], size_usd: null }])
    expect(r.body.total_pnl_usd).toBeNull()
    expect(r.body.max_drawdown_usd).toBeNull()
  })

  test('an unreadable time is a 422 that points at the trade and the field', async () => {
    const r = await score([SESSION[0], { ...SESSION[1], entry_time: 'yesterday-ish' }])
    expect(r.status).toBe(422)
    expect(r.body.detail).toEqual([{ type: 'value_error', loc: ['body', 'trades', 1, 'entry_time'], msg: expect.stringContaining('entry_time'), input: 'yesterday-ish' }])
  })

  test('no trade, more than 1000, a non-positive price or a fee above 1 % are 422s', async () => {
    expect((await score([])).status).toBe(422)
    expect((await score(Array(1001).fill(SESSION[3]))).status).toBe(422)
    const zero = await score([{ ...SESSION[0], entry_price: 0 }])
    expect(zero.status).toBe(422)
    expect(zero.body.detail[0].loc).toEqual(['body', 'trades', 0, 'entry_price'])
    const fee = await score([{ ...SESSION[0], fee_pct: 1.5 }])
    expect(fee.status).toBe(422)
    expect(fee.body.detail[0].loc).toEqual(['body', 'trades', 0, 'fee_pct'])
  })

  test('1000 trades are scored', async () => {
    const r = await score(Array(1000).fill(SESSION[3]))
    expect(r.status).toBe(200)
    expect(r.body.trades).toBe(1000)
    expect(r.body.profit_factor).toBe(999)
  })
})
