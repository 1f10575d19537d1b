/**
 * The fleet end to end (issue 27 §5, README "Past one machine"): two real API processes
 * (`perpsim serve` with REDIS_URL and DATABASE_URL) on one Postgres database, two real `perpsim worker`
 * processes each on its own copy of the candle store, and Redis. Against one plain process
 * (`perpsim serve`, its in-process pool) on the same store they answer every simulation route
 * with the same bytes, whichever node is asked; a ranking day computed on the fleet
 * (`perpsim jobs run rankings` with REDIS_URL and DATABASE_URL, two at once on the shared
 * database, as two nodes' schedulers would) is published once through Postgres' slot claim
 * and served by both nodes, byte for byte, as the one process (its SQLite file)
 * publishes it; a worker killed with SIGKILL in the middle
 * of a 535-coin run loses its task to the other, and the run completes with the same bytes,
 * every task completed once. Last, Redis stops: both nodes answer runs 503 with the reason
 * and /health says degraded.
 *
 * The fleet's database is a fresh Postgres database of this file (tests/helpers/postgres.ts);
 * the test skips, with the printed "(on Postgres)" reason .ci/run fails on, only when no
 * Postgres can be had. The child processes get DATABASE_URL explicitly: the test preload
 * keeps it out of process.env (tests/helpers/setup.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cpSync, existsSync, rmSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { Queue, QueueEvents } from 'bullmq'
import { Redis } from 'ioredis'
import { Client } from 'pg'
import { fleetKey, QUEUE_NAME } from '../src/runs/queue-wire'
import { tempDir } from './helpers/fixtures'
import { testPostgres } from './helpers/postgres'
import { privateRedis, testRedis } from './helpers/redis'
import { SIMULATION_REQUESTS } from './helpers/route-requests'
import { BUN, freePort, ROOT } from './helpers/serve'

/** the store: the synthetic universe of 535 coins, 60 days to this hour */
const COINS = 535
const DAYS = 60
/** chunks a run is cut into, on the plain process (its pool's threads) and on the API nodes (the fleet's threads) */
const CHUNKS = 4

// a private redis-server of this file (it is stopped at the end); else REDIS_URL, and the stop is skipped
const own = await privateRedis()
const shared = own ? null : await testRedis('the fleet end-to-end test (BullMQ on Redis)')
const redis = own ? { url: own.url, prefix: 'fleet' } : shared ? { url: shared.url, prefix: shared.prefix } : null
// the fleet's records: a database of this file's own on Postgres
const pg = redis ? await testPostgres('the fleet end-to-end test (2 API nodes on one database)') : null
afterAll(async () => {
  await own?.stop().catch(() => {})
  await shared?.cleanup()
  await pg?.cleanup()
})

const timeless = (x: unknown): unknown =>
  Array.isArray(x) ? x.map(timeless) : x && typeof x === 'object' ? Object.fromEntries(Object.entries(x).filter(([k]) => k !== 'compute_time_ms' && k !== 'generated_at').map(([k, v]) => [k, timeless(v)])) : x

interface Node {
  proc: Subprocess
  base: string
}

const BASE_ENV = { OFFLINE: '1', DEMO: '0', JOBS: '0', LOG_LEVEL: 'warn', SHED_LAG_MS: '0', RATE_LIMIT_PER_MIN: '0', RATE_LIMIT_OTHER_PER_MIN: '0' }

