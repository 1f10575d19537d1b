/**
 * stochastic-rsi decided in exact arithmetic, against our compiled strategy, on the 28 real
 * coins (docs/strategies.md, "stochastic-rsi at its ties"). Not part of `bun run bench`: about
 * 6 minutes per seed on a shared machine.
 *
 *   bun bench/_exact-stochrsi.ts [--seed pandas|talib]
 *
 * Which bars: every bar after the 1,000-bar warm-up where, in our float K and D, one of the
 * rule's three comparisons (K < 20 or K > 80, K[i−1] vs D[i−1], K[i] vs D[i]) is within 1e-6
 * while the others hold or are as close (the only bars rounding could decide), plus a fixed
 * pseudo-random 0.03 % of the rest as a check on the exact side itself.
 * How: the closes as BigInt integers (the CSV's decimals scaled by 10^digits); the Wilder
 * numerators over the whole history, exactly (pandas' adjust=True form, the page's: A_t =
 * 13·A_{t−1} + 14^t·gain_t, so RSI_t = A_t / (A_t + B_t); or TA-Lib's seed: the mean of the
 * first 14 changes, then the same recursion); the 14-bar RSI extremes by exact comparison;
 * raw %K as a fraction; and the comparisons in the form that needs no division by 3:
 * K[i] < 20 ⇔ s0 + s1 + s2 < 60, K[i] > D[i] ⇔ s1 + 2·s0 > s4 + 2·s3, K[i−1] < D[i−1] ⇔
 * s2 + 2·s1 < s5 + 2·s4 (sₖ = raw %K of bar i − k; D = mean of the last three K).
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { stochRsi } from '../src/indicators/rsi'
import { prepareStrategy } from '../src/strategies/compile'
import { getStrategy } from '../src/strategies/registry'
import { REAL_1H_DIR, hasRealData, loadRealBars } from '../tests/helpers/real-data'

const WARMUP = 1000
const NEAR = 1e-6
const seedAt = process.argv.indexOf('--seed')
const seed = seedAt >= 0 ? process.argv[seedAt + 1] : 'pandas'
if (seed !== 'pandas' && seed !== 'talib') throw new Error('--seed pandas or talib')
if (!hasRealData()) {
  console.log('bench/_exact-stochrsi: skipped, no real candles')
  process.exit(0)
}

type Fr = { n: bigint; d: bigint } // d > 0
const add = (a: Fr, b: Fr): Fr => (a.d === b.d ? { n: a.n + b.n, d: a.d } : { n: a.n * b.d + b.n * a.d, d: a.d * b.d })
const times = (a: Fr, k: bigint): Fr => ({ n: a.n * k, d: a.d })
const cmp = (a: Fr, b: Fr): number => {
  const x = a.n * b.d
  const y = b.n * a.d
  return x < y ? -1 : x > y ? 1 : 0
}
const int = (k: number): Fr => ({ n: BigInt(k), d: 1n })
/** a double no further from the fraction than 2⁻⁹⁶ and monotone in it (x < y ⇒ img(x) ≤ img(y)) */
const img = (a: Fr): number => Number((a.n << 96n) / a.d) / 2 ** 96

function decimalCloses(symbol: string): bigint[] {
  const text = gunzipSync(readFileSync(join(REAL_1H_DIR, `${symbol}.csv.gz`))).toString('latin1')
  const closes = text
    .split('\n')
    .slice(1)
    .filter((l) => l.trim() !== '')
    .map((l) => l.split(',')[4])
  let digits = 0
  for (const c of closes) if (c.includes('.')) digits = Math.max(digits, c.length - c.indexOf('.') - 1)
  return closes.map((c) => {
    const [whole, frac = ''] = c.split('.')
    return BigInt(whole + frac.padEnd(digits, '0'))
  })
}

/** bars where rounding could decide the rule, from our float K and D */
function nearBars(k: Float64Array, d: Float64Array, n: number, pick: () => boolean): number[] {
  const bars: number[] = []
  for (let i = WARMUP; i < n; i++) {
    const margins = [
      [20 - k[i], d[i - 1] - k[i - 1], k[i] - d[i]],
      [k[i] - 80, k[i - 1] - d[i - 1], d[i] - k[i]],
    ]
    const near = margins.some((m) => m.every((x) => x > -NEAR) && m.some((x) => Math.abs(x) <= NEAR))
    if (near || pick()) bars.push(i)
  }
  return bars
}

let state = 12345
const pick = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 < 0.0003

