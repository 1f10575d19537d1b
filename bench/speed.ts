/**
 * Speed near the floor (issue 30): every row of the issue's table against the real started
 * server (`bun src/cli.ts serve`, JOBS=0, 2 workers, rate limits off, the defaults in force:
 * minute detail on by `intrabar`'s default and impact slippage on) on the synthetic 535-coin
 * × 2-year store, each printed with its target, its figure, the figure as a multiple of the
 * floor taken in the same process (bench/floor.ts: one pass over the store's five OHLCV
 * columns; its fastest pass's wall time), the server's CPU time per request (user + system
 * of the whole process, the workers included, from /proc: what a busy machine distorts
 * least) and that as a multiple of the floor's CPU time per pass, and the load average.
 *
 * Rows:
 * - warm /simulate bb-squeeze-short top 535, p50: signal masks cached by warm-ups, result
 *   cache bypassed (`Cache-Control: no-cache`); then the same after `--settle` (200) more
 *   requests, once the JIT has moved the per-request code to its top tier (a server that has
 *   been up a while);
 * - a new condition tree from scratch on /backtest top 535, p50: the tree's indicators
 *   cached by warm-ups of the same indicators, every timed request a tree never seen (its
 *   RSI threshold moves by 0.001 each time), so its masks are compiled and computed anew;
 * - the first run of each registry strategy with nothing of it cached (`first`): one running
 *   server, warmed by a custom tree's /backtest (the store's pages read, the code compiled:
 *   what any earlier request does), then each strategy's first /simulate top 535 in turn, its
 *   masks computed from nothing (the worst, the median and each figure printed);
 * - the same after `--settle` custom trees, long and short (`first-settled`): the code all runs
 *   share at the JIT's top tier, as on a server that has been up a while;
 * - the same on a fresh server per strategy (`first-fresh`, not in the default set): the
 *   server's first request, so its start-up reading and compiling too;
 * - throughput of warm 535-coin /simulate runs with 4 clients at once (result cache bypassed).
 *
 *   bun run bench speed
 *   bun bench/speed.ts [--runs N] [--settle N] [--seconds S] [--strategies id,id,...] [--only warm,tree,first,first-settled,first-fresh,throughput]
 * BENCH_DATA_DIR=<dir> reuses a generated store (else one is generated and removed).
 */
import { readFileSync, rmSync } from 'node:fs'
import { listStrategies } from '../src/strategies/registry'
import { benchStore, pct, post, startServer, type Server } from './_server'
import { loadAvg, measureFloor, type Floor } from './floor'

const arg = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? process.argv[at + 1] : undefined
}
const RUNS = Number(arg('runs')) || 21
const SECONDS = Number(arg('seconds')) || 10
const ONLY = new Set((arg('only') ?? 'warm,tree,first,first-settled,throughput').split(','))
const STRATEGIES = arg('strategies')?.split(',') ?? listStrategies().map(s => s.id)
const TOP_N = 535
const WARMUP = 3
/** untimed requests between the warm row and its settled twin (`--settle 0`: no settled row) */
const SETTLE = arg('settle') === undefined ? 200 : Number(arg('settle'))

/** CPU ms (user + system, every thread) the server process has used so far. */
function serverCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // fields[11], [12]: utime, stime in clock ticks (100 per second on Linux)
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}

interface Row {
  path: string
  target: string
  figure: number
  unit: string
  /** ms per run against the floor's ms */
  perRunMs: number
  cpuPerRunMs: number
  load: string
  note?: string
}

async function timed(server: Server, n: number, request: (i: number) => Promise<Response>): Promise<{ ms: number[]; cpuMs: number }> {
  const cpu0 = serverCpuMs(server.pid)
  const ms: number[] = []
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    const r = await request(i)
    await r.arrayBuffer()
    if (!r.ok) throw new Error(`HTTP ${r.status}`)
    ms.push(performance.now() - t0)
  }
  return { ms, cpuMs: (serverCpuMs(server.pid) - cpu0) / n }
}

