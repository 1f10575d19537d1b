import { describe, expect, test } from 'bun:test'
import { walkForward } from '../src/engine/statistics-walk-forward'

const DAY = 86_400_000
const start = Date.UTC(2024, 0, 1)
const end = start + 100 * DAY // five folds of 20 days

// fold:            1: +3 −1      2: −2         3: (none)   4: +1 +1 −0.5   5: +4
const trades = [
  { exitTimeMs: start + 1 * DAY, pnlPct: 3 },
  { exitTimeMs: start + 19 * DAY, pnlPct: -1 },
  { exitTimeMs: start + 20 * DAY, pnlPct: -2 }, // exactly on the boundary: belongs to fold 2
  { exitTimeMs: start + 61 * DAY, pnlPct: 1 },
  { exitTimeMs: start + 70 * DAY, pnlPct: 1 },
  { exitTimeMs: start + 79 * DAY, pnlPct: -0.5 },
  { exitTimeMs: end, pnlPct: 4 }, // the window's last instant: fold 5
]

describe('walk-forward consistency', () => {
  const wf = walkForward(trades, start, end)!

  test('cuts the window into five consecutive folds of equal length', () => {
    expect(wf.folds.map((f) => f.fromMs)).toEqual([0, 20, 40, 60, 80].map((d) => start + d * DAY))
    expect(wf.folds.map((f) => f.toMs)).toEqual([20, 40, 60, 80, 100].map((d) => start + d * DAY))
  })

  test('assigns each trade to the fold in which it closed', () => {
    expect(wf.folds.map((f) => f.trades)).toEqual([2, 1, 0, 3, 1])
    expect(wf.folds.map((f) => f.return_pct)).toEqual([2, -2, 0, 1.5, 4])
  })

  test('scores each fold: win rate in percent and profit factor', () => {
    expect(wf.folds[0].win_rate).toBe(50)
    expect(wf.folds[0].profit_factor).toBe(3)
    expect(wf.folds[3].win_rate).toBeCloseTo(200 / 3, 12)
    expect(wf.folds[3].profit_factor).toBe(4)
    expect(wf.folds[2].profit_factor).toBe(0)
  })

  test('consistency is the share of folds with a positive summed return; an empty fold is not profitable', () => {
    expect(wf.consistency).toBe(3 / 5)
  })

  test('the details name the count and every fold with its dates and figures', () => {
    expect(wf.details.startsWith('3 of 5 folds profitable.')).toBe(true)
    expect(wf.details).toContain('fold 1 2024-01-01 to 2024-01-20: 2 trades, +2.00%, win rate 50.0%, PF 3.00')
    expect(wf.details).toContain('fold 3 2024-02-10 to 2024-02-29: 0 trades, +0.00%')
    expect(wf.details).toContain('fold 5 2024-03-21 to 2024-04-10: 1 trades, +4.00%')
  })

  test('a trade closing outside the window counts in the nearest fold', () => {
    const r = walkForward([{ exitTimeMs: start - DAY, pnlPct: 1 }, { exitTimeMs: end + DAY, pnlPct: 1 }], start, end)!
    expect(r.folds.map((f) => f.trades)).toEqual([1, 0, 0, 0, 1])
  })

  test('other fold counts work and every fold profitable gives 1', () => {
    const r = walkForward(trades.filter((t) => t.pnlPct > 0), start, end, 2)!
    expect(r.folds).toHaveLength(2)
    expect(r.consistency).toBe(1)
  })

  test('no trades, an empty window or a bad fold count give null', () => {
    expect(walkForward([], start, end)).toBeNull()
    expect(walkForward(trades, end, start)).toBeNull()
    expect(walkForward(trades, start, end, 0)).toBeNull()
  })
})

test("each fold has the figures summarizeTrades gives for the fold's trades, from objects or columns alike", async () => {
  const { summarizeTrades } = await import('../src/engine/statistics-trade-summary')
  const t0 = Date.UTC(2024, 0, 1)
  const list = Array.from({ length: 400 }, (_, i) => ({ exitTimeMs: t0 + ((i * 7919) % 400) * 3_600_000 * 5, pnlPct: i % 9 === 0 ? 0 : Math.sin(i * 2.1) * 7 + 0.3 }))
  const end = t0 + 400 * 3_600_000 * 5
  const a = walkForward(list, t0, end, 4)!
  const b = walkForward({ exitMs: list.map(t => t.exitTimeMs), pnlPct: list.map(t => t.pnlPct) }, t0, end, 4)!
  expect(b).toEqual(a)
  a.folds.forEach(f => {
    const s = summarizeTrades(list.filter(t => t.exitTimeMs >= f.fromMs && (t.exitTimeMs < f.toMs || f.toMs === end)).map(t => t.pnlPct))
    expect([f.trades, f.return_pct, f.win_rate, f.profit_factor]).toEqual([s.trades, s.total_return_pct, s.win_rate, s.profit_factor])
  })
})
