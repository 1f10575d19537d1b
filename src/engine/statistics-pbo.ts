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
  return blockStatsOf(columns, blocks, 0, columns.length)
}

/** blockStats of the columns `from` … `to − 1` only (a caller that pauses between parts joins them with joinBlockStats). */
export function blockStatsOf(columns: readonly ArrayLike<number>[], blocks: number, from: number, to: number): BlockStats {
  columns = columns.slice(from, to)
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

/** Parts of one matrix's blocks (blockStatsOf over consecutive column ranges), in order, as one. */
export function joinBlockStats(parts: readonly BlockStats[]): BlockStats {
  const blocks = parts[0].blocks
  const trials = parts.reduce((n, p) => n + p.trials, 0)
  const sum = new Float64Array(trials * blocks)
  const sumSq = new Float64Array(trials * blocks)
  let at = 0
  for (const p of parts) {
    sum.set(p.sum, at)
    sumSq.set(p.sumSq, at)
    at += p.sum.length
  }
  return { trials, blocks, rowsPerBlock: parts[0].rowsPerBlock, sum, sumSq }
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

/** The splits of S blocks: every bit mask of S bits with S/2 set, ascending (C(S, S/2) of them). */
export function cscvSplits(blocks: number): Int32Array {
  const out: number[] = []
  for (let mask = 0; mask < 1 << blocks; mask++) if (popcount(mask) === blocks / 2) out.push(mask)
  return Int32Array.from(out)
}

/**
 * The logits λ of the splits `from` … `to − 1` (indices into cscvSplits(S)): the part a task
 * computes, so that the 12,870 splits of S = 16 are cut into short tasks.
 */
export function cscvLogits(stats: BlockStats, from: number, to: number): Float64Array {
  const { trials: N, blocks: S, rowsPerBlock: per, sum, sumSq } = stats
  const splits = cscvSplits(S)
  const half = S / 2
  const totalSum = new Float64Array(N)
  const totalSq = new Float64Array(N)
  for (let j = 0; j < N; j++)
    for (let b = 0; b < S; b++) {
      totalSum[j] += sum[j * S + b]
      totalSq[j] += sumSq[j * S + b]
    }
  const oos = new Float64Array(N)
  const isRows = half * per
  const inBlocks = new Int32Array(half)
  const out = new Float64Array(Math.max(0, to - from))
  for (let c = from; c < to; c++) {
    const mask = splits[c]
    let k = 0
    for (let b = 0; b < S; b++) if (mask & (1 << b)) inBlocks[k++] = b
    let best = -1
    let bestSr = -Infinity
    for (let j = 0; j < N; j++) {
      let s = 0
      let q = 0
      const base = j * S
      for (let i = 0; i < half; i++) {
        s += sum[base + inBlocks[i]]
        q += sumSq[base + inBlocks[i]]
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
    out[c - from] = Math.log(omega / (1 - omega))
  }
  return out
}

/** Whether the blocks can be split: at least 2 trials and 2 rows per block. */
export const cscvPossible = (stats: BlockStats): boolean => stats.trials >= 2 && stats.rowsPerBlock >= 2

/** PBO and the logits' median from every split's logit. */
export function pboOf(stats: BlockStats, logits: Float64Array): PboResult {
  const sorted = Float64Array.from(logits).sort()
  const m = sorted.length
  let overfit = 0
  for (const l of logits) if (l <= 0) overfit++
  return {
    pbo: m === 0 ? 0 : overfit / m,
    blocks: stats.blocks,
    combinations: m,
    trials: stats.trials,
    days: stats.blocks * stats.rowsPerBlock,
    logits,
    logit_median: m === 0 ? null : m % 2 ? sorted[(m - 1) / 2] : (sorted[m / 2 - 1] + sorted[m / 2]) / 2,
  }
}

/** The CSCV's PBO over the blocks in one go (null with fewer than 2 trials or fewer than 2 rows per block). */
export function cscvPbo(stats: BlockStats): PboResult | null {
  if (!cscvPossible(stats)) return null
  return pboOf(stats, cscvLogits(stats, 0, cscvSplits(stats.blocks).length))
}
