/**
 * A/B of a new condition tree's signals on the workers (issue 30's new-tree row): the
 * coins' masks of bench/tree.ts's tree (`coinMasks`: the signal cache, the kept indicator
 * columns and leaf sets, the compile and the AND's kernels), run by another checkout's src/
 * and by this tree's, each side with its own TaskContexts over the same store, one per
 * worker holding that worker's coins as the service cuts them (universe index modulo the
 * chunk count), alternated A, B, B, A, … Every round is a tree neither side has seen (the
 * RSI threshold moved by a millionth), after warm-up trees that fill the keepers. Prints
 * each side's CPU ms per round (all coins of all workers) and checks the masks are the
 * same bytes every round.
 *   BENCH_DATA_DIR=<store> bun bench/_ab-signals.ts <dir holding the other src/> [rounds] [--workers 2] [--top 535]
 * `--profile N` (no other tree): this tree's side alone N rounds after a `profileMark` spin.
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
import { profileMark } from './_profile-mark'
import { newTree } from './tree'

const arg = (name: string) => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? process.argv[at + 1] : undefined
}
const profileRuns = Number(arg('profile')) || 0
const other = profileRuns > 0 ? null : process.argv[2]
const rounds = Number(process.argv[3]) > 0 ? Number(process.argv[3]) : 20
const workers = Number(arg('workers') ?? 2)
const top = Number(arg('top') ?? 535)
const dataDir = process.env.BENCH_DATA_DIR
if ((!other && profileRuns === 0) || !dataDir) throw new Error('usage: BENCH_DATA_DIR=<store> bun bench/_ab-signals.ts <dir holding the other src/> [rounds] | --profile N')

// the run's spec and coins, recorded from this tree's app answering one new tree
const store = CandleStore.open(dataDir)
const inner = inProcessTransport(store)
type Recorded = { spec: { timeframe: string; strategy: { entry: { conditions: { value: unknown }[] } } }; symbols: string[] }
let recorded = null as Recorded | null
const recording: Transport = {
  get parallelism() {
    return inner.parallelism
  },
  // one chunk of every coin, in universe order (the in-process executor's)
  get chunksPerWorker() {
    return inner.chunksPerWorker
  },
  submit(task, payload, opts) {
    if (task === 'coinTrades' && recorded === null) recorded = structuredClone(payload) as never
    return inner.submit(task, payload, opts)
  },
  stats: () => inner.stats(),
  close: () => inner.close(),
}
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, JOBS: '0', OFFLINE: '1', DEMO: '0', LOG_LEVEL: 'warn', SHED_LAG_MS: '0', RATE_LIMIT_PER_MIN: '0', RATE_LIMIT_OTHER_PER_MIN: '0' })
const db = openDb(join(mkdtempSync(join(tmpdir(), 'perpsim-abs-')), 'perpsim.sqlite'))
const app = buildApp(composeDeps({ config, clock: systemClock, store, db, transport: recording, maxRuns: 8 }))
const res = await app.handle(new Request('http://localhost/backtest', { method: 'POST', headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' }, body: JSON.stringify(newTree(1, top)) }))
if (!res.ok) throw new Error(`HTTP ${res.status}`)
await res.arrayBuffer()
if (recorded === null) throw new Error('the request sent no coinTrades task')
const base: Recorded = recorded
/** the run's spec with the tree's RSI threshold of newTree(k) */
const specOf = (k: number) => {
  const s = structuredClone(base.spec)
  s.strategy.entry.conditions[1].value = newTree(k, top).entry.conditions[1].value
  return s
}
const parts = Array.from({ length: workers }, (_, w) => base.symbols.filter((_, i) => i % workers === w))

