/**
 * `bun bench/sweeps.ts`: research sweeps and walk-forward runs through the real server
 * (`bun src/cli.ts serve` on the in-process worker pool), on a synthetic universe of 100
 * coins × 2 years of 1H candles:
 *   - a 1,000-trial exit-only grid (SL × TP × max bars) over the top 100 (target ≤ 20 s);
 *   - a 1,000-trial grid over an entry threshold × SL over the top 100 (target ≤ 60 s);
 *   - a walk-forward optimisation of 8 folds × 100 trials over the top 50 (target ≤ 60 s);
 *   - /health p99 (target ≤ 25 ms) and /simulate p50 (target ≤ 1.5 × idle) while a sweep runs.
 * Each figure is the time from the POST to the GET that reads the run stopped (polled every
 * 100 ms). The store is generated once into a temp DATA_DIR, or read from BENCH_DATA_DIR.
 * Env: BENCH_ONLY (comma-separated row keys: exit, entry, wfo, load).
 */
import { rmSync } from 'node:fs'
import { benchStore, pct, startServer } from './_server'

const ONLY = process.env.BENCH_ONLY?.split(',')
const want = (k: string) => !ONLY || ONLY.includes(k)

const { dir, temp } = benchStore('sweeps', 100)
// no scheduled jobs: a fresh store's ranking backfill would share the background lane with the sweeps
const server = await startServer(dir, { JOBS: '0' })
const post = (path: string, json: unknown) => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) })

async function untilStopped(path: string): Promise<any> {
  for (;;) {
    const r = (await (await fetch(`${server.url}${path}?limit=1`)).json()) as any
    if (!['queued', 'running'].includes(r.state)) return r
    await Bun.sleep(100)
  }
}

/** POST, then wait for the run to stop: seconds and the final answer. */
async function timedRun(path: string, body: unknown): Promise<{ seconds: number; answer: any }> {
  const t0 = performance.now()
  const r = await post(path, body)
  const accepted = (await r.json()) as any
  if (r.status !== 202) throw new Error(`${path}: ${r.status} ${JSON.stringify(accepted).slice(0, 400)}`)
  const answer = await untilStopped(accepted.links.self)
  return { seconds: (performance.now() - t0) / 1000, answer }
}

const range = (min: number, max: number, step: number) => ({ min, max, step })
const rows: { what: string; value: string; target: string; note: string }[] = []

const EXIT_GRID = {
  strategy: 'bb-squeeze-short',
  top_n: 100,
  space: [
    { path: 'sl_pct', ...range(1, 10, 1) },
    { path: 'tp_pct', ...range(1, 10, 1) },
    { path: 'max_bars', ...range(12, 120, 12) },
  ],
  objective: 'sharpe_ratio',
  min_trades: 30,
}

if (want('exit')) {
  const { seconds, answer } = await timedRun('/research/sweeps', EXIT_GRID)
  rows.push({ what: '1,000-trial exit-only grid (SL 10 × TP 10 × max bars 10), top 100 × 2 y 1H', value: `${seconds.toFixed(1)} s`, target: '≤ 20 s', note: `${answer.state}, n_trials ${answer.n_trials}, PBO ${answer.pbo?.pbo?.toFixed(3)}` })
}

if (want('entry')) {
  const { seconds, answer } = await timedRun('/research/sweeps', {
    name: 'RSI dip',
    direction: 'long',
    indicators: { rsi: {} },
    entry: { type: 'AND', conditions: [{ field: 'rsi', op: '<', value: 30 }] },
    top_n: 100,
    space: [
      { path: 'entry.conditions[0].value', ...range(11, 60, 1) },
      { path: 'sl_pct', ...range(1, 20, 1) },
    ],
    objective: 'sharpe_ratio',
    min_trades: 30,
  })
  rows.push({ what: '1,000-trial grid, entry threshold (50) × SL (20), top 100 × 2 y 1H', value: `${seconds.toFixed(1)} s`, target: '≤ 60 s', note: `${answer.state}, n_trials ${answer.n_trials}` })
}

if (want('wfo')) {
  const { seconds, answer } = await timedRun('/research/walk-forward', {
    strategy: 'bb-squeeze-short',
    top_n: 50,
    space: [
      { path: 'sl_pct', ...range(1, 10, 1) },
      { path: 'tp_pct', ...range(1, 10, 1) },
    ],
    objective: 'sharpe_ratio',
    min_trades: 10,
    mode: 'rolling',
    in_sample_days: 180,
    out_of_sample_days: 60,
    folds: 8,
  })
  rows.push({ what: 'walk-forward, 8 folds × 100 trials (SL × TP), top 50 × 2 y 1H', value: `${seconds.toFixed(1)} s`, target: '≤ 60 s', note: `${answer.state}, n_trials ${answer.n_trials}` })
}

if (want('load')) {
  const simulate = { strategy: 'bb-squeeze-short', top_n: 50 }
  const timeOf = async (path: string, init?: RequestInit) => {
    const t0 = performance.now()
    const r = await fetch(`${server.url}${path}`, { ...init, headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' } })
    await r.arrayBuffer()
    return performance.now() - t0
  }
  const simulateMs = () => timeOf('/simulate', { method: 'POST', body: JSON.stringify(simulate) })
  for (let i = 0; i < 3; i++) await simulateMs()
  // idle: 7 runs before the sweep and 7 after it (the machine's load moves in between)
  const idle: number[] = []
  for (let i = 0; i < 7; i++) idle.push(await simulateMs())
  // /health without a sweep, on the same minutes: what the machine's own load does to it
  const healthIdle: number[] = []
  for (let i = 0; i < 500; i++) {
    healthIdle.push(await timeOf('/health'))
    await Bun.sleep(20)
  }
  const r = await post('/research/sweeps', EXIT_GRID)
  const accepted = (await r.json()) as any
  const health: number[] = []
  const busy: number[] = []
  let state = 'running'
  let k = 0
  while (state === 'queued' || state === 'running') {
    health.push(await timeOf('/health'))
    if (k++ % 20 === 0 && busy.length < 7) busy.push(await simulateMs())
    await Bun.sleep(20)
    if (k % 10 === 0) state = ((await (await fetch(`${server.url}${accepted.links.self}?limit=0`)).json()) as any).state
  }
  for (let i = 0; i < 7; i++) idle.push(await simulateMs())
  rows.push({
    what: '/health p99 while the exit-only sweep runs',
    value: `${pct(health, 99).toFixed(1)} ms`,
    target: '≤ 25 ms',
    note: `${health.length} requests, p50 ${pct(health, 50).toFixed(1)} ms; without a sweep just before: p99 ${pct(healthIdle, 99).toFixed(1)} ms`,
  })
  rows.push({
    what: '/simulate p50 (top 50, no cache) while the sweep runs, over idle',
    value: `${(pct(busy, 50) / pct(idle, 50)).toFixed(2)}×`,
    target: '≤ 1.5×',
    note: `${pct(busy, 50).toFixed(0)} ms during (${busy.length} runs) vs ${pct(idle, 50).toFixed(0)} ms without a sweep (${idle.length}: 7 before, 7 after)`,
  })
}

await server.stop()
if (temp) rmSync(dir, { recursive: true, force: true })

console.log('\n| measurement | figure | target | note |\n|---|---:|---|---|')
for (const r of rows) console.log(`| ${r.what} | ${r.value} | ${r.target} | ${r.note} |`)
