/**
 * How much a sweep's objective drops around its best trial: the neighbours are the trials
 * whose value index is at most one step from the best's in every dimension of the space
 * (Chebyshev distance 1 on the lists of values), the best excluded. docs/statistics.md, "Sweeps".
 */

export interface StabilityTrial {
  /** index of the trial's value in each dimension's list */
  at: readonly number[]
  /** null: the trial has no objective value (too few trades) */
  objective: number | null
}

export interface Stability {
  /** mean neighbour objective / best objective; null without neighbours with a value, or when the best objective is ≤ 0 */
  score: number | null
  neighbours: number
  neighbours_with_value: number
  mean_objective: number | null
  worst_objective: number | null
  /** 100 × (best − mean) / |best|; null without neighbours with a value or a best of 0 */
  drop_pct: number | null
}

export function neighbourhoodStability(trials: readonly StabilityTrial[], best: number): Stability {
  const b = trials[best]
  if (!b || b.objective === null) throw new RangeError('neighbourhoodStability: the best trial has no objective value')
  const values: number[] = []
  let neighbours = 0
  trials.forEach((t, k) => {
    if (k === best) return
    for (let d = 0; d < b.at.length; d++) if (Math.abs(t.at[d] - b.at[d]) > 1) return
    // the same point drawn twice (cannot happen in a sweep: its trials are distinct) is not a neighbour
    if (t.at.every((x, d) => x === b.at[d])) return
    neighbours++
    if (t.objective !== null) values.push(t.objective)
  })
  if (values.length === 0) return { score: null, neighbours, neighbours_with_value: 0, mean_objective: null, worst_objective: null, drop_pct: null }
  const mean = values.reduce((s, x) => s + x, 0) / values.length
  const top = b.objective
  return {
    score: top > 0 ? mean / top : null,
    neighbours,
    neighbours_with_value: values.length,
    mean_objective: mean,
    worst_objective: Math.min(...values),
    drop_pct: top !== 0 ? (100 * (top - mean)) / Math.abs(top) : null,
  }
}