async function side(src: string) {
  const { TaskContext, strategyKeyOf } = await import(join(src, 'runs/compute/context.ts'))
  const { coinMasks } = await import(join(src, 'runs/compute/coin-tasks.ts'))
  const { CandleStore: Store } = await import(join(src, 'market/candle-store.ts'))
  const { snapshotOf, viewOf } = await import(join(src, 'runs/compute/store-view.ts'))
  const view = viewOf(snapshotOf(Store.open(dataDir)))
  const ctxs = parts.map(() => {
    const c = new TaskContext(view)
    c.setView(view)
    return c
  })
  return (k: number): { cpu: number; masks: Uint8Array[] } => {
    const spec = specOf(k)
    const masks: Uint8Array[] = []
    let cpu = 0
    parts.forEach((symbols, w) => {
      const ctx = ctxs[w]
      ctx.setView(view)
      const c0 = process.cpuUsage()
      // as a task does: its strategy's key once, then each coin's masks
      const key = strategyKeyOf(spec.strategy)
      const got: { n: number; entry: Uint8Array | null; entryBars: Int32Array | null }[] = []
      for (const s of symbols) {
        const bars = ctx.bars(s, spec.timeframe)
        if (bars) got.push({ n: bars.n, ...coinMasks(ctx, spec, key, s, bars) })
      }
      const c = process.cpuUsage(c0)
      cpu += (c.user + c.system) / 1000
      for (const m of got) {
        // (a side may hand a sparse entry as its list alone: the mask it stands for, made after the clock)
        let entry = m.entry
        if (entry === null) {
          entry = new Uint8Array(m.n)
          for (const i of m.entryBars!) entry[i] = 1
        }
        masks.push(entry)
        masks.push(m.entryBars === null ? new Uint8Array(0) : new Uint8Array(m.entryBars.buffer, m.entryBars.byteOffset, m.entryBars.byteLength))
      }
    })
    return { cpu, masks }
  }
}

const med = (x: number[]) => [...x].sort((a, b) => a - b)[Math.floor(x.length / 2)]
const mean = (x: number[]) => x.reduce((a, b) => a + b, 0) / x.length
const WARM = 6

if (profileRuns > 0) {
  const run = await side(join(import.meta.dir, '../src'))
  for (let i = 0; i < WARM; i++) run(100 + i)
  const cpu: number[] = []
  profileMark()
  for (let i = 0; i < profileRuns; i++) cpu.push(run(1000 + i).cpu)
  console.log(`${profileRuns} rounds: CPU p50 ${med(cpu).toFixed(1)} ms, mean ${mean(cpu).toFixed(1)} ms`)
  process.exit(0)
}

function same(a: Uint8Array[], b: Uint8Array[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    if (a[i].length !== b[i].length) return false
    for (let j = 0; j < a[i].length; j++) if (a[i][j] !== b[i][j]) return false
  }
  return true
}

const sides = [
  { name: 'other', run: await side(join(other!, 'src')), cpu: [] as number[], masks: [] as Uint8Array[] },
  { name: 'this', run: await side(join(import.meta.dir, '../src')), cpu: [] as number[], masks: [] as Uint8Array[] },
]
for (const s of sides) for (let i = 0; i < WARM; i++) s.run(100 + i)
let differing = 0
for (let r = 0; r < rounds; r++) {
  for (const s of r % 2 === 0 ? sides : [...sides].reverse()) {
    const m = s.run(1000 + r)
    s.cpu.push(m.cpu)
    s.masks = m.masks
  }
  if (!same(sides[0].masks, sides[1].masks)) differing++
}
console.log(`${base.symbols.length} coins over ${workers} contexts, ${rounds} new trees a side`)
console.log('| side | CPU ms p50 | CPU ms mean | CPU ms min |')
console.log('|---|---:|---:|---:|')
for (const s of sides) console.log(`| ${s.name} | ${med(s.cpu).toFixed(1)} | ${mean(s.cpu).toFixed(1)} | ${Math.min(...s.cpu).toFixed(1)} |`)
console.log(`masks byte-identical: ${differing === 0 ? 'yes' : `NO (${differing} of ${rounds} rounds)`}; load ${require('node:os').loadavg().map((x: number) => x.toFixed(2)).join(' ')}`)
process.exit(0)
