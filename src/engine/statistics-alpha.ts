/**
 * Jensen's alpha against holding BTC (Jensen 1968, "The Performance of Mutual Funds in the
 * Period 1945–1964", Journal of Finance 23(2)), with BTC as the market and a zero
 * risk-free rate (crypto perpetuals have no agreed risk-free leg; funding is in the P&L).
 */
import { DAYS_PER_YEAR } from './calendar'

export interface JensensAlpha {
  /** daily alpha × 365, in the unit of the inputs (fractions in, fractions out) */
  alpha_annualized: number
  alpha_daily: number
  /** OLS slope of the strategy's daily returns on BTC's */
  beta: number
  n_obs: number
}

/**
 * OLS of strategy on BTC daily returns over the same days, r_s = α + β·r_btc + ε:
 * β = cov(r_s, r_btc) / var(r_btc), α = mean(r_s) − β·mean(r_btc), annualised as α·365
 * (simple, not compounded). Null for fewer than 2 days, a non-finite value, or a flat BTC
 * series. The two series must be aligned day by day (same length).
 */
export function jensensAlpha(
  strategyDailyReturns: ArrayLike<number>,
  btcDailyReturns: ArrayLike<number>,
): JensensAlpha | null {
  const n = strategyDailyReturns.length
  if (btcDailyReturns.length !== n) {
    throw new RangeError(`series differ in length: strategy ${n}, btc ${btcDailyReturns.length}`)
  }
  if (n < 2) return null
  let sumS = 0
  let sumB = 0
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(strategyDailyReturns[i]) || !Number.isFinite(btcDailyReturns[i])) return null
    sumS += strategyDailyReturns[i]
    sumB += btcDailyReturns[i]
  }
  const meanS = sumS / n
  const meanB = sumB / n
  let cov = 0
  let varB = 0
  for (let i = 0; i < n; i++) {
    const db = btcDailyReturns[i] - meanB
    cov += (strategyDailyReturns[i] - meanS) * db
    varB += db * db
  }
  if (!(varB > (Number.EPSILON * meanB) ** 2 * n)) return null
  const beta = cov / varB
  const alphaDaily = meanS - beta * meanB
  return { alpha_annualized: alphaDaily * DAYS_PER_YEAR, alpha_daily: alphaDaily, beta, n_obs: n }
}
