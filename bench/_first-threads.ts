/**
 * Each registry strategy's first run (issue 30), thread by thread: the real server (JOBS=0)
 * warmed by three custom trees (bench/tree.ts's), then each strategy's first /simulate top 535
 * in registry order, with the wall and, read from /proc/<pid>/task/<tid>/stat around it, the
 * user and system CPU and the minor page faults of the main thread and of the two workers
 * (summed); at the end the totals of every busy thread (the JIT's compiler threads among
 * them). Where `bench/speed.ts --only first` says how long, this says which thread spent it,
 * and how much of it went to faulting fresh memory in. /proc counts CPU in ticks of 10 ms, so
 * a strategy's own figures are coarse; the totals are not.
 *   BENCH_DATA_DIR=<store> bun bench/_first-threads.ts
 * The server gets this process's environment (`BUN_JSC_…` or `MIMALLOC_…` settings to try).
 */
import { readFileSync } from 'node:fs'
import { listStrategies } from '../src/strategies/registry'
import { post, startServer, threadTimes } from './_server'
import { newTree } from './tree'

const dataDir = process.env.BENCH_DATA_DIR
if (!dataDir) throw new Error('BENCH_DATA_DIR: a store (e.g. one of `bun src/cli.ts data generate --coins 535`)')
const server = await startServer(dataDir, { JOBS: '0' })

/** user ms, system ms and minor faults so far of each thread name (the two workers summed) */
const threads = () => threadTimes(server.pid)
const minus = (a: [number, number, number] | undefined, b: [number, number, number] | undefined): [number, number, number] => {
  const x = a ?? [0, 0, 0]
  const y = b ?? [0, 0, 0]
  return [x[0] - y[0], x[1] - y[1], x[2] - y[2]]
}

try {
  for (let i = 1; i <= 3; i++) await (await post(`${server.url}/backtest`, newTree(-i))).arrayBuffer()
  const start = threads()
  console.log('| strategy | first run ms | main user / system ms, faults | workers user / system ms, faults |')
  console.log('|---|---:|---:|---:|')
  for (const { id } of listStrategies()) {
    const before = threads()
    const t0 = performance.now()
    const r = await post(`${server.url}/simulate`, { strategy: id, top_n: 535 })
    await r.arrayBuffer()
    if (!r.ok) throw new Error(`${id}: HTTP ${r.status}`)
    const ms = performance.now() - t0
    const after = threads()
    const [mu, ms_, mf] = minus(after.get('main'), before.get('main'))
    const [wu, ws, wf] = minus(after.get('Worker'), before.get('Worker'))
    console.log(`| ${id} | ${ms.toFixed(0)} | ${mu} / ${ms_}, ${mf} | ${wu} / ${ws}, ${wf} |`)
  }
  console.log('\nthe 35 first runs in all, by thread:')
  for (const [name, v] of threads()) {
    const [u, s, f] = minus(v, start.get(name))
    if (u + s >= 20) console.log(`  ${name.padEnd(14)} user ${u} ms, system ${s} ms, minor faults ${f}`)
  }
  const rss = readFileSync(`/proc/${server.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1]
  console.log(`resident ${Math.round(Number(rss) / 1024)} MB; load ${require('node:os').loadavg().map((x: number) => x.toFixed(2)).join(' ')}`)
} finally {
  await server.stop()
}
