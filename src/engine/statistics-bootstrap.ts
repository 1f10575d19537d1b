/**
 * Percentile bootstrap confidence intervals (Efron 1979; Efron & Tibshirani 1993, ch. 13)
 * for the profit factor of the trades and the Sharpe ratio of the daily returns.
 * Resampling is i.i.d. with replacement and seeded, so a request always gets the same CI.
 */
import { Mulberry32 } from './random'
import { DAYS_PER_YEAR } from './calendar'
import { isFlat, moments } from './statistics-moments'
import { percentileOfSorted } from './statistics-monte-carlo'
import { uncappedProfitFactor } from './metrics-breakdown'

export type BootstrapStatistic = 'profit_factor' | 'sharpe'

/** The contract's MetricCI. */
export interface MetricCI {
  low: number
  high: number
  level: number
  method: 'percentile bootstrap' | 'normal-sums bootstrap'
  resamples: number
}

export interface BootstrapOptions {
  /** number of resamples, default 1000 */
  resamples?: number
  /** two-sided confidence level, default 0.95 */
  level?: number
  /** PRNG seed (uint32), default 1 */
  seed?: number
  /** Sharpe annualisation: values are daily returns by default (365); 1 gives a per-value Sharpe */
  periodsPerYear?: number
}

export const DEFAULT_BOOTSTRAP_SEED = 1

const TWO_POW_32 = 4294967296

/**
 * Fills `stats` with the statistic of `stats.length` resamples of the n = ab.length / 2
 * values, drawing indices ⌊u·n⌋ from mulberry32 (the stream Mulberry32.fillIndices gives,
 * inlined here: the draws are the hot loop) and accumulating each resample without
 * materialising it. Profit factor = Σ gains / Σ losses from the interleaved columns
 * ab[2i] = max(v, 0), ab[2i+1] = max(−v, 0) (one cache line per draw, no branch on the
 * sign); Sharpe = mean / sample sd · annualise from ab[2i] = v − center (well-conditioned
 * sums). NaN marks a resample without a value (a Sharpe of identical draws).
 */
function resampleStatistics(statistic: BootstrapStatistic, seed: number, ab: Float64Array, center: number, annualise: number, stats: Float64Array): void {
  // one loop per statistic: a shared one with the choice inside runs several times slower.
  // Both write the mulberry32 draw out: drawing blocks of indices through fillIndices, or a
  // shared draw function, measured 30–50 % slower (bench/statistics.ts). The state is kept
  // as a signed 32-bit integer (`| 0`; the same bits as Mulberry32's): an unsigned one above
  // 2^31 is a double to the JIT, and the loops ran about 12 % slower with it (issue 30)
  if (statistic === 'profit_factor') resampleProfitFactor(seed, ab, stats)
  else resampleSharpe(seed, ab, center, annualise, stats)
}

function resampleProfitFactor(seed: number, ab: Float64Array, stats: Float64Array): void {
  const n = ab.length >> 1
  let state = Math.trunc(seed) | 0
  for (let r = 0; r < stats.length; r++) {
    let s1 = 0
    let s2 = 0
    for (let i = 0; i < n; i++) {
      state = (state + 0x6d2b79f5) | 0
      let z = state
      z = Math.imul(z ^ (z >>> 15), z | 1)
      z ^= z + Math.imul(z ^ (z >>> 7), z | 61)
      const k = ((((z ^ (z >>> 14)) >>> 0) / TWO_POW_32) * n) << 1
      s1 += ab[k]
      s2 += ab[k + 1]
    }
    stats[r] = s2 > 0 ? s1 / s2 : s1 > 0 ? Infinity : 0
  }
}

function resampleSharpe(seed: number, ab: Float64Array, center: number, annualise: number, stats: Float64Array): void {
  const n = ab.length >> 1
  let state = Math.trunc(seed) | 0
  for (let r = 0; r < stats.length; r++) {
    let s1 = 0
    let s2 = 0
    for (let i = 0; i < n; i++) {
      state = (state + 0x6d2b79f5) | 0
      let z = state
      z = Math.imul(z ^ (z >>> 15), z | 1)
      z ^= z + Math.imul(z ^ (z >>> 7), z | 61)
      const d = ab[((((z ^ (z >>> 14)) >>> 0) / TWO_POW_32) * n) << 1]
      s1 += d
      s2 += d * d
    }
    const variance = (s2 - (s1 * s1) / n) / (n - 1)
    const mean = center + s1 / n
    // a resample of one repeated value has no Sharpe ratio
    stats[r] = variance > (Number.EPSILON * mean) ** 2 ? (mean / Math.sqrt(variance)) * annualise : NaN
  }
}

/**
 * Two-sided percentile bootstrap CI: the (1 − level)/2 and (1 + level)/2 percentiles (type 7)
 * of the statistic over `resamples` resamples of size n. Resamples without a defined value
 * (a Sharpe of identical draws) are dropped. Null when the sample has fewer than 2 values
 * or a non-finite one, when the statistic is undefined or infinite on the sample itself
 * (no losing trade, no spread), when fewer than half of the resamples give a value, or when
 * a bound is infinite (too few losing trades to bound the profit factor).
 */
