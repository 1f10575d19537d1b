/**
 * On the real worker pool (2 workers): the job simulates each configuration's coins once
 * for all groups in one worker (runs/compute/nested-runs.ts) while /simulate splits a run's
 * coins over both workers and merges them; the figures must still agree to the last digit.
 */
import { afterAll, expect, test } from 'bun:test'
import { rankingsJob } from '../src/jobs/rankings'
import { Scheduler } from '../src/jobs/scheduler'
import { createLogger } from '../src/log'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

// BTCUSDT third in market-cap order: the btc group is not a prefix of the others
const SYMBOLS = ['ETHUSDT', 'SOLUSDT', 'BTCUSDT', 'XRPUSDT', 'ADAUSDT', 'DOGEUSDT', 'LINKUSDT']
const h = makeHarness({ workers: 2, nowMs: Date.UTC(2026, 10, 20, 0, 30), fill: store => fillWalkUniverse(store, SYMBOLS, Date.UTC(2026, 8, 1), 80, 70) })
afterAll(() => h.cleanup())

test('rows computed on the pool equal /simulate on the pool', async () => {
  const s = new Scheduler({ clock: h.clock, db: h.deps.db, log: createLogger('silent'), timers: false })
  s.register(rankingsJob(h.deps))
  const row = await s.runSlot('rankings', h.clock.now(), 'manual')
  expect(row!.outcome).toBe('ok')
  let checked = 0
  for (const [period, group] of [['30d', 'top30'], ['365d', 'top100'], ['7d', 'top50'], ['30d', 'btc']] as const) {
    const b = (await h.req(`/rankings/daily?period=${period}&group=${group}`)).body
    expect(b.how_to_reverify.rows.length).toBeGreaterThan(0)
    for (const c of b.how_to_reverify.rows) {
      const sim = (await h.req('/simulate', { method: 'POST', json: c.request.body })).body
      expect([sim.total_trades, sim.win_rate, sim.profit_factor, sim.total_return_pct, sim.sharpe_ratio, sim.max_drawdown_pct]).toEqual([
        c.expected.total_trades,
        c.expected.win_rate,
        c.expected.profit_factor,
        c.expected.total_return_pct,
        c.expected.sharpe_ratio,
        c.expected.max_drawdown_pct,
      ])
      checked++
    }
  }
  expect(checked).toBeGreaterThanOrEqual(16)
  await s.stop()
}, 120_000)
