/**
 * Requests go ahead of scheduled jobs on the workers: a request's tasks are taken before any
 * queued job task (a job task already running finishes), job work never makes a request
 * shed, and a job still completes once requests stop.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { rankingsJob } from '../src/jobs/rankings'
import { Scheduler } from '../src/jobs/scheduler'
import { createLogger } from '../src/log'
import { simulateSpec } from '../src/runs/simulate-spec'
import { runCoinTrades } from '../src/runs/compute/coin-tasks'
import { TaskQueue, type Priority } from '../src/runs/compute/task-queue'
import { Overloaded } from '../src/runs/errors'
import { RunService } from '../src/runs/service'
import type { RunSpec } from '../src/runs/spec'
import type { TaskName, Transport } from '../src/runs/transport'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

describe('TaskQueue', () => {
  const item = (name: string, priority: Priority, slot: number | null = null) => ({ name, priority, slot })

  test('a free worker takes the oldest interactive task before any background task', () => {
    const q = new TaskQueue<ReturnType<typeof item>>()
    for (const x of [item('job1', 'background'), item('job2', 'background'), item('req1', 'interactive'), item('job3', 'background'), item('req2', 'interactive')]) q.push(x)
    const order: string[] = []
    for (let p = q.take(0); p; p = q.take(0)) order.push(p.name)
    expect(order).toEqual(['req1', 'req2', 'job1', 'job2', 'job3'])
  })

  test('affinity holds in both lanes: a worker takes a background task when no interactive task may run on it', () => {
    const q = new TaskQueue<ReturnType<typeof item>>()
    q.push(item('req-on-0', 'interactive', 0))
    q.push(item('job-on-1', 'background', 1))
    q.push(item('job-any', 'background'))
    expect(q.take(1)?.name).toBe('job-on-1')
    expect(q.take(1)?.name).toBe('job-any')
    expect(q.take(1)).toBeUndefined()
    expect(q.take(0)?.name).toBe('req-on-0')
    expect(q.length).toBe(0)
  })

  test('lanes are counted apart (the pool bounds each lane on its own)', () => {
    const q = new TaskQueue<ReturnType<typeof item>>()
    q.push(item('a', 'background'))
    q.push(item('b', 'background'))
    q.push(item('c', 'interactive'))
    expect([q.waiting('interactive'), q.waiting('background'), q.length]).toEqual([1, 2, 3])
    expect(q.drain().map(x => x.name)).toEqual(['c', 'a', 'b'])
    expect(q.length).toBe(0)
  })
})

// BTCUSDT third in market-cap order, as in rankings-pool.test.ts
const SYMBOLS = ['ETHUSDT', 'SOLUSDT', 'BTCUSDT', 'XRPUSDT', 'ADAUSDT', 'DOGEUSDT', 'LINKUSDT']
const h = makeHarness({ workers: 1, nowMs: Date.UTC(2026, 10, 20, 0, 30), fill: store => fillWalkUniverse(store, SYMBOLS, Date.UTC(2026, 8, 1), 80, 70) })
afterAll(() => h.cleanup())

const body = (sl: number) => ({ strategy: 'bb-squeeze-short', market_type: 'futures' as const, top_n: 7, timeframe: '1H' as const, start_date: null, end_date: null, leverage: 1, fee_pct: null, sl_pct: sl, per_coin_usd: 60, max_concurrent_positions: 100, compounding: false, include_stablecoins: false })

interface Event {
  ev: 'submit' | 'done'
  id: number
  task: TaskName
  priority: Priority
}

/** The harness's transport (the pool, one worker), recording when each task is submitted and when it is done. */
function recording(inner: Transport): { transport: Transport; log: Event[] } {
  const log: Event[] = []
  let next = 0
  return {
    log,
    transport: {
      get parallelism() {
        return inner.parallelism
      },
      submit(task, payload, opts) {
        const id = next++
        log.push({ ev: 'submit', id, task, priority: opts.priority })
        return inner.submit(task, payload, opts).then(r => {
          log.push({ ev: 'done', id, task, priority: opts.priority })
          return r
        })
      },
      close: () => inner.close(),
      stats: () => inner.stats(),
    },
  }
}

/** The harness's transport with the tasks of one lane held until `release()`. */
function holding(inner: Transport, lane: Priority): { transport: Transport; release(): void } {
  let release!: () => void
  const gate = new Promise<void>(r => (release = r))
  return {
    release,
    transport: {
      get parallelism() {
        return inner.parallelism
      },
      submit: (task, payload, opts) => (opts.priority === lane ? gate.then(() => inner.submit(task, payload, opts)) : inner.submit(task, payload, opts)),
      close: () => inner.close(),
      stats: () => inner.stats(),
    },
  }
}

