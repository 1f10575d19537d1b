/**
 * The sweeps' overfitting figures on hand-made trial matrices (docs/statistics.md, "Sweeps"):
 * the CSCV's PBO where the answer is known (0, 1, about ½ on noise), the deflated Sharpe of
 * the best trial with n_trials = the ledger's size, the neighbourhood stability, the folds.
 */
import { describe, expect, test } from 'bun:test'
import { DAY_MS } from '../src/time'
import { blockStats, blockStatsOf, cscvLogits, cscvPbo, cscvSplits, joinBlockStats } from '../src/engine/statistics-pbo'
import { bestTrialDeflation } from '../src/engine/sweep-deflation'
import { neighbourhoodStability } from '../src/engine/sweep-stability'
import { daysNeeded, foldWindows } from '../src/engine/walk-forward-folds'
import { expectedMaxSharpe, normalCdf } from '../src/engine/statistics'

/** ±amp alternating day by day: spread without drift */
const wiggle = (d: number, amp: number) => (d % 2 === 0 ? amp : -amp)

/** A column of `blocks` blocks of `per` days: block b's days are level(b) ± amp. */
const blocky = (blocks: number, per: number, level: (b: number) => number, amp = 0.001) =>
  Float64Array.from({ length: blocks * per }, (_, d) => level(Math.floor(d / per)) + wiggle(d, amp))

describe('PBO by CSCV (Bailey, Borwein, López de Prado, Zhu)', () => {
  test('C(S, S/2) splits: 6 for S = 4, 12,870 for S = 16, each a half of the blocks', () => {
    expect(cscvSplits(4).length).toBe(6)
    expect(cscvSplits(16).length).toBe(12_870)
    for (const m of cscvSplits(6)) expect(m.toString(2).split('').filter(c => c === '1').length).toBe(3)
  })

  test('PBO 0: one trial is best in every block, so the in-sample winner is always the best out of sample', () => {
    // trial 0 earns 0.5 % a day, the others 0.1–0.4 %, all with the same wiggle
    const cols = [0.005, 0.001, 0.002, 0.003, 0.004].map(level => blocky(16, 10, () => level))
    const r = cscvPbo(blockStats(cols, 16))!
    expect(r.combinations).toBe(12_870)
    expect(r.trials).toBe(5)
    expect(r.pbo).toBe(0)
    // the winner ranks N of N: ω = 5/6, λ = ln 5 on every split
    expect(r.logit_median).toBeCloseTo(Math.log(5), 12)
  })

  test('PBO 1: each trial shines in exactly half the blocks and fails in the others, so every in-sample winner is the worst out of sample', () => {
    // S = 4: one trial per half H of the blocks: +1 % a day in H, −1 % elsewhere
    const S = 4
    const cols = Array.from(cscvSplits(S), h => blocky(S, 20, b => (h & (1 << b) ? 0.01 : -0.01)))
    const r = cscvPbo(blockStats(cols, S))!
    expect(r.combinations).toBe(6)
    expect(r.pbo).toBe(1)
    // rank 1 of 6: ω = 1/7, λ = ln(1/6)
    expect(r.logit_median).toBeCloseTo(Math.log(1 / 6), 12)
    // S = 6, 20 trials: the same, every split overfit
    const cols6 = Array.from(cscvSplits(6), h => blocky(6, 10, b => (h & (1 << b) ? 0.01 : -0.01)))
    expect(cscvPbo(blockStats(cols6, 6))!.pbo).toBe(1)
  })

  test('pure noise: PBO near ½ (the in-sample winner is a coin toss out of sample)', () => {
    let s = 12345
    const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5
    const cols = Array.from({ length: 40 }, () => Float64Array.from({ length: 320 }, () => 0.01 * rnd()))
    const r = cscvPbo(blockStats(cols, 8))!
    expect(r.pbo).toBeGreaterThan(0.3)
    expect(r.pbo).toBeLessThan(0.7)
  })

  test('the splits cut into tasks give the same logits, and blocks computed in parts join to the whole', () => {
    let s = 7
    const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5
    const cols = Array.from({ length: 13 }, () => Float64Array.from({ length: 205 }, rnd))
    const whole = blockStats(cols, 8)
    const joined = joinBlockStats([blockStatsOf(cols, 8, 0, 5), blockStatsOf(cols, 8, 5, 13)])
    expect(joined).toEqual(whole)
    // 205 rows in 8 blocks of 25: the 5 oldest rows are left out
    expect(whole.rowsPerBlock).toBe(25)
    const all = cscvLogits(whole, 0, 70)
    expect([...cscvLogits(whole, 0, 33), ...cscvLogits(whole, 33, 70)]).toEqual([...all])
  })

  test('too few trials or days: no PBO', () => {
    expect(cscvPbo(blockStats([new Float64Array(100)], 4))).toBeNull()
    expect(cscvPbo(blockStats([new Float64Array(7), new Float64Array(7)], 4))).toBeNull()
    expect(() => blockStats([new Float64Array(10)], 3)).toThrow(RangeError)
  })
})

