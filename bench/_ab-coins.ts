/**
 * A/B of the workers' part of a warm /simulate in one process (issue 30): the coin tasks
 * (`runCoinTrades`: signals from the thread's cache, the trade model, the chunk's trade
 * table and marks) of a real request, run by another checkout's src/ and by this tree's,
 * each on its own TaskContext over the same store, alternated A, B, B, A, … after a
 * warm-up pass (JIT, signal masks, cost series, mark alignment, minute detail). The payloads
 * are recorded from this tree's app answering the request once (in-process transport: one
 * chunk of every coin). Prints each side's CPU ms per pass (p50, mean) and checks that the
 * two sides' answers are the same bytes (every column of the trade tables, the marks, the
 * bar rule's rows, the counts).
 *   mkdir -p /tmp/base && git archive main src workers db assets web package.json | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/node_modules
 *   BENCH_DATA_DIR=<store> bun bench/_ab-coins.ts /tmp/base [rounds] [--body json]
 * `--cache` (no other tree): each coin's task run twice in a row, the first out of the cache, the
 *   second in it (how much of the trade model waits on memory).
 * `--new-tree` (with a /backtest body of bench/tree.ts's tree): every pass, warm-ups included, moves the
 *   tree's RSI threshold by a millionth (a tree neither side has seen: issue 30's new-tree row), and
 *   each chunk runs on a TaskContext of its own, as each runs on its own worker in the server.
 * `--profile N` (no other tree): this tree's side alone N times after a `profileMark` spin, for
 *   bun --cpu-prof --cpu-prof-dir=/tmp/prof bench/_ab-coins.ts --profile 30
 *   bun bench/_cpuprofile-top.ts /tmp/prof/<file>.cpuprofile 60 --after profileMark
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

const arg = (name: string) => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? process.argv[at + 1] : undefined
}
const profileRuns = Number(arg('profile')) || 0
const other = profileRuns > 0 || process.argv.includes('--cache') ? null : process.argv[2]
const rounds = Number(process.argv[3]) > 0 ? Number(process.argv[3]) : 10
const body = JSON.parse(arg('body') ?? '{"strategy":"bb-squeeze-short","top_n":535}')
const path = arg('path') ?? '/simulate'
const newTreeMode = process.argv.includes('--new-tree')
// (with --new-tree: new trees from the first warm-up on, six of them: a worker keeps an edited
// leaf's values on the other leaves' bars from the fifth tree edited in that leaf on)
const WARM_UPS = newTreeMode ? 6 : 3
const dataDir = process.env.BENCH_DATA_DIR
if ((!other && profileRuns === 0 && !process.argv.includes('--cache')) || !dataDir) throw new Error('usage: BENCH_DATA_DIR=<store> bun bench/_ab-coins.ts <dir holding the other src/> [rounds] | --profile N')

// the payloads of the request's coin tasks, recorded from this tree's app
const store = CandleStore.open(dataDir)
const inner = inProcessTransport(store)
const payloads: unknown[] = []
const recording: Transport = {
  get parallelism() {
    return inner.parallelism
  },
  submit(task, payload, opts) {
    if (task === 'coinTrades') payloads.push(structuredClone(payload))
    return inner.submit(task, payload, opts)
  },
  stats: () => inner.stats(),
  close: () => inner.close(),
}
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, JOBS: '0', OFFLINE: '1', DEMO: '0', LOG_LEVEL: 'warn', SHED_LAG_MS: '0', RATE_LIMIT_PER_MIN: '0', RATE_LIMIT_OTHER_PER_MIN: '0' })
const db = openDb(join(mkdtempSync(join(tmpdir(), 'perpsim-abc-')), 'perpsim.sqlite'))
const app = buildApp(composeDeps({ config, clock: systemClock, store, db, transport: recording, maxRuns: 8 }))
const r = await app.handle(new Request(`http://localhost${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' }, body: JSON.stringify(body) }))
if (!r.ok) throw new Error(`HTTP ${r.status}: ${(await r.text()).slice(0, 300)}`)
await r.arrayBuffer()
if (payloads.length === 0) throw new Error('the request sent no coinTrades task')
if (process.env.DUMP_PAYLOADS) require("node:fs").writeFileSync(process.env.DUMP_PAYLOADS, JSON.stringify(payloads))

/** Every typed array and number of a task's answer, in a fixed order, as bytes. */
function bytesOf(x: unknown, out: Uint8Array[] = []): Uint8Array[] {
  if (ArrayBuffer.isView(x)) out.push(new Uint8Array(x.buffer, x.byteOffset, x.byteLength))
  else if (Array.isArray(x)) for (const v of x) bytesOf(v, out)
  else if (x !== null && typeof x === 'object') for (const k of Object.keys(x).sort()) bytesOf((x as Record<string, unknown>)[k], out)
  else out.push(new TextEncoder().encode(JSON.stringify(x) ?? 'undefined'))
  return out
}
function same(a: Uint8Array[], b: Uint8Array[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    if (a[i].length !== b[i].length) return false
    for (let j = 0; j < a[i].length; j++) if (a[i][j] !== b[i][j]) return false
  }
  return true
}

