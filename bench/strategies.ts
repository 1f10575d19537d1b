/**
 * Strategy signal masks on the real 28-coin 1h set (../shared/data/binance-usdm-1h).
 *
 *   ./node_modules/.bin/bun bench/strategies.ts [--reps 5]
 *     ns per bar of CompiledStrategy.signals(bars) for every registry strategy: the
 *     indicators its trees read plus the tree evaluation, entry and exit masks, summed
 *     over the 28 coins; best of --reps passes after a warm-up pass.
 *
 *   ./node_modules/.bin/bun bench/strategies.ts --oos
 *     the status measurement of src/strategies/status.ts (STATUS_MEASUREMENT): every
 *     strategy at its default settings through engine/trade-model's simulateCoin, in-sample (first
 *     70 % of each coin's bars) and out-of-sample (last 30 %), and the status its
 *     figures earn. Results go into docs/strategies.md.
 */
import { DEFAULT_FEE_FRAC, DEFAULT_MMR_FRAC, type Trade, type TradeParams } from '../src/engine/types'
import { simulateCoin } from '../src/engine/trade-model'
import { INDICATORS } from '../src/indicators/registry'
import { type CompiledStrategy, prepareStrategy } from '../src/strategies/compile'
import { conditionsCount } from '../src/strategies/conditions'
import { listStrategies } from '../src/strategies/registry'
import { STATUS_MEASUREMENT as M, type StrategyStatus } from '../src/strategies/status'
import { REAL_DATA_MISSING, hasRealData, loadRealBars, loadRealFunding, realSymbols } from '../tests/helpers/real-data'

if (!hasRealData()) {
  console.log(REAL_DATA_MISSING)
  process.exit(0)
}
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const symbols = realSymbols()
const coins = symbols.map(s => ({ symbol: s, bars: loadRealBars(s), funding: loadRealFunding(s) }))
const totalBars = coins.reduce((s, c) => s + c.bars.n, 0)

function speed(reps: number): void {
  console.log(`${coins.length} coins, ${totalBars.toLocaleString('en-US')} bars; best of ${reps} passes\n`)
  console.log('| strategy | indicators | leaves | ns/bar | of which indicators | ms / 28 coins | entry signals per 1000 bars |')
  console.log('|---|---|---|---|---|---|---|')
  let sumNs = 0
  for (const s of listStrategies()) {
    const compiled = prepareStrategy(s)
    let signals = 0
    for (const c of coins) signals += count(compiled.signals(c.bars).entry) // warm-up pass
    let best = Infinity
    for (let r = 0; r < reps; r++) {
      const t0 = Bun.nanoseconds()
      for (const c of coins) compiled.signals(c.bars)
      best = Math.min(best, Bun.nanoseconds() - t0)
    }
    const nsPerBar = best / totalBars
    sumNs += nsPerBar
    const indNs = indicatorsOnly(compiled, reps) / totalBars
    const leaves = conditionsCount(s.entry) + conditionsCount(s.exit_conditions)
    console.log(`| ${s.id} | ${compiled.indicatorsUsed.join(', ')} | ${leaves} | ${nsPerBar.toFixed(1)} | ${indNs.toFixed(1)} | ${(best / 1e6).toFixed(1)} | ${((signals / totalBars) * 1000).toFixed(2)} |`)
  }
  console.log(`\nmean over ${listStrategies().length} strategies: ${(sumNs / listStrategies().length).toFixed(1)} ns/bar`)
}

/** best time of computing just the strategy's indicators into preallocated columns, all coins */
function indicatorsOnly(compiled: CompiledStrategy, reps: number): number {
  const maxN = Math.max(...coins.map(c => c.bars.n))
  const jobs = compiled.indicatorsUsed.map(id => {
    const def = INDICATORS[id]
    const buffers = def.fields.map(() => new Float64Array(maxN))
    return { def, params: compiled.paramsOf(id)!, buffers }
  })
  let best = Infinity
  for (let r = 0; r <= reps; r++) {
    const t0 = Bun.nanoseconds()
    for (const c of coins)
      for (const j of jobs) {
        const out: Record<string, Float64Array> = {}
        j.def.fields.forEach((f, k) => {
          out[f.name] = j.buffers[k].subarray(0, c.bars.n)
        })
        j.def.compute(c.bars, j.params, out)
      }
    if (r > 0) best = Math.min(best, Bun.nanoseconds() - t0)
  }
  return best
}

