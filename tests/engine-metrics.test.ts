import { describe, expect, test } from 'bun:test'
import { toEquityPoints } from '../src/engine/equity-curve'
import { holdCurve, holdReturnPct } from '../src/engine/hold-curve'
import { computeMetrics, quantile } from '../src/engine/metrics'
import { PNL_BUCKET_LABELS, profitFactor, resultBucket } from '../src/engine/metrics-breakdown'
import { tradeTableOf, type SizedTradeTable } from '../src/engine/trade-table'
import type { ExitReason, Trade } from '../src/engine/types'
import { DAY_MS } from '../src/time'
import { barsOf, expectAllClose, flat, type Ohlc } from './engine-fixtures'

function tr(symbol: string, exitIso: string, pnlPct: number, exitReason: ExitReason, barsHeld: number, extra: Partial<Trade> = {}) {
  const exitTimeMs = Date.parse(exitIso)
  return {
    symbol,
    direction: 'long' as const,
    entryIdx: 0,
    exitIdx: barsHeld,
    entryTimeMs: exitTimeMs - barsHeld * 3_600_000,
    exitTimeMs,
    entryPrice: 100,
    exitPrice: 100,
    barsHeld,
    exitReason,
    pnlPct,
    grossPct: pnlPct,
    feePct: 0,
    fundingPct: 0,
    slTpSameBar: false,
    fundingEvents: 0,
    fundingEventsReal: 0,
    marginUsd: 100,
    pnlUsd: pnlPct,
    ...extra,
  }
}

/** A sized table of trade objects (coins: `symbols`, then any other in order of appearance). */
function sized(list: ReturnType<typeof tr>[], symbols: string[] = []): SizedTradeTable {
  const t = tradeTableOf(list, symbols) as SizedTradeTable
  t.marginUsd = Float64Array.from(list, (x) => x.marginUsd)
  t.pnlUsd = Float64Array.from(list, (x) => x.pnlUsd)
  return t
}

/** Seven trades on two coins over two years, margin 100 each. */
const trades = [
  tr('BTC', '2024-01-01T10:00:00Z', 10, 'tp', 2, { feePct: 0.1, fundingPct: 0.05, fundingEvents: 2, fundingEventsReal: 2 }),
  tr('ETH', '2024-01-02T10:00:00Z', -5, 'sl', 4, { feePct: 0.1, fundingPct: -0.02, fundingEvents: 1, fundingEventsReal: 0 }),
  tr('BTC', '2024-02-03T10:00:00Z', 20, 'trailing', 6, { feePct: 0.2 }),
  tr('BTC', '2024-02-05T10:00:00Z', -100, 'liquidation', 1),
  tr('ETH', '2025-01-10T10:00:00Z', 3, 'end_of_data', 3),
  tr('ETH', '2025-01-11T10:00:00Z', -1, 'signal', 10),
  tr('ETH', '2025-01-12T10:00:00Z', -2, 'timeout', 8),
]

/** Daily returns +2 %, −1 %, +2 %, −1 % from 1000 USD. */
const curveValues = [1020, 1009.8, 1029.996, 1019.69604]
const curve = toEquityPoints(Date.UTC(2024, 0, 1), Float64Array.from(curveValues), 1000)

