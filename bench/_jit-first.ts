/**
 * The JIT's share of each strategy's first run (issue 30): the real server, warmed by three
 * custom trees (bench/tree.ts's; `bench/speed.ts --only first` warms it with its own), answers
 * each registry strategy's first /simulate top 535 in registry order, with JavaScriptCore
 * reporting every compilation
 * (`BUN_JSC_reportCompileTimes=1`: one line per function and tier, with its time, on the
 * server's output). Prints, per strategy, the compile time its first run caused (all threads'
 * compilations summed, the two workers each compiling their own copy) by tier, and the
 * functions that took the most. JavaScriptCore compiles on threads of its own: on two cores
 * they take CPU from the workers, and until a function's optimised code is ready its
 * callers run the slower tiers.
 *   BENCH_DATA_DIR=<store> bun bench/_jit-first.ts [id ...]
 */
import { listStrategies } from '../src/strategies/registry'
import { post, startServer } from './_server'
import { newTree } from './tree'

const dataDir = process.env.BENCH_DATA_DIR
if (!dataDir) throw new Error('BENCH_DATA_DIR: a store (e.g. one of `bun src/cli.ts data generate --coins 535`)')
const MARK = '=====jit-first '

if (process.argv.includes('--child')) {
  // the server alone reports its compilations, on its standard error: this process's, which
  // the marks below go to as well, so each compilation falls between the marks of its run
  const ids = process.argv.slice(2).filter(a => a !== '--child')
  const server = await startServer(dataDir, { JOBS: '0', BUN_JSC_reportCompileTimes: '1' })
  try {
    for (let i = 1; i <= 3; i++) await (await post(`${server.url}/backtest`, newTree(-i))).arrayBuffer()
    // compilations still running from the warm-up are reported before the first strategy's mark
    await Bun.sleep(500)
    console.error(`${MARK}start`)
    for (const id of ids) {
      const t0 = performance.now()
      const r = await post(`${server.url}/simulate`, { strategy: id, top_n: 535 })
      await r.arrayBuffer()
      const ms = performance.now() - t0
      // the compilations its run started end shortly after it
      await Bun.sleep(500)
      console.error(`${MARK}${id} ${ms.toFixed(1)}`)
    }
  } finally {
    await server.stop()
  }
  process.exit(0)
}

const ids = process.argv.slice(2).length > 0 ? process.argv.slice(2) : listStrategies().map(s => s.id)
const child = Bun.spawn([process.execPath, import.meta.path, '--child', ...ids], { stdout: 'inherit', stderr: 'pipe' })
const text = await new Response(child.stderr).text()
if ((await child.exited) !== 0) throw new Error(`the run failed:\n${text.slice(-2000)}`)

/** `Optimized name#hash:[…] using FTL with FTL into 3424 bytes in 9.08 ms …` */
const LINE = /^Optimized ([^#:\s]*)[^ ]* .*using (\w+) .* in ([0-9.]+) ms/
let started = false
let tiers = new Map<string, number>()
let fns = new Map<string, number>()
let total = 0
const rows: string[] = ['| strategy | first run ms | compile ms, all tiers | FTL | DFG | the costliest functions (ms) |', '|---|---:|---:|---:|---:|---|']
let sum = 0
for (const line of text.split('\n')) {
  if (line.startsWith(MARK)) {
    const [id, ms] = line.slice(MARK.length).split(' ')
    if (started && id !== 'start') {
      const top = [...fns].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([f, t]) => `${f || '(anonymous)'} ${t.toFixed(1)}`).join(', ')
      rows.push(`| ${id} | ${ms} | ${total.toFixed(1)} | ${(tiers.get('FTL') ?? 0).toFixed(1)} | ${(tiers.get('DFG') ?? 0).toFixed(1)} | ${top} |`)
      sum += total
    }
    started = true
    tiers = new Map()
    fns = new Map()
    total = 0
    continue
  }
  const m = started ? LINE.exec(line) : null
  if (!m) continue
  const t = Number(m[3])
  total += t
  tiers.set(m[2], (tiers.get(m[2]) ?? 0) + t)
  fns.set(m[1], (fns.get(m[1]) ?? 0) + t)
}
console.log(rows.join('\n'))
console.log(`\ncompile time in all: ${sum.toFixed(0)} ms over ${rows.length - 2} first runs; load ${require('node:os').loadavg().map((x: number) => x.toFixed(2)).join(' ')}`)
