/**
 * The transport under the run service (src/runs/transport.ts): a task addressed by its
 * registered name answers what its function answers, and a transport whose tasks cross a
 * process boundary as bytes (a queue's: every payload and result serialised and read back)
 * gives the run service the same responses, byte for byte, for every task it sends.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { deserialize, serialize } from 'node:v8'
import { computeDayFile } from '../src/live/ranking-day'
import { scanSignals } from '../src/live/signal-scan'
import { runCoinTrades } from '../src/runs/compute/coin-tasks'
import { TASKS } from '../src/runs/compute/tasks'
import { simulateSpec } from '../src/runs/simulate-spec'
import { laneOf, type TaskName, type Transport } from '../src/runs/transport'
import { fillWalkUniverse, makeHarness } from './helpers/harness'
import { SIMULATION_REQUESTS } from './helpers/route-requests'

const SYMBOLS = ['ETHUSDT', 'SOLUSDT', 'BTCUSDT', 'XRPUSDT', 'ADAUSDT', 'DOGEUSDT', 'LINKUSDT']
const NOW = Date.UTC(2026, 10, 20, 0, 30)
const fill = (s: Parameters<typeof fillWalkUniverse>[0]) => fillWalkUniverse(s, SYMBOLS, Date.UTC(2026, 7, 1), 110, 70)

/** Every task through bytes, as a queue would store and deliver it; the task names it carried. */
function overTheWire(inner: Transport): { transport: Transport; sent: Set<TaskName> } {
  const sent = new Set<TaskName>()
  return {
    sent,
    transport: {
      get parallelism() {
        return inner.parallelism
      },
      // one thread behind the bytes: a point-in-time twin's tasks find the trades their chunks kept
      get pinsAffinity() {
        return inner.pinsAffinity
      },
      async submit(task, payload, opts) {
        const message = deserialize(serialize({ task, payload, opts }))
        sent.add(message.task)
        const result = await inner.submit(message.task, message.payload, message.opts)
        return deserialize(serialize(result))
      },
      stats: () => inner.stats(),
      close: () => inner.close(),
    },
  }
}

let wire!: ReturnType<typeof overTheWire>
const local = makeHarness({ nowMs: NOW, fill })
const remote = makeHarness({ nowMs: NOW, fill, transport: inner => (wire = overTheWire(inner)).transport })
afterAll(() => {
  local.cleanup()
  remote.cleanup()
})

/** The body without its timings (the one part that differs between two runs). */
const timeless = (x: unknown): unknown =>
  Array.isArray(x) ? x.map(timeless) : x && typeof x === 'object' ? Object.fromEntries(Object.entries(x).filter(([k]) => k !== 'compute_time_ms' && k !== 'generated_at').map(([k, v]) => [k, timeless(v)])) : x

