/**
 * What compare's per-strategy `intrabar`, `costs` and `capacity` blocks add to its runs (issue
 * 25 gap 2): the compare task (`runWholeRuns`, 5 coins × every registry strategy, in this
 * thread, signal masks warm, `intrabar: "detail"`) on a synthetic store whose coins all have
 * derived minutes: metrics only (no bar-rule trades), as before this change (the bar rule's
 * trades of the coins a replay changed simulated and dropped), and with `report` (those
 * trades booked for `rule_bias`, costs, capacity); at compare's default exits and at tight
 * ones where the minutes change many trades. Variants alternate inside each round, so a load that
 * changes while it runs weighs on all of them alike; CPU time (process.cpuUsage) and wall
 * time per call, median of the rounds. Then the blocks' own parts, timed alone per strategy
 * over the same trades: `intrabarBlock` (rule_bias: the bar rule's portfolio choice) and
 * `executionReport` (costs, the capacity curve).
 *   bun bench/compare-report.ts [rounds]   (BENCH_DATA_DIR=<dir> reuses a store; BENCH_COINS=60 by default)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { acceptSteps } from '../src/engine/portfolio'
import { book, bookSteps, daySpan, markOver } from '../src/engine/run'
import { finish } from '../src/engine/steps'
import { CandleStore } from '../src/market/candle-store'
import { generateStore } from '../src/market/generate-store'
import { Universe } from '../src/market/universe'
import { runCoinTrades, runWholeRuns } from '../src/runs/compute/coin-tasks'
import { TaskContext } from '../src/runs/compute/context'
import { executionReport } from '../src/runs/execution-report'
import { executionSpecOf } from '../src/runs/execution-spec'
import { intrabarBlock, mergeIntrabar } from '../src/runs/intrabar-summary'
import { portfolioOptionsOf, registrySpec, type RunSpec } from '../src/runs/spec'
import { listStrategies } from '../src/strategies/registry'

const COINS = Number(process.env.BENCH_COINS ?? 60)
const ROUNDS = Number(process.argv[2]) > 0 ? Number(process.argv[2]) : 15
const own = !process.env.BENCH_DATA_DIR
const dir = process.env.BENCH_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'perpsim-compare-report-'))
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

try {
  if (own) generateStore(dir, { coins: COINS, days: 730, seed: 7, endMs: Date.UTC(2026, 10, 22) })
  const store = CandleStore.open(dir)
  // compare's coins: the top 5 of today's universe
  const symbols = new Universe(store).eligible().slice(0, 5).map(c => c.meta.symbol)
  const strategies = listStrategies()
  // compare's default exits (sl 10, tp 8, 48 bars), and tight ones under which the minutes change many trades (rule_bias then books the bar rule's trades apart)
  const DEFAULT = { slPct: 10, tpPct: 8, maxBars: 48 }
  const TIGHT = { slPct: 1, tpPct: 1.5, maxBars: 24 }
  const specsOf = (exits: typeof DEFAULT) => strategies.map(s => registrySpec(s, { topN: 5, ...exits, ...executionSpecOf({ intrabar: 'detail' }) }))
  const detail = specsOf(DEFAULT)
  const tight = specsOf(TIGHT)
  const ctx = new TaskContext(store)
  /** compare's task before the blocks: the bar rule's trades of the changed coins simulated (runCoinTrades' default) and dropped, the metrics booked */
  const before = (specs: RunSpec[]) =>
    specs.map(spec => {
      const { coins, trades } = runCoinTrades(ctx, { spec, symbols })
      return book(trades, portfolioOptionsOf(spec, symbols.length), markOver(daySpan(coins), s => store.bars(s))).metrics
    })
  const variants: [string, () => void][] = []
  for (const [label, specs] of [['default exits', detail], ['sl 1 / tp 1.5 / 24 bars', tight]] as const)
    variants.push(
      [`${label}: metrics only, no bar-rule trades (metrics-only batches now)`, () => runWholeRuns(ctx, { specs, symbols })],
      [`${label}: metrics, bar-rule trades simulated and dropped (compare before)`, () => before(specs)],
      [`${label}: with the blocks (compare now)`, () => runWholeRuns(ctx, { specs, symbols, report: true })],
    )
  for (const [, f] of variants) f() // warm: signal masks, cost series, minutes' readers
  const cpu = variants.map(() => [] as number[])
  const wall = variants.map(() => [] as number[])
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? variants.map((_, i) => i) : variants.map((_, i) => variants.length - 1 - i)
    for (const i of order) {
      const c0 = cpuMs()
      const w0 = performance.now()
      variants[i][1]()
      wall[i].push(performance.now() - w0)
      cpu[i].push(cpuMs() - c0)
    }
  }
  console.log(`compare's task: ${symbols.length} coins (${symbols.join(', ')}) × ${strategies.length} strategies, synthetic ${COINS} coins × 2 years, one thread, ${ROUNDS} alternating rounds, load average ${loadavg()[0].toFixed(1)}\n`)
  console.log('| variant | CPU p50 (ms) | wall p50 (ms) | CPU vs metrics only |')
  console.log('|---|---:|---:|---:|')
  variants.forEach(([label], i) => {
    const base = i - (i % 3)
    console.log(`| ${label} | ${median(cpu[i]).toFixed(1)} | ${median(wall[i]).toFixed(1)} | ${i === base ? '—' : `${((median(cpu[i]) / median(cpu[base]) - 1) * 100 >= 0 ? '+' : '')}${((median(cpu[i]) / median(cpu[base]) - 1) * 100).toFixed(1)} %`} |`)
  })

  // the blocks' parts alone, over every strategy's booked trades (intrabar "detail", the tight exits)
  let ib = 0, ex = 0, changed = 0
  const parts = { ib: [] as number[], ex: [] as number[] }
  for (let r = 0; r < ROUNDS; r++) {
    ib = 0
    ex = 0
    for (const spec of tight) {
      const res = runCoinTrades(ctx, { spec, symbols })
      const opts = portfolioOptionsOf(spec, symbols.length)
      const acceptance = finish(acceptSteps(res.trades, opts))
      const booked = finish(bookSteps(res.trades, opts, markOver(daySpan(res.coins), s => store.bars(s)), acceptance))
      const run = mergeIntrabar(symbols, [res.intrabar])
      if (r === 0 && run && run.changedCoins.size > 0) changed++
      const t0 = cpuMs()
      intrabarBlock(spec, symbols, store, run, res.trades, acceptance, booked.metrics, opts)
      const t1 = cpuMs()
      executionReport(spec, symbols, booked.portfolio, store)
      ib += t1 - t0
      ex += cpuMs() - t1
    }
    parts.ib.push(ib)
    parts.ex.push(ex)
  }
  console.log(`\nthe blocks' parts over the ${strategies.length} strategies, sl 1 / tp 1.5 (CPU p50 per compare): intrabarBlock ${median(parts.ib).toFixed(2)} ms (${changed} strategies with a trade the minutes changed, whose bar-rule trades get a portfolio choice of their own), executionReport ${median(parts.ex).toFixed(2)} ms`)
} finally {
  if (own) rmSync(dir, { recursive: true, force: true })
}