describe('trade metrics of a hand-computed case', () => {
  const m = computeMetrics({ trades: sized(trades, ['BTC', 'ETH', 'SOL']), equityCurve: curve, initialCapitalUsd: 1000 })

  test('counts, win rate and summed return', () => {
    expect([m.total_trades, m.wins, m.losses]).toEqual([7, 3, 4])
    expect(m.win_rate).toBeCloseTo((3 / 7) * 100, 12)
    expect(m.total_return_pct).toBe(-75)
  })

  test('profit factor, averages, expectancy and payoff', () => {
    expect(m.profit_factor).toBeCloseTo(33 / 108, 12)
    expect(m.profit_factor_capped).toBe(false)
    expect(m.avg_win_pct).toBe(11)
    expect(m.avg_loss_pct).toBe(-27)
    expect(m.expectancy).toBeCloseTo(-75 / 7, 12)
    expect(m.payoff_ratio).toBeCloseTo(11 / 27, 12)
  })

  test('the longest run of losing trades in entry order', () => {
    expect(m.max_consecutive_losses).toBe(2)
  })

  test('the trades may come in any order: the streak still follows entry times', () => {
    const shuffled = [trades[3], trades[6], trades[0], trades[5], trades[2], trades[4], trades[1]]
    const s = computeMetrics({ trades: sized(shuffled, ['BTC', 'ETH', 'SOL']), equityCurve: curve, initialCapitalUsd: 1000 })
    expect(s.max_consecutive_losses).toBe(2)
    expect([s.total_trades, s.wins, s.total_return_pct, s.var_95, s.median_bars_held]).toEqual([m.total_trades, m.wins, m.total_return_pct, m.var_95, m.median_bars_held])
  })

  test('one count per exit reason: tp, sl and timeout count only their own exits, and the counts add up to the trades', () => {
    expect([m.tp_count, m.sl_count, m.timeout_count]).toEqual([1, 1, 1])
    expect([m.trailing_count, m.signal_count, m.liquidation_count, m.end_of_data_count]).toEqual([1, 1, 1, 1])
    const sum = m.tp_count + m.sl_count + m.timeout_count + m.trailing_count + m.signal_count + m.liquidation_count + m.end_of_data_count
    expect(sum).toBe(m.total_trades)
  })

  test('fees, funding and the funding coverage', () => {
    expect(m.total_fees_pct).toBeCloseTo(0.4, 12)
    expect(m.total_funding_pct).toBeCloseTo(0.03, 12)
    expect([m.funding_events, m.funding_events_real]).toEqual([3, 2])
    expect(m.funding_coverage_pct).toBeCloseTo((2 / 3) * 100, 12)
  })

  test('VaR 95 is the interpolated 5th percentile of trade P&L and CVaR the mean beyond it', () => {
    // sorted: −100, −5, −2, −1, 3, 10, 20; position 6 × 0.05 = 0.3
    expect(m.var_95).toBeCloseTo(-100 + 0.3 * 95, 12)
    expect(m.cvar_95).toBe(-100)
  })

  test('bars held', () => {
    expect(m.avg_bars_held).toBeCloseTo(34 / 7, 12)
    expect(m.median_bars_held).toBe(4)
  })

  test('the P&L distribution over fixed buckets', () => {
    expect(m.pnl_buckets).toEqual([...PNL_BUCKET_LABELS])
    expect(m.pnl_buckets[0]).toBe('< -50%')
    expect(m.pnl_buckets[5]).toBe('-2% to 0%')
    expect(m.pnl_distribution).toEqual([1, 0, 0, 0, 1, 2, 0, 1, 0, 1, 1, 0])
  })

  test('yearly and monthly stats by exit time', () => {
    expect(m.yearly_stats.map((s) => [s.period, s.trades, s.return_pct])).toEqual([
      ['2024', 4, -75],
      ['2025', 3, 0],
    ])
    expect(m.yearly_stats[0].win_rate).toBe(50)
    expect(m.yearly_stats[0].profit_factor).toBeCloseTo(30 / 105, 12)
    expect(m.yearly_stats[1].profit_factor).toBe(1)
    expect(m.monthly_stats.map((s) => [s.period, s.trades, s.profit_factor, s.return_pct])).toEqual([
      ['2024-01', 2, 2, 5],
      ['2024-02', 2, 0.2, -80],
      ['2025-01', 3, 1, 0],
    ])
    expectAllClose(
      m.monthly_stats.map((s) => s.win_rate),
      [50, 50, 100 / 3],
    )
  })

  test('per-coin results in the run\'s coin order, coins without trades included', () => {
    expect(m.coin_results.map((c) => c.symbol)).toEqual(['BTC', 'ETH', 'SOL'])
    const [btc, eth, sol] = m.coin_results
    expect(btc.win_rate).toBeCloseTo(200 / 3, 12)
    expect(btc.avg_pnl_pct).toBeCloseTo(-70 / 3, 12)
    expect({ ...btc, win_rate: 0, avg_pnl_pct: 0 }).toEqual({
      symbol: 'BTC',
      trades: 3,
      wins: 2,
      losses: 1,
      win_rate: 0,
      profit_factor: 0.3,
      total_return_pct: -70,
      avg_pnl_pct: 0,
      tp_count: 1,
      sl_count: 0,
      timeout_count: 0,
      trailing_count: 1,
      signal_count: 0,
      liquidation_count: 1,
      end_of_data_count: 0,
      delisted_count: 0,
    })
    expect([eth.trades, eth.wins, eth.profit_factor, eth.total_return_pct]).toEqual([4, 1, 3 / 8, -5])
    expect([eth.tp_count, eth.sl_count, eth.timeout_count, eth.trailing_count, eth.signal_count, eth.liquidation_count, eth.end_of_data_count]).toEqual([0, 1, 1, 0, 1, 0, 1])
    expect(sol).toMatchObject({ trades: 0, win_rate: 0, profit_factor: 0, total_return_pct: 0, avg_pnl_pct: 0 })
  })
})

