import { afterAll, describe, expect, test } from 'bun:test'
import { fillWalkUniverse, makeHarness } from './helpers/harness'
import { T0 } from './research-fixtures'

const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'BNBUSDT']
const h = makeHarness({ fill: store => fillWalkUniverse(store, COINS, T0, 120, 21) })
afterAll(() => h.cleanup())

const BASE = { strategy: 'bb-squeeze-short', top_n: 5 }
const start = (json: Record<string, unknown>) => h.req('/research/sweeps', { method: 'POST', json: { ...BASE, ...json } })
const settled = async (id: string) => {
  for (let i = 0; i < 400; i++) {
    const r = await h.req(`/research/sweeps/${id}?limit=1000`)
    if (!['queued', 'running'].includes(r.body.state)) return r
    await Bun.sleep(10)
  }
  throw new Error('sweep did not stop')
}

describe('POST /research/sweeps', () => {
  test('an exit-only grid: 202 with the id at once, then every trial in the ledger, the best, PBO, deflated Sharpe over the ledger size, stability', async () => {
    const r = await start({ space: [{ path: 'sl_pct', values: [2, 4, 6] }, { path: 'tp_pct', min: 2, max: 6, step: 2 }], objective: 'total_return_pct', min_trades: 1, pbo_blocks: 4 })
    if (r.status !== 202) console.log(JSON.stringify(r.body))
    expect(r.status).toBe(202)
    expect(r.body.state).toBe('queued')
    expect(r.body.n_planned).toBe(9)
    const done = await settled(r.body.id)
    expect(done.status).toBe(200)
    console.log(JSON.stringify({ ...done.body, trials: { ...done.body.trials, items: done.body.trials.items.slice(0, 2) } }, null, 1).slice(0, 3000))
    expect(done.body.state).toBe('done')
    expect(done.body.n_trials).toBe(9)
    expect(done.body.trials.items.length).toBe(9)
    expect(done.body.deflated_sharpe.n_trials).toBe(9)
  })
})
