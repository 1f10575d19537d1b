/**
 * The queue transport (REDIS_URL, src/runs/queue-transport.ts): the API process in this test
 * puts its chunk tasks on BullMQ, real `perpsim worker` processes (`bun src/cli.ts worker`)
 * on the same store take them, and the responses are the in-process pool's, byte for byte.
 * A worker killed with SIGKILL in the middle of a wide run loses its tasks to the other one,
 * and the run's response is still the same bytes. With no worker, or only workers on
 * another store, the API answers 503 naming why; a task that cannot finish by its deadline
 * fails its run with 503 instead of hanging.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { hostname } from 'node:os'
import { Queue, QueueEvents } from 'bullmq'
import { Redis } from 'ioredis'
import { computeDayFile } from '../src/live/ranking-day'
import { simulateSpec } from '../src/runs/simulate-spec'
import { QueueTransport } from '../src/runs/queue-transport'
import { encode, fleetCoins, fleetKey, QUEUE_ENGINE_VERSION, QUEUE_NAME, readsVersion, REFUSED, symbolRead, type FleetEntry, type TaskJobData } from '../src/runs/queue-wire'
import type { CandleStore } from '../src/market/candle-store'
import { fillWalkUniverse, makeHarness, type Harness } from './helpers/harness'
import { privateRedis, testRedis, type TestRedis } from './helpers/redis'
import { BUN, ROOT } from './helpers/serve'
import { SIMULATION_REQUESTS } from './helpers/route-requests'

const SYMBOLS = ['ETHUSDT', 'SOLUSDT', 'BTCUSDT', 'XRPUSDT', 'ADAUSDT', 'DOGEUSDT', 'LINKUSDT']
const NOW = Date.UTC(2026, 10, 20, 0, 30)
const fill = (s: Parameters<typeof fillWalkUniverse>[0]) => fillWalkUniverse(s, SYMBOLS, Date.UTC(2026, 7, 1), 110, 70)
/** chunks per run on both sides: the pool's threads, and the fleet's (WORKERS on the API node) */
const THREADS = 2

const redis: TestRedis | null = await testRedis('the queue transport tests (BullMQ on Redis)')
afterAll(() => redis?.cleanup())

/** The body without its timings (the one part that differs between two runs). */
const timeless = (x: unknown): unknown =>
  Array.isArray(x) ? x.map(timeless) : x && typeof x === 'object' ? Object.fromEntries(Object.entries(x).filter(([k]) => k !== 'compute_time_ms' && k !== 'generated_at').map(([k, v]) => [k, timeless(v)])) : x

