/**
 * A/B of the warm /simulate path in one process (issue 30): the real app (buildApp over
 * composeDeps, in-process transport: one thread does the workers' part too) built from
 * another checkout's src/ and from this tree's, on the same store, requests alternated
 * A, B, B, A, ... with `Cache-Control: no-cache` after warm-ups, so a load that changes
 * while it runs weighs on both alike. Prints each side's CPU ms per request (p50, mean) and
 * wall p50, and checks both answer the same status, headers (the random x-request-id
 * aside; their order on the wire is not seen here) and body bytes (compute_time_ms aside). A
 * request's time ends when its body has been read as the bytes a server would send.
 * Make the other tree with
 *   mkdir -p /tmp/base && git archive <commit> src workers db assets web package.json | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/node_modules
 * then
 *   BENCH_DATA_DIR=<store> bun bench/_ab-warm.ts /tmp/base [rounds] [--body json] [--path /simulate] [--vary-top | --cached | --new-tree [--top N]]
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { treeModules } from './_tree-modules'
import { newTree } from './tree'

const other = process.argv[2]
const rounds = Number(process.argv[3]) > 0 ? Number(process.argv[3]) : 10
const arg = (name: string) => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? process.argv[at + 1] : undefined
}
const body = JSON.parse(arg('body') ?? '{"strategy":"bb-squeeze-short","top_n":535}')
const path = process.argv.includes('--new-tree') ? '/backtest' : (arg('path') ?? '/simulate')
/**
 * `--vary-top`: timed request r asks for top_n = body's top_n − 1 − r, a result never
 * computed before on either side, so its statistics are computed in full (a repeated body
 * reuses its cached result's statistics when the trades come out the same)
 */
const varyTop = process.argv.includes('--vary-top')
/**
 * `--cached`: the timed requests carry no `Cache-Control: no-cache`, so each is the cached
 * result served again: what is left is the main thread's work on the answer (its body, the
 * response check, the encoding)
 */
const cached = process.argv.includes('--cached')
/**
 * `--new-tree`: every request, warm-ups included, is /backtest with bench/tree.ts's tree, its
 * RSI threshold moved by a millionth each time (a tree no worker has seen, over the same
 * indicators: issue 30's new-tree row), top_n from `--top` (535)
 */
const newTreeMode = process.argv.includes('--new-tree')
const treeTop = Number(arg('top') ?? 535)
const bodyOf = (r: number) => (newTreeMode ? newTree(1000 + r, treeTop) : varyTop && r >= 0 ? { ...body, top_n: body.top_n - 1 - r } : body)
const dataDir = process.env.BENCH_DATA_DIR
if (!other || !dataDir) throw new Error('usage: BENCH_DATA_DIR=<store> bun bench/_ab-warm.ts <dir holding the other src/> [rounds]')

async function side(src: string) {
  const { buildApp, systemClock, composeDeps, loadConfig, openDb, CandleStore, transports } = await treeModules(src)
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, JOBS: '0', OFFLINE: '1', DEMO: '0', LOG_LEVEL: 'warn', SHED_LAG_MS: '0', RATE_LIMIT_PER_MIN: '0', RATE_LIMIT_OTHER_PER_MIN: '0' })
  const store = CandleStore.open(dataDir!)
  const db = openDb(join(mkdtempSync(join(tmpdir(), 'perpsim-ab-')), 'perpsim.sqlite'))
  const app = buildApp(composeDeps({ config, clock: systemClock, store, db, transport: transports.inProcessTransport(store), maxRuns: 8 }))
  return async (round = -1): Promise<{ wall: number; cpu: number; text: string; head: string }> => {
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    const r = await app.handle(new Request(`http://localhost${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(cached && round >= 0 ? {} : { 'cache-control': 'no-cache' }) }, body: JSON.stringify(bodyOf(round)) }))
    const bytes = await r.arrayBuffer()
    const c = process.cpuUsage(c0)
    const wall = performance.now() - t0
    const text = new TextDecoder().decode(bytes)
    if (!r.ok) throw new Error(`HTTP ${r.status}: ${text.slice(0, 300)}`)
    const head = `${r.status} ${[...r.headers].filter(([k]) => k !== 'x-request-id').map(([k, v]) => `${k}: ${v}`).join('; ')}`
    return { wall, cpu: (c.user + c.system) / 1000, text, head }
  }
}

const sides = [
  { name: 'other', run: await side(join(other, 'src')), cpu: [] as number[], wall: [] as number[], text: '', head: '' },
  { name: 'this', run: await side(join(import.meta.dir, '../src')), cpu: [] as number[], wall: [] as number[], text: '', head: '' },
]
for (const s of sides) for (let i = 0; i < 3; i++) await s.run(newTreeMode ? -3 + i : -1) // JIT, signal masks, the result's statistics
const strip = (t: string) => t.replace(/"compute_time_ms":\d+/, '')
let differing = 0
for (let r = 0; r < rounds; r++) {
  for (const s of r % 2 === 0 ? sides : [...sides].reverse()) {
    const m = await s.run(r)
    s.cpu.push(m.cpu)
    s.wall.push(m.wall)
    s.text = strip(m.text)
    s.head = m.head
  }
  if (sides[0].text !== sides[1].text || sides[0].head !== sides[1].head) differing++
}
const med = (x: number[]) => [...x].sort((a, b) => a - b)[Math.floor(x.length / 2)]
const mean = (x: number[]) => x.reduce((a, b) => a + b, 0) / x.length
console.log('| side | CPU ms p50 | CPU ms mean | wall ms p50 |')
console.log('|---|---:|---:|---:|')
for (const s of sides) console.log(`| ${s.name} | ${med(s.cpu).toFixed(1)} | ${mean(s.cpu).toFixed(1)} | ${med(s.wall).toFixed(1)} |`)
console.log(`answers byte-identical (status, headers and body; compute_time_ms aside): ${differing === 0 ? 'yes' : `NO (${differing} of ${rounds} rounds)`} (${sides[1].text.length} bytes); load ${require('node:os').loadavg().map((x: number) => x.toFixed(2)).join(' ')}`)
process.exit(0)