async function warmSimulate(server: Server): Promise<Row[]> {
  const body = { strategy: 'bb-squeeze-short', top_n: TOP_N }
  for (let i = 0; i < WARMUP; i++) await (await post(`${server.url}/simulate`, body)).arrayBuffer()
  const first = await timed(server, RUNS, () => post(`${server.url}/simulate`, body))
  const p50 = pct(first.ms, 50)
  const rows: Row[] = [{ path: `warm /simulate bb-squeeze-short top ${TOP_N} (signals cached, result cache bypassed), p50 of ${RUNS} after ${WARMUP} warm-ups`, target: '≤ 25 ms', figure: p50, unit: 'ms', perRunMs: p50, cpuPerRunMs: first.cpuMs, load: loadAvg() }]
  if (SETTLE > 0) {
    // the same request once the JIT has settled: JavaScriptCore moves a function to its top
    // tier only after many calls, and the booking's functions run once a request, so the
    // first few dozen requests still run part of the code in lower tiers (docs/benchmarks.md, session 13)
    for (let i = 0; i < SETTLE; i++) await (await post(`${server.url}/simulate`, body)).arrayBuffer()
    const settled = await timed(server, RUNS, () => post(`${server.url}/simulate`, body))
    const q50 = pct(settled.ms, 50)
    rows.push({ path: `… the same after ${SETTLE} more requests (the JIT settled), p50 of ${RUNS}`, target: '≤ 25 ms', figure: q50, unit: 'ms', perRunMs: q50, cpuPerRunMs: settled.cpuMs, load: loadAvg() })
  }
  return rows
}

/** The 3-condition tree of bench/http.ts with its RSI threshold moved: each `k` is a tree never seen. */
const tree = (k: number) => ({
  name: 'bench new tree',
  direction: 'short',
  indicators: { bb: {}, rsi: {}, volume: {} },
  entry: { type: 'AND', conditions: [{ field: 'close', op: '<', value: { field: 'bb_lower' } }, { field: 'rsi', op: '<', value: 35 + k / 1000 }, { field: 'vol_ratio', op: '>', value: 1.2 }] },
  top_n: TOP_N,
})

/** Its mirror for longs (the long side's exit loop, marks and bookings compiled too). */
const longTree = (k: number) => ({
  name: 'bench new tree, long',
  direction: 'long',
  indicators: { bb: {}, rsi: {}, volume: {} },
  entry: { type: 'AND', conditions: [{ field: 'close', op: '>', value: { field: 'bb_upper' } }, { field: 'rsi', op: '>', value: 65 - k / 1000 }, { field: 'vol_ratio', op: '>', value: 1.2 }] },
  top_n: TOP_N,
})

async function newTree(server: Server): Promise<Row> {
  // the indicators cached: warm-ups of the same indicators under other trees
  for (let i = 0; i < WARMUP; i++) await (await post(`${server.url}/backtest`, tree(-1 - i))).arrayBuffer()
  const { ms, cpuMs } = await timed(server, RUNS, i => post(`${server.url}/backtest`, tree(1 + i)))
  const p50 = pct(ms, 50)
  return { path: `a new condition tree from scratch on /backtest top ${TOP_N} (indicators cached), p50 of ${RUNS}`, target: '≤ 60 ms', figure: p50, unit: 'ms', perRunMs: p50, cpuPerRunMs: cpuMs, load: loadAvg() }
}

/**
 * Each strategy's first /simulate: on one running server warmed by a custom tree (`fresh`
 * false), or as the first request of a server started for it (`fresh`). `settled`: the
 * running server first answers `--settle` custom trees, long and short in turn (none of
 * a registry strategy's masks), so that the code every run shares (the trade model,
 * the booking, the statistics, the answer) has reached the JIT's top tier, as on a
 * server that has been up a while; what is left is the strategy's own work.
 */
async function firstRuns(dataDir: string, fresh: boolean, settled = false): Promise<{ rows: Row[]; each: string[] }> {
  const each: string[] = [`| strategy | first run ms${fresh ? ' (fresh server)' : settled ? ` (after ${SETTLE} custom trees)` : ''} | server CPU ms | load |`, '|---|---:|---:|---|']
  let worst = { id: '', ms: 0, cpu: 0 }
  const all: number[] = []
  const running = fresh ? null : await startServer(dataDir, { JOBS: '0' })
  try {
    // the store's pages and the code warmed by a request that computes none of the registry's masks
    if (running) for (let i = 0; i < WARMUP; i++) await (await post(`${running.url}/backtest`, tree(-1 - i))).arrayBuffer()
    if (running && settled) for (let i = 0; i < SETTLE; i++) await (await post(`${running.url}/backtest`, i % 2 ? longTree(100 + i) : tree(100 + i))).arrayBuffer()
    for (const id of STRATEGIES) {
      const server = running ?? (await startServer(dataDir, { JOBS: '0' }))
      try {
        const { ms, cpuMs } = await timed(server, 1, () => post(`${server.url}/simulate`, { strategy: id, top_n: TOP_N }))
        all.push(ms[0])
        each.push(`| ${id} | ${ms[0].toFixed(1)} | ${cpuMs.toFixed(0)} | ${loadAvg()} |`)
        if (ms[0] > worst.ms) worst = { id, ms: ms[0], cpu: cpuMs }
      } finally {
        if (!running) await server.stop()
      }
    }
  } finally {
    await running?.stop()
  }
  const how = fresh ? 'fresh server each: its start-up too' : settled ? `one running server, after ${SETTLE} custom trees` : 'one running server'
  const rows: Row[] = [
    { path: `the first run of a strategy, nothing of it cached (${how}): the slowest of ${STRATEGIES.length} (${worst.id})`, target: '≤ 150 ms', figure: worst.ms, unit: 'ms', perRunMs: worst.ms, cpuPerRunMs: worst.cpu, load: loadAvg() },
    { path: `… the median of the ${STRATEGIES.length}`, target: '≤ 150 ms', figure: pct(all, 50), unit: 'ms', perRunMs: pct(all, 50), cpuPerRunMs: NaN, load: loadAvg() },
  ]
  return { rows, each }
}

