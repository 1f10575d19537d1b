/**
 * What issue 25's execution costs add to a run, on one core (the engine and the body, no
 * HTTP): /simulate bb-squeeze-short over a synthetic store (535 coins × 2 years by default),
 * warm (signal masks cached, as a repeated request), with the defaults (impact slippage,
 * margin brackets) beside `slippage: "none"`, `margin: "flat"`, and the capacity curve
 * (capacity.ts: five re-bookings and the half-edge bisection) against the whole run.
 *   bun bench/capacity.ts            (BENCH_DATA_DIR=<dir> reuses a generated store; BENCH_COINS=200 for a smaller one)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadavg } from 'node:os'
import { capacityCurve } from '../src/engine/capacity'
import { bookSteps, daySpan, markOver } from '../src/engine/run'
import { DEFAULT_MMR_FRAC } from '../src/engine/types'
import { CandleStore } from '../src/market/candle-store'
import { generateStore } from '../src/market/generate-store'
import { Universe } from '../src/market/universe'
import { runCoinTrades } from '../src/runs/compute/coin-tasks'
import { TaskContext } from '../src/runs/compute/context'
import { executionReport } from '../src/runs/execution-report'
import { assembledOf } from '../src/runs/present'
import { simulateSpec } from '../src/runs/simulate-spec'
import { executionOf, portfolioOptionsOf, type RunSpec } from '../src/runs/spec'
import { stepped } from '../src/runs/yield'

const COINS = Number(process.env.BENCH_COINS ?? 535)
const own = !process.env.BENCH_DATA_DIR
const dir = process.env.BENCH_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'perpsim-capacity-'))
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
try {
  if (own) generateStore(dir, { coins: COINS, days: 730, seed: 7, endMs: Date.UTC(2026, 10, 22) })
  const store = CandleStore.open(dir)
  const symbols = new Universe(store).eligible().map(c => c.meta.symbol)
  const body = { strategy: 'bb-squeeze-short', market_type: 'futures' as const, top_n: 535, timeframe: '1H' as const, start_date: null, end_date: null, leverage: 1, fee_pct: null, per_coin_usd: 60, max_concurrent_positions: 100, compounding: false, include_stablecoins: false }
  const specs: [string, RunSpec][] = [
    ['defaults (impact, brackets)', simulateSpec(body)],
    ['slippage none, margin flat', simulateSpec({ ...body, slippage: 'none', margin: 'flat' })],
  ]
  const ctx = new TaskContext(store)
  const rows = ['| run | trades | whole run p50 (ms) | of which capacity curve p50 (ms) | capacity share |', '|---|---:|---:|---:|---:|']
  for (const [label, spec] of specs) runCoinTrades(ctx, { spec, symbols }) // warm the masks and the cost series
  for (const [label, spec] of specs) {
    const whole: number[] = []
    const cap: number[] = []
    let trades = 0
    for (let r = 0; r < 7; r++) {
      const t0 = performance.now()
      const res = runCoinTrades(ctx, { spec, symbols })
      const booked = await stepped(bookSteps(res.trades, portfolioOptionsOf(spec, symbols.length), markOver(daySpan(res.coins), s => store.bars(s))))
      const a = assembledOf({ spec, symbols, coins: res.coins, accounting: { top_n_requested: 535, eligible_universe: symbols.length, universe_capped: false, coins_missing_data: 0 }, indicatorsUsed: [], conditionsCount: 1, warnings: [], universe: null }, booked, store)
      void a.body
      whole.push(performance.now() - t0)
      trades = a.portfolio.trades.n
      const ex = executionOf(spec)!
      const t1 = performance.now()
      capacityCurve({ trades: a.portfolio.trades, perCoinUsd: spec.perCoinUsd, notionalUsd: ex.notionalUsd, leverage: 1, long: false, flatMmr: DEFAULT_MMR_FRAC, brackets: a.portfolio.trades.symbols.map(s => (ex.margin === 'brackets' ? store.marginBrackets(s) ?? null : null)) })
      cap.push(performance.now() - t1)
    }
    void executionReport
    const w = median(whole), c = median(cap)
    rows.push(`| ${label} | ${trades} | ${w.toFixed(1)} | ${c.toFixed(2)} | ${((100 * c) / w).toFixed(1)} % |`)
  }
  console.log(`${symbols.length} coins × 2 years (synthetic), warm, one core, load average ${loadavg()[0].toFixed(1)}\n`)
  console.log(rows.join('\n'))
} finally {
  if (own) rmSync(dir, { recursive: true, force: true })
}
