/**
 * The whole simulation pipeline on one core, in ns per bar, beside a single read pass over
 * the same columns in the same run (issue 4): signals (indicators + condition tree),
 * filters, the trade simulator, and the portfolio with its metrics, for bb-squeeze-short
 * and a 3-condition custom tree over a synthetic 535-coin × 2-year store.
 *   bun bench/pipeline.ts            (BENCH_DATA_DIR=<dir> reuses a generated store)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CandleStore } from '../src/market/candle-store'
import { generateStore } from '../src/market/generate-store'
import { Universe } from '../src/market/universe'
import { backtestSpec } from '../src/runs/backtest-spec'
import { simulateSpec } from '../src/runs/simulate-spec'
import { runCoinTrades } from '../src/runs/compute/coin-tasks'
import { TaskContext } from '../src/runs/compute/context'
import { bookSteps, daySpan, markOver } from '../src/engine/run'
import { assembledOf } from '../src/runs/present'
import { portfolioOptionsOf, type RunSpec } from '../src/runs/spec'
import { stepped } from '../src/runs/yield'

const own = !process.env.BENCH_DATA_DIR
const dir = process.env.BENCH_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'perpsim-pipeline-'))
try {
  if (own) generateStore(dir, { coins: 535, days: 730, seed: 7, endMs: Date.UTC(2026, 10, 22) })
  const store = CandleStore.open(dir)
  const symbols = new Universe(store).eligible().map(c => c.meta.symbol)
  const bars = symbols.map(s => store.bars(s)!)
  const nBars = bars.reduce((s, b) => s + b.n, 0)

  const readPass = () => {
    let acc = 0
    for (const b of bars) for (let i = 0; i < b.n; i++) acc += b.t[i] + b.o[i] + b.h[i] + b.l[i] + b.c[i] + b.v[i]
    return acc
  }
  const best = (f: () => unknown, runs = 5) => {
    let m = Infinity
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now()
      f()
      m = Math.min(m, performance.now() - t0)
    }
    return m
  }
  const ns = (ms: number) => ((ms * 1e6) / nBars).toFixed(2)
  const rows: string[] = ['| pass | ms | ns per bar (one core) |', '|---|---:|---:|']
  const read = best(readPass)
  rows.push(`| single read pass over t,o,h,l,c,v | ${read.toFixed(1)} | ${ns(read)} |`)

  const specs: [string, RunSpec][] = [
    ['bb-squeeze-short', simulateSpec({ strategy: 'bb-squeeze-short', market_type: 'futures', top_n: 535, timeframe: '1H', start_date: null, end_date: null, leverage: 1, fee_pct: null, per_coin_usd: 60, max_concurrent_positions: 100, compounding: false, include_stablecoins: false })],
    ['3-condition tree (bb, rsi, volume)', backtestSpec({ name: 'bench', direction: 'short', indicators: { bb: {}, rsi: {}, volume: {} }, entry: { type: 'AND', conditions: [{ field: 'close', op: '<', value: { field: 'bb_lower' } }, { field: 'rsi', op: '<', value: 35 }, { field: 'vol_ratio', op: '>', value: 1.2 }] }, exit_conditions: null, avoid_hours: [], avoid_months: null, min_vol_regime: null, sl_pct: 10, tp_pct: 8, tp_source: 'custom_pct', trailing_pct: null, max_bars: 48, top_n: 535, symbols: null, include_stablecoins: false, symbol: null, start_date: null, end_date: null, timeframe: '1H', per_coin_usd: 60, leverage: 1, max_concurrent_positions: 100, compounding: false, stop_at_ruin: true })],
  ]
  for (const [label, spec] of specs) {
    let trades = 0
    const cold = best(() => runCoinTrades(new TaskContext(store), { spec, symbols }), 3)
    const ctx = new TaskContext(store)
    const res = runCoinTrades(ctx, { spec, symbols })
    const warm = best(() => runCoinTrades(ctx, { spec: { ...spec, slPct: spec.slPct + 0.5 }, symbols }), 3)
    const coins = res.coins
    let assembleMs = Infinity
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now()
      // the run service's booking step (src/runs/service.ts): the portfolio books the trades, then the result is assembled
      const booked = await stepped(bookSteps(res.trades, portfolioOptionsOf(spec, symbols.length), markOver(daySpan(coins), s => store.bars(s))))
      const a = assembledOf({ spec, symbols, coins, accounting: { top_n_requested: 535, eligible_universe: symbols.length, universe_capped: false, coins_missing_data: 0 }, indicatorsUsed: [], conditionsCount: 3, warnings: [], universe: null }, booked, store)
      assembleMs = Math.min(assembleMs, performance.now() - t0)
      trades = a.portfolio.trades.n
    }
    rows.push(`| ${label}: signals + filters + simulator, signal cache cold | ${cold.toFixed(1)} | ${ns(cold)} |`)
    rows.push(`| ${label}: simulator with cached signals (another SL) | ${warm.toFixed(1)} | ${ns(warm)} |`)
    rows.push(`| ${label}: portfolio + metrics + hold curves (${trades} trades, main thread) | ${assembleMs.toFixed(1)} | ${ns(assembleMs)} |`)
  }
  console.log(`${symbols.length} coins, ${nBars.toLocaleString('en')} 1H bars\n`)
  console.log(rows.join('\n'))
} finally {
  if (own) rmSync(dir, { recursive: true, force: true })
}
