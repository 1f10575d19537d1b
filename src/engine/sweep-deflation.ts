/**
 * The deflated Sharpe of a search's best trial (Bailey & López de Prado 2014,
 * statistics-sharpe.ts): its daily returns, n_trials = every trial of the search's ledger
 * (a result found after 1,000 tries is deflated by 1,000), and V[SR] the variance of the
 * per-day Sharpe ratios of the trials that traded. docs/statistics.md, "Sweeps".
 */
import { deflatedSharpe, dsrHaircutPct, trialSharpeVariance, type DeflatedSharpeInfo } from './statistics-sharpe'

export interface SearchTrial {
  /** daily returns on the search's common calendar */
  daily: ArrayLike<number>
  /** null: not eligible (too few trades) */
  objective: number | null
  /** annualised Sharpe ratio of the trial's run */
  sharpeAnnualized: number
  trades: number
}

export interface BestDeflation {
  /** index of the best trial (highest objective, the first of equals); -1 when none has a value */
  best: number
  info: DeflatedSharpeInfo | null
  haircutPct: number | null
}

/** The best trial by objective and its Sharpe ratio deflated over all `trials.length` trials. */
export function bestTrialDeflation(trials: readonly SearchTrial[]): BestDeflation {
  let best = -1
  trials.forEach((t, i) => {
    if (t.objective !== null && (best < 0 || t.objective > trials[best].objective!)) best = i
  })
  if (best < 0) return { best, info: null, haircutPct: null }
  const variance = trialSharpeVariance(trials.filter(t => t.trades > 0).map(t => t.sharpeAnnualized))
  const opts = variance === undefined ? {} : { trialSharpeVariance: variance }
  const info = trials[best].daily.length >= 2 ? deflatedSharpe(trials[best].daily, trials.length, opts) : null
  return { best, info, haircutPct: info ? dsrHaircutPct(info, opts) : null }
}
