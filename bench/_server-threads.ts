/**
 * The real server's CPU a new tree costs, thread by thread (issue 30's new-tree row): the
 * main thread, each worker, the JIT's threads, read from /proc/<pid>/task/<tid>/stat around
 * `runs` new trees of bench/tree.ts (top 535) after `warm` others (the JIT's threads compile
 * for the first few dozen requests: 15 ms a request after 8, 3 ms after 60). Which thread's
 * share adds to the wall: the workers' in parallel, then the main thread's booking.
 *   BENCH_DATA_DIR=<store> bun bench/_server-threads.ts [runs] [warm]
 * Run it from two checkouts in turns to compare them.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { pct, post, startServer } from './_server'
import { newTree } from './tree'

const runs = Number(process.argv[2]) || 30
const warm = Number(process.argv[3]) || 60
const dataDir = process.env.BENCH_DATA_DIR
if (!dataDir) throw new Error('BENCH_DATA_DIR: a store (e.g. /tmp/speed535)')

const server = await startServer(dataDir, { JOBS: '0' })
/** CPU ms so far of each thread, by `tid:name` */
const threads = () => {
  const out = new Map<string, number>()
  for (const tid of readdirSync(`/proc/${server.pid}/task`)) {
    try {
      const st = readFileSync(`/proc/${server.pid}/task/${tid}/stat`, 'utf8')
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ')
      out.set(`${tid === String(server.pid) ? 'main' : st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'))}#${tid}`, ((Number(f[11]) + Number(f[12])) * 1000) / 100)
    } catch {}
  }
  return out
}
try {
  const one = async (k: number) => {
    const r = await post(`${server.url}/backtest`, newTree(k, 535))
    await r.arrayBuffer()
    if (!r.ok) throw new Error(`HTTP ${r.status}`)
  }
  for (let k = 1; k <= warm; k++) await one(k)
  const before = threads()
  const wall: number[] = []
  for (let k = 0; k < runs; k++) {
    const t0 = performance.now()
    await one(10_000 + k)
    wall.push(performance.now() - t0)
  }
  const after = threads()
  const rows = [...after].map(([k, v]) => [k, (v - (before.get(k) ?? 0)) / runs] as const).filter(([, v]) => v >= 0.5).sort((a, b) => b[1] - a[1])
  console.log(`${runs} new trees after ${warm}: wall p50 ${pct(wall, 50).toFixed(1)} ms; CPU ms a request: ${rows.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}`)
  console.log(`load average ${require('node:os').loadavg().map((x: number) => x.toFixed(2)).join(' ')}`)
} finally {
  await server.stop()
}
