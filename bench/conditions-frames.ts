/**
 * Leaves across timeframes, coins and funding on the real 28-coin 1h set
 * (../shared/data/binance-usdm-1h and -funding):
 *
 *   ./node_modules/.bin/bun bench/conditions-frames.ts [--reps 5]
 *
 * ns per bar of CompiledStrategy.signals(bars, data) over the 28 coins for a plain tree and
 * the same tree with one more leaf reading another timeframe, another coin (BTCUSDT, whose
 * columns the compiled strategy keeps between coins), both, or funding; best of --reps passes
 * after a warm-up pass. Resampled series are cached as a worker's TaskContext caches them,
 * so what is timed is the compiler's work: the frame's indicators, the alignment pass and
 * the leaves.
 */
import { resample } from '../src/market/resample'
import type { Timeframe } from '../src/market/timeframe'
import type { Bars } from '../src/market/types'
import { prepareStrategy, type MarketData } from '../src/strategies/compile'
import type { ConditionNode } from '../src/strategies/conditions'
import { REAL_DATA_MISSING, hasRealData, loadRealBars, loadRealFunding, realSymbols } from '../tests/helpers/real-data'

if (!hasRealData()) {
  console.log(REAL_DATA_MISSING)
  process.exit(0)
}
const i = process.argv.indexOf('--reps')
const reps = i >= 0 ? Number(process.argv[i + 1]) : 5
const symbols = realSymbols()
const coins = Object.fromEntries(symbols.map(s => [s, loadRealBars(s)]))
const funding = Object.fromEntries(symbols.flatMap(s => (loadRealFunding(s) ? [[s, loadRealFunding(s)!]] : [])))
const totalBars = symbols.reduce((n, s) => n + coins[s].n, 0)
const resampled = new Map<string, Bars>()
const data = (symbol: string): MarketData => ({
  symbol,
  bars: (s, tf: Timeframe) => {
    const key = `${s}|${tf}`
    if (!resampled.has(key) && coins[s]) resampled.set(key, resample(coins[s], tf))
    return resampled.get(key)
  },
  funding: s => funding[s],
  samples: () => undefined,
})

const base: ConditionNode = { field: 'close', op: '>', value: { field: 'bb_upper' } }
const cases: [string, ConditionNode][] = [
  ['close > bb_upper (plain)', base],
  ['+ rsi on 4H > 50', { type: 'AND', conditions: [base, { field: 'rsi', timeframe: '4H', op: '>', value: 50 }] }],
  ['+ BTCUSDT uptrend (ema)', { type: 'AND', conditions: [base, { field: 'uptrend', symbol: 'BTCUSDT', op: '==', value: true }] }],
  ['+ BTCUSDT 1D uptrend', { type: 'AND', conditions: [base, { field: 'uptrend', symbol: 'BTCUSDT', timeframe: '1D', op: '==', value: true }] }],
  ['+ funding_rate_mean(3) > 0', { type: 'AND', conditions: [base, { field: 'funding_rate_mean', op: '>', value: 0 }] }],
]

console.log(`${symbols.length} coins, ${totalBars.toLocaleString('en-US')} bars; best of ${reps} passes\n`)
console.log('| tree | ns/bar | ms / 28 coins |')
console.log('|---|---:|---:|')
for (const [name, entry] of cases) {
  const c = prepareStrategy({ indicators: { bb: {}, rsi: {}, ema: {} }, entry })
  for (const s of symbols) c.signals(coins[s], data(s))
  let best = Infinity
  for (let r = 0; r < reps; r++) {
    const t0 = Bun.nanoseconds()
    for (const s of symbols) c.signals(coins[s], data(s))
    best = Math.min(best, Bun.nanoseconds() - t0)
  }
  console.log(`| ${name} | ${(best / totalBars).toFixed(1)} | ${(best / 1e6).toFixed(1)} |`)
}
