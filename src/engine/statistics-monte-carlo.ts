/**
 * Pure helpers for the random-entry Monte Carlo null: the empirical p-value of the
 * observed result among the simulated ones, percentiles, and percentile bands of the
 * simulated equity paths. The simulations themselves run in the engine.
 */

export const DEFAULT_PERCENTILES = [5, 25, 50, 75, 95] as const

/** Ascending copy without NaN. */
function sortedFinite(values: ArrayLike<number>): Float64Array {
  const out = new Float64Array(values.length)
  let k = 0
  for (let i = 0; i < values.length; i++) if (!Number.isNaN(values[i])) out[k++] = values[i]
  return out.subarray(0, k).sort()
}

/** Percentile p (0..100) of an ascending array, linear between order statistics (Hyndman & Fan type 7). */
export function percentileOfSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length
  if (n === 0) return NaN
  const h = ((n - 1) * p) / 100
  const lo = Math.floor(h)
  const frac = h - lo
  if (frac === 0 || lo + 1 >= n) return sorted[Math.min(lo, n - 1)]
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo])
}

/**
 * Percentiles (0..100) of the values, NaN ignored, type 7 interpolation (numpy's default).
 * Null when no value is left.
 */
export function percentiles(values: ArrayLike<number>, ps: readonly number[] = DEFAULT_PERCENTILES): number[] | null {
  for (const p of ps) if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be in [0, 100], got ${p}`)
  const sorted = sortedFinite(values)
  if (sorted.length === 0) return null
  return ps.map((p) => percentileOfSorted(sorted, p))
}

export interface McPValue {
  /** (k + 1) / (n + 1), k = simulations at least as good as the observed result */
  p_value: number
  /** percent of simulations below the observed result, ties counted half (mid-rank) */
  percentile: number
}

/**
 * Empirical one-sided p-value of the observed figure among n simulated ones under the
 * null, with the (k + 1)/(n + 1) convention (Davison & Hinkley 1997, §4.2; North, Curtis &
 * Sham 2002): the observed result counts as one of the draws, so p is never 0 and is a
 * valid p-value for any n. "At least as good" is simulated ≥ observed. NaN simulations are
 * ignored; null with no simulation or a NaN observation.
 */
export function mcPValue(observed: number, simulated: ArrayLike<number>): McPValue | null {
  if (Number.isNaN(observed)) return null
  let n = 0
  let atLeast = 0
  let below = 0
  let equal = 0
  for (let i = 0; i < simulated.length; i++) {
    const s = simulated[i]
    if (Number.isNaN(s)) continue
    n++
    if (s >= observed) atLeast++
    if (s < observed) below++
    else if (s === observed) equal++
  }
  if (n === 0) return null
  return { p_value: (atLeast + 1) / (n + 1), percentile: (100 * (below + 0.5 * equal)) / n }
}

export interface EquityBands {
  /** step index of each point (0-based position along the paths) */
  steps: number[]
  /** one series per percentile, keyed "p5", "p25", …, aligned with steps */
  bands: Record<string, number[]>
}

/**
 * Per-step percentiles across simulated equity paths, for a fan chart. A path shorter than
 * the longest one holds its last value (its equity no longer changes); empty paths are
 * ignored. With more steps than maxPoints, maxPoints evenly spaced steps are kept, always
 * including the first and the last.
 */
export function equityBands(
  paths: readonly ArrayLike<number>[],
  opts: { percentiles?: readonly number[]; maxPoints?: number } = {},
): EquityBands {
  const ps = opts.percentiles ?? DEFAULT_PERCENTILES
  const maxPoints = Math.max(2, Math.floor(opts.maxPoints ?? 200))
  const live = paths.filter((p) => p.length > 0)
  const length = live.reduce((m, p) => Math.max(m, p.length), 0)
  const steps: number[] = []
  if (length <= maxPoints) for (let s = 0; s < length; s++) steps.push(s)
  else for (let i = 0; i < maxPoints; i++) steps.push(Math.round((i * (length - 1)) / (maxPoints - 1)))
  const bands: Record<string, number[]> = {}
  for (const p of ps) bands[`p${p}`] = []
  const column = new Float64Array(live.length)
  for (const s of steps) {
    for (let j = 0; j < live.length; j++) {
      const path = live[j]
      column[j] = path[Math.min(s, path.length - 1)]
    }
    const sorted = sortedFinite(column)
    for (const p of ps) bands[`p${p}`].push(percentileOfSorted(sorted, p))
  }
  return { steps, bands }
}
