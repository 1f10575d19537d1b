/**
 * Stylized facts of hourly returns: the figures that tell a realistic market from a
 * toy random walk. Pure functions over Bars; the same code measures real imports and
 * the synthetic universe, so the two can be compared (tests/synthetic.test.ts) and the
 * generator tuned (docs/data.md, "Synthetic universe").
 *
 * Returns are log returns of consecutive closes one step apart (a gap in the series or
 * a non-positive price breaks the chain rather than producing a multi-hour return).
 */
import type { Bars } from './types'

export interface ReturnFacts {
  /** hourly log returns measured */
  n: number
  /** standard deviation of hourly log returns (fraction) */
  volHourly: number
  /** the same annualised: volHourly·√(24·365) */
  volAnnual: number
  /** fourth standardised moment minus 3 (0 for a normal distribution) */
  excessKurtosis: number
  skewness: number
  /** autocorrelation of |r| at lags 1..maxLag (volatility clustering) */
  absAcf: Float64Array
  /** mean of absAcf */
  absAcfMean: number
  /** autocorrelation of r at lag 1 (near 0 in a liquid market) */
  retAcf1: number
  /** mean of ln(high/low) divided by volHourly; 1.60 for a continuous random walk */
  rangeToVol: number
  /** Pearson correlation of ln(volume) with |r| over bars with volume (volume follows volatility) */
  volumeAbsReturnCorr: number
  /** share of returns that are exactly 0 (stale or dead markets) */
  zeroShare: number
}

export const HOURS_PER_YEAR = 24 * 365

/** Log returns of closes one step apart, starting at bar `from`. */
export function hourlyLogReturns(bars: Bars, from = 0): Float64Array {
  const out = new Float64Array(Math.max(0, bars.n - from))
  let k = 0
  for (let i = Math.max(1, from); i < bars.n; i++) {
    const p0 = bars.c[i - 1], p1 = bars.c[i]
    if (bars.t[i] - bars.t[i - 1] !== bars.stepMs || !(p0 > 0) || !(p1 > 0)) continue
    out[k++] = Math.log(p1 / p0)
  }
  return out.subarray(0, k)
}

export function mean(x: ArrayLike<number>): number {
  let s = 0
  for (let i = 0; i < x.length; i++) s += x[i]
  return x.length ? s / x.length : NaN
}

/** Central moments 2..4 in one pass over the deviations. */
function centralMoments(x: ArrayLike<number>): { m: number; m2: number; m3: number; m4: number } {
  const m = mean(x)
  let m2 = 0, m3 = 0, m4 = 0
  for (let i = 0; i < x.length; i++) {
    const d = x[i] - m
    const d2 = d * d
    m2 += d2
    m3 += d2 * d
    m4 += d2 * d2
  }
  const n = x.length
  return { m, m2: m2 / n, m3: m3 / n, m4: m4 / n }
}

/** Population standard deviation. */
export function stdev(x: ArrayLike<number>): number {
  return Math.sqrt(centralMoments(x).m2)
}

export function excessKurtosis(x: ArrayLike<number>): number {
  const { m2, m4 } = centralMoments(x)
  return m2 > 0 ? m4 / (m2 * m2) - 3 : NaN
}

export function skewness(x: ArrayLike<number>): number {
  const { m2, m3 } = centralMoments(x)
  return m2 > 0 ? m3 / Math.pow(m2, 1.5) : NaN
}

/** Sample autocorrelation at `lag` (denominator: the full-sample variance). */
export function autocorrelation(x: ArrayLike<number>, lag: number): number {
  const n = x.length
  if (lag >= n) return NaN
  const m = mean(x)
  let num = 0, den = 0
  for (let i = 0; i < n; i++) {
    const d = x[i] - m
    den += d * d
    if (i >= lag) num += d * (x[i - lag] - m)
  }
  return den > 0 ? num / den : NaN
}

export function correlation(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length)
  const ma = mean(a), mb = mean(b)
  let sab = 0, saa = 0, sbb = 0
  for (let i = 0; i < n; i++) {
    const da = a[i] - ma, db = b[i] - mb
    sab += da * db
    saa += da * da
    sbb += db * db
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : NaN
}

export function median(x: ArrayLike<number>): number {
  const v = Array.from(x).filter(Number.isFinite).sort((a, b) => a - b)
  if (v.length === 0) return NaN
  const m = v.length >> 1
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2
}