async function serve(dataDir: string, env: Record<string, string>): Promise<Node> {
  const port = await freePort()
  const proc = Bun.spawn([BUN, 'src/cli.ts', 'serve'], {
    cwd: ROOT,
    env: { ...process.env, ...BASE_ENV, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', WORKERS: String(CHUNKS), ...env },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const base = `http://127.0.0.1:${port}`
  for (let i = 0; i < 1200 && proc.exitCode === null; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) return { proc, base }
    } catch {}
    await Bun.sleep(100)
  }
  proc.kill('SIGKILL')
  throw new Error(`perpsim serve on ${dataDir} did not start`)
}

function worker(dataDir: string, env: Record<string, string>): Subprocess {
  return Bun.spawn([BUN, 'src/cli.ts', 'worker'], {
    cwd: ROOT,
    env: { ...process.env, ...BASE_ENV, DATA_DIR: dataDir, WORKERS: '1', QUEUE_LOCK_MS: '2000', QUEUE_STALLED_MS: '1000', ...env },
    stdout: 'ignore',
    stderr: 'inherit',
  })
}

async function post(node: Node, path: string, json: unknown) {
  const r = await fetch(`${node.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' }, body: JSON.stringify(json) })
  const text = await r.text()
  return { status: r.status, body: r.headers.get('content-type')?.includes('json') ? JSON.stringify(timeless(JSON.parse(text))) : text }
}

async function fleetSize(r: { url: string; prefix: string }): Promise<number> {
  const client = new Redis(r.url)
  try {
    return Object.keys(await client.hgetall(fleetKey(r.prefix))).length
  } finally {
    client.disconnect()
  }
}

function cli(dataDir: string, args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawnSync([BUN, 'src/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, ...BASE_ENV, DATA_DIR: dataDir, WORKERS: String(CHUNKS), ...env }, stdout: 'pipe', stderr: 'pipe' })
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() }
}

async function cliAsync(dataDir: string, args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawn([BUN, 'src/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, ...BASE_ENV, DATA_DIR: dataDir, WORKERS: String(CHUNKS), ...env }, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  return { code, out, err }
}

describe.skipIf(!redis || !pg)('the fleet: 2 API processes, 2 `perpsim worker` processes, Redis, Postgres', () => {
  const r = redis!
  // the API nodes' and their jobs' environment (the workers read no records: DATABASE_URL would only be checked)
  const fleetEnv = { REDIS_URL: r.url, REDIS_PREFIX: r.prefix, DATABASE_URL: pg?.url ?? '' }
  const dirs: string[] = []
  let single: Node
  let singleDir = ''
  let apiDir = ''
  let nodes: Node[] = []
  let workers: Subprocess[] = []
  beforeAll(async () => {
    // one store, generated once and copied: the plain process's (its SQLite file beside it),
    // the API nodes' (their records on Postgres) and each worker host's own
    const made = tempDir()
    dirs.push(made)
    const gen = cli(made, ['data', 'generate', '--coins', String(COINS), '--days', String(DAYS)])
    if (gen.code !== 0) throw new Error(gen.err)
    const copy = () => {
      const d = tempDir()
      dirs.push(d)
      cpSync(join(made, 'store'), join(d, 'store'), { recursive: true })
      return d
    }
    ;[singleDir, apiDir] = [copy(), copy()]
    const [w1, w2] = [copy(), copy()]
    single = await serve(singleDir, {})
    workers = [worker(w1, fleetEnv), worker(w2, fleetEnv)]
    nodes = [await serve(apiDir, fleetEnv), await serve(apiDir, fleetEnv)]
    for (let i = 0; i < 600 && (await fleetSize(r)) < 2; i++) await Bun.sleep(100)
  }, 180_000)
  afterAll(async () => {
    for (const p of [single?.proc, ...nodes.map(n => n.proc), ...workers]) p?.kill('SIGKILL')
    await Promise.all([single?.proc, ...nodes.map(n => n.proc), ...workers].map(p => p?.exited))
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })

  test('every simulation route answers the same bytes from either API node as from the one process', async () => {
    expect(await fleetSize(r)).toBe(2)
    for (const [k, [path, json]] of SIMULATION_REQUESTS.entries()) {
      const expected = await post(single, path, json)
      const got = await post(nodes[k % 2], path, json)
      expect({ path, status: got.status }).toEqual({ path, status: expected.status })
      if (path !== '/simulate/dca' && path !== '/simulate/grid') expect({ path, status: got.status }).toEqual({ path, status: 200 })
      expect(got.body).toEqual(expected.body)
    }
  }, 300_000)

  test('a ranking day computed on the fleet by two processes at once is published once, and both nodes serve the one process\'s bytes', async () => {
    const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
    const a = cli(singleDir, ['jobs', 'run', 'rankings', '--date', day])
    expect({ code: a.code, out: a.out }).toEqual({ code: 0, out: expect.stringMatching(/attempt 1: ok in /) })
    // two runs of the same slot on the fleet's Postgres database at once (as two nodes' schedulers
    // would): one claims the slot and publishes, the other finds the slot or the day taken
    const runs = await Promise.all([cliAsync(apiDir, ['jobs', 'run', 'rankings', '--date', day], fleetEnv), cliAsync(apiDir, ['jobs', 'run', 'rankings', '--date', day], fleetEnv)])
    const published = runs.filter(x => x.code === 0 && /: ok in /.test(x.out))
    const others = runs.filter(x => !published.includes(x))
    // (the two runs' output when it is not one: what each said)
    expect({ published: published.length, runs: published.length === 1 ? [] : runs }).toEqual({ published: 1, runs: [] })
    for (const o of others) expect(o.out + o.err).toMatch(/: skipped in |another process claimed this attempt first/)
    const file = (n: Node) => fetch(`${n.base}/rankings/files/${day.replaceAll('-', '')}`).then(async res => ({ status: res.status, text: await res.text() }))
    const [expected, first, second] = [await file(single), await file(nodes[0]), await file(nodes[1])]
    expect(expected.status).toBe(200)
    // the two nodes serve the one published file, byte for byte
    expect(second).toEqual(first)
    // and it is the one process's file but for the moment it was written (generated_at, the clock's)
    expect(timeless(JSON.parse(first.text))).toEqual(timeless(JSON.parse(expected.text)))
    expect(JSON.parse(first.text).generated_at).toMatch(/^\d{4}-\d\d-\d\dT/)
    // run again on the fleet: the day is published already and is never rewritten
    const again = cli(apiDir, ['jobs', 'run', 'rankings', '--date', day], fleetEnv)
    expect(again.code).toBe(0)
    expect(await file(nodes[1])).toEqual(first)
    // the fleet's records are Postgres': the day file and one 'ok' run of its slot are there, and
    // no SQLite file was opened beside the API nodes' store
    const client = new Client({ connectionString: pg!.url })
    await client.connect()
    try {
      const files = await client.query<{ body: string }>('SELECT body FROM ranking_day_files')
      expect(files.rows.map(x => x.body)).toEqual([first.text])
      const ok = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM job_runs WHERE job = 'rankings' AND outcome = 'ok'")
      expect(ok.rows[0]!.n).toBe(1)
    } finally {
      await client.end()
    }
    expect(existsSync(join(apiDir, 'perpsim.sqlite'))).toBe(false)
  }, 600_000)

  test('a worker killed with SIGKILL in the middle of a 535-coin run: the run completes with the same bytes, every task completed once', async () => {
    const connections = [new Redis(r.url, { maxRetriesPerRequest: null }), new Redis(r.url, { maxRetriesPerRequest: null })]
    const queue = new Queue(QUEUE_NAME, { connection: connections[0], prefix: r.prefix })
    const events = new QueueEvents(QUEUE_NAME, { connection: connections[1], prefix: r.prefix })
    const added: string[] = []
    const completed: string[] = []
    const stalled: string[] = []
    events.on('added', ({ jobId }) => added.push(jobId))
    events.on('completed', ({ jobId }) => completed.push(jobId))
    events.on('stalled', ({ jobId }) => stalled.push(jobId))
    try {
      await events.waitUntilReady()
      const body = { strategy: 'bb-squeeze-short', top_n: COINS }
      const expected = await post(single, '/simulate', body)
      expect(expected.status).toBe(200)
      expect(JSON.parse(expected.body).coins_used).toBeGreaterThan(400)
      const running = post(nodes[1], '/simulate', body)
      const victim = workers[0]
      let held = false
      for (let i = 0; i < 4000 && !held; i++) {
        held = (await queue.getActive()).some(j => j.processedBy === `${hostname()}:${victim.pid}`)
        if (!held) await Bun.sleep(5)
      }
      expect(held).toBe(true)
      victim.kill('SIGKILL')
      const got = await running
      expect(got.status).toBe(200)
      expect(got.body).toEqual(expected.body)
      expect(stalled.length).toBeGreaterThanOrEqual(1)
      for (let i = 0; i < 100 && completed.length < added.length; i++) await Bun.sleep(50)
      expect(added.length).toBeGreaterThanOrEqual(CHUNKS)
      expect(new Set(completed).size).toBe(completed.length)
      expect([...completed].sort()).toEqual([...added].sort())
    } finally {
      await events.close()
      await queue.close()
      for (const c of connections) c.disconnect()
    }
  }, 300_000)

  test.skipIf(!own)('Redis stops: both nodes answer runs 503 with the reason at once and /health says degraded; the reads are served', async () => {
    await own!.stop()
    for (const n of nodes) {
      let h: { status: string; reason?: string } = { status: '' }
      for (let i = 0; i < 100 && h.status !== 'degraded'; i++) {
        h = (await (await fetch(`${n.base}/health`)).json()) as typeof h
        if (h.status !== 'degraded') await Bun.sleep(50)
      }
      expect(h.status).toBe('degraded')
      expect(h.reason).toMatch(/^the queue's Redis at 127\.0\.0\.1:\d+ does not answer/)
      const started = Date.now()
      const res = await post(n, '/simulate', { strategy: 'bb-squeeze-short', top_n: 20 })
      expect(res.status).toBe(503)
      expect(res.body).toContain("No simulation worker can run this now: the queue's Redis at 127.0.0.1:")
      expect(Date.now() - started).toBeLessThan(8_000)
      expect((await fetch(`${n.base}/coins`)).status).toBe(200)
    }
  }, 60_000)
})