async function side(src: string) {
  const { TaskContext } = await import(join(src, 'runs/compute/context.ts'))
  const { runCoinTrades } = await import(join(src, 'runs/compute/coin-tasks.ts'))
  const { CandleStore: Store } = await import(join(src, 'market/candle-store.ts'))
  const { snapshotOf, viewOf } = await import(join(src, 'runs/compute/store-view.ts'))
  // the view a worker reads (workers/sim.worker.ts): the store's snapshot, its series made once
  const view = viewOf(snapshotOf(Store.open(dataDir)))
  // one context, or with --new-tree one per chunk (each chunk's worker)
  const ctxs = (newTreeMode ? payloads : [null]).map(() => {
    const c = new TaskContext(view)
    c.setView(view)
    return c
  })
  const ctxOf = (k: number) => ctxs[newTreeMode ? k : 0]
  // the funding amounts the thread keeps once a run's random-entry null has tested its coins
  // (a warm run's state: its first run computed the null on the same worker)
  const spec = (payloads[0] as { spec: { timeframe: '1H' } }).spec
  ;(payloads as { symbols: string[] }[]).forEach((p, k) => {
    for (const s of p.symbols) if (view.bars(s)) ctxOf(k).keptFunding(s, spec.timeframe, ctxOf(k).bars(s, spec.timeframe))
  })
  return (round = 0): { cpu: number; faults: number; results: unknown[] } => {
    for (const c of ctxs) c.setView(view)
    // each task's payload as a worker receives it (a copy), made before the clock starts
    const inputs = payloads.map(p => structuredClone(p) as { spec: { strategy: { entry: { conditions: { value: unknown }[] } } } })
    if (newTreeMode) for (const p of inputs) p.spec.strategy.entry.conditions[1].value = 35 + (1000 + round) / 1e6
    const f0 = process.resourceUsage().minorPageFault
    const c0 = process.cpuUsage()
    const results = inputs.map((p, k) => runCoinTrades(ctxOf(k), p as never))
    const c = process.cpuUsage(c0)
    return { cpu: (c.user + c.system) / 1000, faults: process.resourceUsage().minorPageFault - f0, results }
  }
}

const med = (x: number[]) => [...x].sort((a, b) => a - b)[Math.floor(x.length / 2)]
const mean = (x: number[]) => x.reduce((a, b) => a + b, 0) / x.length

