/**
 * Cost of the research statistics on one result, on deterministic synthetic inputs sized
 * like a large /simulate run (5,000 trades, two years of daily returns, 1,000 Monte Carlo
 * runs). Run alone: ./node_modules/.bin/bun bench/statistics.ts
 */
import { mulberry32 } from '../src/engine/random'
import {
  bootstrapCI, btcRegimeLabels, deflatedSharpe, dsrHaircutPct, edgePValue, equityBands, jensensAlpha,
  mcPValue, regimeAt, regimePerformance, strategyGrade, walkForward,
} from '../src/engine/statistics'
import { scoreSession, type SessionTrade } from '../src/engine/score-session'

const DAY = 86_400_000
const N_TRADES = 5000
const N_DAYS = 730
const N_SIMS = 1000
const REPEATS = 15

const rng = mulberry32(20240601)
const gauss = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng())
const start = Date.UTC(2023, 0, 1)
const end = start + N_DAYS * DAY
const pnl = Float64Array.from({ length: N_TRADES }, () => 0.15 + 3 * gauss())
const exits = Float64Array.from({ length: N_TRADES }, (_, i) => start + ((i + 0.5) / N_TRADES) * (end - start))
const daily = Float64Array.from({ length: N_DAYS }, () => 0.0008 + 0.02 * gauss())
const btcDaily = Float64Array.from({ length: N_DAYS }, () => 0.001 + 0.03 * gauss())
const btcDays = Array.from({ length: N_DAYS + 200 }, (_, i) => start - 200 * DAY + i * DAY)
const btcCloses: number[] = [30000]
for (let i = 1; i < btcDays.length; i++) btcCloses.push(btcCloses[i - 1] * Math.exp(0.03 * gauss()))
const simulated = Float64Array.from({ length: N_SIMS }, () => 300 * gauss())
const paths = Array.from({ length: N_SIMS }, () => {
  const p = new Float64Array(N_DAYS)
  for (let i = 1; i < N_DAYS; i++) p[i] = p[i - 1] + gauss()
  return p
})
const session: SessionTrade[] = Array.from({ length: 1000 }, (_, i) => ({
  direction: i % 2 ? 'long' : 'short', entry_price: 100, exit_price: 100 + gauss(), leverage: 3, fee_pct: 0.05, size_usd: 100,
}))
const wfTrades = Array.from(pnl, (p, i) => ({ exitTimeMs: exits[i], pnlPct: p }))

function time(fn: () => unknown): { p50: number; min: number } {
  fn() // warm-up
  const ms: number[] = []
  for (let r = 0; r < REPEATS; r++) {
    const t0 = performance.now()
    fn()
    ms.push(performance.now() - t0)
  }
  ms.sort((a, b) => a - b)
  return { p50: ms[Math.floor(REPEATS / 2)], min: ms[0] }
}

const perResult = () => {
  const labels = btcRegimeLabels(btcDays, btcCloses)
  const info = deflatedSharpe(daily, 36)!
  strategyGrade({
    trades: N_TRADES,
    profitFactor: 1.1,
    edgePValue: edgePValue(pnl),
    dsr: info.dsr,
    mcPValue: mcPValue(120, simulated)!.p_value,
    walkForwardConsistency: walkForward(wfTrades, start, end)!.consistency,
    maxDrawdownPct: 20,
  })
  dsrHaircutPct(info)
  bootstrapCI(pnl, 'profit_factor', { seed: 1 })
  bootstrapCI(daily, 'sharpe', { seed: 1 })
  jensensAlpha(daily, btcDaily)
  regimePerformance(wfTrades.map((t) => ({ pnlPct: t.pnlPct, ...regimeAt(labels, btcDays, t.exitTimeMs - DAY) })))
}

const rows: [string, () => unknown][] = [
  [`edgePValue (${N_TRADES} trades)`, () => edgePValue(pnl)],
  [`deflatedSharpe (${N_DAYS} days, 36 trials)`, () => deflatedSharpe(daily, 36)],
  [`bootstrapCI profit_factor (${N_TRADES} trades × 1000)`, () => bootstrapCI(pnl, 'profit_factor', { seed: 1 })],
  [`bootstrapCI sharpe (${N_DAYS} days × 1000)`, () => bootstrapCI(daily, 'sharpe', { seed: 1 })],
  [`walkForward (${N_TRADES} trades, 5 folds)`, () => walkForward(wfTrades, start, end)],
  [`jensensAlpha (${N_DAYS} days)`, () => jensensAlpha(daily, btcDaily)],
  [`btcRegimeLabels (${btcDays.length} days)`, () => btcRegimeLabels(btcDays, btcCloses)],
  [`mcPValue (${N_SIMS} simulations)`, () => mcPValue(120, simulated)],
  [`equityBands (${N_SIMS} paths × ${N_DAYS} steps → 200 points)`, () => equityBands(paths)],
  ['scoreSession (1000 trades)', () => scoreSession(session)],
  [`all statistics of one result (${N_TRADES} trades, no MC simulation)`, perResult],
]

console.log(`| statistic | p50 ms | min ms |`)
console.log(`|---|---|---|`)
for (const [name, fn] of rows) {
  const { p50, min } = time(fn)
  console.log(`| ${name} | ${p50.toFixed(2)} | ${min.toFixed(2)} |`)
}
