/**
 * Rankings on the default 200-coin synthetic store (730 days, seed 7): one ranking day
 * (every configuration × period × group) through the worker pool, then the 30-day
 * backfill as the server does it at start-up (with /health p99 measured while it runs),
 * then GET /rankings/daily p50 and GET /hot-strategies (computed, then cached). `bun bench/rankings.ts [--days N]` (N: backfill days, default 30).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { buildApp } from '../src/app'
import { ManualClock } from '../src/clock'
import { loadConfig } from '../src/config'
import { openDb } from '../src/db'
import { rankingsJob } from '../src/jobs/rankings'
import { computeDayFile } from '../src/live/ranking-day'
import { Scheduler } from '../src/jobs/scheduler'
import { createLogger } from '../src/log'
import { generateStore } from '../src/market/generate-store'
import { DAY_MS } from '../src/time'
import { workerPoolTransport } from '../src/runs/transport'
import { configurations } from '../src/records/rankings/configurations'
import { composeDeps } from '../src/compose'

const { values } = parseArgs({ args: process.argv.slice(2), options: { days: { type: 'string' } } })
const backfillDays = Number(values.days ?? 30)
const dir = process.env.BENCH_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'perpsim-rankings-'))
const own = !process.env.BENCH_DATA_DIR
const nowMs = Date.UTC(2026, 10, 25, 0, 30)
const workers = Number(process.env.WORKERS ?? 2)
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]

const { store } = generateStore(dir, { coins: 200, days: 730, seed: 7, endMs: nowMs - 30 * 60_000 }, true)
const config = loadConfig({ OFFLINE: '1', DATA_DIR: dir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MIN: '0' })
const clock = new ManualClock(nowMs)
const db = openDb(':memory:')
const transport = workerPoolTransport(store, workers, 64 * 256)
const log = createLogger('silent')
const deps = composeDeps({ config, clock, store, db, transport, log, maxRuns: 64, cacheSize: 64, strategyStats: () => async () => new Map() })
const { runs } = deps
const app = buildApp(deps)
const quiet = { progress: () => {}, yield: async () => {}, trigger: 'manual' as const }

console.log(`store: 200 synthetic coins × 730 days (seed 7); ${configurations().length} configurations × 3 periods × 4 groups; ${workers} workers`)

// CPU seconds of the whole process (main thread and workers): less disturbed by other load than wall time
const cpuS = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}

// 1. one ranking day (a day no other run has warmed: the first computation of the process)
let c0 = cpuS()
let t0 = performance.now()
const first = await computeDayFile({ clock, db, store, runs }, '2026-11-25', quiet)
const oneDayS = (performance.now() - t0) / 1000
if ('incomplete' in first) throw new Error(first.incomplete)
console.log(`one ranking day (2026-11-25), cold: ${oneDayS.toFixed(1)} s wall, ${(cpuS() - c0).toFixed(1)} s CPU`)

// 2. the backfill, as start-up runs it (the scheduler's catch-up), with /health probed meanwhile
const scheduler = new Scheduler({ clock, db, log, timers: false })
scheduler.register({ ...rankingsJob({ clock, db, store, runs }), catchUpMs: backfillDays * DAY_MS - 1 })
const health: number[] = []
let done = false
c0 = cpuS()
t0 = performance.now()
scheduler.start()
const finished = scheduler.idle().then(() => (done = true))
while (!done) {
  const s = performance.now()
  await app.handle(new Request('http://localhost/health'))
  health.push(performance.now() - s)
  await new Promise(r => setTimeout(r, 20))
}
await finished
const backfillS = (performance.now() - t0) / 1000
const jobRuns = await scheduler.recent('rankings', 100)
console.log(`backfill of ${backfillDays} days: ${backfillS.toFixed(1)} s wall, ${(cpuS() - c0).toFixed(1)} s CPU (${jobRuns.filter(r => r.outcome === 'ok').length} ok, ${jobRuns.filter(r => r.outcome === 'failed').length} failed)`)
console.log(`/health during the backfill: ${health.length} requests, p50 ${quantile(health, 0.5).toFixed(2)} ms, p99 ${quantile(health, 0.99).toFixed(2)} ms, max ${Math.max(...health).toFixed(2)} ms`)

// 3. GET /rankings/daily (warm: the day file parsed once)
const lat: number[] = []
for (let i = 0; i < 300; i++) {
  const s = performance.now()
  const r = await app.handle(new Request('http://localhost/rankings/daily?period=30d&group=top50'))
  if (r.status !== 200) throw new Error(`/rankings/daily ${r.status}: ${await r.text()}`)
  await r.arrayBuffer()
  lat.push(performance.now() - s)
}
console.log(`GET /rankings/daily: 300 requests, p50 ${quantile(lat, 0.5).toFixed(2)} ms, p99 ${quantile(lat, 0.99).toFixed(2)} ms`)

// 4. GET /hot-strategies: its first computation (after the backfill) and a cached answer
let t1 = performance.now()
const hot = await app.handle(new Request('http://localhost/hot-strategies'))
if (hot.status !== 200) throw new Error(`/hot-strategies ${hot.status}`)
const hotFirst = performance.now() - t1
t1 = performance.now()
await (await app.handle(new Request('http://localhost/hot-strategies'))).arrayBuffer()
console.log(`GET /hot-strategies: first ${hotFirst.toFixed(0)} ms (computed), cached ${(performance.now() - t1).toFixed(2)} ms`)

await scheduler.stop()
await transport.close()
if (own) rmSync(dir, { recursive: true, force: true })