function count(m: Uint8Array): number {
  let k = 0
  for (let i = 0; i < m.length; i++) k += m[i]
  return k
}

interface Tally {
  trades: number
  grossWin: number
  grossLoss: number
  netPct: number
}

const tally = (): Tally => ({ trades: 0, grossWin: 0, grossLoss: 0, netPct: 0 })

function add(t: Tally, trades: Trade[]): void {
  for (const tr of trades) {
    t.trades++
    t.netPct += tr.pnlPct
    if (tr.pnlPct > 0) t.grossWin += tr.pnlPct
    else t.grossLoss -= tr.pnlPct
  }
}

const pf = (t: Tally) => (t.grossLoss > 0 ? t.grossWin / t.grossLoss : t.grossWin > 0 ? Infinity : 0)

/** the status the figures earn under STATUS_DEFINITIONS */
function earned(is: Tally, oos: Tally, positiveShare: number): StrategyStatus {
  const verified =
    oos.trades >= M.minOosTrades && pf(oos) >= M.minOosProfitFactor && pf(is) >= M.minIsProfitFactor && positiveShare >= M.minOosPositiveCoinShare
  if (verified) return 'verified'
  if (is.trades >= M.minIsTrades && pf(is) >= M.minIsProfitFactor) return 'testing'
  return 'research'
}

function oos(): void {
  console.log(`${M.data}; ${M.split}; ${M.costs}; ${M.settings}.\n`)
  console.log('| strategy | status earned | registry says | IS trades | IS PF | IS net % | OOS trades | OOS PF | OOS net % | OOS coins positive |')
  console.log('|---|---|---|---|---|---|---|---|---|---|')
  for (const s of listStrategies()) {
    const compiled = prepareStrategy(s)
    const params: TradeParams = {
      direction: s.direction,
      slPct: s.sl_pct,
      tpPct: s.tp_pct,
      tpSource: 'custom_pct',
      trailingPct: null,
      maxBars: s.max_bars,
      leverage: 1,
      feeFrac: DEFAULT_FEE_FRAC.futures,
      mmrFrac: DEFAULT_MMR_FRAC,
      marketType: 'futures',
    }
    const is = tally()
    const out = tally()
    let traded = 0
    let positive = 0
    for (const c of coins) {
      const { entry, exit } = compiled.signals(c.bars)
      const split = Math.floor(c.bars.n * (1 - M.oosFrac))
      const base = { symbol: c.symbol, bars: c.bars, entry, exit, funding: c.funding }
      add(is, simulateCoin({ ...base, fromIdx: 0, toIdx: split - 1 }, params))
      const coin = tally()
      add(coin, simulateCoin({ ...base, fromIdx: split, toIdx: c.bars.n - 1 }, params))
      out.trades += coin.trades
      out.grossWin += coin.grossWin
      out.grossLoss += coin.grossLoss
      out.netPct += coin.netPct
      if (coin.trades > 0) {
        traded++
        if (coin.netPct > 0) positive++
      }
    }
    const share = traded ? positive / traded : 0
    const f = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '∞')
    console.log(
      `| ${s.id} | ${earned(is, out, share)} | ${s.status} | ${is.trades} | ${f(pf(is))} | ${is.netPct.toFixed(0)} | ${out.trades} | ${f(pf(out))} | ${out.netPct.toFixed(0)} | ${positive}/${traded} |`,
    )
  }
}

if (process.argv.includes('--oos')) oos()
else speed(arg('reps', 5))