/** The live scan's payload for some coins (bb-squeeze-short on 1H, the last three days). */
const scanPayload = (symbols: string[]) => ({ timeframe: '1H' as const, symbols, strategies: ['bb-squeeze-short'], nowMs: h.clock.now(), earliestMs: h.clock.now() - 72 * 3_600_000, watermark: null, forming: {} })

/** The rankings' nested groups for one spec: its universe and that universe's first three coins. */
function nested(runs: RunService, spec: RunSpec) {
  const { symbols } = runs.resolveUniverse(spec)
  return { specs: [spec, spec], symbols, groups: [symbols.map((_, i) => i), [0, 1, 2]], sameWorker: ['a', 'a'] }
}

describe('the worker pool (one worker)', () => {
  test('queued job tasks wait while a later request task runs first; the running one finishes', async () => {
    const spec = simulateSpec(body(3))
    const done: string[] = []
    const go = (name: string, priority: Priority) => h.executor.run(runCoinTrades, { spec, symbols: ['ETHUSDT', 'BTCUSDT'] }, 0, priority).then(() => done.push(name))
    const all = [go('job1', 'background'), go('job2', 'background'), go('job3', 'background'), go('req1', 'interactive'), go('req2', 'interactive')]
    await Promise.all(all)
    // job1 was already on the worker when the requests came: it finishes, then both requests
    expect(done).toEqual(['job1', 'req1', 'req2', 'job2', 'job3'])
  })
})

