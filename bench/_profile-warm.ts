/**
 * The warm /simulate path on one thread, for a CPU profile (issue 30): the real app
 * (buildApp over composeDeps) with the in-process transport, so the worker tasks, the
 * booking, the statistics and the JSON encoding all run on the thread the profiler sees.
 * Warm-ups fill the signal masks; then `--runs` requests with `Cache-Control: no-cache`.
 *   BENCH_DATA_DIR=<store> bun --cpu-prof --cpu-prof-dir=/tmp/prof bench/_profile-warm.ts [--runs N] [--body json] [--vary-top | --new-tree]
 * Prints each request's wall and CPU ms; read the .cpuprofile with bench/_cpuprofile-top.ts.
 */
import { join } from 'node:path'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { buildApp } from '../src/app'
import { systemClock } from '../src/clock'
import { composeDeps } from '../src/compose'
import { loadConfig } from '../src/config'
import { openDb } from '../src/db'
import { CandleStore } from '../src/market/candle-store'
import { inProcessTransport } from '../src/runs/transport'
import { profileMark } from './_profile-mark'
import { newTree } from './tree'

const arg = (name: string) => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? process.argv[at + 1] : undefined
}
const RUNS = Number(arg('runs')) || 10
const body = JSON.parse(arg('body') ?? '{"strategy":"bb-squeeze-short","top_n":535}')
/** `--new-tree`: every request is /backtest with bench/tree.ts's tree, its RSI threshold moved each time (a tree never seen, its indicators cached: issue 30's new-tree row) */
const newTreeMode = process.argv.includes('--new-tree')
const path = newTreeMode ? '/backtest' : (arg('path') ?? '/simulate')
const dataDir = process.env.BENCH_DATA_DIR
if (!dataDir) throw new Error('BENCH_DATA_DIR: a generated store')
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, JOBS: '0', OFFLINE: '1', DEMO: '0', SHED_LAG_MS: '0', RATE_LIMIT_PER_MIN: '0', RATE_LIMIT_OTHER_PER_MIN: '0' })
const store = CandleStore.open(dataDir)
const db = openDb(join(mkdtempSync(join(tmpdir(), 'perpsim-prof-')), 'perpsim.sqlite'))
const deps = composeDeps({ config, clock: systemClock, store, db, transport: inProcessTransport(store), maxRuns: 8 })
const app = buildApp(deps)
/** `--vary-top`: timed request i asks for top_n − 1 − i, a result never computed before, so its statistics are computed in full */
const varyTop = process.argv.includes('--vary-top')
const request = (i = -1) =>
  app.handle(new Request(`http://localhost${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' }, body: JSON.stringify(newTreeMode ? newTree(1000 + i, body.top_n) : varyTop && i >= 0 ? { ...body, top_n: body.top_n - 1 - i } : body) }))
let size = 0
for (let i = 0; i < 3; i++) {
  const t0 = performance.now()
  const r = await request()
  size = (await r.arrayBuffer()).byteLength
  if (!r.ok) throw new Error(`HTTP ${r.status}`)
  console.log(`warm-up ${i}: ${(performance.now() - t0).toFixed(1)} ms, ${size} bytes`)
}
const out: number[] = []
const cpu: number[] = []
profileMark()
async function timedRuns() {
for (let i = 0; i < RUNS; i++) {
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  const r = await request(i)
  await r.arrayBuffer()
  out.push(performance.now() - t0)
  const c = process.cpuUsage(c0)
  cpu.push((c.user + c.system) / 1000)
}
}
await timedRuns()
const med = (x: number[]) => [...x].sort((a, b) => a - b)[Math.floor(x.length / 2)]
console.log(`${RUNS} runs: wall p50 ${med(out).toFixed(1)} ms, CPU p50 ${med(cpu).toFixed(1)} ms, body ${size} bytes`)
process.exit(0)