async function throughput(server: Server): Promise<Row> {
  const body = { strategy: 'bb-squeeze-short', top_n: TOP_N }
  for (let i = 0; i < WARMUP; i++) await (await post(`${server.url}/simulate`, body)).arrayBuffer()
  const cpu0 = serverCpuMs(server.pid)
  const t0 = performance.now()
  const until = t0 + SECONDS * 1000
  let done = 0
  const client = async () => {
    while (performance.now() < until) {
      const r = await post(`${server.url}/simulate`, body)
      await r.arrayBuffer()
      if (!r.ok) throw new Error(`HTTP ${r.status}`)
      done++
    }
  }
  await Promise.all([client(), client(), client(), client()])
  const s = (performance.now() - t0) / 1000
  const perS = done / s
  return { path: `throughput of warm ${TOP_N}-coin /simulate runs, 4 clients, ${SECONDS} s (${done} runs)`, target: '≥ 45 /s', figure: perS, unit: '/s', perRunMs: 1000 / perS, cpuPerRunMs: (serverCpuMs(server.pid) - cpu0) / done, load: loadAvg() }
}

function print(rows: Row[], floor: Floor): void {
  console.log('| path | target | figure | × floor (wall) | server CPU ms per run | × floor (CPU) | load (1/5/15 min) |')
  console.log('|---|---|---:|---:|---:|---:|---|')
  for (const r of rows) {
    const fig = `${r.figure.toFixed(1)} ${r.unit}`
    const ratio = r.unit === '/s' ? `${(r.perRunMs / floor.ms).toFixed(2)} (${r.perRunMs.toFixed(1)} ms a run)` : (r.perRunMs / floor.ms).toFixed(2)
    const cpu = Number.isNaN(r.cpuPerRunMs) ? ['', ''] : [r.cpuPerRunMs.toFixed(0), (r.cpuPerRunMs / floor.cpuMs).toFixed(2)]
    console.log(`| ${r.path} | ${r.target} | ${fig} | ${ratio} | ${cpu[0]} | ${cpu[1]} | ${r.load} |`)
  }
}

const store = benchStore('speed', TOP_N)
try {
  const floor = measureFloor(store.dir)
  console.log(`floor: one pass over the five OHLCV columns of ${floor.coins} coins, ${floor.bars.toLocaleString('en')} bars (${(floor.bytes / 1e6).toFixed(0)} MB): ${floor.ms.toFixed(1)} ms (${floor.gbPerS.toFixed(1)} GB/s, CPU ${floor.cpuMs.toFixed(1)} ms a pass), load ${loadAvg()}\n`)
  const rows: Row[] = []
  const each: string[] = []
  if (ONLY.has('warm') || ONLY.has('tree') || ONLY.has('throughput')) {
    const server = await startServer(store.dir, { JOBS: '0' })
    try {
      if (ONLY.has('warm')) rows.push(...(await warmSimulate(server)))
      if (ONLY.has('tree')) rows.push(await newTree(server))
      if (ONLY.has('throughput')) rows.push(await throughput(server))
      console.log(`peak RSS of the server (warm rows): ${server.rssPeakMb().toFixed(0)} MB\n`)
    } finally {
      await server.stop()
    }
  }
  for (const [key, fresh, settled] of [['first', false, false], ['first-settled', false, true], ['first-fresh', true, false]] as const)
    if (ONLY.has(key) && !(settled && SETTLE === 0)) {
      const first = await firstRuns(store.dir, fresh, settled)
      rows.push(...first.rows)
      each.push(...(each.length ? [''] : []), ...first.each)
    }
  const again = measureFloor(store.dir)
  print(rows, floor)
  console.log(`\nfloor again after the rows: ${again.ms.toFixed(1)} ms (load ${loadAvg()})`)
  if (each.length > 2) console.log(`\nfirst runs, each strategy:\n\n${each.join('\n')}`)
} finally {
  if (store.temp) rmSync(store.dir, { recursive: true, force: true })
}