describe('the run pipeline', () => {
  test("a job's runs go in at background priority, a request's at interactive", async () => {
    const { transport, log } = recording(h.transport)
    const runs = new RunService({ store: h.deps.store, universe: h.deps.universe, transport, db: h.deps.db, clock: h.clock, cacheSize: 0 })
    await runs.run(simulateSpec(body(4)), { noCache: true, background: true })
    const jobTasks = log.filter(e => e.ev === 'submit').map(e => e.priority)
    expect(jobTasks.length).toBeGreaterThan(1) // coin chunks and statistics
    expect(new Set(jobTasks)).toEqual(new Set(['background']))
    log.length = 0
    await runs.run(simulateSpec(body(4)), { noCache: true })
    await runs.batch([simulateSpec(body(4))], { noCache: true })
    expect(new Set(log.filter(e => e.ev === 'submit').map(e => e.priority))).toEqual(new Set(['interactive']))
  })

  test("every named operation sends its tasks in its caller's lane: the jobs' in the background, the requests' interactive", async () => {
    const { transport, log } = recording(h.transport)
    const runs = new RunService({ store: h.deps.store, universe: h.deps.universe, transport, db: h.deps.db, clock: h.clock, cacheSize: 0 })
    const spec = simulateSpec(body(4))
    const lanes = async (op: () => Promise<unknown>) => {
      log.length = 0
      await op()
      return log.filter(e => e.ev === 'submit').map(e => `${e.task}:${e.priority}`)
    }
    // the daily rankings' nested groups: one task per spec; the live scan: one chunk per worker
    expect(await lanes(() => runs.nestedRuns(nested(runs, spec), { background: true }))).toEqual(['nestedRuns:background', 'nestedRuns:background'])
    expect(await lanes(() => runs.signalScan(['ETHUSDT', 'BTCUSDT'], scanPayload, { background: true }))).toEqual(['scanSignals:background'])
    expect(await lanes(() => runs.batch([spec], { noCache: true, background: true }))).toEqual(['wholeRuns:background'])
    // the research routes: optimize's grid, validate's run and Monte Carlo
    expect(new Set(await lanes(() => runs.gridSearch(spec, runs.resolveUniverse(spec).symbols, [{ slPct: 2, tpPct: 3 }])))).toEqual(new Set(['gridTrades:interactive']))
    const validation = await lanes(() => runs.validation(spec, { noCache: true, simulations: 50 }))
    expect(new Set(validation)).toEqual(new Set(['coinTrades:interactive', 'tradeBootstrap:interactive', 'randomEntry:interactive']))
  })

  test('every named operation is admitted as one run: beyond QUEUE_MAX a request sheds, a job never does', async () => {
    const { transport, release } = holding(h.transport, 'interactive')
    const runs = new RunService({ store: h.deps.store, universe: h.deps.universe, transport, db: h.deps.db, clock: h.clock, cacheSize: 0, maxRuns: 1 })
    const spec = simulateSpec(body(9))
    const symbols = runs.resolveUniverse(spec).symbols
    // one request's run holds the one place (its tasks wait for release)
    const held = runs.run(spec, { noCache: true })
    expect(runs.runStats().activeRuns).toBe(1)
    const shed = [
      runs.batch([spec], { noCache: true }),
      runs.gridSearch(spec, symbols, [{ slPct: 2, tpPct: 3 }]),
      runs.validation(spec, { noCache: true, simulations: 10 }),
      runs.signalScan(['ETHUSDT'], scanPayload),
      runs.nestedRuns(nested(runs, spec)),
    ]
    for (const p of shed) await expect(p).rejects.toBeInstanceOf(Overloaded)
    // the same work as a job's: not counted, not shed, and done while the request still waits
    expect((await runs.nestedRuns(nested(runs, spec), { background: true })).map(r => r.length)).toEqual([2, 2])
    expect((await runs.signalScan(['ETHUSDT'], scanPayload, { background: true })).map(c => c.symbol)).toEqual(['ETHUSDT'])
    expect(runs.runStats()).toMatchObject({ activeRuns: 1, backgroundRuns: 0 })
    release()
    await held
    expect(runs.runStats()).toMatchObject({ activeRuns: 0, backgroundRuns: 0 })
  })

  test('job work in flight does not make a request shed; requests still shed beyond QUEUE_MAX as before', async () => {
    // the jobs' tasks are held until release: their work stays in flight
    const { transport, release } = holding(h.transport, 'background')
    const runs = new RunService({ store: h.deps.store, universe: h.deps.universe, transport, db: h.deps.db, clock: h.clock, cacheSize: 0, maxRuns: 1 })
    const job = runs.nestedRuns(nested(runs, simulateSpec(body(5))), { background: true })
    const jobRun = runs.run(simulateSpec(body(5)), { noCache: true, background: true })
    expect(runs.runStats()).toMatchObject({ activeRuns: 0, backgroundRuns: 2 })
    // QUEUE_MAX = 1: the request is the one run counted, whatever the jobs do
    const req = runs.run(simulateSpec(body(6)), { noCache: true })
    await expect(runs.run(simulateSpec(body(7)), { noCache: true })).rejects.toBeInstanceOf(Overloaded)
    expect((await req).assembled.metrics.total_trades).toBeGreaterThan(0)
    release()
    await job
    await jobRun
    expect(runs.runStats()).toMatchObject({ activeRuns: 0, backgroundRuns: 0 })
  })

  test('while the rankings job runs, each request task waits at most for the job task already running; the job then completes', async () => {
    const { transport, log } = recording(h.transport)
    const runs = new RunService({ store: h.deps.store, universe: h.deps.universe, transport, db: h.deps.db, clock: h.clock, cacheSize: 0 })
    const s = new Scheduler({ clock: h.clock, db: h.deps.db, log: createLogger('silent'), timers: false })
    s.register(rankingsJob({ clock: h.clock, db: h.deps.db, store: h.deps.store, runs }))
    let settled = false
    const job = s.runSlot('rankings', h.clock.now(), 'manual').finally(() => (settled = true))
    // wait until job tasks are queued behind the one running
    while (h.transport.stats()!.queuedBackground < 3 && !settled) await Bun.sleep(1)
    expect(settled).toBe(false)
    for (let k = 0; k < 3; k++) await runs.run(simulateSpec(body(8 + k)), { noCache: true })
    const row = await job
    expect(row!.outcome).toBe('ok')
    const requestTasks = log.filter(e => e.ev === 'submit' && e.priority === 'interactive')
    expect(requestTasks.length).toBeGreaterThanOrEqual(3)
    for (const t of requestTasks) {
      const from = log.indexOf(t)
      const to = log.findIndex(e => e.ev === 'done' && e.id === t.id)
      const jobTasksDoneMeanwhile = log.slice(from, to).filter(e => e.ev === 'done' && e.priority === 'background').length
      expect(jobTasksDoneMeanwhile).toBeLessThanOrEqual(1)
    }
    // the job's tasks ran to the end after the requests (no starvation once requests stop)
    const jobSubmitted = log.filter(e => e.ev === 'submit' && e.priority === 'background').length
    expect(log.filter(e => e.ev === 'done' && e.priority === 'background').length).toBe(jobSubmitted)
    expect(jobSubmitted).toBeGreaterThan(3)
    await s.stop()
  })
})
