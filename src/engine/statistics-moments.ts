/**
 * Sample moments of a return series and the Sharpe ratio built on them.
 * Returns may be fractions or percent: every figure here except mean and variance is
 * scale-free. Non-finite inputs are a caller bug and give null, never a number.
 */
import { DAYS_PER_YEAR } from './calendar'

export interface Moments {
  n: number
  mean: number
  /** sample variance, divisor n − 1 */
  variance: number
  /** central moments with divisor n (m2, m3, m4) */
  m2: number
  m3: number
  m4: number
}

/** Two-pass central moments (stable for returns of any offset); null for n < 2 or non-finite data. */
export function moments(values: ArrayLike<number>): Moments | null {
  const n = values.length
  if (n < 2) return null
  let sum = 0
  for (let i = 0; i < n; i++) {
    const v = values[i]
    if (!Number.isFinite(v)) return null
    sum += v
  }
  const mean = sum / n
  let s2 = 0
  let s3 = 0
  let s4 = 0
  let comp = 0
  for (let i = 0; i < n; i++) {
    const d = values[i] - mean
    const d2 = d * d
    comp += d
    s2 += d2
    s3 += d2 * d
    s4 += d2 * d2
  }
  // corrected two-pass (Chan, Golub & LeVeque 1983): removes the rounding left in the mean
  s2 -= (comp * comp) / n
  if (s2 < 0) s2 = 0
  return { n, mean, variance: s2 / (n - 1), m2: s2 / n, m3: s3 / n, m4: s4 / n }
}

/** Arithmetic mean; null for an empty or non-finite series. */
export function mean(values: ArrayLike<number>): number | null {
  if (values.length === 0) return null
  let sum = 0
  for (let i = 0; i < values.length; i++) sum += values[i]
  return Number.isFinite(sum) ? sum / values.length : null
}

/** Sample standard deviation (divisor n − 1); null for n < 2. */
export function stdev(values: ArrayLike<number>): number | null {
  const m = moments(values)
  return m ? Math.sqrt(m.variance) : null
}

/** True when the spread is zero up to the rounding of values of this magnitude. */
export function isFlat(m: Moments): boolean {
  return m.m2 <= (Number.EPSILON * m.mean) ** 2
}

/**
 * Skewness γ3 = m3 / m2^{3/2} (moment estimator with divisor n, as in Bailey & López de
 * Prado and scipy.stats.skew with bias=True). Null for n < 2 or a constant series.
 */
export function skewness(values: ArrayLike<number>): number | null {
  const m = moments(values)
  if (!m || isFlat(m)) return null
  return m.m3 / Math.pow(m.m2, 1.5)
}

/**
 * Raw (non-excess) kurtosis γ4 = m4 / m2², 3 for a normal distribution (scipy.stats.kurtosis
 * with fisher=False, bias=True). Null for n < 2 or a constant series.
 */
export function kurtosisRaw(values: ArrayLike<number>): number | null {
  const m = moments(values)
  if (!m || isFlat(m)) return null
  return m.m4 / (m.m2 * m.m2)
}

/**
 * Per-period Sharpe ratio with a zero risk-free rate: mean / sample standard deviation
 * (divisor n − 1). Null for n < 2 or a constant series (the ratio is undefined there).
 */
export function sharpe(returns: ArrayLike<number>): number | null {
  const m = moments(returns)
  if (!m || isFlat(m)) return null
  return m.mean / Math.sqrt(m.variance)
}

/** Sharpe of daily returns annualised by √periodsPerYear (365: crypto trades every day). */
export function annualizedSharpe(returns: ArrayLike<number>, periodsPerYear = DAYS_PER_YEAR): number | null {
  const sr = sharpe(returns)
  return sr === null ? null : sr * Math.sqrt(periodsPerYear)
}