async function post(h: Harness, path: string, json: unknown) {
  const r = await h.app.handle(new Request(`http://localhost${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' }, body: JSON.stringify(json) }))
  const bytes = new Uint8Array(await r.arrayBuffer())
  const type = r.headers.get('content-type') ?? ''
  return { status: r.status, retryAfter: r.headers.get('retry-after'), body: type.includes('json') ? JSON.stringify(timeless(JSON.parse(new TextDecoder().decode(bytes)))) : bytes }
}

/** A `perpsim worker` process on `dataDir`, as an operator starts one. */
function startWorker(r: TestRedis, dataDir: string, env: Record<string, string> = {}): Subprocess {
  return Bun.spawn([BUN, join(ROOT, 'src/cli.ts'), 'worker'], {
    cwd: ROOT,
    env: { ...process.env, REDIS_URL: r.url, REDIS_PREFIX: r.prefix, DATA_DIR: dataDir, WORKERS: String(THREADS), LOG_LEVEL: 'warn', OFFLINE: '1', ...env },
    stdout: 'ignore',
    stderr: 'inherit',
  })
}

/** Until `n` workers are in the fleet registry (their first heartbeat). */
async function fleetOf(r: TestRedis, n: number): Promise<FleetEntry[]> {
  const client = new Redis(r.url)
  try {
    for (let i = 0; i < 300; i++) {
      const entries = Object.values(await client.hgetall(fleetKey(r.prefix))).map(v => JSON.parse(v) as FleetEntry)
      if (entries.length >= n) return entries
      await Bun.sleep(50)
    }
    throw new Error(`${n} workers did not join the fleet`)
  } finally {
    client.disconnect()
  }
}

const queueHarness = (r: TestRedis, env: Record<string, string> = {}, deadlineMs = 120_000, queueMax = 64 * 256) =>
  makeHarness({
    nowMs: NOW,
    fill,
    env: { WORKERS: String(THREADS), ...env },
    transport: (_inner, store) => new QueueTransport(store, { url: r.url, prefix: r.prefix, parallelism: THREADS, queueMax, deadlineMs }),
  })

describe.skipIf(!redis)('the queue transport (BullMQ on Redis)', () => {
  const r = redis!
  let local: Harness
  let remote: Harness
  const workers: Subprocess[] = []
  beforeAll(async () => {
    local = makeHarness({ nowMs: NOW, fill, workers: THREADS })
    remote = queueHarness(r, { QUEUE_LOCK_MS: '2000' })
  })
  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL')
    local?.cleanup()
    remote?.cleanup()
  })

  test('with no worker connected, a run is answered 503 naming why, with Retry-After', async () => {
    const res = await post(remote, '/simulate', { strategy: 'bb-squeeze-short', top_n: 7 })
    expect(res.status).toBe(503)
    expect(res.retryAfter).toMatch(/^\d+$/)
    expect(String(res.body)).toContain('no perpsim worker is connected to the queue')
  })

  test('the same requests through the pool and through a real `perpsim worker` give the same bytes', async () => {
    workers.push(startWorker(r, remote.dataDir, { QUEUE_LOCK_MS: '2000', QUEUE_STALLED_MS: '1000' }))
    const [entry] = await fleetOf(r, 1)
    expect(entry.slots).toBe(THREADS)
    expect(entry.dataVersion).toBe(remote.deps.store.dataVersion())
    const requests = SIMULATION_REQUESTS
    for (const [path, json] of requests) {
      const [a, b] = [await post(local, path, json), await post(remote, path, json)]
      expect({ path, status: b.status }).toEqual({ path, status: 200 })
      expect(b).toEqual(a)
    }
    // a ranking day: the job's nested groups, at background priority
    const ctx = { progress() {}, yield: async () => {}, trigger: 'manual' as const }
    const day = (h: Harness) => computeDayFile({ clock: h.clock, db: h.deps.db, store: h.deps.store, runs: h.deps.runs }, '2026-11-19', ctx)
    const [dayA, dayB] = [await day(local), await day(remote)]
    expect('incomplete' in dayA).toBe(false)
    expect(timeless(dayB)).toEqual(timeless(dayA))
  }, 120_000)

  test('a worker refuses a task whose coin it holds other rows of, or cut for another engine, naming why (the task fails once every live worker refused it)', async () => {
    const connection = new Redis(r.url, { maxRetriesPerRequest: null })
    const queue = new Queue(QUEUE_NAME, { connection, prefix: r.prefix })
    const events = new QueueEvents(QUEUE_NAME, { connection: new Redis(r.url, { maxRetriesPerRequest: null }), prefix: r.prefix })
    try {
      await events.waitUntilReady()
      const payload = encode({ spec: null, symbols: [] })
      const eth = remote.deps.store.symbolRows('ETHUSDT')!
      const reads = [symbolRead('ETHUSDT', { ...eth, digest: 'ffffffffffffffff' })]
      const stale = await queue.add('coinTrades', { payload, reads, dataVersion: readsVersion(reads), engineVersion: QUEUE_ENGINE_VERSION, priority: 'interactive' } satisfies TaskJobData)
      const err = await stale.waitUntilFinished(events, 20_000).then(() => null, (e: Error) => e.message)
      expect(err).toStartWith(REFUSED)
      expect(err).toContain(`its ETHUSDT rows up to ${new Date(eth.lastBarMs).toISOString().slice(0, 16)}Z differ (digest ${eth.digest}, the task reads ffffffffffffffff)`)
      const good = [symbolRead('ETHUSDT', eth)]
      const release = await queue.add('coinTrades', { payload, reads: good, dataVersion: readsVersion(good), engineVersion: 'perpsim-engine-0.0.1', priority: 'interactive' } satisfies TaskJobData)
      expect(await release.waitUntilFinished(events, 20_000).then(() => null, (e: Error) => e.message)).toContain(`engine ${QUEUE_ENGINE_VERSION}, the task was cut for perpsim-engine-0.0.1`)
    } finally {
      await events.close()
      await queue.close()
    }
  }, 60_000)

  test('a worker killed in the middle of a wide /simulate: its task finishes on the other, the same bytes, none lost or doubled', async () => {
    // a wide store, so each of the run's chunks takes a while on its worker
    const WIDE = Array.from({ length: 40 }, (_, k) => `W${k}USDT`)
    const wideFill = (s: Parameters<typeof fillWalkUniverse>[0]) => fillWalkUniverse(s, WIDE, Date.UTC(2024, 0, 1), 700, 300)
    const wideLocal = makeHarness({ nowMs: NOW, fill: wideFill, workers: THREADS })
    const wideRemote = makeHarness({ nowMs: NOW, fill: wideFill, env: { WORKERS: String(THREADS) }, transport: (_inner, store) => new QueueTransport(store, { url: r.url, prefix: `${r.prefix}w`, parallelism: THREADS, queueMax: 64 * 256, deadlineMs: 120_000 }) })
    const lockEnv = { REDIS_PREFIX: `${r.prefix}w`, QUEUE_LOCK_MS: '2000', QUEUE_STALLED_MS: '1000', WORKERS: '1' }
    const pair = [startWorker(r, wideRemote.dataDir, lockEnv), startWorker(r, wideRemote.dataDir, lockEnv)]
    workers.push(...pair)
    const queue = new Queue(QUEUE_NAME, { connection: new Redis(r.url, { maxRetriesPerRequest: null }), prefix: `${r.prefix}w` })
    const events = new QueueEvents(QUEUE_NAME, { connection: new Redis(r.url, { maxRetriesPerRequest: null }), prefix: `${r.prefix}w` })
    const completed: string[] = []
    const stalled: string[] = []
    const added: string[] = []
    events.on('added', ({ jobId }) => added.push(jobId))
    events.on('completed', ({ jobId }) => completed.push(jobId))
    events.on('stalled', ({ jobId }) => stalled.push(jobId))
    try {
      await events.waitUntilReady()
      await fleetOf({ ...r, prefix: `${r.prefix}w` }, 2)
      const body = { strategy: 'bb-squeeze-short', top_n: 40 }
      const expected = await post(wideLocal, '/simulate', body)
      expect(expected.status).toBe(200)
      const running = post(wideRemote, '/simulate', body)
      // the first worker is killed while it holds a task
      const victim = `${hostname()}:${pair[0].pid}`
      let held = false
      for (let i = 0; i < 1000 && !held; i++) {
        held = (await queue.getActive()).some(j => j.processedBy === victim)
        if (!held) await Bun.sleep(5)
      }
      expect(held).toBe(true)
      pair[0].kill('SIGKILL')
      const got = await running
      expect(got.status).toBe(200)
      expect(got).toEqual(expected)
      // the dead worker's task came back through the stalled check, and every task completed once
      expect(stalled.length).toBeGreaterThanOrEqual(1)
      // this test's own event stream may trail the transport's by a moment
      for (let i = 0; i < 100 && completed.length < added.length; i++) await Bun.sleep(50)
      expect(new Set(completed).size).toBe(completed.length)
      expect(added.length).toBeGreaterThanOrEqual(THREADS)
      expect([...completed].sort()).toEqual([...added].sort())
    } finally {
      await events.close()
      await queue.close()
      wideLocal.cleanup()
      wideRemote.cleanup()
    }
  }, 120_000)

  test('only workers on another store in the fleet: the API sends nothing and answers 503 naming the coins that differ', async () => {
    for (const w of workers) w.kill('SIGKILL')
    await Promise.all(workers.map(w => w.exited))
    const client = new Redis(r.url)
    await client.del(fleetKey(r.prefix))
    client.disconnect()
    // a store one coin short: another data version
    const other = makeHarness({ nowMs: NOW, fill: s => fillWalkUniverse(s, SYMBOLS.slice(1), Date.UTC(2026, 7, 1), 110, 70) })
    try {
      workers.push(startWorker(r, other.dataDir))
      await fleetOf(r, 1)
      const res = await post(remote, '/simulate', { strategy: 'bb-squeeze-short', top_n: 7 })
      expect(res.status).toBe(503)
      expect(String(res.body)).toContain('no worker holds the data this run reads (data version ')
      // the other store lacks ETHUSDT, and its other coins are other walks (their seeds moved up by one)
      expect(String(res.body)).toMatch(/connected: \S+ has (no ETHUSDT|other [A-Z]+USDT rows up to 2026-11-18T23:00Z)/)
    } finally {
      other.cleanup()
    }
  }, 60_000)
})

/** A worker announced in the fleet that takes nothing (its tasks wait in the queue). */
async function idleWorker(r: TestRedis, prefix: string, store: CandleStore): Promise<void> {
  const client = new Redis(r.url)
  const entry: FleetEntry = { name: 'idle:1', slots: 1, dataVersion: store.dataVersion(), engineVersion: QUEUE_ENGINE_VERSION, coins: fleetCoins(store), seenMs: Date.now() }
  await client.hset(fleetKey(prefix), entry.name, JSON.stringify(entry))
  client.disconnect()
}

describe.skipIf(!redis)('the queue when its workers do not keep up', () => {
  test('admission counts the tasks waiting in the whole queue, from every API process: beyond the bound of its lane a run is shed with 503 and Retry-After', async () => {
    const r = { ...redis!, prefix: `${redis!.prefix}a` }
    const [first, second] = [queueHarness(r, {}, 3_000, 1), queueHarness(r, {}, 3_000, 1)]
    await idleWorker(r, r.prefix, first.deps.store)
    try {
      // one API process's run leaves a task waiting (no worker takes it) ...
      const waiting = post(first, '/simulate', { strategy: 'bb-squeeze-short', top_n: 7 })
      await Bun.sleep(500)
      // ... and another process's run finds the lane full
      const res = await post(second, '/simulate', { strategy: 'bb-squeeze-short', top_n: 7 })
      expect(res.status).toBe(503)
      expect(String(res.body)).toContain('The simulation queue is full; retry after')
      expect(Number(res.retryAfter)).toBeGreaterThanOrEqual(1)
      expect((await waiting).status).toBe(503)
    } finally {
      first.cleanup()
      second.cleanup()
    }
  }, 30_000)

  test('priorities: a request\'s tasks are taken before every job task already waiting', async () => {
    const r = { ...redis!, prefix: `${redis!.prefix}p` }
    const h = queueHarness(r)
    await idleWorker(r, r.prefix, h.deps.store)
    const connection = new Redis(r.url, { maxRetriesPerRequest: null })
    const events = new QueueEvents(QUEUE_NAME, { connection, prefix: r.prefix })
    // the transport numbers its jobs in submit order (`<run>-<n>`): the first four are the job
    // tasks, the next two the requests. The order of `active` events is the order taken.
    const taken: number[] = []
    events.on('active', ({ jobId }) => void taken.push(Number(jobId.slice(jobId.lastIndexOf('-') + 1))))
    let worker: Subprocess | null = null
    try {
      await events.waitUntilReady()
      const payload = { spec: simulateSpec({ strategy: 'bb-squeeze-short', market_type: 'futures', top_n: 1, timeframe: '1H', start_date: null, end_date: null, leverage: 1, fee_pct: null, per_coin_usd: 60, max_concurrent_positions: 100, compounding: false, include_stablecoins: false }), symbols: ['BTCUSDT'] }
      // four job tasks wait, then two request tasks arrive; one worker thread takes them all
      const jobs = Array.from({ length: 4 }, () => h.transport.submit('coinTrades', payload, { priority: 'background' }))
      await Bun.sleep(200)
      const requests = Array.from({ length: 2 }, () => h.transport.submit('coinTrades', payload, { priority: 'interactive' }))
      await Bun.sleep(200)
      worker = startWorker(r, h.dataDir, { WORKERS: '1' })
      await Promise.all([...jobs, ...requests])
      // the last `active` event may arrive a moment after the last result
      for (let i = 0; i < 100 && taken.length < 6; i++) await Bun.sleep(50)
      const first = Math.min(...taken)
      expect(taken.map(n => (n - first < 4 ? 'background' : 'interactive'))).toEqual(['interactive', 'interactive', 'background', 'background', 'background', 'background'])
    } finally {
      worker?.kill('SIGKILL')
      await events.close()
      connection.disconnect()
      h.cleanup()
    }
  }, 30_000)

  test('a task past its deadline fails its run with 503 naming the deadline instead of hanging', async () => {
    const r = redis!
    const h = queueHarness(r, {}, 1500)
    await idleWorker(r, r.prefix, h.deps.store)
    try {
      const started = Date.now()
      const res = await post(h, '/simulate', { strategy: 'bb-squeeze-short', top_n: 7 })
      expect(res.status).toBe(503)
      expect(String(res.body)).toContain('did not finish within 1500 ms (QUEUE_TASK_DEADLINE_MS)')
      expect(Date.now() - started).toBeLessThan(10_000)
    } finally {
      h.cleanup()
    }
  }, 30_000)
})

const own = await privateRedis()
if (!own) process.stderr.write('skipped: the Redis-stopped test (a private redis-server, on Redis) - /usr/bin/redis-server missing or did not start\n')

describe.skipIf(!own)('the queue when Redis stops', () => {
  test('a run is answered 503 naming the silent Redis within seconds, not held until it is back', async () => {
    const r: TestRedis = { url: own!.url, prefix: 'stop', cleanup: async () => {} }
    const h = queueHarness(r)
    const worker = startWorker(r, h.dataDir)
    try {
      await fleetOf(r, 1)
      expect((await post(h, '/simulate', { strategy: 'bb-squeeze-short', top_n: 7 })).status).toBe(200)
      await own!.stop()
      const started = Date.now()
      const res = await post(h, '/simulate', { strategy: 'bb-squeeze-short', top_n: 6 })
      expect(res.status).toBe(503)
      expect(String(res.body)).toMatch(/the queue's Redis at 127\.0\.0\.1:\d+ does not answer/)
      expect(Number(res.retryAfter)).toBeGreaterThanOrEqual(1)
      expect(Date.now() - started).toBeLessThan(8_000)
    } finally {
      worker.kill('SIGKILL')
      h.cleanup()
    }
  }, 60_000)
})

describe('perpsim worker refuses to start without its queue', () => {
  test('no REDIS_URL: a usage error naming it; a bad one: the configuration error', () => {
    const run = (env: Record<string, string>) => {
      const p = Bun.spawnSync([BUN, join(ROOT, 'src/cli.ts'), 'worker'], { cwd: ROOT, env: { ...process.env, REDIS_URL: '', ...env }, stderr: 'pipe' })
      return { code: p.exitCode, stderr: p.stderr.toString() }
    }
    expect(run({})).toEqual({ code: 2, stderr: 'perpsim worker needs REDIS_URL (redis://host:port): the queue it takes tasks from (perpsim help lists the commands)\n' })
    const bad = run({ REDIS_URL: 'localhost:6379' })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toStartWith('configuration error: REDIS_URL="localhost:6379": expected redis://')
  })
})