describe('portfolio metrics from the daily equity curve', () => {
  test('max_drawdown_pct is the fall from the peak in % of that peak, at most 100 when the equity goes below zero', () => {
    // 100 → 50 → −302 (a run on fresh capital): the portfolio lost everything, not 402 %
    const below = toEquityPoints(Date.UTC(2024, 0, 1), Float64Array.from([50, -302]), 100)
    expect(below.map((p) => p.drawdownPct)).toEqual([50, 100])
    const m = computeMetrics({ trades: sized([]), equityCurve: below, initialCapitalUsd: 100 })
    expect(m.max_drawdown_pct).toBe(100)
    expect(m.max_drawdown_usd).toBe(402)
  })

  const m = computeMetrics({ trades: sized(trades), equityCurve: curve, initialCapitalUsd: 1000 })
  const root365 = Math.sqrt(365)

  test('USD return and portfolio return come from the trades\' USD P&L', () => {
    expect(m.total_return_usd).toBe(-75)
    expect(m.total_return_pct_portfolio).toBe(-7.5)
  })

  test('max drawdown in % and in USD', () => {
    expect(m.max_drawdown_pct).toBeCloseTo(1, 10)
    expect(m.max_drawdown_usd).toBeCloseTo(1029.996 - 1019.69604, 10)
  })

  test('Sharpe: mean / sample sd of daily returns × √365', () => {
    // returns 0.02, −0.01, 0.02, −0.01: mean 0.005, sd √(4 × 0.015² / 3)
    expect(m.sharpe_ratio).toBeCloseTo((0.005 / Math.sqrt((4 * 0.015 ** 2) / 3)) * root365, 9)
  })

  test('Sortino: mean / downside deviation (over all days) × √365', () => {
    expect(m.sortino_ratio).toBeCloseTo((0.005 / Math.sqrt((2 * 0.01 ** 2) / 4)) * root365, 9)
  })

  test('Calmar: annualised return over max drawdown %', () => {
    const cagr = ((1019.69604 / 1000) ** (365 / 4) - 1) * 100
    expect(m.annualized_return_pct).toBeCloseTo(cagr, 8)
    expect(m.calmar_ratio).toBeCloseTo(cagr / 1, 6)
  })

  test('recovery factor: USD return over max drawdown in USD', () => {
    expect(m.recovery_factor).toBeCloseTo(-75 / (1029.996 - 1019.69604), 9)
  })
})

describe('edge cases', () => {
  test('with no losing trade the profit factor is capped at 999 and flagged', () => {
    expect(profitFactor([1, 2])).toEqual({ value: 999, capped: true })
    expect(profitFactor([])).toEqual({ value: 0, capped: false })
    expect(profitFactor([-1, 0])).toEqual({ value: 0, capped: false })
  })

  test('zero trades give zeros, an empty-bucket distribution and no coverage', () => {
    const flatCurve = toEquityPoints(Date.UTC(2024, 0, 1), Float64Array.from([100, 100, 100]), 100)
    const m = computeMetrics({ trades: sized([]), equityCurve: flatCurve, initialCapitalUsd: 100 })
    expect([m.total_trades, m.win_rate, m.profit_factor, m.total_return_pct, m.sharpe_ratio, m.sortino_ratio, m.calmar_ratio]).toEqual([0, 0, 0, 0, 0, 0, 0])
    expect([m.var_95, m.cvar_95, m.avg_bars_held, m.median_bars_held, m.max_drawdown_pct]).toEqual([0, 0, 0, 0, 0])
    expect(m.funding_coverage_pct).toBeNull()
    expect(m.pnl_distribution.every((c) => c === 0)).toBe(true)
  })

  test('result buckets', () => {
    expect(resultBucket('trailing', 0.5)).toBe('tp')
    expect(resultBucket('trailing', -0.5)).toBe('sl')
    expect(resultBucket('signal', 0)).toBe('sl')
    expect(resultBucket('end_of_data', 50)).toBe('timeout')
  })

  test('quantile interpolates between order statistics', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5)
    expect(quantile([7], 0.05)).toBe(7)
  })
})

describe('buy-and-hold curves', () => {
  test('bought at the last close before the first day, valued at each day close', () => {
    // 1D bars from 2023-12-31: closes 100 (before the span), 110, 99
    const rows: Ohlc[] = [flat(100), [100, 110, 100, 110], [110, 110, 99, 99]]
    const bars = barsOf(rows, DAY_MS, Date.UTC(2023, 11, 31))
    const c = holdCurve(bars, Date.UTC(2024, 0, 1), Date.UTC(2024, 0, 2), 1000)
    expectAllClose(
      c.map((p) => p.equityUsd),
      [1100, 990],
    )
    expect(c[1].drawdownPct).toBeCloseTo(10, 10)
    expect(holdReturnPct(c)).toBeCloseTo(-1, 10)
  })

  test('days before the coin has a bar keep the capital', () => {
    const bars = barsOf([flat(50), [50, 60, 50, 60]], DAY_MS, Date.UTC(2024, 0, 2))
    const c = holdCurve(bars, Date.UTC(2024, 0, 1), Date.UTC(2024, 0, 3), 100)
    expectAllClose(
      c.map((p) => p.equityUsd),
      [100, 100, 120],
    )
  })
})
