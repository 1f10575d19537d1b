/**
 * Quiet blocks: a precomputed summary of a coin's bars in blocks of 8 that lets the trade
 * model's exit loops step over stretches where nothing can happen. Used only when many
 * overlapping trades of one coin are priced (the random-entry null).
 */
import type { Bars } from '../market/types'

/**
 * Per block of 8 bars: the lowest low, the highest high and whether an exit signal fires.
 * A block whose range touches neither the stop side nor the take profit, holds no exit
 * signal and does not contain the trade's last bar cannot end the trade: the exit loops
 * step over it at once (a fixed-level trade only; a trailing stop moves bar by bar).
 * Worth its pass over the bars only when many trades of a coin are priced (the
 * random-entry null).
 */
export interface QuietBlocks {
  low: Float64Array
  high: Float64Array
  exit: Uint8Array
}

export const BLOCK_SHIFT = 3
export const BLOCK = 1 << BLOCK_SHIFT

/** The lowest low and highest high of each block of 8 bars: the part of QuietBlocks that depends on the bars only. */
export interface QuietExtremes {
  low: Float64Array
  high: Float64Array
}

/**
 * A coin's block extremes. A caller that prices the null of the same coin again (a worker
 * between runs) keeps them: they are most of the pass over the bars.
 */
export function quietExtremes(bars: Bars): QuietExtremes {
  const { l, h } = bars
  const n = bars.n
  const nBlocks = (n + BLOCK - 1) >> BLOCK_SHIFT
  const low = new Float64Array(nBlocks)
  const high = new Float64Array(nBlocks)
  for (let b = 0; b < nBlocks; b++) {
    let lo = Infinity
    let hi = -Infinity
    const start = b << BLOCK_SHIFT
    const end = start + BLOCK < n ? start + BLOCK : n
    for (let k = start; k < end; k++) {
      // a NaN makes the block not quiet (NaN compares false), which is always safe
      const lk = l[k]
      const hk = h[k]
      if (!(lk >= lo)) lo = lk
      if (!(hk <= hi)) hi = hk
    }
    low[b] = lo
    high[b] = hi
  }
  return { low, high }
}

/** The quiet blocks of a coin's bars and exit mask; `extremes`: quietExtremes(bars), if kept. */
export function quietBlocks(bars: Bars, exitMask: Uint8Array | null, extremes: QuietExtremes = quietExtremes(bars)): QuietBlocks {
  const n = bars.n
  const exit = new Uint8Array((n + BLOCK - 1) >> BLOCK_SHIFT)
  if (exitMask !== null) for (let k = 0; k < n; k++) if (exitMask[k] !== 0) exit[k >> BLOCK_SHIFT] = 1
  return { low: extremes.low, high: extremes.high, exit }
}

/**
 * The first bar from k (a block's first bar) that is not inside a quiet block: one whose
 * lows stay above `above` and highs below `below`, without an exit signal, ending before
 * the trade's last bar `end`.
 */
export function stepQuiet(qb: QuietBlocks, k: number, end: number, above: number, below: number): number {
  let b = k >> BLOCK_SHIFT
  while (k + BLOCK - 1 < end && qb.low[b] > above && qb.high[b] < below && qb.exit[b] === 0) {
    k += BLOCK
    b++
  }
  return k
}

/** The last bar of k's block, or `end` if that comes first. */
export function lastOfBlock(k: number, end: number): number {
  const last = k | (BLOCK - 1)
  return last < end ? last : end
}
