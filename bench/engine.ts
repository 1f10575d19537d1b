/**
 * Engine benchmark: ns per bar of simulateCoin (and of the whole simulateAndBook: simulate,
 * portfolio, daily marking, metrics, reliability) on a synthetic random-walk universe,
 * beside a single read pass over the same columns (o, h, l, c and the entry mask) in
 * the same run. Prints a markdown table.
 *
 *   ./node_modules/.bin/bun bench/engine.ts [coins=535] [bars=17520]
 */
import { tradeTableOf } from '../src/engine/trade-table'
import { simulateAndBook } from '../src/engine/run'
import { computeMetrics } from '../src/engine/metrics'
import { runPortfolio } from '../src/engine/portfolio'
import { simulateCoin, type CoinSimInput } from '../src/engine/trade-model'
import type { Trade, TradeParams } from '../src/engine/types'
import type { Bars, FundingSeries } from '../src/market/types'
import { DAY_MS, HOUR_MS } from '../src/time'

const COINS = Number(process.argv[2] ?? 535)
const BARS = Number(process.argv[3] ?? 17_520)
const SIGNAL_SHARE = 0.02
const WARMUP = 3
const REPEATS = 5
const T0 = Date.UTC(2023, 0, 1)

let seed = 12345
function rnd(): number {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0
  return seed / 2 ** 32
}
/** roughly normal: the sum of four uniforms, centred and scaled to unit variance */
const gauss = () => (rnd() + rnd() + rnd() + rnd() - 2) * Math.sqrt(3)

function universe(): { coins: CoinSimInput[]; barsBy: Map<string, Bars> } {
  const t = new Float64Array(BARS)
  for (let i = 0; i < BARS; i++) t[i] = T0 + i * HOUR_MS
  const v = new Float64Array(BARS)
  const nEvents = Math.floor((BARS * HOUR_MS) / (8 * HOUR_MS))
  const ft = new Float64Array(nEvents)
  for (let j = 0; j < nEvents; j++) ft[j] = T0 + (j + 1) * 8 * HOUR_MS
  const coins: CoinSimInput[] = []
  const barsBy = new Map<string, Bars>()
  for (let k = 0; k < COINS; k++) {
    const o = new Float64Array(BARS)
    const h = new Float64Array(BARS)
    const l = new Float64Array(BARS)
    const c = new Float64Array(BARS)
    const vol = 0.004 + 0.008 * rnd()
    let p = 10 + 100 * rnd()
    for (let i = 0; i < BARS; i++) {
      const open = p
      const close = open * Math.exp(vol * gauss())
      o[i] = open
      c[i] = close
      h[i] = Math.max(open, close) * (1 + vol * 0.5 * rnd())
      l[i] = Math.min(open, close) * (1 - vol * 0.5 * rnd())
      p = close
    }
    const entry = new Uint8Array(BARS)
    for (let i = 0; i < BARS; i++) if (rnd() < SIGNAL_SHARE) entry[i] = 1
    const rate = new Float64Array(nEvents)
    for (let j = 0; j < nEvents; j++) rate[j] = 0.0001 + 0.0002 * gauss()
    const funding: FundingSeries = { t: ft, rate, n: nEvents }
    const bars: Bars = { t, o, h, l, c, v, n: BARS, stepMs: HOUR_MS }
    const symbol = `C${k}USDT`
    barsBy.set(symbol, bars)
    coins.push({ symbol, bars, entry, exit: null, fromIdx: 0, toIdx: BARS - 1, funding })
  }
  return { coins, barsBy }
}

function readPass(coins: CoinSimInput[]): number {
  let s = 0
  for (const coin of coins) {
    const { o, h, l, c } = coin.bars
    const m = coin.entry! // this bench's coins carry their masks
    for (let i = 0; i < BARS; i++) s += o[i] + h[i] + l[i] + c[i] + m[i]
  }
  return s
}

