/**
 * Probabilistic and Deflated Sharpe Ratio.
 *
 * D. H. Bailey and M. López de Prado, "The Sharpe Ratio Efficient Frontier", Journal of
 * Risk 15(2), 2012 (PSR), and "The Deflated Sharpe Ratio: Correcting for Selection Bias,
 * Backtest Overfitting and Non-Normality", Journal of Portfolio Management 40(5), 2014
 * (DSR). Sharpe ratios here are per period (daily) unless a name says annualised; the
 * formulas are in docs/statistics.md.
 */
import { normalCdf, normalInv } from './statistics-distributions'
import { DAYS_PER_YEAR } from './calendar'
import { isFlat, moments } from './statistics-moments'

export const EULER_MASCHERONI = 0.5772156649015329

/** Trial counts reported in DeflatedSharpeInfo.sensitivity. */
export const DSR_SENSITIVITY_TRIALS = [1, 10, 100, 1000] as const

export const DSR_CAVEAT =
  'The deflated Sharpe ratio corrects only for the trials shown (n_trials), treated as ' +
  'independent; it does not validate fees, slippage, funding, data quality or look-ahead bias.'

/** The contract's DeflatedSharpeInfo. */
export interface DeflatedSharpeInfo {
  /** probability that the true Sharpe exceeds the expected best of n_trials null trials */
  dsr: number
  /** daily Sharpe × √365 */
  sharpe_annualized: number
  n_trials: number
  /** daily return observations */
  n_obs: number
  skew: number
  /** raw kurtosis, 3 for a normal distribution */
  kurtosis_raw: number
  /** dsr recomputed for 1, 10, 100 and 1000 trials, keyed by the trial count */
  sensitivity: Record<string, number>
  caveat: string
}

export interface DeflatedSharpeOptions {
  /**
   * Variance of the per-period Sharpe ratios across the trials, V[SR_n]. When omitted it is
   * the variance of this series' own Sharpe estimator (sharpeEstimatorVariance), i.e. the
   * spread of Sharpe estimates that luck alone produces on a series like this one.
   */
  trialSharpeVariance?: number
  caveat?: string
}

function assertTrials(nTrials: number): void {
  if (!Number.isInteger(nTrials) || nTrials < 1) throw new RangeError(`nTrials must be an integer >= 1, got ${nTrials}`)
}

/**
 * Expected maximum of nTrials independent per-period Sharpe estimates whose true value is
 * 0 and whose variance is varianceOfTrialSharpes (DSR paper, eq. for SR0; Gumbel
 * approximation of the maximum of normals):
 *   SR0 = √V · ((1 − γ)·Φ⁻¹(1 − 1/N) + γ·Φ⁻¹(1 − 1/(N·e))),  γ = Euler–Mascheroni.
 * One trial has nothing to select from, so SR0 = 0 (the formula's Φ⁻¹(0) = −∞ is not used).
 */
export function expectedMaxSharpe(nTrials: number, varianceOfTrialSharpes = 1): number {
  assertTrials(nTrials)
  if (!(varianceOfTrialSharpes >= 0) || !Number.isFinite(varianceOfTrialSharpes)) {
    throw new RangeError(`varianceOfTrialSharpes must be finite and >= 0, got ${varianceOfTrialSharpes}`)
  }
  if (nTrials === 1) return 0
  const g = EULER_MASCHERONI
  const z = (1 - g) * normalInv(1 - 1 / nTrials) + g * normalInv(1 - 1 / (nTrials * Math.E))
  return Math.sqrt(varianceOfTrialSharpes) * z
}

/**
 * Non-normality factor of the Sharpe estimator's variance, 1 − γ3·SR + (γ4 − 1)/4·SR²
 * (Mertens 2002 in the form Bailey & López de Prado use; γ4 raw kurtosis). It is ≥ 0 for
 * any sample because γ4 ≥ γ3² + 1.
 */
function nonNormality(sr: number, skew: number, kurtRaw: number): number {
  return 1 - skew * sr + ((kurtRaw - 1) / 4) * sr * sr
}

/** Variance of the per-period Sharpe estimator: nonNormality / (n − 1). */
export function sharpeEstimatorVariance(sr: number, nObs: number, skew: number, kurtRaw: number): number {
  if (!(nObs >= 2)) throw new RangeError(`nObs must be >= 2, got ${nObs}`)
  return Math.max(0, nonNormality(sr, skew, kurtRaw)) / (nObs - 1)
}