/** Every figure of ReturnFacts for one series, from bar `from` on. */
export function returnFacts(bars: Bars, maxLag = 24, from = 0): ReturnFacts {
  const r = hourlyLogReturns(bars, from)
  const absR = r.map(Math.abs)
  const absAcf = new Float64Array(maxLag)
  for (let k = 1; k <= maxLag; k++) absAcf[k - 1] = autocorrelation(absR, k)
  const volHourly = stdev(r)
  let zeros = 0
  for (let i = 0; i < r.length; i++) if (r[i] === 0) zeros++
  return {
    n: r.length,
    volHourly,
    volAnnual: volHourly * Math.sqrt(HOURS_PER_YEAR),
    excessKurtosis: excessKurtosis(r),
    skewness: skewness(r),
    absAcf,
    absAcfMean: mean(absAcf),
    retAcf1: autocorrelation(r, 1),
    rangeToVol: meanLogRange(bars, from) / volHourly,
    volumeAbsReturnCorr: volumeAbsReturnCorrelation(bars, from),
    zeroShare: r.length ? zeros / r.length : NaN,
  }
}

/** mean ln(high/low) over bars with positive prices */
export function meanLogRange(bars: Bars, from = 0): number {
  let s = 0, k = 0
  for (let i = from; i < bars.n; i++) {
    if (bars.l[i] > 0 && bars.h[i] >= bars.l[i]) {
      s += Math.log(bars.h[i] / bars.l[i])
      k++
    }
  }
  return k ? s / k : NaN
}

function volumeAbsReturnCorrelation(bars: Bars, from: number): number {
  const lv: number[] = [], ar: number[] = []
  for (let i = Math.max(1, from); i < bars.n; i++) {
    if (!(bars.v[i] > 0) || !(bars.c[i - 1] > 0) || bars.t[i] - bars.t[i - 1] !== bars.stepMs) continue
    lv.push(Math.log(bars.v[i]))
    ar.push(Math.abs(Math.log(bars.c[i] / bars.c[i - 1])))
  }
  return correlation(lv, ar)
}

/**
 * Beta and correlation of a coin's hourly returns against a market series (BTC),
 * matching bars by open time.
 */
export function marketBeta(bars: Bars, market: Bars): { beta: number; corr: number; n: number } {
  const idx = new Map<number, number>()
  for (let j = 1; j < market.n; j++) {
    if (market.t[j] - market.t[j - 1] === market.stepMs && market.c[j - 1] > 0)
      idx.set(market.t[j], Math.log(market.c[j] / market.c[j - 1]))
  }
  const a: number[] = [], m: number[] = []
  for (let i = 1; i < bars.n; i++) {
    const rm = idx.get(bars.t[i])
    if (rm === undefined || bars.t[i] - bars.t[i - 1] !== bars.stepMs || !(bars.c[i - 1] > 0)) continue
    a.push(Math.log(bars.c[i] / bars.c[i - 1]))
    m.push(rm)
  }
  const corr = correlation(a, m)
  const sa = stdev(a), sm = stdev(m)
  return { beta: (corr * sa) / sm, corr, n: a.length }
}

export interface RankBucket {
  label: string
  /** inclusive rank range; `to` may be Infinity */
  from: number
  to: number
}

export const DEFAULT_RANK_BUCKETS: RankBucket[] = [
  { label: 'top 10', from: 1, to: 10 },
  { label: '11-50', from: 11, to: 50 },
  { label: '51+', from: 51, to: Infinity },
]

export interface BucketFacts {
  label: string
  coins: number
  /** median, min and max over the bucket's coins of each coin's hourly volatility */
  volMedian: number
  volMin: number
  volMax: number
  kurtosisMedian: number
  absAcfMeanMedian: number
}

/** Per-coin facts grouped by market-cap rank bucket (coins without a rank are left out). */
export function factsByRankBucket(
  coins: { rank: number | null; facts: ReturnFacts }[],
  buckets: RankBucket[] = DEFAULT_RANK_BUCKETS,
): BucketFacts[] {
  return buckets.map(b => {
    const inside = coins.filter(c => c.rank !== null && c.rank >= b.from && c.rank <= b.to).map(c => c.facts)
    const vols = inside.map(f => f.volHourly)
    return {
      label: b.label,
      coins: inside.length,
      volMedian: median(vols),
      volMin: vols.length ? Math.min(...vols) : NaN,
      volMax: vols.length ? Math.max(...vols) : NaN,
      kurtosisMedian: median(inside.map(f => f.excessKurtosis)),
      absAcfMeanMedian: median(inside.map(f => f.absAcfMean)),
    }
  })
}
