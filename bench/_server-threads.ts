/**
 * The real server's CPU a request costs, thread by thread (issue 30's rows): the main
 * thread, the workers, the JIT's and the allocator's threads, read from
 * /proc/<pid>/task/<tid>/stat around `runs` requests after `warm` others (the JIT's threads
 * compile for the first few dozen requests: 15 ms a request after 8, 3 ms after 60). Threads
 * of one name are summed (the two `Worker`s); each gets its user and system CPU and its minor
 * page faults a request, and the process its resident size at the end. Which thread's
 * share adds to the wall: the workers' in parallel, then the main thread's booking.
 *   BENCH_DATA_DIR=<store> bun bench/_server-threads.ts [runs] [warm] [--warm-simulate]
 * The requests: new trees of bench/tree.ts (top 535), or with --warm-simulate the warm row of
 * bench/speed.ts (bb-squeeze-short top 535, no-cache). Run it from two checkouts in turns to
 * compare them; the server gets this process's environment (MIMALLOC_PURGE_DELAY=100, say,
 * to see mimalloc's purges: src/allocator-settings.ts).
 */
import { readFileSync } from 'node:fs'
import { pct, post, startServer, threadTimes } from './_server'
import { newTree } from './tree'

const args = process.argv.slice(2).filter(a => !a.startsWith('--'))
const warmSimulate = process.argv.includes('--warm-simulate')
const runs = Number(args[0]) || 30
const warm = Number(args[1]) || 60
const dataDir = process.env.BENCH_DATA_DIR
if (!dataDir) throw new Error('BENCH_DATA_DIR: a store (e.g. /tmp/speed535)')

const server = await startServer(dataDir, { JOBS: '0' })
/** user ms, system ms and minor faults so far of each thread name */
const threads = () => threadTimes(server.pid)
try {
  const one = async (k: number) => {
    const r = warmSimulate
      ? await fetch(`${server.url}/simulate`, { method: 'POST', headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' }, body: JSON.stringify({ strategy: 'bb-squeeze-short', top_n: 535 }) })
      : await post(`${server.url}/backtest`, newTree(k, 535))
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
  const rows = [...after]
    .map(([k, v]) => [k, v.map((x, i) => (x - (before.get(k)?.[i] ?? 0)) / runs)] as const)
    .filter(([, [u, s, m]]) => u + s >= 0.5 || m >= 50)
    .sort((a, b) => b[1][0] + b[1][1] - a[1][0] - a[1][1])
  const rss = readFileSync(`/proc/${server.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1]
  console.log(`${runs} ${warmSimulate ? 'warm /simulate runs' : 'new trees'} after ${warm}: wall p50 ${pct(wall, 50).toFixed(1)} ms; resident ${Math.round(Number(rss) / 1024)} MB; a request, by thread:`)
  for (const [k, [u, s, m]] of rows) console.log(`  ${k.padEnd(14)} user ${u.toFixed(1).padStart(6)} ms  system ${s.toFixed(1).padStart(6)} ms  minor faults ${m.toFixed(0).padStart(6)}`)
  console.log(`load average ${require('node:os').loadavg().map((x: number) => x.toFixed(2)).join(' ')}`)
} finally {
  await server.stop()
}