/** Best wall time of REPEATS runs after WARMUP untimed runs (JSC's top JIT tier needs them). */
function best(fn: () => number): { ms: number; out: number } {
  let ms = Infinity
  let out = 0
  for (let r = 0; r < WARMUP; r++) fn()
  for (let r = 0; r < REPEATS; r++) {
    const t0 = performance.now()
    out = fn()
    ms = Math.min(ms, performance.now() - t0)
  }
  return { ms, out }
}

const t0 = performance.now()
const { coins, barsBy } = universe()
const genMs = performance.now() - t0
const p: TradeParams = {
  direction: 'short',
  slPct: 10,
  tpPct: 8,
  tpSource: 'custom_pct',
  trailingPct: null,
  maxBars: 48,
  leverage: 5,
  feeFrac: 0.0005,
  mmrFrac: 0.005,
  marketType: 'futures',
}
const totalBars = COINS * BARS
const read = best(() => readPass(coins))
const simulate = best(() => {
  let n = 0
  for (const coin of coins) n += simulateCoin(coin, p).length
  return n
})
const trailing = best(() => {
  let n = 0
  for (const coin of coins) n += simulateCoin(coin, { ...p, tpSource: 'trailing', trailingPct: 3 }).length
  return n
})
const mark = { barsOf: (s: string) => barsBy.get(s), fromDayMs: T0, toDayMs: T0 + Math.floor((BARS * HOUR_MS) / DAY_MS - 1) * DAY_MS }
const allTrades: Trade[] = coins.flatMap((coin) => simulateCoin(coin, p))
const portfolioOpts = { perCoinUsd: 60, maxConcurrent: 100, compounding: false, leverage: 5, coinCount: COINS }
const allTable = tradeTableOf(allTrades, coins.map((c) => c.symbol), p.direction)
const portfolio = best(() => runPortfolio(allTable, portfolioOpts, mark).trades.n)
const taken = runPortfolio(allTable, portfolioOpts, mark)
const metrics = best(() => computeMetrics({ trades: taken.trades, equityCurve: taken.equityCurve, initialCapitalUsd: taken.initialCapitalUsd }).total_trades)
const whole = best(() => simulateAndBook({ coins, params: p, perCoinUsd: 60, maxConcurrent: 100, compounding: false, mark }).metrics.total_trades)

const row = (name: string, ms: number, trades: string) => `| ${name} | ${ms.toFixed(1)} | ${((ms * 1e6) / totalBars).toFixed(2)} | ${trades} |`
console.log(`Engine: ${COINS} coins × ${BARS} 1H bars (${(totalBars / 1e6).toFixed(2)} M bars), ~${SIGNAL_SHARE * 100} % signal bars, best of ${REPEATS} after ${WARMUP} warm-up runs; universe generated in ${genMs.toFixed(0)} ms; bun ${Bun.version}`)
console.log('')
console.log('| pass | ms | ns / bar | trades |')
console.log('|---|---:|---:|---:|')
console.log(row('single read pass (o, h, l, c, mask)', read.ms, '–'))
console.log(row('simulateCoin, fixed SL/TP (short 10/8, 48 bars, 5x, funding)', simulate.ms, simulate.out.toLocaleString('en-US')))
console.log(row('simulateCoin, trailing 3 %', trailing.ms, trailing.out.toLocaleString('en-US')))
console.log(row(`runPortfolio alone (${allTrades.length.toLocaleString('en-US')} trades in, cap 100, ${taken.equityCurve.length} daily marks)`, portfolio.ms, `${portfolio.out.toLocaleString('en-US')} accepted`))
console.log(row('computeMetrics alone (accepted trades + curve)', metrics.ms, metrics.out.toLocaleString('en-US')))
console.log(row('simulateAndBook (simulate + portfolio cap 100 + daily marks + metrics)', whole.ms, `${whole.out.toLocaleString('en-US')} accepted`))