describe('the deflated Sharpe of the best trial, over every trial of the ledger', () => {
  // three trials of 8 days each (hand-made), the second the best by its objective
  const a = [0.01, -0.005, 0.002, 0.004, -0.001, 0.003, 0.0, 0.002]
  const b = [0.02, -0.004, 0.012, 0.006, -0.002, 0.009, 0.001, 0.004]
  const c = [-0.01, 0.002, -0.003, 0.001, 0.0, -0.002, 0.001, -0.001]
  const sharpeAnn = (xs: number[]) => {
    const m = xs.reduce((s, x) => s + x, 0) / xs.length
    const sd = Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1))
    return (m / sd) * Math.sqrt(365)
  }
  const trials = [a, b, c].map((daily, i) => ({ daily, objective: [1, 3, -1][i], sharpeAnnualized: sharpeAnn(daily), trades: 5 }))

  test('is the formula of docs/statistics.md written out by hand: DSR = Φ((SR − SR0)·√(n−1) / √(1 − γ3·SR + (γ4−1)/4·SR²)), SR0 from V[SR] across the trials and n_trials = 3', () => {
    const r = bestTrialDeflation(trials)
    expect(r.best).toBe(1)
    expect(r.info!.n_trials).toBe(3)
    // by hand: moments of b (central, divisor n for γ3 and γ4; n − 1 for the variance)
    const n = b.length
    const m = b.reduce((s, x) => s + x, 0) / n
    const m2 = b.reduce((s, x) => s + (x - m) ** 2, 0) / n
    const m3 = b.reduce((s, x) => s + (x - m) ** 3, 0) / n
    const m4 = b.reduce((s, x) => s + (x - m) ** 4, 0) / n
    const sr = m / Math.sqrt((m2 * n) / (n - 1))
    const g3 = m3 / m2 ** 1.5
    const g4 = m4 / m2 ** 2
    const perDay = trials.map(t => t.sharpeAnnualized / Math.sqrt(365))
    const mean = perDay.reduce((s, x) => s + x, 0) / 3
    const v = perDay.reduce((s, x) => s + (x - mean) ** 2, 0) / 2
    const g = 0.5772156649015329
    const sr0 = Math.sqrt(v) * ((1 - g) * (-normalInvRef(1 / 3)) + g * -normalInvRef(1 / (3 * Math.E)))
    expect(sr0).toBeCloseTo(expectedMaxSharpe(3, v), 6)
    const dsr = normalCdf(((sr - sr0) * Math.sqrt(n - 1)) / Math.sqrt(1 - g3 * sr + ((g4 - 1) / 4) * sr * sr))
    expect(r.info!.dsr).toBeCloseTo(dsr, 6)
    // pinned: a change of formula shows here
    expect(r.info!.dsr).toBeCloseTo(0.75529, 5)
  })

  test('the same best trial found among more trials is deflated more: n_trials is the ledger size, whatever the other trials earned', () => {
    const many = [...trials, ...Array.from({ length: 97 }, (_, k) => ({ daily: c.map(x => x * (1 + k / 100)), objective: null, sharpeAnnualized: sharpeAnn(c), trades: 0 }))]
    const r3 = bestTrialDeflation(trials)
    const r100 = bestTrialDeflation(many)
    expect(r100.best).toBe(1)
    expect(r100.info!.n_trials).toBe(100)
    expect(r100.info!.dsr).toBeLessThan(r3.info!.dsr)
  })

  test('no trial with an objective value: nothing to deflate', () => {
    expect(bestTrialDeflation(trials.map(t => ({ ...t, objective: null })))).toEqual({ best: -1, info: null, haircutPct: null })
  })
})