if (process.argv.includes('--cache')) {
  // each coin's task twice in a row: the first finds the coin's bars out of the cache (the
  // coins before it pushed them out), the second finds them in it; the difference is what
  // the first pays waiting on memory
  const { TaskContext } = await import('../src/runs/compute/context')
  const { runCoinTrades } = await import('../src/runs/compute/coin-tasks')
  const { snapshotOf, viewOf } = await import('../src/runs/compute/store-view')
  const view = viewOf(snapshotOf(CandleStore.open(dataDir)))
  const ctx = new TaskContext(view)
  ctx.setView(view)
  const spec = (payloads[0] as { spec: { timeframe: '1H' } }).spec
  for (const p of payloads as { symbols: string[] }[]) for (const s of p.symbols) if (view.bars(s)) ctx.keptFunding(s, spec.timeframe, ctx.bars(s, spec.timeframe)!)
  const single = (payloads as { symbols: string[] }[]).flatMap(p => p.symbols.map(s => ({ ...p, symbols: [s] })))
  let cold = Infinity
  let hot = Infinity
  for (let r = 0; r < 8; r++) {
    let a = 0
    let b = 0
    for (const p of single) {
      const t0 = performance.now()
      runCoinTrades(ctx, p as never)
      const t1 = performance.now()
      runCoinTrades(ctx, p as never)
      a += t1 - t0
      b += performance.now() - t1
    }
    if (r > 0) {
      cold = Math.min(cold, a)
      hot = Math.min(hot, b)
    }
  }
  console.log(`${single.length} coins, each task twice in a row (best of 7 passes): first ${cold.toFixed(1)} ms, second ${hot.toFixed(1)} ms`)
  process.exit(0)
}

if (profileRuns > 0) {
  const run = await side(join(import.meta.dir, '../src'))
  for (let i = 0; i < WARM_UPS; i++) run(-10 + i)
  const cpu: number[] = []
  profileMark()
  for (let i = 0; i < profileRuns; i++) cpu.push(run(i).cpu)
  console.log(`${profileRuns} passes: CPU p50 ${med(cpu).toFixed(1)} ms, mean ${mean(cpu).toFixed(1)} ms`)
  process.exit(0)
}

/** a named spin before the timed passes: bench/_cpuprofile-top.ts --after profileMark keeps only the samples after it */
function profileMark() {
  const until = performance.now() + 20
  let x = 0
  while (performance.now() < until) x++
  return x
}

const sides = [
  { name: 'other', run: await side(join(other!, 'src')), cpu: [] as number[], faults: [] as number[], bytes: [] as Uint8Array[] },
  { name: 'this', run: await side(join(import.meta.dir, '../src')), cpu: [] as number[], faults: [] as number[], bytes: [] as Uint8Array[] },
]
for (const s of sides) for (let i = 0; i < WARM_UPS; i++) s.run(-10 + i)
let differing = 0
let trades = 0
let held = 0
for (let k = 0; k < rounds; k++) {
  for (const s of k % 2 === 0 ? sides : [...sides].reverse()) {
    const m = s.run(k)
    s.cpu.push(m.cpu)
    s.faults.push(m.faults)
    s.bytes = bytesOf(m.results)
    trades = (m.results as { trades: { n: number } }[]).reduce((a, x) => a + x.trades.n, 0)
    held = (m.results as { trades: { barsHeld: Int32Array } }[]).reduce((a, x) => a + x.trades.barsHeld.reduce((u, v) => u + v, 0), 0)
  }
  if (!same(sides[0].bytes, sides[1].bytes)) differing++
}
console.log(`${payloads.length} coinTrades task(s), ${trades} trades a pass, ${held} bars held`)
console.log('| side | CPU ms p50 | CPU ms mean | CPU ms min | minor page faults p50 |')
console.log('|---|---:|---:|---:|---:|')
for (const s of sides) console.log(`| ${s.name} | ${med(s.cpu).toFixed(1)} | ${mean(s.cpu).toFixed(1)} | ${Math.min(...s.cpu).toFixed(1)} | ${med(s.faults)} |`)
console.log(`answers byte-identical: ${differing === 0 ? 'yes' : `NO (${differing} of ${rounds} rounds)`}; load ${require('node:os').loadavg().map((x: number) => x.toFixed(2)).join(' ')}`)
process.exit(0)
