import { describe, expect, test } from 'bun:test'
import { btcRegimeLabels, regimeAt, regimePerformance, type RegimeTrade } from '../src/engine/statistics-regime'
import { PROFIT_FACTOR_CAP } from '../src/engine/statistics-trade-summary'

const DAY = 86_400_000
const t0 = Date.UTC(2023, 0, 1)
const days = (n: number) => Array.from({ length: n }, (_, i) => t0 + i * DAY)

describe('BTC regime labels', () => {
  test('trend: up when the close is above the mean of the last 200 closes, down at or below, null before', () => {
    // 200 flat days at 100, then 101 (mean 100.005 → up), then 99 (mean 100 → down)
    const closes = [...new Array(200).fill(100), 101, 99]
    const labels = btcRegimeLabels(days(202), closes)
    expect(labels[198].trend).toBeNull()
    expect(labels[199].trend).toBe('down') // close equal to its mean
    expect(labels[200].trend).toBe('up')
    expect(labels[201].trend).toBe('down')
  })

  test('volatility: high when the 30-day sd of log returns is above its median over the period', () => {
    // log returns ±1 % on days 1–50, ±3 % on days 51–99
    const closes = [100]
    for (let i = 1; i < 100; i++) closes.push(closes[i - 1] * Math.exp((i % 2 ? 1 : -1) * (i <= 50 ? 0.01 : 0.03)))
    const labels = btcRegimeLabels(days(100), closes)
    expect(labels[29].vol).toBeNull() // only 29 returns so far
    expect(labels[30].vol).toBe('low')
    expect(labels[45].vol).toBe('low')
    expect(labels[85].vol).toBe('high')
    expect(labels[99].vol).toBe('high')
    const counted = labels.filter((l) => l.vol !== null)
    expect(counted).toHaveLength(70)
    // a median split: half of the days on each side
    expect(counted.filter((l) => l.vol === 'high')).toHaveLength(35)
    expect(labels.every((l) => l.trend === null)).toBe(true) // fewer than 200 days
  })

  test('a missing close leaves the days whose window holds it unlabelled', () => {
    const closes = new Array(240).fill(0).map((_, i) => 100 + Math.sin(i))
    closes[210] = NaN
    const labels = btcRegimeLabels(days(240), closes)
    expect(labels[209].trend).not.toBeNull()
    expect(labels[210].trend).toBeNull()
    expect(labels[211].trend).toBeNull()
    expect(labels[211].vol).toBeNull()
    expect(() => btcRegimeLabels(days(3), [1, 2])).toThrow(RangeError)
  })
})

describe('regime at entry', () => {
  const labels = days(10).map((_, i) => ({ trend: i % 2 ? ('up' as const) : ('down' as const), vol: 'low' as const }))

  test("an entry takes the labels of the last day that closed before it, never the current day's", () => {
    expect(regimeAt(labels, days(10), t0 + 5 * DAY + 3 * 3_600_000)).toBe(labels[4])
    expect(regimeAt(labels, days(10), t0 + 5 * DAY)).toBe(labels[4]) // day 4 closes at this instant
    expect(regimeAt(labels, days(10), t0 + 30 * DAY)).toBe(labels[9])
  })

  test('an entry before the first close has no labels', () => {
    expect(regimeAt(labels, days(10), t0 + DAY / 2)).toEqual({ trend: null, vol: null })
  })
})

describe('performance by regime', () => {
  const trades: RegimeTrade[] = [
    { pnlPct: 2, trend: 'up', vol: 'high' },
    { pnlPct: -1, trend: 'up', vol: 'low' },
    { pnlPct: 3, trend: 'down', vol: 'high' },
    { pnlPct: -2, trend: 'down', vol: 'high' },
    { pnlPct: 1, trend: null, vol: null },
    { pnlPct: 1, trend: 'up', vol: null },
  ]
  const perf = regimePerformance(trades)!

  test('splits trades by trend and by volatility at entry', () => {
    expect(perf.btc_up).toEqual({ trades: 3, win_rate: 200 / 3, profit_factor: 3, total_return_pct: 2 })
    expect(perf.btc_down).toEqual({ trades: 2, win_rate: 50, profit_factor: 1.5, total_return_pct: 1 })
    expect(perf.high_vol).toEqual({ trades: 3, win_rate: 200 / 3, profit_factor: 2.5, total_return_pct: 3 })
    expect(perf.low_vol).toEqual({ trades: 1, win_rate: 0, profit_factor: 0, total_return_pct: -1 })
  })

  test('crossed groups need both labels; an empty group has zeros; no loser caps the profit factor', () => {
    expect(perf.up_high_vol).toEqual({ trades: 1, win_rate: 100, profit_factor: PROFIT_FACTOR_CAP, total_return_pct: 2 })
    expect(perf.down_high_vol.trades).toBe(2)
    expect(perf.down_low_vol).toEqual({ trades: 0, win_rate: 0, profit_factor: 0, total_return_pct: 0 })
  })

  test('counts trades missing a label and states the definition', () => {
    expect(perf.unlabelled_trades).toBe(2)
    expect(perf.definition).toContain('200-day')
  })

  test('is null when no trade has a label', () => {
    expect(regimePerformance([{ pnlPct: 1, trend: null, vol: null }])).toBeNull()
    expect(regimePerformance([])).toBeNull()
  })
})