const long = prepareStrategy(getStrategy('stochastic-rsi-long')!)
const short = prepareStrategy(getStrategy('stochastic-rsi-short')!)
const tally = { bars: 0, exactLong: 0, exactShort: 0, oursWrongLong: 0, oursWrongShort: 0 }
const wrong: string[] = []
const symbols = readdirSync(REAL_1H_DIR)
  .filter((f) => f.endsWith('.csv.gz'))
  .map((f) => f.slice(0, -7))
  .sort()
for (const symbol of symbols) {
  const b = loadRealBars(symbol)
  const k = new Float64Array(b.n)
  const d = new Float64Array(b.n)
  stochRsi(b.c, 14, 14, 3, 3, k, d)
  const list = nearBars(k, d, b.n, pick)
  const need = new Set<number>()
  for (const i of list) for (let t = i - 18; t <= i; t++) need.add(t)
  const c = decimalCloses(symbol)
  const A = new Map<number, bigint>()
  const B = new Map<number, bigint>()
  let a = 0n
  let l = 0n
  let pow = 1n
  for (let t = 1; t < c.length; t++) {
    const x = c[t] - c[t - 1]
    const g = x > 0n ? x : 0n
    const s = x < 0n ? -x : 0n
    if (seed === 'talib' && t <= 14) {
      a += g
      l += s
    } else {
      pow *= 14n
      a = 13n * a + pow * g
      l = 13n * l + pow * s
    }
    if (need.has(t)) {
      A.set(t, a)
      B.set(t, l)
    }
  }
  const longEntry = long.signals(b).entry
  const shortEntry = short.signals(b).entry
  for (const i of list) {
    const rsi = new Map<number, Fr>()
    const rsiImg = new Map<number, number>()
    for (let t = i - 18; t <= i; t++) {
      const f = { n: A.get(t)!, d: A.get(t)! + B.get(t)! }
      rsi.set(t, f)
      rsiImg.set(t, img(f))
    }
    const order = (x: number, y: number) => {
      const p = rsiImg.get(x)!
      const q = rsiImg.get(y)!
      return p !== q ? (p < q ? -1 : 1) : cmp(rsi.get(x)!, rsi.get(y)!)
    }
    const raw = (t: number): Fr => {
      let lo = t
      let hi = t
      for (let j = t - 13; j <= t; j++) {
        if (order(j, lo) < 0) lo = j
        if (order(j, hi) > 0) hi = j
      }
      if (order(hi, lo) === 0 || order(t, lo) === 0) return int(0)
      if (order(t, hi) === 0) return int(100)
      const r = rsi.get(t)!
      const low = rsi.get(lo)!
      const high = rsi.get(hi)!
      const num = add(r, { n: -low.n, d: low.d })
      const den = add(high, { n: -low.n, d: low.d })
      return { n: 100n * num.n * den.d, d: num.d * den.n }
    }
    const s = [0, 1, 2, 3, 4, 5].map((j) => raw(i - j))
    const sum = (...terms: [number, bigint][]) => terms.map(([j, w]) => times(s[j], w)).reduce(add)
    const k3 = sum([0, 1n], [1, 1n], [2, 1n])
    const prev = cmp(sum([2, 1n], [1, 2n]), sum([5, 1n], [4, 2n]))
    const cur = cmp(sum([1, 1n], [0, 2n]), sum([4, 1n], [3, 2n]))
    const exactLong = cmp(k3, int(60)) < 0 && prev < 0 && cur > 0
    const exactShort = cmp(k3, int(240)) > 0 && prev > 0 && cur < 0
    tally.bars++
    if (exactLong) tally.exactLong++
    if (exactShort) tally.exactShort++
    if (exactLong !== (longEntry[i] === 1)) {
      tally.oursWrongLong++
      wrong.push(`${symbol} bar ${i} long: exact ${exactLong}, ours ${longEntry[i]}`)
    }
    if (exactShort !== (shortEntry[i] === 1)) {
      tally.oursWrongShort++
      wrong.push(`${symbol} bar ${i} short: exact ${exactShort}, ours ${shortEntry[i]}`)
    }
  }
  console.error(`${symbol}: ${list.length} bars`)
}
console.log(`stochastic-rsi in exact arithmetic (${seed} seed) on ${tally.bars} bars:`, JSON.stringify(tally))
for (const w of wrong.slice(0, 20)) console.log(w)
process.exit(wrong.length === 0 ? 0 : 1)
