/**
 * Percentile bootstrap confidence intervals (Efron 1979; Efron & Tibshirani 1993, ch. 13)
 * for the profit factor of the trades and the Sharpe ratio of the daily returns.
 * Resampling is i.i.d. with replacement and seeded, so a request always gets the same CI.
 */
import { Mulberry32 } from './random'
import { isFlat, moments, DAYS_PER_YEAR } from './statistics-moments'
import { percentileOfSorted } from './statistics-monte-carlo'
import { profitFactor } from './statistics-trade-summary'

export type BootstrapStatistic = 'profit_factor' | 'sharpe'

/** The contract's MetricCI. */
export interface MetricCI {
  low: number
  high: number
  level: number
  method: 'percentile bootstrap'
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

/**
 * The statistic of one resample given its indices, accumulated without materialising it:
 * profit factor = Σ gains / Σ losses from the split columns gain[i] = max(v, 0),
 * loss[i] = max(−v, 0) (no branch on the sign in the hot loop); Sharpe = mean / sample sd
 * · annualise from values centred on the sample mean (well-conditioned sums).
 */
function resampleStatistic(
  statistic: BootstrapStatistic,
  idx: Int32Array,
  a: Float64Array,
  b: Float64Array,
  center: number,
  annualise: number,
): number {
  const n = idx.length
  if (statistic === 'profit_factor') {
    let gain = 0
    let loss = 0
    for (let i = 0; i < n; i++) {
      const k = idx[i]
      gain += a[k]
      loss += b[k]
    }
    return loss > 0 ? gain / loss : gain > 0 ? Infinity : 0
  }
  let sum = 0
  let sumSq = 0
  for (let i = 0; i < n; i++) {
    const d = a[idx[i]]
    sum += d
    sumSq += d * d
  }
  const variance = (sumSq - (sum * sum) / n) / (n - 1)
  const mean = center + sum / n
  // a resample of one repeated value has no Sharpe ratio
  if (!(variance > (Number.EPSILON * mean) ** 2)) return NaN
  return (mean / Math.sqrt(variance)) * annualise
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
  if (statistic === 'profit_factor' ? !Number.isFinite(profitFactor(values)) : isFlat(m)) return null

  const n = m.n
  const a = new Float64Array(n)
  const b = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    if (statistic === 'profit_factor') {
      a[i] = Math.max(values[i], 0)
      b[i] = Math.max(-values[i], 0)
    } else {
      a[i] = values[i] - m.mean
    }
  }
  const rng = new Mulberry32(seed)
  const idx = new Int32Array(n)
  const annualise = Math.sqrt(periodsPerYear)
  const stats = new Float64Array(resamples)
  let k = 0
  for (let r = 0; r < resamples; r++) {
    rng.fillIndices(idx, n)
    const s = resampleStatistic(statistic, idx, a, b, m.mean, annualise)
    if (!Number.isNaN(s)) stats[k++] = s
  }
  if (k * 2 < resamples) return null
  const sorted = stats.subarray(0, k).sort()
  const low = percentileOfSorted(sorted, (100 * (1 - level)) / 2)
  const high = percentileOfSorted(sorted, (100 * (1 + level)) / 2)
  if (!Number.isFinite(low) || !Number.isFinite(high)) return null
  return { low, high, level, method: 'percentile bootstrap', resamples }
}
