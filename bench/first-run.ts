/**
 * The first run of every registry strategy (issue 30): /simulate top 535 × 2 years at the
 * request's defaults with nothing of the strategy cached, in-process on one thread, in CPU
 * time (process.cpuUsage: user + system, so a figure taken on a shared machine still says
 * what this thread spent), beside the floor (one read pass over the five OHLCV columns).
 *
 *   BENCH_DATA_DIR=<store> bun bench/first-run.ts [--reps 3] [--only id,id]
 *     (without BENCH_DATA_DIR a synthetic 535-coin × 730-day store is generated and removed)
 *
 * Per strategy, each the best of --reps fresh passes:
 *   - each indicator's pass over every coin (IndicatorDef.compute asked for the fields the
 *     trees read, into columns reused coin after coin, as the compiled strategy does),
 *   - signals: the compiled strategy's masks over every coin (its indicators + the tree),
 *     the tree's part being signals minus the indicators,
 *   - trade model: the coin tasks with the masks cached (entry filters, the simulator with
 *     its minute replays and costs, each trade's midnight marks, the trade table),
 *   - booking: the main thread's portfolio, metrics and answer body,
 *   - first run: the coin tasks on a fresh TaskContext whose coin inputs (cost series, mark
 *     candles, minute detail: the same for every strategy) are already warm, so only the
 *     strategy's own work is cold, as for a strategy's first request to a running server.
 * The coin inputs' own first pass (a fresh server's first request of any strategy) is
 * printed once. `est. 2 workers` = first run / 2 + booking, the wall a request would take on
 * the default pool of two workers if the chunks split evenly (the 150 ms target's row).
 */
import { benchStore } from './_server'
import { rmSync } from 'node:fs'
import { CandleStore } from '../src/market/candle-store'
import { Universe } from '../src/market/universe'
import { simulateSpec } from '../src/runs/simulate-spec'
import { runCoinTrades } from '../src/runs/compute/coin-tasks'
import { TaskContext } from '../src/runs/compute/context'
import { bookSteps, daySpan, markOver } from '../src/engine/run'
import { assembledOf } from '../src/runs/present'
import { portfolioOptionsOf, type RunSpec } from '../src/runs/spec'
import { stepped } from '../src/runs/yield'
import { listStrategies } from '../src/strategies/registry'
import { prepareStrategy } from '../src/strategies/compile'
import { INDICATORS } from '../src/indicators/registry'
import { chunkCount } from '../src/runs/fan-out'

const TARGET_MS = 150
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const reps = Number(arg('reps') ?? 3)
const only = arg('only')?.split(',')

const cpu = (f: () => unknown): number => {
  const c0 = process.cpuUsage()
  f()
  const c = process.cpuUsage(c0)
  return (c.user + c.system) / 1000
}
const cpuAsync = async (f: () => Promise<unknown>): Promise<number> => {
  const c0 = process.cpuUsage()
  await f()
  const c = process.cpuUsage(c0)
  return (c.user + c.system) / 1000
}
const best = (f: () => number, n = reps): number => {
  let m = Infinity
  for (let r = 0; r < n; r++) m = Math.min(m, f())
  return m
}

