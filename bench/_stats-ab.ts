/**
 * A/B of a run's statistics tasks in one process (issue 30): the random-entry null
 * (`runRandomEntry`) and the bootstrap intervals (`runBootstrap`) of real /simulate runs,
 * run by another checkout's src/ and by this tree's, alternated A, B, B, A, ... so a load
 * that changes while it runs weighs on both alike. The payloads are recorded from the real
 * app (this tree's, in-process transport) answering `--runs` requests of top_n = body's
 * top_n − 1 − i (each a new result, its coins for the null drawn by its hash). Prints each
 * side's CPU ms per run's null and per run's bootstraps (p50, mean) and checks both sides
 * return the same bits.
 *   mkdir -p /tmp/base && git archive <commit> src workers db assets web package.json | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/node_modules
 *   BENCH_DATA_DIR=<store> bun bench/_stats-ab.ts /tmp/base [rounds] [--runs N] [--body json]
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../src/app'
import { systemClock } from '../src/clock'
import { composeDeps } from '../src/compose'
import { loadConfig } from '../src/config'
import { openDb } from '../src/db'
import { CandleStore } from '../src/market/candle-store'
import { inProcessTransport, type Transport } from '../src/runs/transport'

const other = process.argv[2]
const rounds = Number(process.argv[3]) > 0 ? Number(process.argv[3]) : 10
const arg = (name: string) => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? process.argv[at + 1] : undefined
}
const RUNS = Number(arg('runs')) || 4
const body = JSON.parse(arg('body') ?? '{"strategy":"bb-squeeze-short","top_n":535}')
const dataDir = process.env.BENCH_DATA_DIR
if (!other || !dataDir) throw new Error('usage: BENCH_DATA_DIR=<store> bun bench/_stats-ab.ts <dir holding the other src/> [rounds]')

// 1. record the statistics tasks of RUNS new results
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, JOBS: '0', OFFLINE: '1', DEMO: '0', LOG_LEVEL: 'warn', SHED_LAG_MS: '0', RATE_LIMIT_PER_MIN: '0', RATE_LIMIT_OTHER_PER_MIN: '0' })
const store = CandleStore.open(dataDir)
const inner = inProcessTransport(store)
type Run = { nulls: unknown[]; boots: unknown[] }
let current: Run = { nulls: [], boots: [] }
const recording: Transport = {
  get parallelism() {
    return inner.parallelism
  },
  submit(task, payload, opts) {
    if (task === 'randomEntry') current.nulls.push(payload)
    if (task === 'bootstrap') current.boots.push(payload)
    return inner.submit(task, payload, opts)
  },
  stats: () => inner.stats(),
  close: () => inner.close(),
}
const db = openDb(join(mkdtempSync(join(tmpdir(), 'perpsim-ab-')), 'perpsim.sqlite'))
const app = buildApp(composeDeps({ config, clock: systemClock, store, db, transport: recording, maxRuns: 8 }))
const runs: Run[] = []
for (let i = 0; i < RUNS; i++) {
  current = { nulls: [], boots: [] }
  const r = await app.handle(new Request('http://localhost/simulate', { method: 'POST', headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' }, body: JSON.stringify({ ...body, top_n: body.top_n - 1 - i }) }))
  await r.arrayBuffer()
  if (!r.ok) throw new Error(`HTTP ${r.status}`)
  runs.push(current)
}
console.log(`recorded ${RUNS} runs: ${runs.map(r => `${r.nulls.length} null chunks, ${r.boots.length} bootstraps`).join('; ')}`)

// 2. each side's tasks on its own context
async function side(src: string) {
  const { runRandomEntry, runBootstrap } = await import(join(src, 'runs/compute/research-tasks.ts'))
  const { TaskContext } = await import(join(src, 'runs/compute/context.ts'))
  const { CandleStore: Store } = await import(join(src, 'market/candle-store.ts'))
  const ctx = new TaskContext(Store.open(dataDir!))
  return {
    nullOf(run: Run): { cpu: number; out: Float64Array[] } {
      const c0 = process.cpuUsage()
      const out: Float64Array[] = []
      for (const p of run.nulls) out.push(...runRandomEntry(ctx, p).sums)
      const c = process.cpuUsage(c0)
      return { cpu: (c.user + c.system) / 1000, out }
    },
    bootOf(run: Run): { cpu: number; out: string } {
      const c0 = process.cpuUsage()
      const out = run.boots.map(p => runBootstrap(ctx, p))
      const c = process.cpuUsage(c0)
      return { cpu: (c.user + c.system) / 1000, out: JSON.stringify(out) }
    },
  }
}
const sides = [
  { name: 'other', ...(await side(join(other, 'src'))), nullCpu: [] as number[], bootCpu: [] as number[] },
  { name: 'this', ...(await side(join(import.meta.dir, '../src'))), nullCpu: [] as number[], bootCpu: [] as number[] },
]
// warm-up: JIT, the exit masks of the tested coins
for (const s of sides) for (const run of runs) (s.nullOf(run), s.bootOf(run))
const bits = (xs: Float64Array[]) => Buffer.concat(xs.map(x => Buffer.from(x.buffer, x.byteOffset, x.byteLength))).toString('base64')
let differing = 0
for (let r = 0; r < rounds; r++) {
  const run = runs[r % runs.length]
  const got: { n: string; b: string }[] = []
  for (const s of r % 2 === 0 ? sides : [...sides].reverse()) {
    const n = s.nullOf(run)
    const b = s.bootOf(run)
    s.nullCpu.push(n.cpu)
    s.bootCpu.push(b.cpu)
    got.push({ n: bits(n.out), b: b.out })
  }
  if (got[0].n !== got[1].n || got[0].b !== got[1].b) differing++
}
const med = (x: number[]) => [...x].sort((a, b) => a - b)[Math.floor(x.length / 2)]
const mean = (x: number[]) => x.reduce((a, b) => a + b, 0) / x.length
console.log('| side | null CPU ms p50 | null CPU ms mean | bootstraps CPU ms p50 | bootstraps CPU ms mean |')
console.log('|---|---:|---:|---:|---:|')
for (const s of sides) console.log(`| ${s.name} | ${med(s.nullCpu).toFixed(1)} | ${mean(s.nullCpu).toFixed(1)} | ${med(s.bootCpu).toFixed(1)} | ${mean(s.bootCpu).toFixed(1)} |`)
console.log(`same bits on both sides: ${differing === 0 ? 'yes' : `NO (${differing} of ${rounds} rounds)`}; load ${require('node:os').loadavg().map((x: number) => x.toFixed(2)).join(' ')}`)
process.exit(0)
