/**
 * One thread, the whole request: /backtest with a new tree each time through app.handle on an
 * in-process executor (the workers' tasks on this thread too), for `bun --cpu-prof` (issue 30's
 * profile of a new tree). BENCH_DATA_DIR=<store> bun --cpu-prof bench/_tree-request-profile.ts [runs] [new|same] [top_n]
 * then bun bench/_cpuprofile-top.ts <file> 60 --after profileMark (the timed requests only)
 */
import { makeHarness } from '../tests/helpers/harness'
import { newTree } from './tree'
import { profileMark } from './_profile-mark'

const h = makeHarness({ dataDir: process.env.BENCH_DATA_DIR!, nowMs: Date.now() })
const runs = Number(process.argv[2] ?? 12)
const mode = process.argv[3] ?? 'new'
const topN = Number(process.argv[4] ?? 535)
let k = 1000
const one = async (kk: number) => {
  const r = await h.req('/backtest', { method: 'POST', json: newTree(kk, topN), headers: { 'cache-control': 'no-cache' } })
  if (r.status !== 200 || !r.body.executed) throw new Error(`HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`)
  return r.body
}
for (let i = 0; i < 3; i++) await one(++k)
profileMark()
const cpu: number[] = []
for (let i = 0; i < runs; i++) {
  const c0 = process.cpuUsage()
  await one(mode === 'new' ? ++k : k)
  const c = process.cpuUsage(c0)
  cpu.push((c.user + c.system) / 1000)
}
cpu.sort((a, b) => a - b)
console.log(`${mode}: request CPU on one thread, median ${cpu[cpu.length >> 1].toFixed(1)} ms, min ${cpu[0].toFixed(1)} ms (${runs} runs; load ${require('os').loadavg()[0].toFixed(1)})`)
h.cleanup()