export function bootstrapCI(
  values: ArrayLike<number>,
  statistic: BootstrapStatistic,
  opts: BootstrapOptions = {},
): MetricCI | null {
  const resamples = opts.resamples ?? 1000
  const level = opts.level ?? 0.95
  const seed = opts.seed ?? DEFAULT_BOOTSTRAP_SEED
  const periodsPerYear = opts.periodsPerYear ?? DAYS_PER_YEAR
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`resamples must be a positive integer, got ${resamples}`)
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`)
  if (!(periodsPerYear > 0)) throw new RangeError(`periodsPerYear must be > 0, got ${periodsPerYear}`)

  const m = moments(values)
  if (!m) return null
  if (statistic === 'profit_factor' ? !Number.isFinite(uncappedProfitFactor(values)) : isFlat(m)) return null

  const n = m.n
  const ab = new Float64Array(2 * n)
  for (let i = 0; i < n; i++) {
    if (statistic === 'profit_factor') {
      ab[2 * i] = Math.max(values[i], 0)
      ab[2 * i + 1] = Math.max(-values[i], 0)
    } else {
      ab[2 * i] = values[i] - m.mean
    }
  }
  const all = new Float64Array(resamples)
  resampleStatistics(statistic, seed, ab, m.mean, Math.sqrt(periodsPerYear), all)
  const stats = new Float64Array(resamples)
  let k = 0
  for (let r = 0; r < resamples; r++) if (!Number.isNaN(all[r])) stats[k++] = all[r]
  if (k * 2 < resamples) return null
  const sorted = stats.subarray(0, k).sort()
  const low = percentileOfSorted(sorted, (100 * (1 - level)) / 2)
  const high = percentileOfSorted(sorted, (100 * (1 + level)) / 2)
  if (!Number.isFinite(low) || !Number.isFinite(high)) return null
  return { low, high, level, method: 'percentile bootstrap', resamples }
}

/**
 * The profit factor's percentile interval from the normal approximation of its bootstrap
 * distribution, for samples too large to resample whole within the draw budget. PF is
 * G/L with G = Σ max(v, 0) and L = Σ max(−v, 0); over resamples of size n the pair
 * (G*, L*) has mean n·(ā, b̄) and covariance n·Cov(a, b) of the sample's empirical
 * distribution (exactly, as the nonparametric bootstrap's), and by the central limit
 * theorem it is close to bivariate normal when n is large (thousands of bounded trade
 * returns). Each of the `resamples` draws takes (G*, L*) from that normal (Box–Muller over
 * mulberry32(seed)) and gives PF* = G* ÷ L*; the interval is the percentiles of the PF*, as
 * bootstrapCI's. Null in the cases bootstrapCI is null, and when more than half the draws
 * have L* ≤ 0. `method` is "normal-sums bootstrap".
 */
export function profitFactorNormalCI(values: ArrayLike<number>, opts: BootstrapOptions = {}): MetricCI | null {
  const resamples = opts.resamples ?? 1000
  const level = opts.level ?? 0.95
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`resamples must be a positive integer, got ${resamples}`)
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`)
  const n = values.length
  if (n < 2 || !Number.isFinite(uncappedProfitFactor(values))) return null
  let sa = 0
  let sb = 0
  for (let i = 0; i < n; i++) {
    const v = values[i]
    if (!Number.isFinite(v)) return null
    if (v > 0) sa += v
    else sb -= v
  }
  const ma = sa / n
  const mb = sb / n
  let vaa = 0
  let vbb = 0
  let vab = 0
  for (let i = 0; i < n; i++) {
    const v = values[i]
    const da = (v > 0 ? v : 0) - ma
    const db = (v > 0 ? 0 : -v) - mb
    vaa += da * da
    vbb += db * db
    vab += da * db
  }
  // the resample sums: means n·ā, n·b̄; variances and covariance n × the population moments
  const muG = n * ma
  const muL = n * mb
  const sdG = Math.sqrt(vaa)
  const sdL = Math.sqrt(vbb)
  const rho = sdG > 0 && sdL > 0 ? vab / (sdG * sdL) : 0
  const rest = Math.sqrt(Math.max(0, 1 - rho * rho))
  const rng = new Mulberry32(opts.seed ?? DEFAULT_BOOTSTRAP_SEED)
  const stats = new Float64Array(resamples)
  let k = 0
  for (let r = 0; r < resamples; r++) {
    // two independent standard normals from two uniforms (Box–Muller; 1 − u keeps the log finite)
    const rad = Math.sqrt(-2 * Math.log(1 - rng.next()))
    const ang = 2 * Math.PI * rng.next()
    const z1 = rad * Math.cos(ang)
    const z2 = rad * Math.sin(ang)
    const g = muG + sdG * z1
    const l = muL + sdL * (rho * z1 + rest * z2)
    if (l > 0) stats[k++] = Math.max(0, g) / l
  }
  if (k * 2 < resamples) return null
  const sorted = stats.subarray(0, k).sort()
  const low = percentileOfSorted(sorted, (100 * (1 - level)) / 2)
  const high = percentileOfSorted(sorted, (100 * (1 + level)) / 2)
  if (!Number.isFinite(low) || !Number.isFinite(high)) return null
  return { low, high, level, method: 'normal-sums bootstrap', resamples }
}
