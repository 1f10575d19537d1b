import { afterAll, describe, expect, test } from 'bun:test'
import { fillWalkUniverse, makeHarness } from './helpers/harness'
import { PoolExecutor } from '../src/runs/compute/executor'
import { Overloaded } from '../src/runs/errors'

const T0 = Date.UTC(2024, 0, 1)
const COINS = Array.from({ length: 12 }, (_, k) => `C${String.fromCharCode(65 + k)}XUSDT`)

const fill = (store: any) => fillWalkUniverse(store, COINS, T0, 365, 100)

const inProcess = makeHarness({ fill })
const pooled = makeHarness({ fill, dataDir: inProcess.dataDir, workers: 2 })
afterAll(() => {
  pooled.cleanup()
  inProcess.cleanup()
})

const strip = (b: any) => ({ ...b, compute_time_ms: 0 })

describe('worker pool', () => {
  test('a run gives identical results in-process and on two workers', async () => {
    const req = { method: 'POST', json: { strategy: 'bb-squeeze-short', top_n: 12 }, headers: { 'cache-control': 'no-cache' } }
    const a = await inProcess.req('/simulate', req)
    const b = await pooled.req('/simulate', req)
    expect(b.status).toBe(200)
    expect(a.body.total_trades).toBeGreaterThan(0)
    expect(strip(b.body)).toEqual(strip(a.body))
  })

  test('compare gives identical figures in-process and on two workers', async () => {
    const req = { method: 'POST', json: { top_n: 5, sl_pct: 3, tp_pct: 5, max_bars: 24 }, headers: { 'cache-control': 'no-cache' } }
    const a = await inProcess.req('/simulate/compare', req)
    const b = await pooled.req('/simulate/compare', req)
    expect(b.status).toBe(200)
    expect(b.body).toEqual(a.body)
  })

  test.skipIf(process.platform !== 'linux')('the workers run at a lower CPU priority than the request loop', async () => {
    const { readdirSync, readFileSync } = await import('node:fs')
    await pooled.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-short', top_n: 2 } }) // the workers are up
    const threads = readdirSync('/proc/self/task').map(tid => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      // fields after the command name: state is 3rd, nice the 19th
      return { name: readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim(), nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) }
    })
    const workers = threads.filter(t => t.name === 'Worker')
    expect(workers.length).toBeGreaterThanOrEqual(2)
    expect(workers.every(t => t.nice === 10)).toBe(true)
    expect(threads.find(t => t.name === 'bun' || t.name.startsWith('bun'))?.nice ?? 0).toBe(0)
  })

  test('cached signals give the same result as a cold computation', async () => {
    const warm = { method: 'POST', json: { strategy: 'bb-squeeze-short', top_n: 12, sl_pct: 4 }, headers: { 'cache-control': 'no-cache' } }
    await pooled.req('/simulate', { ...warm, json: { ...warm.json, sl_pct: 3 } }) // fills the workers' signal caches
    const cached = await pooled.req('/simulate', warm)
    const fresh = makeHarness({ fill, dataDir: inProcess.dataDir })
    try {
      const cold = await fresh.req('/simulate', warm)
      expect(strip(cached.body)).toEqual(strip(cold.body))
    } finally {
      fresh.cleanup()
    }
  })

  test('identical requests in flight share one computation', async () => {
    const sim = pooled.deps.runs
    const spec = (await import('../src/runs/simulate-spec')).simulateSpec({ strategy: 'atr-breakout-long', market_type: 'futures', top_n: 12, timeframe: '1H', start_date: null, end_date: null, leverage: 1, fee_pct: null, per_coin_usd: 60, max_concurrent_positions: 100, compounding: false, include_stablecoins: false })
    const [x, y] = await Promise.all([sim.run(spec), sim.run(spec)])
    expect(x).toBe(y)
  })

  test('/health answers while every worker is busy', async () => {
    const pool = (pooled.executor as PoolExecutor).pool
    const runs = [1, 2, 3, 4].map(k =>
      pooled.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-long', top_n: 12, sl_pct: k }, headers: { 'cache-control': 'no-cache' } }),
    )
    // until both workers hold a task and more wait behind them
    const deadline = performance.now() + 10_000
    while ((pool.stats().busy < pool.size || pool.stats().queued === 0) && performance.now() < deadline) await Bun.sleep(0)
    const before = pool.stats()
    const started = performance.now()
    const health = await pooled.req('/health')
    const ms = performance.now() - started
    const after = pool.stats()
    expect(health.status).toBe(200)
    expect(before.busy).toBe(2)
    expect(before.queued).toBeGreaterThan(0)
    // the runs were not done when /health answered: it did not wait for them
    expect(after.busy + after.queued).toBeGreaterThan(0)
    await Promise.all(runs)
    expect(ms).toBeLessThan(1000) // generous: this is a property check, the latency target is in bench/
  })

  test('a full queue sheds with 503 and Retry-After', async () => {
    const h = makeHarness({ fill, dataDir: inProcess.dataDir, workers: 1, queueMax: 1 })
    try {
      const reqs = [1, 2, 3, 4, 5, 6].map(k => h.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-long', top_n: 12, sl_pct: k + 0.5 }, headers: { 'cache-control': 'no-cache' } }))
      const res = await Promise.all(reqs)
      const shed = res.filter(r => r.status === 503)
      expect(shed.length).toBeGreaterThan(0)
      const retry = Number(shed[0].headers.get('retry-after'))
      expect(retry).toBeGreaterThanOrEqual(1)
      expect(shed[0].body).toEqual({ detail: `The simulation queue is full; retry after ${retry} s`, retry_after_seconds: retry })
      expect(res.filter(r => r.status === 200).length).toBeGreaterThan(0)
    } finally {
      h.cleanup()
    }
  })

  test('a burst of optimize requests sheds with 503 like any run', async () => {
    const h = makeHarness({ fill, dataDir: inProcess.dataDir, workers: 1, queueMax: 1 })
    try {
      const reqs = [1, 2, 3, 4, 5, 6].map(k =>
        h.req('/simulate/optimize', { method: 'POST', json: { strategy: 'bb-squeeze-long', top_n: 12, sl_values: [k + 0.5, k + 1.5], tp_values: [2, 4] } }),
      )
      const res = await Promise.all(reqs)
      const shed = res.filter(r => r.status === 503)
      const done = res.filter(r => r.status === 200)
      expect(shed.length).toBeGreaterThan(0)
      expect(done.length).toBeGreaterThan(0)
      expect(shed.length + done.length).toBe(6)
      const retry = Number(shed[0].headers.get('retry-after'))
      expect(retry).toBeGreaterThanOrEqual(1)
      expect(shed[0].body).toEqual({ detail: `The simulation queue is full; retry after ${retry} s`, retry_after_seconds: retry })
      expect(done[0].body.n_cells).toBe(4)
    } finally {
      h.cleanup()
    }
  })

  test('validate is admitted like any run: with one run in flight and QUEUE_MAX 1 it sheds', async () => {
    const h = makeHarness({ fill, dataDir: inProcess.dataDir, workers: 1, queueMax: 1 })
    try {
      const running = h.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-long', top_n: 12, sl_pct: 7.5 }, headers: { 'cache-control': 'no-cache' } })
      const validate = await h.req('/simulate/validate', { method: 'POST', json: { strategy: 'bb-squeeze-short', top_n: 12, n_simulations: 50 } })
      expect(validate.status).toBe(503)
      expect((await running).status).toBe(200)
      // once the queue is free it runs
      expect((await h.req('/simulate/validate', { method: 'POST', json: { strategy: 'bb-squeeze-short', top_n: 12, n_simulations: 50 } })).status).toBe(200)
    } finally {
      h.cleanup()
    }
  })

  test('Overloaded carries a retry hint', () => {
    expect(new Overloaded(3).retryAfterSec).toBe(3)
  })
})

describe('the task registry', () => {
  test('an executor refuses a function that is not a registered task, in-process as on the pool', async () => {
    const { InProcessExecutor } = await import('../src/runs/compute/executor')
    const { taskName } = await import('../src/runs/compute/tasks')
    const { runCoinTrades } = await import('../src/runs/compute/coin-tasks')
    expect(taskName(runCoinTrades)).toBe('coinTrades')
    const stray = (_ctx: unknown, p: number) => p + 1
    await expect(new InProcessExecutor(inProcess.deps.store).run(stray, 1)).rejects.toThrow('not a registered task')
    await expect(pooled.executor.run(stray, 1)).rejects.toThrow('not a registered task')
  })
})