/** Φ⁻¹(1 − p) for the check above, by bisection on normalCdf (independent of normalInv) */
function normalInvRef(p: number): number {
  let lo = -10
  let hi = 10
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2
    if (normalCdf(mid) < p) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}

describe('neighbourhood stability', () => {
  // a 3 × 3 grid, the best in the middle
  const grid = (values: (number | null)[]) => values.map((objective, k) => ({ at: [Math.floor(k / 3), k % 3], objective }))

  test('a plateau scores 1, a spike near 0; the drop is the mean neighbour against the best', () => {
    const plateau = neighbourhoodStability(grid([2, 2, 2, 2, 2, 2, 2, 2, 2]), 4)
    expect(plateau).toMatchObject({ score: 1, neighbours: 8, neighbours_with_value: 8, drop_pct: 0 })
    const spike = neighbourhoodStability(grid([0, 0, 0, 0, 4, 0, 0, 1, 0]), 4)
    expect(spike.score).toBeCloseTo(1 / 32, 12)
    expect(spike.drop_pct).toBeCloseTo(100 * (4 - 0.125) / 4, 12)
    expect(spike.worst_objective).toBe(0)
  })

  test('a corner has 3 neighbours; trials without a value are counted but not averaged', () => {
    const r = neighbourhoodStability(grid([4, 2, 0, null, 2, 0, 0, 0, 0]), 0)
    expect(r).toMatchObject({ neighbours: 3, neighbours_with_value: 2, mean_objective: 2, score: 0.5 })
  })

  test('a best objective ≤ 0 has no score (a ratio to it means nothing)', () => {
    expect(neighbourhoodStability(grid([-1, -2, -2, -2, -2, -2, -2, -2, -2]), 0).score).toBeNull()
  })
})

describe('walk-forward folds', () => {
  const first = Date.UTC(2024, 0, 1)
  const day = (k: number) => first + k * DAY_MS

  test('rolling: in-sample parts of fixed length; out-of-sample parts follow one another after the purge gap', () => {
    const w = foldWindows({ mode: 'rolling', inSampleDays: 30, outOfSampleDays: 10, folds: 3, purgeDays: 2 }, first, day(99))!
    expect(w.map(f => [f.inSampleFromMs, f.inSampleToMs, f.outOfSampleFromMs, f.outOfSampleToMs].map(x => (x - first) / DAY_MS))).toEqual([
      [0, 29, 32, 41],
      [10, 39, 42, 51],
      [20, 49, 52, 61],
    ])
  })

  test('anchored: every in-sample part starts on the first day', () => {
    const w = foldWindows({ mode: 'anchored', inSampleDays: 30, outOfSampleDays: 10, folds: 3, purgeDays: 0 }, first, day(59))!
    expect(w.map(f => [(f.inSampleFromMs - first) / DAY_MS, (f.inSampleToMs - first) / DAY_MS])).toEqual([
      [0, 29],
      [0, 39],
      [0, 49],
    ])
  })

  test('folds longer than the data do not fit', () => {
    const plan = { mode: 'rolling' as const, inSampleDays: 30, outOfSampleDays: 10, folds: 3, purgeDays: 1 }
    expect(daysNeeded(plan)).toBe(61)
    expect(foldWindows(plan, first, day(59))).toBeNull()
    expect(foldWindows(plan, first, day(60))).not.toBeNull()
  })
})