describe('the transport', () => {
  test('a task submitted by its registered name answers what its function answers', async () => {
    const payload = { spec: simulateSpec({ strategy: 'bb-squeeze-short', market_type: 'futures', top_n: 7, timeframe: '1H', start_date: null, end_date: null, leverage: 1, fee_pct: null, sl_pct: 3, per_coin_usd: 60, max_concurrent_positions: 100, compounding: false, include_stablecoins: false }), symbols: ['ETHUSDT', 'BTCUSDT'] }
    const byName = await local.transport.submit('coinTrades', payload, { priority: 'interactive' })
    expect(byName).toEqual(await local.executor.run(runCoinTrades, payload))
    expect(byName.trades.n).toBeGreaterThan(0)
  })

  test('a lane refuses a function that is not a registered task with a rejected promise', async () => {
    const stray = (_ctx: unknown, x: number) => x
    await expect(laneOf(local.transport, 'interactive').run(stray, 1)).rejects.toThrow('not a registered task')
  })

  test('tasks that cross a process boundary as bytes give the same responses, byte for byte: the routes, a ranking day, the live scan', async () => {
    const post = async (h: typeof local, path: string, json: unknown) => {
      const r = await h.app.handle(new Request(`http://localhost${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' }, body: JSON.stringify(json) }))
      const bytes = new Uint8Array(await r.arrayBuffer())
      const type = r.headers.get('content-type') ?? ''
      return { status: r.status, body: type.includes('json') ? JSON.stringify(timeless(JSON.parse(new TextDecoder().decode(bytes)))) : bytes }
    }
    const requests: [string, unknown][] = [
      ...SIMULATION_REQUESTS,
      ['/generate-bot', { strategy: 'bb-squeeze-short', coins: ['BTCUSDT', 'ETHUSDT'], selftest_candles: 500 }],
    ]
    for (const [path, json] of requests) {
      const [a, b] = [await post(local, path, json), await post(remote, path, json)]
      expect({ path, status: b.status }).toEqual({ path, status: 200 })
      expect(b).toEqual(a)
    }
    // the jobs' operations: the daily rankings' nested groups and the live scan
    const ctx = { progress() {}, yield: async () => {}, trigger: 'manual' as const }
    const day = (h: typeof local) => computeDayFile({ clock: h.clock, db: h.deps.db, store: h.deps.store, runs: h.deps.runs }, '2026-11-19', ctx)
    const [dayA, dayB] = [await day(local), await day(remote)]
    expect('incomplete' in dayA).toBe(false)
    expect(timeless(dayB)).toEqual(timeless(dayA))
    const scan = (h: typeof local) => scanSignals({ db: h.deps.db, store: h.deps.store, series: h.deps.series, universe: h.deps.universe, clock: h.clock, runs: h.deps.runs })
    const [scanA, scanB] = [await scan(local), await scan(remote)]
    expect(scanA.added).toBeGreaterThan(0)
    expect(scanB).toEqual(scanA)
  }, 120_000)

  test('a sweep and a walk-forward run answer the same through bytes; every registered task made the round trip', async () => {
    const post = async (h: typeof local, path: string, json: unknown) => {
      const r = await h.app.handle(new Request(`http://localhost${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) }))
      return { status: r.status, body: await r.text() }
    }
    // the research runs: a sweep (its trials and the CSCV's splits) and a walk-forward (its stitched run)
    const research = async (h: typeof local, path: string, json: unknown) => {
      const r = await post(h, path, json)
      expect(r.status).toBe(202)
      const id = JSON.parse(r.body as string).id as string
      for (;;) {
        const g = await h.req(`${path}/${id}?limit=1000`)
        if (!['queued', 'running'].includes(g.body.state)) {
          const { id: _id, created_at, started_at, finished_at, ...rest } = g.body
          return timeless(rest)
        }
        await Bun.sleep(5)
      }
    }
    const sweep = { strategy: 'bb-squeeze-short', top_n: 4, space: [{ path: 'sl_pct', values: [2, 4] }, { path: 'tp_pct', values: [3, 6] }], min_trades: 1, pbo_blocks: 4 }
    const [sweepA, sweepB] = [await research(local, '/research/sweeps', sweep), await research(remote, '/research/sweeps', sweep)]
    expect((sweepA as { state: string }).state).toBe('done')
    expect(sweepB).toEqual(sweepA)
    const wf = { ...sweep, pbo_blocks: undefined, in_sample_days: 40, out_of_sample_days: 20, folds: 3 }
    const [wfA, wfB] = [await research(local, '/research/walk-forward', wf), await research(remote, '/research/walk-forward', wf)]
    expect((wfA as { state: string }).state).toBe('done')
    expect(wfB).toEqual(wfA)
    // every registered task made the round trip (the routes and jobs above, the research runs here)
    expect([...wire.sent].sort()).toEqual((Object.keys(TASKS) as TaskName[]).sort())
    // every route, a whole ranking day (its point-in-time groups) and a scan, twice
  }, 120_000)
})
