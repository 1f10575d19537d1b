/**
 * Strategy grade A–F: points per criterion, summed out of 100. The rubric (these tables)
 * is written out in docs/statistics.md; change both together.
 */

export interface GradeInputs {
  trades: number
  profitFactor: number | null
  edgePValue: number | null
  /** deflated Sharpe ratio (probability, 0..1) */
  dsr: number | null
  mcPValue: number | null
  /** share of profitable walk-forward folds, 0..1 */
  walkForwardConsistency: number | null
  /** magnitude of the maximum drawdown in percent (the sign is ignored) */
  maxDrawdownPct: number | null
}

export type Grade = 'A' | 'B' | 'C' | 'D' | 'F'

interface Tier {
  /** the value must be ≥ (higher is better) or ≤ (lower is better) this bound */
  bound: number
  points: number
}

interface Criterion {
  key: keyof GradeInputs
  label: string
  higherIsBetter: boolean
  /** best tier first */
  tiers: Tier[]
  format: (v: number) => string
}

export const GRADE_CRITERIA: readonly Criterion[] = [
  { key: 'trades', label: 'trades', higherIsBetter: true, tiers: [{ bound: 200, points: 15 }, { bound: 100, points: 10 }, { bound: 30, points: 5 }], format: (v) => String(v) },
  { key: 'profitFactor', label: 'profit factor', higherIsBetter: true, tiers: [{ bound: 1.5, points: 15 }, { bound: 1.2, points: 10 }, { bound: 1.05, points: 5 }], format: (v) => v.toFixed(2) },
  { key: 'edgePValue', label: 'edge p-value', higherIsBetter: false, tiers: [{ bound: 0.01, points: 15 }, { bound: 0.05, points: 10 }, { bound: 0.1, points: 5 }], format: (v) => v.toPrecision(2) },
  { key: 'dsr', label: 'deflated Sharpe', higherIsBetter: true, tiers: [{ bound: 0.95, points: 20 }, { bound: 0.9, points: 12 }, { bound: 0.5, points: 5 }], format: (v) => v.toFixed(3) },
  { key: 'mcPValue', label: 'Monte Carlo p-value', higherIsBetter: false, tiers: [{ bound: 0.01, points: 10 }, { bound: 0.05, points: 7 }, { bound: 0.1, points: 3 }], format: (v) => v.toPrecision(2) },
  { key: 'walkForwardConsistency', label: 'walk-forward consistency', higherIsBetter: true, tiers: [{ bound: 0.8, points: 15 }, { bound: 0.6, points: 10 }, { bound: 0.4, points: 5 }], format: (v) => `${Math.round(v * 100)}%` },
  { key: 'maxDrawdownPct', label: 'max drawdown', higherIsBetter: false, tiers: [{ bound: 10, points: 10 }, { bound: 20, points: 7 }, { bound: 35, points: 4 }, { bound: 50, points: 2 }], format: (v) => `${v.toFixed(1)}%` },
]

/** Lowest total for each grade, best first. */
export const GRADE_BANDS: readonly { grade: Grade; minPoints: number }[] = [
  { grade: 'A', minPoints: 80 },
  { grade: 'B', minPoints: 65 },
  { grade: 'C', minPoints: 50 },
  { grade: 'D', minPoints: 35 },
  { grade: 'F', minPoints: 0 },
]

/** Below this many trades no grade above D is given, whatever the other figures say. */
export const GRADE_MIN_TRADES_ABOVE_D = 30

const GRADE_ORDER: readonly Grade[] = ['A', 'B', 'C', 'D', 'F']
const isBetter = (a: Grade, b: Grade) => GRADE_ORDER.indexOf(a) < GRADE_ORDER.indexOf(b)

function scoreCriterion(c: Criterion, raw: number | null): { points: number; max: number; text: string } {
  const max = c.tiers[0].points
  if (raw === null || !Number.isFinite(raw)) return { points: 0, max, text: `${c.label} n/a → 0/${max}` }
  const v = c.key === 'maxDrawdownPct' ? Math.abs(raw) : raw
  const tier = c.tiers.find((t) => (c.higherIsBetter ? v >= t.bound : v <= t.bound))
  const points = tier?.points ?? 0
  return { points, max, text: `${c.label} ${c.format(v)} → ${points}/${max}` }
}

/**
 * Grade from the rubric: the sum of the criteria's points (a missing figure scores 0)
 * mapped through GRADE_BANDS; a loss-making result (profit factor ≤ 1) is F, and fewer
 * than GRADE_MIN_TRADES_ABOVE_D trades caps the grade at D. The details list every
 * criterion with its points, then the total and any cap.
 */
export function strategyGrade(inputs: GradeInputs): { grade: Grade; points: number; details: string } {
  const scored = GRADE_CRITERIA.map((c) => scoreCriterion(c, inputs[c.key]))
  const points = scored.reduce((s, x) => s + x.points, 0)
  const max = scored.reduce((s, x) => s + x.max, 0)
  let grade = GRADE_BANDS.find((b) => points >= b.minPoints)!.grade
  const caps: string[] = []
  if (inputs.trades < GRADE_MIN_TRADES_ABOVE_D && isBetter(grade, 'D')) {
    grade = 'D'
    caps.push(`capped at D: fewer than ${GRADE_MIN_TRADES_ABOVE_D} trades`)
  }
  if (inputs.profitFactor !== null && inputs.profitFactor <= 1 && grade !== 'F') {
    grade = 'F'
    caps.push('F: profit factor ≤ 1 (the strategy lost money)')
  }
  const details = `${grade} (${points}/${max}): ${scored.map((s) => s.text).join('; ')}${caps.length ? `; ${caps.join('; ')}` : ''}`
  return { grade, points, details }
}
