import { describe, expect, test } from 'bun:test'
import { GRADE_CRITERIA, strategyGrade, type GradeInputs } from '../src/engine/statistics-grade'

const strong: GradeInputs = {
  trades: 450,
  profitFactor: 1.8,
  edgePValue: 0.001,
  dsr: 0.97,
  mcPValue: 0.004,
  walkForwardConsistency: 1,
  maxDrawdownPct: 8,
}

describe('strategy grade', () => {
  test('the rubric sums to 100 points', () => {
    expect(GRADE_CRITERIA.reduce((s, c) => s + c.tiers[0].points, 0)).toBe(100)
  })

  test('a result that clears every top tier is an A with 100 points, every criterion listed', () => {
    const g = strategyGrade(strong)
    expect(g.grade).toBe('A')
    expect(g.points).toBe(100)
    expect(g.details).toBe(
      'A (100/100): trades 450 → 15/15; profit factor 1.80 → 15/15; edge p-value 0.0010 → 15/15; ' +
        'deflated Sharpe 0.970 → 20/20; Monte Carlo p-value 0.0040 → 10/10; walk-forward consistency 100% → 15/15; ' +
        'max drawdown 8.0% → 10/10',
    )
  })

  test('points follow the tiers: 120 trades, PF 1.3, p 0.03, DSR 0.6, MC p 0.2, 3/5 folds, 27 % drawdown', () => {
    // 10 + 10 + 10 + 5 + 0 + 10 + 4 = 49 → D
    const g = strategyGrade({
      trades: 120, profitFactor: 1.3, edgePValue: 0.03, dsr: 0.6, mcPValue: 0.2, walkForwardConsistency: 0.6, maxDrawdownPct: -27,
    })
    expect(g.points).toBe(49)
    expect(g.grade).toBe('D')
    expect(g.details).toContain('max drawdown 27.0% → 4/10')
    expect(g.details).toContain('Monte Carlo p-value 0.20 → 0/10')
  })

  test('tier bounds are inclusive: PF 1.5 and DSR 0.95 reach the top tier', () => {
    const g = strategyGrade({ ...strong, profitFactor: 1.5, dsr: 0.95 })
    expect(g.points).toBe(100)
  })

  test('grade bands: 80 is A, 79 is B, 65 is B, 50 is C, 35 is D, 34 is F', () => {
    // start from 100 and remove points criterion by criterion
    expect(strategyGrade({ ...strong, dsr: 0.5 }).points).toBe(85)
    expect(strategyGrade({ ...strong, dsr: 0.5 }).grade).toBe('A')
    expect(strategyGrade({ ...strong, dsr: 0.1 }).grade).toBe('A') // 80
    expect(strategyGrade({ ...strong, dsr: 0.1, mcPValue: 0.2 }).grade).toBe('B') // 70
    expect(strategyGrade({ ...strong, dsr: 0.1, mcPValue: 0.2, maxDrawdownPct: 60 }).grade).toBe('C') // 60
    expect(strategyGrade({ ...strong, dsr: 0.1, mcPValue: 0.2, maxDrawdownPct: 60, edgePValue: 0.5 }).points).toBe(45)
    expect(strategyGrade({ ...strong, dsr: 0.1, mcPValue: 0.2, maxDrawdownPct: 60, edgePValue: 0.5 }).grade).toBe('D')
    const f = strategyGrade({ ...strong, dsr: 0.1, mcPValue: 0.2, maxDrawdownPct: 60, edgePValue: 0.5, walkForwardConsistency: 0.2 })
    expect(f.points).toBe(30)
    expect(f.grade).toBe('F')
  })

  test('a missing figure scores 0 and says n/a', () => {
    const g = strategyGrade({ ...strong, dsr: null, mcPValue: null })
    expect(g.points).toBe(70)
    expect(g.details).toContain('deflated Sharpe n/a → 0/20')
  })

  test('fewer than 30 trades caps the grade at D, whatever the other figures', () => {
    const g = strategyGrade({ ...strong, trades: 25 })
    expect(g.points).toBe(85)
    expect(g.grade).toBe('D')
    expect(g.details).toContain('capped at D: fewer than 30 trades')
  })

  test('a result that lost money (profit factor ≤ 1) is an F', () => {
    const g = strategyGrade({ ...strong, profitFactor: 0.95 })
    expect(g.grade).toBe('F')
    expect(g.details).toContain('profit factor ≤ 1')
  })
})
