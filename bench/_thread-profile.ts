/**
 * Where a run's CPU goes, thread by thread (issues 26 and 30): each phase of the main
 * thread's part of a request (RunService.compute and the answer's check and encoding) and
 * each task on the workers, in the thread's own CPU time (bench/_thread-cpu.ts), over
 * warm requests on the worker pool, several bodies taking turns. A sampling profile of
 * the main thread counts GC and idle samples against whatever function was running; this
 * counts only the thread's own time, at the phase's ends.
 *
 * The marks are not in the product: the bench copies src/ and workers/ to a temp dir and
 * adds them there (each at a line it names; a line that has moved fails the bench with its
 * name), then answers the requests with that copy.
 *   BENCH_DATA_DIR=<store> bun bench/_thread-profile.ts [--runs N] [--warm N] [--bodies '[{"body":{…}},{"path":"/backtest","body":{…}}]'] [--new-tree]
 * Default: /simulate bb-squeeze-short top 535 (the warm row of issue 30). `--new-tree`: every
 * request a tree never seen (bench/tree.ts's, the new-tree row of issue 30) instead. The
 * process keeps the server's allocator settings only when started with them
 * (`MIMALLOC_PURGE_DELAY=-1 bun bench/…`, as `bun run bench` does). Issue 26's pair:
 *   --bodies '[{"body":{"strategy":"bb-squeeze-short","top_n":535,"start_date":"2024-12-21","universe":"current"}},{"body":{"strategy":"bb-squeeze-short","top_n":535,"start_date":"2024-12-21","universe":"point_in_time"}}]'
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { threadCpuMs } from './_thread-cpu'
import { treeModules } from './_tree-modules'
import { newTree } from './tree'

const ROOT = join(import.meta.dir, '..')
const { values } = parseArgs({ args: process.argv.slice(2), options: { runs: { type: 'string' }, warm: { type: 'string' }, bodies: { type: 'string' }, 'new-tree': { type: 'boolean' } } })
const runs = Number(values.runs ?? 60)
const warm = Number(values.warm ?? 60)
let treesMade = 0
/** a request's path and body; a getter where each request's body is new */
const bodies: { path?: string; body: unknown }[] = values['new-tree']
  ? [{ path: '/backtest', get body() { return newTree(++treesMade, 535) } }]
  : JSON.parse(values.bodies ?? '[{"body":{"strategy":"bb-squeeze-short","top_n":535}}]')
const dataDir = process.env.BENCH_DATA_DIR
if (!dataDir) throw new Error('BENCH_DATA_DIR: a store (e.g. one of `bun src/cli.ts data generate --coins 535`)')

/** what the copy records, read back here */
interface Probe {
  marks: [string, number][]
  tasks: Map<string, { n: number; run: number; post: number }>
}
const probe: Probe = { marks: [], tasks: new Map() }
;(globalThis as { __threadProfile?: unknown }).__threadProfile = probe

const CPU = JSON.stringify(join(ROOT, 'bench', '_thread-cpu.ts'))
const mark = (label: string) => `;(globalThis as any).__threadProfile?.marks.push(['${label}', __threadCpuMs()]);`

/** `file` of the copy with each [line, replacement] applied once; a line not found fails the bench */
function patch(dir: string, file: string, edits: [string, string][]): void {
  const path = join(dir, file)
  let text = readFileSync(path, 'utf8')
  for (const [line, by] of edits) {
    if (text.split(line).length !== 2) throw new Error(`${file}: the line the probe marks is gone or not unique: ${JSON.stringify(line.trim().slice(0, 80))}`)
    text = text.replace(line, by)
  }
  writeFileSync(path, `import { threadCpuMs as __threadCpuMs } from ${CPU}\n${text}`)
}

