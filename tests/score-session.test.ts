import { describe, expect, test } from 'bun:test'
import { scoreSession, sessionTradePnlPct, type SessionTrade } from '../src/engine/score-session'

// Four trades worked out by hand (net % of margin):
//  1 long 100 → 110, 1×, no fee:             +10
//  2 short 200 → 190, 2×, fee 0.05 %/side:   gross +10, fees 0.05·2·(1 + 190/200) = 0.195 → +9.805
//  3 long 50 → 45, 3×, fee 0.1 %/side:       gross −30, fees 0.1·3·(1 + 45/50) = 0.57 → −30.57
//  4 short 10 → 12, 10×:                     gross −200 → the margin is lost: −100
const session: SessionTrade[] = [
  { direction: 'long', entry_price: 100, exit_price: 110 },
  { direction: 'short', entry_price: 200, exit_price: 190, leverage: 2, fee_pct: 0.05 },
  { direction: 'long', entry_price: 50, exit_price: 45, leverage: 3, fee_pct: 0.1 },
  { direction: 'short', entry_price: 10, exit_price: 12, leverage: 10 },
]

describe('session scoring', () => {
  test('each trade is scored in percent of margin with fees on the notional of each fill', () => {
    const pnl = session.map((t) => sessionTradePnlPct(t))
    expect(pnl[0]).toBeCloseTo(10, 12)
    expect(pnl[1]).toBeCloseTo(9.805, 12)
    expect(pnl[2]).toBeCloseTo(-30.57, 12)
    expect(pnl[3]).toBe(-100)
  })

  test('counts, rates, averages and the summed return of the hand-worked session', () => {
    const s = scoreSession(session)
    expect(s.trades).toBe(4)
    expect(s.wins).toBe(2)
    expect(s.losses).toBe(2)
    expect(s.win_rate).toBe(50)
    expect(s.total_return_pct).toBeCloseTo(-110.765, 10)
    expect(s.profit_factor).toBeCloseTo(19.805 / 130.57, 12)
    expect(s.avg_win_pct).toBeCloseTo(9.9025, 12)
    expect(s.avg_loss_pct).toBeCloseTo(-65.285, 12)
    expect(s.expectancy).toBeCloseTo(-110.765 / 4, 12)
    expect(s.liquidations).toBe(1)
    expect(s.total_pnl_usd).toBeNull()
    expect(s.max_drawdown_usd).toBeNull()
  })

  test('the drawdown is the deepest fall of the summed-return path from its peak: 19.805 → −110.765', () => {
    expect(scoreSession(session).max_drawdown_pct).toBeCloseTo(130.57, 10)
  })

  test('with exit times on every trade the path follows exit order, not the order given', () => {
    // exit order 3, 1, 4, 2: −30.57, −20.57, −120.57, −110.765 → peak 0, drawdown 120.57
    const ms = session.map((t, i) => ({ ...t, exit_time: [2000, 4000, 1000, 3000][i] }))
    expect(scoreSession(ms).max_drawdown_pct).toBeCloseTo(120.57, 10)
    const iso = session.map((t, i) => ({ ...t, exit_time: new Date(Date.UTC(2024, 0, [2, 4, 1, 3][i])).toISOString() }))
    expect(scoreSession(iso).max_drawdown_pct).toBeCloseTo(120.57, 10)
    expect(scoreSession(ms).trade_pnl_pct[0]).toBeCloseTo(10, 12) // the per-trade list stays in input order
  })

  test('when a trade has no exit time the order given is used', () => {
    const partial = session.map((t, i) => ({ ...t, exit_time: i === 3 ? null : [2000, 4000, 1000][i] }))
    expect(scoreSession(partial).max_drawdown_pct).toBeCloseTo(130.57, 10)
  })

  test('with size_usd on every trade the USD pnl and its drawdown are reported', () => {
    const sized = session.map((t, i) => ({ ...t, size_usd: [100, 50, 200, 10][i] }))
    const s = scoreSession(sized)
    // 10 + 4.9025 − 61.14 − 10
    expect(s.total_pnl_usd).toBeCloseTo(-56.2375, 10)
    // path 10, 14.9025, −46.2375, −56.2375 → drawdown 71.14
    expect(s.max_drawdown_usd).toBeCloseTo(71.14, 10)
  })

  test('leverage defaults to 1 and fees to 0; a short that falls is a win', () => {
    expect(sessionTradePnlPct({ direction: 'short', entry_price: 80, exit_price: 60 })).toBeCloseTo(25, 12)
  })

  test('an empty session scores zeros', () => {
    const s = scoreSession([])
    expect(s).toMatchObject({ trades: 0, wins: 0, losses: 0, win_rate: 0, profit_factor: 0, max_drawdown_pct: 0, total_return_pct: 0 })
  })

  test('invalid trades are rejected with the index and field', () => {
    expect(() => scoreSession([{ direction: 'long', entry_price: 0, exit_price: 1 }])).toThrow('trades[0].entry_price')
    expect(() => scoreSession([session[0], { ...session[0], leverage: 0.5 }])).toThrow('trades[1].leverage')
    expect(() => scoreSession([{ ...session[0], fee_pct: -0.1 }])).toThrow('fee_pct')
    expect(() => scoreSession([{ ...session[0], exit_time: 'not a date' }])).toThrow('exit_time')
    expect(() => scoreSession([{ ...session[0], direction: 'up' as 'long' }])).toThrow('direction')
  })
})
