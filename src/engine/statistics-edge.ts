/**
 * Is there an edge at all? A one-sided one-sample t-test on the net trade returns.
 */
import { studentTSurvival } from './statistics-distributions'
import { isFlat, moments } from './statistics-moments'

/**
 * One-sided p-value of H0: mean net trade return ≤ 0 against H1: mean > 0.
 * t = mean / (s / √n) with s the sample standard deviation, and p = P(T_{n−1} ≥ t) from
 * Student's t (the returns are treated as independent; fat tails make the test somewhat
 * liberal for small n, which docs/statistics.md says).
 * Null for fewer than 2 trades or a non-finite return. All trades equal: the sign decides,
 * p = 0 for a positive return and 1 for zero or a negative one.
 */
export function edgePValue(tradeReturnsPct: ArrayLike<number>): number | null {
  const m = moments(tradeReturnsPct)
  if (!m) return null
  if (isFlat(m)) return m.mean > 0 ? 0 : 1
  const t = m.mean / Math.sqrt(m.variance / m.n)
  return studentTSurvival(t, m.n - 1)
}