const copy = mkdtempSync(join(tmpdir(), 'perpsim-thread-profile-'))
try {
  for (const d of ['src', 'workers', 'db', 'assets', 'web', 'package.json']) cpSync(join(ROOT, d), join(copy, d), { recursive: true })
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'))
  // each task's CPU on its worker: run (the task and the answer's structured clone) and post
  patch(copy, 'workers/sim.worker.ts', [
    ['self.onmessage = (ev: MessageEvent) => {\n', 'self.onmessage = (ev: MessageEvent) => {\n  const __c0 = __threadCpuMs()\n'],
    [
      "    self.postMessage({ type: 'result', id: msg.id, ok: true, result }, transferablesOf(msg.task, result))\n",
      "    const __c1 = __threadCpuMs()\n    self.postMessage({ type: 'result', id: msg.id, ok: true, result }, transferablesOf(msg.task, result))\n    self.postMessage({ type: 'cpu', task: msg.task, run: __c1 - __c0, post: __threadCpuMs() - __c1 })\n",
    ],
  ])
  patch(copy, 'src/runs/compute/pool.ts', [
    [
      "  private onMessage(slot: Slot, msg: { type: 'result'; id: number; ok: boolean; result?: unknown; error?: string }): void {\n",
      "  private onMessage(slot: Slot, msg: { type: 'result'; id: number; ok: boolean; result?: unknown; error?: string }): void {\n    if ((msg as any).type === 'cpu') { const m = msg as any; const p = (globalThis as any).__threadProfile; const a = p.tasks.get(m.task) ?? { n: 0, run: 0, post: 0 }; a.n++; a.run += m.run; a.post += m.post; p.tasks.set(m.task, a); return }\n",
    ],
  ])
  patch(copy, 'src/runs/service.ts', [
    ['    const { symbols, accounting, plan, delisted } = this.runUniverse(spec)\n', `    ${mark('request, before the run')}\n    const { symbols, accounting, plan, delisted } = this.runUniverse(spec)\n    ${mark('universe')}\n`],
    ['    const outcomes = this.coinOutcomes(', `    ${mark('twin (point in time)')}\n    const outcomes = this.coinOutcomes(`],
    ['    // the survivorship lists read no trade: made while the workers run the coin tasks\n', `    ${mark('chunks sent')}\n`],
    ['    const { coins, trades, twinParts, intrabar } = await outcomes\n', `    ${mark('survivorship lists')}\n    const { coins, trades, twinParts, intrabar } = await outcomes\n    ${mark('chunks back, merged (coinOutcomes)')}\n`],
    ['    const trades = mergeCoinTables(symbols, spec.direction, results.map(r => r.trades), columns)\n', `    ${mark('chunk answers taken in')}\n    const trades = mergeCoinTables(symbols, spec.direction, results.map(r => r.trades), columns)\n`],
    ['    const acceptance = await stepped(acceptSteps(', `    ${mark('to the portfolio')}\n    const acceptance = await stepped(acceptSteps(`],
    ['    const booked = await stepped(bookSteps(', `    ${mark('portfolio choice, statistics started')}\n    const booked = await stepped(bookSteps(`],
    ['    await survivorship()\n', `    ${mark('booking')}\n    await survivorship()\n`],
    ['      await result.assembled.prepareBody()\n', `      ${mark('survivorship, statistics')}\n      await result.assembled.prepareBody()\n      ${mark('body built')}\n`],
    ['    await this.results.remember(result, this.deps.store.dataVersion())\n', `    await this.results.remember(result, this.deps.store.dataVersion())\n    ${mark('result kept')}\n`],
  ])
  patch(copy, 'src/http/checked-json.ts', [
    ['    const v = compiled()\n', `    ${mark('to the answer hook')}\n    const v = compiled()\n`],
    ["    if (!v.Check(body)) throw new ValidationError('response', v as never, body)\n", `    ${mark('answer normalised (Clean)')}\n    if (!v.Check(body)) throw new ValidationError('response', v as never, body)\n    ${mark('answer checked')}\n`],
    ['    if (set.cookie === undefined) set.headers = {}\n', `    if (set.cookie === undefined) set.headers = {}\n    ${mark('answer encoded')}\n`],
  ])

  const { buildApp, systemClock, composeDeps, loadConfig, openDb, createLogger, CandleStore, transports } = await treeModules(join(copy, 'src'))
  const store = CandleStore.open(dataDir)
  const config = loadConfig({ OFFLINE: '1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MIN: '0', RATE_LIMIT_OTHER_PER_MIN: '0', JOBS: '0', SHED_LAG_MS: '0' })
  const transport = transports.workerPoolTransport(store, Number(process.env.WORKERS ?? 2), 64 * 256)
  const app = buildApp(composeDeps({ config, clock: systemClock, store, db: openDb(':memory:'), transport, log: createLogger('silent'), maxRuns: 64, strategyStats: () => async () => new Map() }))

  /** one request: wall ms, its main-thread phases (CPU ms each, in order), the workers' tasks */
  const post = async (b: { path?: string; body: unknown }) => {
    probe.marks = []
    probe.tasks = new Map()
    const c0 = threadCpuMs()
    const t0 = performance.now()
    const r = await app.handle(new Request(`http://localhost${b.path ?? '/simulate'}`, { method: 'POST', headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' }, body: JSON.stringify(b.body) }))
    await r.arrayBuffer()
    if (r.status !== 200) throw new Error(`${b.path ?? '/simulate'} answered ${r.status}`)
    const wall = performance.now() - t0
    const c1 = threadCpuMs()
    // the last worker's 'cpu' message follows its result: one more turn of the loop
    await new Promise(res => setTimeout(res, 5))
    const phases = new Map<string, number>()
    let prev = c0
    for (const [label, c] of probe.marks) {
      phases.set(label, (phases.get(label) ?? 0) + c - prev)
      prev = c
    }
    phases.set('the rest (the response, to its last byte)', c1 - prev)
    phases.set('main thread, in all', c1 - c0)
    return { wall, phases, tasks: new Map(probe.tasks) }
  }
  for (let k = 0; k < warm; k++) for (const b of bodies) await post(b)
  const acc = bodies.map(() => ({ wall: [] as number[], phases: new Map<string, number>(), tasks: new Map<string, { n: number; run: number; post: number }>() }))
  for (let k = 0; k < runs; k++) {
    // the order alternates, so no body always runs right after another
    const order = k % 2 ? bodies.map((_, i) => i) : bodies.map((_, i) => i).reverse()
    for (const i of order) {
      const got = await post(bodies[i])
      const a = acc[i]
      a.wall.push(got.wall)
      for (const [l, v] of got.phases) a.phases.set(l, (a.phases.get(l) ?? 0) + v)
      for (const [t, v] of got.tasks) {
        const s = a.tasks.get(t) ?? { n: 0, run: 0, post: 0 }
        s.n += v.n
        s.run += v.run
        s.post += v.post
        a.tasks.set(t, s)
      }
    }
  }
  await transport.close()
  const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  console.log(`store ${dataDir}; ${transport.parallelism} workers; ${runs} requests of each body after ${warm} (Cache-Control: no-cache), taking turns; CPU ms per request, the thread's own`)
  bodies.forEach((b, i) => console.log(`body ${i + 1}: ${b.path ?? '/simulate'} ${values['new-tree'] ? 'a new tree each request (bench/tree.ts newTree)' : JSON.stringify(b.body)}`))
  const cols = bodies.map((_, i) => `body ${i + 1}`)
  console.log(`\n| | ${cols.join(' | ')} |\n|---|${cols.map(() => '---:').join('|')}|`)
  console.log(`| wall p50 ms | ${acc.map(a => p50(a.wall).toFixed(1)).join(' | ')} |`)
  const labels = [...new Set(acc.flatMap(a => [...a.phases.keys()]))]
  for (const l of labels) console.log(`| main: ${l} | ${acc.map(a => ((a.phases.get(l) ?? 0) / runs).toFixed(2)).join(' | ')} |`)
  const tasks = [...new Set(acc.flatMap(a => [...a.tasks.keys()]))]
  for (const t of tasks)
    console.log(`| workers: ${t} (tasks a request; run + answer's post) | ${acc.map(a => (a.tasks.has(t) ? `${(a.tasks.get(t)!.n / runs).toFixed(1)}: ${(a.tasks.get(t)!.run / runs).toFixed(2)} + ${(a.tasks.get(t)!.post / runs).toFixed(2)}` : '–')).join(' | ')} |`)
} finally {
  rmSync(copy, { recursive: true, force: true })
}
