/**
 * `bun bench/research.ts`: the research statistics on the synthetic 535-coin × 2-year
 * universe, through the run service on a worker pool (as the server runs it):
 *   - what the statistics add to a /simulate run (the same run without and with them,
 *     alternating), on 535 coins and on the default top 50;
 *   - /simulate/validate with 1000 simulations on the top 50 (target p50 ≤ 1 s);
 *   - /simulate/optimize with 36 cells on the top 50 (target p50 ≤ 1.5 s).
 * Every request recomputes (no result cache). The store is generated once into a temp
 * DATA_DIR (about 15 s), or read from BENCH_DATA_DIR when set.
 * Env: BENCH_REPS (default 15), BENCH_WORKERS (default: the machine's cores).
 */
import { rmSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { openDb } from '../src/db'
import { CandleStore } from '../src/market/candle-store'
import { Universe } from '../src/market/universe'
import { runOptimize } from '../src/modules/research/optimize-service'
import { runValidate } from '../src/modules/research/validate-service'
import { simulateSpec } from '../src/runs/simulate-spec'
import { executionBodyOf } from '../src/runs/execution-spec'
import { registrySpec, registryStrategy } from '../src/runs/spec'
import { workerPoolTransport } from '../src/runs/transport'
import { RunService } from '../src/runs/service'
import { benchStore, pct } from './_server'

const REPS = Number(process.env.BENCH_REPS ?? 15)
const WORKERS = Number(process.env.BENCH_WORKERS ?? availableParallelism())
const STRATEGY = 'bb-squeeze-short'

const { dir, temp } = benchStore('research', 535)
const store = CandleStore.open(dir)
const universe = new Universe(store)
const transport = workerPoolTransport(store, WORKERS, 1024)
const runs = new RunService({ store, universe, transport, db: openDb(':memory:'), clock: { now: () => Date.now() }, cacheSize: 0 })
const deps = { runs, universe, store }

const p50 = (xs: number[]) => pct(xs, 50)
const fmt = (x: number) => x.toFixed(0)

const simulateBody = (topN: number) => ({
  ...executionBodyOf(registrySpec(registryStrategy(STRATEGY), {})),
  strategy: STRATEGY,
  market_type: 'futures' as const,
  top_n: topN,
  timeframe: '1H' as const,
  start_date: null,
  intrabar: 'detail' as const,
  end_date: null,
  leverage: 1,
  fee_pct: null,
  per_coin_usd: 60,
  max_concurrent_positions: 100,
  compounding: false,
  stop_at_ruin: true,
  include_stablecoins: false,
})

/**
 * The same request without and with its statistics, alternating, each recomputed from the
 * coins' trades up (no result cache; the workers' signal masks stay warm): what the
 * statistics add to the run's wall time, the early start on the workers included.
 */
async function overhead(topN: number) {
  const spec = simulateSpec(simulateBody(topN))
  const base: number[] = []
  const stats: number[] = []
  let trades = 0
  for (let i = 0; i <= REPS; i++) {
    let t0 = performance.now()
    const r = await runs.run(spec, { noCache: true, statistics: false })
    const b = performance.now() - t0
    t0 = performance.now()
    await runs.run(spec, { noCache: true })
    const s = performance.now() - t0
    trades = r.assembled.portfolio.trades.n
    // the first repetition warms the JIT and the workers' caches
    if (i > 0) {
      base.push(b)
      stats.push(s)
    }
  }
  // the median of each pair's ratio: a pair ran back to back, so machine noise cancels more
  const pairRatio = p50(base.map((b, i) => stats[i] / b))
  return { trades, base: p50(base), stats: p50(stats), pairRatio }
}

async function timed(fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i <= REPS; i++) {
    const t0 = performance.now()
    await fn()
    if (i > 0) out.push(performance.now() - t0)
  }
  return out
}

const rows: string[] = []
for (const topN of [535, 50]) {
  const o = await overhead(topN)
  rows.push(`| /simulate ${STRATEGY}, top ${topN} (${o.trades} trades): run without statistics | ${fmt(o.base)} | |`)
  rows.push(`| … the same run with its statistics | ${fmt(o.stats)} | +${fmt((100 * (o.stats - o.base)) / o.base)} % (p50s); +${fmt(100 * (o.pairRatio - 1))} % (median of pairs) |`)
}
const validateBody = { ...simulateBody(50), oos_pct: 30, n_simulations: 1000, seed: null }
const v = await timed(() => runValidate(deps, validateBody, true))
rows.push(`| /simulate/validate, 1000 simulations, top 50 | ${fmt(p50(v))} | target ≤ 1000 |`)
const SIX = [1, 2, 3, 5, 8, 13]
const optimizeBody = { ...simulateBody(50), sl_values: SIX, tp_values: SIX, objective: 'sharpe' as const }
const opt = await timed(() => runOptimize(deps, optimizeBody))
rows.push(`| /simulate/optimize, 36 cells, top 50 | ${fmt(p50(opt))} | target ≤ 1500 |`)

console.log(`Research statistics: ${store.symbols().length} coins, ${WORKERS} workers, p50 of ${REPS} runs after a warm-up\n`)
console.log('| measurement | p50 ms | note |')
console.log('|---|---|---|')
for (const r of rows) console.log(r)

await transport.close()
if (temp) rmSync(dir, { recursive: true, force: true })
process.exit(0)
