/**
 * The queue transport (REDIS_URL, issue 27 §2): what a task's trip through Redis costs, and
 * /simulate top 535 through `perpsim worker` processes against the in-process pool.
 * - queue overhead per task: one small task (coinTrades on one coin) at a time, through the
 *   queue to one worker process vs on the calling thread; p50 and p99 of the round trip;
 * - /simulate top 535 (bb-squeeze-short, 535-coin × 2-year synthetic store): p50 of single
 *   runs and throughput of 4 runs at once, with 1 and 2 worker processes (1 thread each),
 *   and the in-process pool with 2 threads for comparison;
 * - the per-coin data versions a task carries (market/symbol-digest.ts): every coin's digest
 *   the first time (the whole store hashed once), again (kept), and after one hour appended;
 * - one ranking day (computeDayFile, the rankings job's step) through the pool and on the
 *   fleet of 2 worker processes.
 *   REDIS_URL=redis://127.0.0.1:6379 bun bench/queue.ts   (BENCH_DATA_DIR=<dir> reuses a store)
 * Without REDIS_URL it says so and measures nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { Redis } from 'ioredis'
import { buildApp } from '../src/app'
import { systemClock } from '../src/clock'
import { composeDeps } from '../src/compose'
import { loadConfig } from '../src/config'
import { openDb } from '../src/db'
import { ManualClock } from '../src/clock'
import { computeDayFile } from '../src/live/ranking-day'
import { CandleStore } from '../src/market/candle-store'
import { BLOCK_ROWS } from '../src/market/symbol-digest'
import { HOUR_MS } from '../src/time'
import { generateStore } from '../src/market/generate-store'
import { QueueTransport } from '../src/runs/queue-transport'
import { fleetKey } from '../src/runs/queue-wire'
import { simulateSpec } from '../src/runs/simulate-spec'
import { inProcessTransport, workerPoolTransport, type Transport } from '../src/runs/transport'

const url = process.env.REDIS_URL
if (!url) {
  console.log('skipped: bench/queue.ts needs REDIS_URL (redis://127.0.0.1:6379)')
  process.exit(0)
}
const ROOT = join(import.meta.dir, '..')
const prefix = `bench${Date.now().toString(36)}`
const own = !process.env.BENCH_DATA_DIR
const dir = process.env.BENCH_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'perpsim-queue-'))
const workers: Subprocess[] = []
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]

async function fleetSize(n: number): Promise<void> {
  const client = new Redis(url!)
  for (let i = 0; i < 400; i++) {
    if (Object.keys(await client.hgetall(fleetKey(prefix))).length >= n) break
    await Bun.sleep(50)
  }
  client.disconnect()
}

function startWorker(threads = 1): Subprocess {
  const w = Bun.spawn([process.execPath, join(ROOT, 'src/cli.ts'), 'worker'], { cwd: ROOT, env: { ...process.env, REDIS_URL: url, REDIS_PREFIX: prefix, DATA_DIR: dir, WORKERS: String(threads), LOG_LEVEL: 'warn', DEMO: '0' }, stdout: 'ignore', stderr: 'inherit' })
  workers.push(w)
  return w
}

try {
  if (own) generateStore(dir, { coins: 535, days: 730, seed: 7, endMs: Date.UTC(2026, 10, 22) })
  const store = CandleStore.open(dir)
  const queue = () => new QueueTransport(store, { url, prefix, parallelism: Math.max(1, workers.length), queueMax: 1 << 20, deadlineMs: 600_000 })

  // the round trip of one small task, one at a time
  startWorker()
  await fleetSize(1)
  const payload = { spec: simulateSpec({ strategy: 'bb-squeeze-short', market_type: 'futures', top_n: 1, timeframe: '1H', start_date: null, end_date: null, leverage: 1, fee_pct: null, per_coin_usd: 60, max_concurrent_positions: 100, compounding: false, include_stablecoins: false }), symbols: [store.symbols()[0]] }
  const roundTrips = async (t: Transport, n: number) => {
    const ms: number[] = []
    for (let i = 0; i < n; i++) {
      const t0 = performance.now()
      await t.submit('coinTrades', payload, { priority: 'interactive' })
      ms.push(performance.now() - t0)
    }
    return ms.slice(20)
  }
  const here = inProcessTransport(store)
  const q1 = queue()
  const local = await roundTrips(here, 220)
  const remote = await roundTrips(q1, 220)
  await q1.close()
  console.log('| one small task (coinTrades, 1 coin), one at a time | p50 ms | p99 ms |\n|---|---:|---:|')
  console.log(`| on the calling thread | ${pct(local, 0.5).toFixed(2)} | ${pct(local, 0.99).toFixed(2)} |`)
  console.log(`| through the queue to 1 worker process | ${pct(remote, 0.5).toFixed(2)} | ${pct(remote, 0.99).toFixed(2)} |`)
  console.log(`| queue overhead per task (p50 difference) | ${(pct(remote, 0.5) - pct(local, 0.5)).toFixed(2)} | |`)

  // /simulate top 535
  const body = JSON.stringify({ strategy: 'bb-squeeze-short', top_n: 535 })
  const simulate = async (transport: Transport, threads: number) => {
    const config = loadConfig({ OFFLINE: '1', DATA_DIR: dir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MIN: '0', SHED_LAG_MS: '0', WORKERS: String(threads) })
    const app = buildApp(composeDeps({ config, clock: systemClock, store, db: openDb(':memory:'), transport }))
    const one = async () => {
      const t0 = performance.now()
      const r = await app.handle(new Request('http://localhost/simulate', { method: 'POST', headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' }, body }))
      if (r.status !== 200) throw new Error(`/simulate answered ${r.status}: ${await r.text()}`)
      await r.arrayBuffer()
      return performance.now() - t0
    }
    await one()
    const singles: number[] = []
    for (let i = 0; i < 5; i++) singles.push(await one())
    const t0 = performance.now()
    await Promise.all([one(), one(), one(), one()])
    const perMin = (4 / (performance.now() - t0)) * 60_000
    await transport.close()
    return { p50: pct(singles, 0.5), perMin }
  }
  const rows: [string, { p50: number; perMin: number }][] = []
  rows.push(['in-process pool, 2 threads', await simulate(workerPoolTransport(store, 2, 1 << 20), 2)])
  rows.push(['queue, 1 worker process (1 thread)', await simulate(queue(), 1)])
  startWorker()
  await fleetSize(2)
  rows.push(['queue, 2 worker processes (1 thread each)', await simulate(queue(), 2)])
  console.log('\n| /simulate top 535, bb-squeeze-short | p50 ms (one run) | runs/min (4 at once) |\n|---|---:|---:|')
  for (const [label, r] of rows) console.log(`| ${label} | ${r.p50.toFixed(0)} | ${r.perMin.toFixed(1)} |`)

  // one ranking day, the rankings job's step, through the pool and on the fleet (2 worker processes)
  const rankingDay = async (transport: Transport) => {
    const config = loadConfig({ OFFLINE: '1', DATA_DIR: dir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MIN: '0', SHED_LAG_MS: '0', WORKERS: '2' })
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 0, 30))
    const db = openDb(':memory:')
    const { runs } = composeDeps({ config, clock, store, db, transport })
    const t0 = performance.now()
    const file = await computeDayFile({ clock, db, store, runs }, '2026-11-21', { progress() {}, yield: async () => {}, trigger: 'manual' })
    const s = (performance.now() - t0) / 1000
    await transport.close()
    if ('incomplete' in file) throw new Error(file.incomplete)
    return s
  }
  const poolDay = await rankingDay(workerPoolTransport(store, 2, 1 << 20))
  const fleetDay = await rankingDay(new QueueTransport(store, { url, prefix, parallelism: 2, queueMax: 1 << 20, deadlineMs: 600_000 }))
  // one worker process of 2 threads: the affinity hint keeps each strategy on one of its threads
  for (const w of workers.splice(0)) {
    w.kill('SIGTERM')
    await w.exited
  }
  const client = new Redis(url)
  await client.del(fleetKey(prefix))
  client.disconnect()
  startWorker(2)
  await fleetSize(1)
  const oneHostDay = await rankingDay(new QueueTransport(store, { url, prefix, parallelism: 2, queueMax: 1 << 20, deadlineMs: 600_000 }))
  console.log('\n| one ranking day (2026-11-21, every configuration × period × group) | s |\n|---|---:|')
  console.log(`| in-process pool, 2 threads | ${poolDay.toFixed(1)} |`)
  console.log(`| queue, 2 worker processes (1 thread each) | ${fleetDay.toFixed(1)} |`)
  console.log(`| queue, 1 worker process (2 threads) | ${oneHostDay.toFixed(1)} |`)
  // the per-coin data versions: what the API hashes before its first task, and after
  {
    const fresh = CandleStore.open(dir)
    const digests = () => {
      const t0 = performance.now()
      for (const s of fresh.symbols()) fresh.symbolRows(s)
      return performance.now() - t0
    }
    const cold = digests()
    const warm = digests()
    // (appended to the bench's own temporary store only, after every other measurement)
    for (const s of own ? fresh.symbols() : []) {
      const b = fresh.bars(s)!
      const t = b.t[b.n - 1] + HOUR_MS
      fresh.appendCandles(s, [[t], [b.c[b.n - 1]], [b.c[b.n - 1]], [b.c[b.n - 1]], [b.c[b.n - 1]], [1]], 1, { durable: false })
    }
    const hour = digests()
    console.log('\n| per-coin data versions of 535 coins (2 years of 1H rows each) | ms |\n|---|---:|')
    console.log(`| first time: every row hashed once (${BLOCK_ROWS}-row blocks kept) | ${cold.toFixed(0)} |`)
    console.log(`| again, the store unchanged (every later run) | ${warm.toFixed(2)} |`)
    if (own) console.log(`| after one hour appended to every coin (last blocks only) | ${hour.toFixed(1)} |`)
  }

  console.log(`\nload average at the end: ${loadavg().map(x => x.toFixed(2)).join(' ')}`)
} finally {
  for (const w of workers) {
    w.kill('SIGTERM')
    await w.exited
  }
  const client = new Redis(url)
  const keys = await client.keys(`${prefix}:*`)
  if (keys.length) await client.del(...keys)
  client.disconnect()
  if (own) rmSync(dir, { recursive: true, force: true })
}
process.exit(0)