describe('the regime split of a run (columns, one pass)', () => {
  test('equals labelling each trade with regimeAt and grouping the trade objects', async () => {
    const { walkCandles } = await import('./helpers/fixtures')
    const { dayCloses, regimeSplit } = await import('../src/engine/regime-split')
    const { TREND_SMA_DAYS } = await import('../src/engine/statistics-regime')
    const DAY = 86_400_000
    const start = Date.UTC(2022, 0, 1)
    const [t, o, h, l, c, v] = walkCandles(24 * 500, start, 11)
    const btc = { t: Float64Array.from(t), o: Float64Array.from(o), h: Float64Array.from(h), l: Float64Array.from(l), c: Float64Array.from(c), v: Float64Array.from(v), n: t.length, stepMs: 3_600_000 }
    const fromDay = start + 150 * DAY
    const toDay = start + 480 * DAY
    // entries on the hour, at midnights and before the labels start; P&L of both signs and zero
    const entryMs = Float64Array.from({ length: 3000 }, (_, i) => start + 140 * DAY + i * 3_600_000 * 2.5)
    const pnlPct = Float64Array.from({ length: 3000 }, (_, i) => (i % 7 === 0 ? 0 : Math.sin(i) * 5))
    const { days, closes } = dayCloses(btc, fromDay - TREND_SMA_DAYS * DAY, toDay)
    const labels = btcRegimeLabels(days, closes)
    const trades: RegimeTrade[] = Array.from(pnlPct, (p, i) => ({ pnlPct: p, ...regimeAt(labels, days, entryMs[i]) }))
    const split = regimeSplit(btc, entryMs, pnlPct, fromDay, toDay)
    expect(split).toEqual(regimePerformance(trades))
    expect(split!.btc_up.trades + split!.btc_down.trades).toBeGreaterThan(0)
  })
})

test('each regime group has the figures summarizeTrades gives for its trades (to the last bit)', async () => {
  const { summarizeTrades } = await import('../src/engine/statistics-trade-summary')
  const trend = [null, 'up', 'down'] as const
  const vol = [null, 'high', 'low'] as const
  const trades: RegimeTrade[] = Array.from({ length: 500 }, (_, i) => ({ pnlPct: i % 11 === 0 ? 0 : Math.sin(i * 1.7) * 9 + 0.1, trend: trend[i % 3], vol: vol[(i >> 1) % 3] }))
  const r = regimePerformance(trades)!
  const of = (keep: (t: RegimeTrade) => boolean) => {
    const s = summarizeTrades(trades.filter(keep).map(t => t.pnlPct))
    return { trades: s.trades, win_rate: s.win_rate, profit_factor: s.profit_factor, total_return_pct: s.total_return_pct }
  }
  expect(r.btc_up).toEqual(of(t => t.trend === 'up'))
  expect(r.btc_down).toEqual(of(t => t.trend === 'down'))
  expect(r.high_vol).toEqual(of(t => t.vol === 'high'))
  expect(r.low_vol).toEqual(of(t => t.vol === 'low'))
  expect(r.up_high_vol).toEqual(of(t => t.trend === 'up' && t.vol === 'high'))
  expect(r.up_low_vol).toEqual(of(t => t.trend === 'up' && t.vol === 'low'))
  expect(r.down_high_vol).toEqual(of(t => t.trend === 'down' && t.vol === 'high'))
  expect(r.down_low_vol).toEqual(of(t => t.trend === 'down' && t.vol === 'low'))
  expect(r.unlabelled_trades).toBe(trades.filter(t => t.trend === null || t.vol === null).length)
})