/**
 * PSR(SR*) = Φ( (SR − SR*)·√(n − 1) / √(1 − γ3·SR + (γ4 − 1)/4·SR²) ): the probability
 * that the true per-period Sharpe exceeds the benchmark srBenchmark, given nObs
 * observations with sample skewness skew and raw kurtosis kurtRaw.
 * A degenerate (zero) variance term gives 1, 0 or ½ by the sign of SR − SR*.
 */
export function probabilisticSharpe(
  srObserved: number,
  srBenchmark: number,
  nObs: number,
  skew: number,
  kurtRaw: number,
): number {
  if (!(nObs >= 2)) throw new RangeError(`nObs must be >= 2, got ${nObs}`)
  const diff = srObserved - srBenchmark
  const factor = nonNormality(srObserved, skew, kurtRaw)
  if (!(factor > 0)) return diff > 0 ? 1 : diff < 0 ? 0 : 0.5
  return normalCdf((diff * Math.sqrt(nObs - 1)) / Math.sqrt(factor))
}

/**
 * Deflated Sharpe Ratio of a daily return series selected as the best of nTrials:
 * DSR = PSR(SR0) with SR0 = expectedMaxSharpe(nTrials, V[SR]). Null when the series has
 * fewer than 2 observations, a non-finite value, or no spread (Sharpe undefined).
 */
export function deflatedSharpe(
  dailyReturns: ArrayLike<number>,
  nTrials: number,
  opts: DeflatedSharpeOptions = {},
): DeflatedSharpeInfo | null {
  assertTrials(nTrials)
  const m = moments(dailyReturns)
  if (!m || isFlat(m)) return null
  const sr = m.mean / Math.sqrt(m.variance)
  const skew = m.m3 / Math.pow(m.m2, 1.5)
  const kurt = m.m4 / (m.m2 * m.m2)
  const variance = opts.trialSharpeVariance ?? sharpeEstimatorVariance(sr, m.n, skew, kurt)
  const dsrFor = (trials: number) => probabilisticSharpe(sr, expectedMaxSharpe(trials, variance), m.n, skew, kurt)
  const sensitivity: Record<string, number> = {}
  for (const trials of DSR_SENSITIVITY_TRIALS) sensitivity[String(trials)] = dsrFor(trials)
  return {
    dsr: dsrFor(nTrials),
    sharpe_annualized: sr * Math.sqrt(DAYS_PER_YEAR),
    n_trials: nTrials,
    n_obs: m.n,
    skew,
    kurtosis_raw: kurt,
    sensitivity,
    caveat: opts.caveat ?? DSR_CAVEAT,
  }
}

/**
 * V[SR_n], the variance of the per-period Sharpe ratios across a search's trials, from their
 * annualised Sharpe ratios (each ÷ √365); undefined with fewer than 2 trials. What the
 * deflated Sharpe of a search's best trial takes as `trialSharpeVariance`.
 */
export function trialSharpeVariance(annualizedSharpes: readonly number[]): number | undefined {
  const xs = annualizedSharpes.map(x => x / Math.sqrt(DAYS_PER_YEAR))
  if (xs.length < 2) return undefined
  const m = xs.reduce((s, x) => s + x, 0) / xs.length
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1)
}

/**
 * Share of the observed annualised Sharpe that the deflation removes, in percent:
 * 100 · SR0 / SR, clamped to [0, 100], where SR0 is the expected best Sharpe of n_trials
 * null trials. DSR = Φ((SR − SR0)/σ̂_SR) is the probability a Sharpe of SR − SR0 would get
 * against zero with the same estimation error σ̂_SR, so this is the haircut that turns the
 * observed Sharpe into that deflated one.
 * 0 for one trial; null when the observed Sharpe is ≤ 0 (there is nothing to cut).
 * Pass the same trialSharpeVariance that deflatedSharpe was given, if any.
 */
export function dsrHaircutPct(
  info: DeflatedSharpeInfo,
  opts: Pick<DeflatedSharpeOptions, 'trialSharpeVariance'> = {},
): number | null {
  const sr = info.sharpe_annualized / Math.sqrt(DAYS_PER_YEAR)
  if (!(sr > 0)) return null
  const variance = opts.trialSharpeVariance ?? sharpeEstimatorVariance(sr, info.n_obs, info.skew, info.kurtosis_raw)
  const sr0 = expectedMaxSharpe(info.n_trials, variance)
  return Math.min(100, Math.max(0, (100 * sr0) / sr))
}
