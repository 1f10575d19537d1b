/**
 * A new condition tree from scratch on /backtest (issue 30): the 3-condition tree of
 * bench/http.ts over the top 535, each request a tree no worker has seen (its RSI threshold
 * moved by a millionth per request, so the signal-mask cache and the result cache miss),
 * against the real started server with JOBS=0 and the request's defaults (minute detail,
 * impact slippage). Besides the wall p50 it prints the server's CPU per request (user +
 * system of every thread, from /proc) and the compute_time_ms the answers report.
 *
 *   bun bench/tree.ts [--runs N]         (BENCH_DATA_DIR reuses a store, else one is generated)
 *
 * `measureNewTree(url, pid, runs)` is what bench/speed.ts calls on its own server.
 */
import { readFileSync, rmSync } from 'node:fs'
import { benchStore, pct, post, startServer } from './_server'

/** issue 30's row: a new tree on /backtest top 535, p50 */
export const NEW_TREE_TARGET_MS = 60

/** The tree of bench/http.ts's /backtest row, with its RSI threshold moved by `k` millionths (a new tree per k). */
export function newTree(k: number, topN = 535) {
  return {
    name: 'bench new tree',
    direction: 'short',
    indicators: { bb: {}, rsi: {}, volume: {} },
    entry: {
      type: 'AND',
      conditions: [
        { field: 'close', op: '<', value: { field: 'bb_lower' } },
        { field: 'rsi', op: '<', value: 35 + k / 1e6 },
        { field: 'vol_ratio', op: '>', value: 1.2 },
      ],
    },
    top_n: topN,
  }
}

/** CPU ms (user + system, every thread) a process has used so far. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // fields 14 and 15 (utime, stime) in clock ticks; after the command they are 12th and 13th
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100
}

export interface NewTreeFigures {
  runs: number
  /** wall ms, client side */
  p50Ms: number
  minMs: number
  /** server CPU ms per request (mean over the series; every thread) */
  cpuMsPerRequest: number
  /** the answers' compute_time_ms, p50 */
  computeP50Ms: number
  trades: number
  /**
   * the same tree again between the new ones (its masks cached, result cache off; its
   * accepted trades are the cached result's, so the warm path reuses that result's
   * statistics too): a lower bound, what the tree and its new trades add is the difference
   */
  repeat: { p50Ms: number; cpuMsPerRequest: number }
}

let serial = 0

/**
 * `runs` requests of a new tree each, one at a time, after three warm-ups (new trees too),
 * each followed by the previous tree again (its masks cached), so both series see the same
 * minutes of a shared machine.
 */
export async function measureNewTree(url: string, pid: number, runs = 15, topN = 535): Promise<NewTreeFigures> {
  const one = async (k: number) => {
    const r = await post(`${url}/backtest`, newTree(k, topN))
    const body = (await r.json()) as { compute_time_ms: number; total_trades: number; executed: boolean }
    if (!r.ok || !body.executed) throw new Error(`HTTP ${r.status}`)
    return body
  }
  for (let i = 0; i < 3; i++) await one(++serial)
  const wall: number[] = []
  const compute: number[] = []
  const repeatWall: number[] = []
  let cpu = 0
  let repeatCpu = 0
  let trades = 0
  for (let i = 0; i < runs; i++) {
    let cpu0 = processCpuMs(pid)
    let t0 = performance.now()
    const body = await one(++serial)
    wall.push(performance.now() - t0)
    cpu += processCpuMs(pid) - cpu0
    compute.push(body.compute_time_ms)
    trades = body.total_trades
    cpu0 = processCpuMs(pid)
    t0 = performance.now()
    await one(serial)
    repeatWall.push(performance.now() - t0)
    repeatCpu += processCpuMs(pid) - cpu0
  }
  return {
    runs,
    p50Ms: pct(wall, 50),
    minMs: pct(wall, 0),
    cpuMsPerRequest: cpu / runs,
    computeP50Ms: pct(compute, 50),
    trades,
    repeat: { p50Ms: pct(repeatWall, 50), cpuMsPerRequest: repeatCpu / runs },
  }
}

if (import.meta.main) {
  const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 15
  const store = benchStore('tree', 535)
  try {
    const server = await startServer(store.dir, { JOBS: '0' })
    try {
      const f = await measureNewTree(server.url, server.pid, runs)
      console.log('| measurement | figure | target |')
      console.log('|---|---:|---:|')
      console.log(`| /backtest a new 3-condition tree top 535 (its indicators kept by the warm-up trees, its masks new), p50 wall | ${f.p50Ms.toFixed(1)} ms | ≤ ${NEW_TREE_TARGET_MS} ms |`)
      console.log(`| … fastest of ${f.runs} | ${f.minMs.toFixed(1)} ms | |`)
      console.log(`| … server CPU per request (every thread) | ${f.cpuMsPerRequest.toFixed(1)} ms | |`)
      console.log(`| … compute_time_ms the answers report, p50 | ${f.computeP50Ms.toFixed(1)} ms | |`)
      console.log(`| … trades per answer | ${f.trades} | |`)
      console.log(`| the same tree again (masks cached, result cache off), p50 wall / server CPU per request | ${f.repeat.p50Ms.toFixed(1)} / ${f.repeat.cpuMsPerRequest.toFixed(1)} ms | |`)
      console.log(`| peak RSS of the server | ${server.rssPeakMb().toFixed(0)} MB | |`)
      console.log(`\nload average ${require('node:os').loadavg().map((x: number) => x.toFixed(2)).join(' ')}`)
    } finally {
      await server.stop()
    }
  } finally {
    if (store.temp) rmSync(store.dir, { recursive: true, force: true })
  }
}
