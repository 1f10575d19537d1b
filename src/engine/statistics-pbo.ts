/**
 * Probability of backtest overfitting by combinatorially symmetric cross-validation (CSCV):
 * D. H. Bailey, J. M. Borwein, M. López de Prado and Q. J. Zhu, "The Probability of
 * Backtest Overfitting", Journal of Computational Finance 20(4), 2017 (SSRN 2326253, 2015).
 *
 * The matrix M has one column per trial (its daily returns) and T rows (days). Its rows are
 * cut into S contiguous blocks of equal size (the T mod S oldest rows are left out); each of
 * the C(S, S/2) ways of taking half the blocks as the in-sample part (the rest out of sample)
 * picks the trial with the best in-sample Sharpe ratio and ranks it out of sample:
 * ω = rank / (N + 1) (rank 1 = worst; ties share their mean rank), λ = ln(ω / (1 − ω)).
 * PBO = the share of splits with λ ≤ 0: the in-sample winner at or below the median out of
 * sample. Formulas and a worked example: docs/statistics.md, "Sweeps".
 */

/** Per trial and block: the count, sum and sum of squares of its daily returns. */
export interface BlockStats {
  trials: number
  blocks: number
  /** rows per block */
  rowsPerBlock: number
  /** sum[trial * blocks + block] */
  sum: Float64Array
  sumSq: Float64Array
}

export interface PboResult {
  pbo: number
  blocks: number
  combinations: number
  trials: number
  /** rows used: blocks × rowsPerBlock */
  days: number
  /** every split's logit, in the order of the splits' bit masks */
  logits: Float64Array
  logit_median: number | null
}

/** The blocks of a matrix given as columns of equal length T: S blocks of ⌊T/S⌋ rows, the oldest T mod S rows dropped. */
export function blockStats(columns: readonly ArrayLike<number>[], blocks: number): BlockStats {
  if (!Number.isInteger(blocks) || blocks < 2 || blocks % 2 !== 0) throw new RangeError(`blocks must be an even integer >= 2, got ${blocks}`)
  const n = columns.length
  const rows = n > 0 ? columns[0].length : 0
  for (const c of columns) if (c.length !== rows) throw new RangeError('blockStats: the columns differ in length')
  const per = Math.floor(rows / blocks)
  const skip = rows - per * blocks
  const sum = new Float64Array(n * blocks)
  const sumSq = new Float64Array(n * blocks)
  for (let j = 0; j < n; j++) {
    const col = columns[j]
    for (let b = 0; b < blocks; b++) {
      let s = 0
      let q = 0
      const from = skip + b * per
      for (let r = from; r < from + per; r++) {
        const x = col[r]
        s += x
        q += x * x
      }
      sum[j * blocks + b] = s
      sumSq[j * blocks + b] = q
    }
  }
  return { trials: n, blocks, rowsPerBlock: per, sum, sumSq }
}

/** Sharpe ratio (per row) of a part from its count, sum and sum of squares; ±∞ for a constant non-zero part, 0 for a flat one. */
function sharpeOf(n: number, s: number, q: number): number {
  if (n < 2) return 0
  const mean = s / n
  const variance = Math.max(0, (q - n * mean * mean) / (n - 1))
  // a variance at rounding level of the squares is no spread
  if (!(variance > 1e-14 * Math.max(1e-300, q / n))) return mean > 0 ? Infinity : mean < 0 ? -Infinity : 0
  return mean / Math.sqrt(variance)
}

const popcount = (x: number) => {
  let c = 0
  while (x) {
    x &= x - 1
    c++
  }
  return c
}

/** The CSCV's PBO over the blocks (null with fewer than 2 trials or fewer than 2 rows per block). */
export function cscvPbo(stats: BlockStats): PboResult | null {
  const { trials: N, blocks: S, rowsPerBlock: per, sum, sumSq } = stats
  if (N < 2 || per < 2) return null
  const half = S / 2
  const totalSum = new Float64Array(N)
  const totalSq = new Float64Array(N)
  for (let j = 0; j < N; j++)
    for (let b = 0; b < S; b++) {
      totalSum[j] += sum[j * S + b]
      totalSq[j] += sumSq[j * S + b]
    }
  const oos = new Float64Array(N)
  const logits: number[] = []
  const isRows = half * per
  const inBlocks: number[] = []
  for (let mask = 0; mask < 1 << S; mask++) {
    if (popcount(mask) !== half) continue
    inBlocks.length = 0
    for (let b = 0; b < S; b++) if (mask & (1 << b)) inBlocks.push(b)
    let best = -1
    let bestSr = -Infinity
    for (let j = 0; j < N; j++) {
      let s = 0
      let q = 0
      const base = j * S
      for (const b of inBlocks) {
        s += sum[base + b]
        q += sumSq[base + b]
      }
      const sr = sharpeOf(isRows, s, q)
      // the first of equals, and a trial even when every in-sample Sharpe is −∞
      if (best < 0 || sr > bestSr) {
        best = j
        bestSr = sr
      }
      oos[j] = sharpeOf(isRows, totalSum[j] - s, totalSq[j] - q)
    }
    const x = oos[best]
    let below = 0
    let ties = 0
    for (let j = 0; j < N; j++) {
      if (oos[j] < x) below++
      else if (oos[j] === x) ties++
    }
    // mean rank of the tied group (1 = worst), the winner inside it
    const rank = below + (ties + 1) / 2
    const omega = rank / (N + 1)
    logits.push(Math.log(omega / (1 - omega)))
  }
  const sorted = [...logits].sort((a, b) => a - b)
  const m = sorted.length
  return {
    pbo: logits.filter(l => l <= 0).length / m,
    blocks: S,
    combinations: m,
    trials: N,
    days: S * per,
    logits: Float64Array.from(logits),
    logit_median: m === 0 ? null : m % 2 ? sorted[(m - 1) / 2] : (sorted[m / 2 - 1] + sorted[m / 2]) / 2,
  }
}