const { dir, temp } = benchStore('first-run', 535)
try {
  const store = CandleStore.open(dir)
  const symbols = new Universe(store).eligible().slice(0, 535).map(c => c.meta.symbol)
  const bars = symbols.map(s => store.bars(s)!)
  const nBars = bars.reduce((s, b) => s + b.n, 0)
  const maxN = Math.max(...bars.map(b => b.n))
  const readPass = () => {
    let acc = 0
    for (const b of bars) {
      const { o, h, l, c, v } = b
      for (let i = 0; i < b.n; i++) acc += o[i] + h[i] + l[i] + c[i] + v[i]
    }
    return acc
  }
  const floor = best(() => cpu(readPass), 5)
  const load = require('node:os').loadavg()[0] as number
  console.log(`${symbols.length} coins, ${nBars.toLocaleString('en')} 1H bars; CPU ms on one thread, best of ${reps}; load ${load.toFixed(1)}; ${new Date().toISOString()}`)
  console.log(`floor (one read pass over o,h,l,c,v): ${floor.toFixed(1)} ms; chunks on the pool of 2 workers: ${chunkCount(symbols.length, { parallelism: 2, chunksPerWorker: 1 })}\n`)

  const specOf = (id: string): RunSpec =>
    simulateSpec({ strategy: id, market_type: 'futures', top_n: 535, timeframe: '1H', start_date: null, end_date: null, leverage: 1, fee_pct: null, per_coin_usd: 60, max_concurrent_positions: 100, compounding: false, include_stablecoins: false })

  // the coin inputs every strategy shares, warmed once in a context kept for them
  const warmCtx = (): TaskContext => {
    const ctx = new TaskContext(store)
    for (const s of symbols) {
      ctx.costs(s)
      ctx.mark(s, '1H', store.bars(s)!)
      ctx.detail(s)
    }
    return ctx
  }
  const coinInputs = best(() => cpu(() => warmCtx()), 1)
  console.log(`coin inputs (cost series, mark candles, minute detail; once per server and data version): ${coinInputs.toFixed(1)} ms\n`)
  /**
   * A context with the coin inputs warm and nothing of any strategy: made afresh through
   * the context's own calls (warmCtx) before each timed pass, outside its clock, so the
   * bench reads none of the context's private caches.
   */
  const freshCtx = warmCtx
  /** the best CPU ms of fn over `reps` passes, each on a context made before its clock starts */
  const bestOnFresh = (fn: (ctx: TaskContext) => void): number => {
    let ms = Infinity
    for (let r = 0; r < reps; r++) {
      const ctx = freshCtx()
      ms = Math.min(ms, cpu(() => fn(ctx)))
    }
    return ms
  }

  console.log(`| strategy | indicators: CPU ms each | signals | of which tree | trade model | booking | first run (coin tasks) | est. 2 workers | target ${TARGET_MS} | × floor |`)
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---|---:|')
  for (const s of listStrategies()) {
    if (only && !only.includes(s.id)) continue
    const spec = specOf(s.id)
    const compiled = prepareStrategy(spec.strategy)
    const indicatorMs = compiled.indicatorsUsed.map(id => {
      const def = INDICATORS[id]
      const params = compiled.paramsOf(id)!
      // the fields the trees read, into columns reused coin after coin, as the compiled strategy asks
      const fields = compiled.fieldsOf(id)!
      const buffers = fields.map(() => new Float64Array(maxN))
      const ms = best(() =>
        cpu(() => {
          for (const b of bars) {
            const out: Record<string, Float64Array> = {}
            fields.forEach((f, k) => (out[f] = buffers[k].subarray(0, b.n)))
            def.compute(b, params, out)
          }
        }),
      )
      return [id, ms] as const
    })
    const signals = bestOnFresh(ctx => {
      const c = prepareStrategy(spec.strategy)
      for (let k = 0; k < bars.length; k++) c.signals(bars[k], ctx.marketData(symbols[k]))
    })
    const indSum = indicatorMs.reduce((a, [, ms]) => a + ms, 0)
    const first = bestOnFresh(ctx => runCoinTrades(ctx, { spec, symbols }))
    const ctx = freshCtx()
    const res = runCoinTrades(ctx, { spec, symbols })
    const tradeModel = best(() => cpu(() => runCoinTrades(ctx, { spec, symbols })))
    let booking = Infinity
    for (let r = 0; r < reps; r++) {
      booking = Math.min(
        booking,
        await cpuAsync(async () => {
          const booked = await stepped(bookSteps(res.trades, portfolioOptionsOf(spec, symbols.length), markOver(daySpan(res.coins), x => store.bars(x))))
          const a = assembledOf({ spec, symbols, coins: res.coins, accounting: { top_n_requested: 535, eligible_universe: symbols.length, universe_capped: false, coins_missing_data: 0 }, indicatorsUsed: compiled.indicatorsUsed, conditionsCount: 3, warnings: [], universe: null }, booked, store)
          void a.body
        }),
      )
    }
    const est = first / 2 + booking
    const ind = indicatorMs.map(([id, ms]) => `${id} ${ms.toFixed(0)}`).join(', ')
    console.log(
      `| ${s.id} | ${ind} | ${signals.toFixed(0)} | ${Math.max(0, signals - indSum).toFixed(0)} | ${tradeModel.toFixed(0)} | ${booking.toFixed(0)} | ${first.toFixed(0)} | ${est.toFixed(0)} | ${est <= TARGET_MS ? 'yes' : '**no**'} | ${(first / floor).toFixed(1)} |`,
    )
  }
} finally {
  if (temp) rmSync(dir, { recursive: true, force: true })
}
