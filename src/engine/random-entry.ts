/**
 * The random-entry null of the Monte Carlo test (docs/statistics.md, "Random-entry Monte
 * Carlo"): would entries at random bars of the same window, with the same exits and
 * costs, have done as well as the strategy's own?
 *
 * One simulation of a coin takes `tradeCount` signal bars uniformly at random (with
 * replacement, independently: random trades may overlap) from the bars a signal could
 * use, and sums the net P&L % of the trades entering at the next bars' opens. A trade's
 * outcome depends only on its entry bar, so each bar's outcome is computed once and
 * reused by every simulation that draws it: the cost is bounded by the window's bars,
 * whatever the number of simulations.
 *
 * Each trade is trade-model.ts's TradeModel, the one simulateCoin uses, set up for many
 * overlapping trades (quiet 8-bar blocks precomputed, each funding event's amount kept),
 * so an outcome equals simulateCoin's trade from the same bar to the last bit.
 */
import { Mulberry32 } from './random'
import { TradeModel, type TradeModelInput } from './trade-model'
import type { TradeParams } from './types'

/** A coin's bars, window, funding and the strategy's exit mask (the run's own exits). */
export interface RandomEntryCoin extends TradeModelInput {
  /** signal bars the calendar filters allow (avoid_hours, avoid_months); null = every bar */
  allowed: Uint8Array | null
}

/**
 * Signal bars a random entry may use: s in [fromIdx, last − 1], allowed, with a positive next
 * open. `scratch`: written into its `cand` buffer (grown when too short) instead of a new array.
 */
export function entryCandidates(coin: RandomEntryCoin, scratch?: RandomEntryScratch): Int32Array {
  const { bars, allowed } = coin
  const o = bars.o
  const last = Math.min(coin.toIdx, bars.n - 1)
  const from = Math.max(coin.fromIdx, 0)
  const size = Math.max(0, last - from)
  let out: Int32Array
  if (scratch === undefined) out = new Int32Array(size)
  else {
    if (scratch.cand.length < size) scratch.cand = new Int32Array(size)
    out = scratch.cand
  }
  let k = 0
  for (let s = from; s < last; s++) {
    if (allowed !== null && allowed[s] === 0) continue
    if (!(o[s + 1] > 0)) continue
    out[k++] = s
  }
  return out.subarray(0, k)
}

/** Net P&L (% of margin) of single trades of one coin, by the trade model of simulateCoin. */
export class TradeOutcomes {
  private readonly model: TradeModel

  constructor(coin: RandomEntryCoin, p: TradeParams) {
    // only the net P&L is read: no adverse excursion walk per trade
    this.model = new TradeModel(coin, p, true, true)
  }

  /** The trade of a signal at bar s's close (entry at s + 1's open); s must be a candidate. */
  pnlPct(s: number): number {
    this.model.tradeFrom(s + 1)
    return this.model.pnlPct
  }
}

/**
 * Buffers of randomEntrySums kept from one coin to the next of a task (the candidates, the
 * outcomes and their marks), so a coin's null allocates nothing of the window's size.
 */
export class RandomEntryScratch {
  cand = new Int32Array(0)
  memo = new Float64Array(0)
  known = new Uint8Array(0)
  draws = new Int32Array(0)
}

/** Draws held at once (a block of simulations), so memory stays bounded for any request. */
const DRAWS_PER_BLOCK = 1 << 20

/**
 * `simulations` sums of `tradeCount` random trades of one coin (net % of margin each),
 * drawn with mulberry32(seed): simulation j takes the j-th `tradeCount` draws of the
 * stream. All NaN when the window has no candidate bar. The outcomes a block of
 * simulations needs are computed in bar order (sequential memory, about twice as fast as
 * in draw order), each once.
 */
export function randomEntrySums(
  coin: RandomEntryCoin,
  p: TradeParams,
  tradeCount: number,
  simulations: number,
  seed: number,
  scratch: RandomEntryScratch = new RandomEntryScratch(),
): Float64Array {
  const sums = new Float64Array(simulations)
  if (tradeCount <= 0 || simulations <= 0) return sums
  const candidates = entryCandidates(coin, scratch)
  const nCand = candidates.length
  if (nCand === 0) return sums.fill(Number.NaN)
  const outcomes = new TradeOutcomes(coin, p)
  if (scratch.memo.length < nCand) {
    scratch.memo = new Float64Array(nCand)
    scratch.known = new Uint8Array(nCand)
  }
  // a mark is 0 until the bar's outcome is computed; memo is read only where known
  const memo = scratch.memo
  const known = scratch.known.fill(0, 0, nCand)
  const rng = new Mulberry32(seed)
  const simsPerBlock = Math.max(1, Math.floor(DRAWS_PER_BLOCK / tradeCount))
  const nDraws = Math.min(simulations, simsPerBlock) * tradeCount
  if (scratch.draws.length < nDraws) scratch.draws = new Int32Array(nDraws)
  const draws = scratch.draws
  for (let first = 0; first < simulations; first += simsPerBlock) {
    const sims = Math.min(simsPerBlock, simulations - first)
    const block = draws.subarray(0, sims * tradeCount)
    rng.fillIndices(block, nCand)
    for (let i = 0; i < block.length; i++) if (known[block[i]] === 0) known[block[i]] = 2
    for (let d = 0; d < nCand; d++) {
      if (known[d] !== 2) continue
      memo[d] = outcomes.pnlPct(candidates[d])
      known[d] = 1
    }
    for (let j = 0; j < sims; j++) {
      let sum = 0
      const base = j * tradeCount
      for (let i = 0; i < tradeCount; i++) sum += memo[block[base + i]]
      sums[first + j] = sum
    }
  }
  return sums
}
