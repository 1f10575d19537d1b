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
 * The exit of one trade follows simulate-coin.ts exactly: exitLong / exitShort below are
 * copies of that file's kernels (not exported there) with one addition, a step over
 * 8-bar blocks that cannot end the trade (QuietBlocks). tests/research-random-entry
 * .test.ts checks outcomes against simulateCoin itself, so the two cannot drift apart
 * unnoticed. A copy and not a call per trade: simulateCoin allocates per call (about
 * 0.5 µs), which would be most of the cost of a simulation.
 */
import type { Bars, FundingSeries } from '../market/types'
import { Mulberry32 } from './random'
import { FundingSums } from './funding-sums'
import type { TradeParams } from './types'

export interface RandomEntryCoin {
  bars: Bars
  /** exit[k] = 1: the strategy's exit condition is true at bar k's close; null = none */
  exit: Uint8Array | null
  /** signal bars the calendar filters allow (avoid_hours, avoid_months); null = every bar */
  allowed: Uint8Array | null
  /** first signal bar of the window */
  fromIdx: number
  /** the window's last bar */
  toIdx: number
  funding: FundingSeries | null
}

const R_TP = 0
const R_SL = 1
const R_TRAILING = 2
const R_SIGNAL = 3
const R_TIMEOUT = 4
const R_LIQUIDATION = 5
const R_END = 6

const FILL_OPEN = 0
const FILL_INTRABAR = 1
const FILL_CLOSE = 2

interface ExitScratch {
  idx: number
  price: number
  reason: number
  fill: number
  sameBar: boolean
}

interface Levels {
  entry: number
  stop: number
  tp: number
  liq: number
  trailFrac: number
  timeoutIdx: number
  lastIdx: number
}

/**
 * Per block of 8 bars: the lowest low, the highest high and whether an exit signal fires.
 * A block whose range touches neither the stop side nor the take profit, holds no exit
 * signal and does not contain the trade's last bar cannot end the trade: the exit loops
 * step over it at once (a fixed-level trade only; a trailing stop moves bar by bar).
 */
interface QuietBlocks {
  low: Float64Array
  high: Float64Array
  exit: Uint8Array
}

const BLOCK_SHIFT = 3
const BLOCK = 1 << BLOCK_SHIFT

function quietBlocks(bars: Bars, exitMask: Uint8Array | null): QuietBlocks {
  const { l, h } = bars
  const n = bars.n
  const nBlocks = (n + BLOCK - 1) >> BLOCK_SHIFT
  const low = new Float64Array(nBlocks)
  const high = new Float64Array(nBlocks)
  const exit = new Uint8Array(nBlocks)
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
  if (exitMask !== null) for (let k = 0; k < n; k++) if (exitMask[k] !== 0) exit[k >> BLOCK_SHIFT] = 1
  return { low, high, exit }
}

function exitLong(bars: Bars, exitMask: Uint8Array | null, e: number, lv: Levels, out: ExitScratch, qb: QuietBlocks | null): void {
  const { o, h, l, c } = bars
  const tp = lv.tp
  const liq = lv.liq
  const trailFrac = lv.trailFrac
  const end = lv.timeoutIdx < lv.lastIdx ? lv.timeoutIdx : lv.lastIdx
  let best = lv.entry
  let stop = lv.stop
  let stopReason = R_SL
  if (trailFrac > 0 && best - best * trailFrac > stop) {
    stop = best - best * trailFrac
    stopReason = R_TRAILING
  }
  let nearest = stop > liq ? stop : liq
  const skip = qb !== null && trailFrac === 0
  for (let k = e; ; k++) {
    if (skip && (k & (BLOCK - 1)) === 0) {
      let b = k >> BLOCK_SHIFT
      while (k + BLOCK - 1 < end && qb.low[b] > nearest && qb.high[b] < tp && qb.exit[b] === 0) {
        k += BLOCK
        b++
      }
    }
    const lk = l[k]
    const hk = h[k]
    if (lk <= nearest || hk >= tp) {
      const ok = o[k]
      if (ok <= liq) return set(out, k, ok, R_LIQUIDATION, FILL_OPEN, false)
      if (ok <= stop) return set(out, k, ok, stopReason, FILL_OPEN, false)
      if (lk <= nearest) {
        if (liq >= stop) return set(out, k, liq, R_LIQUIDATION, FILL_INTRABAR, hk >= tp)
        return set(out, k, stop, stopReason, FILL_INTRABAR, hk >= tp)
      }
      return set(out, k, tp, R_TP, FILL_INTRABAR, false)
    }
    if (k === end) return set(out, k, c[k], k === lv.timeoutIdx ? R_TIMEOUT : R_END, FILL_CLOSE, false)
    if (exitMask !== null && exitMask[k] !== 0) return set(out, k + 1, o[k + 1], R_SIGNAL, FILL_OPEN, false)
    if (trailFrac > 0 && hk > best) {
      best = hk
      const trail = best - best * trailFrac
      if (trail > stop) {
        stop = trail
        stopReason = R_TRAILING
        nearest = stop > liq ? stop : liq
      }
    }
  }
}

function exitShort(bars: Bars, exitMask: Uint8Array | null, e: number, lv: Levels, out: ExitScratch, qb: QuietBlocks | null): void {
  const { o, h, l, c } = bars
  const tp = lv.tp
  const liq = lv.liq
  const trailFrac = lv.trailFrac
  const end = lv.timeoutIdx < lv.lastIdx ? lv.timeoutIdx : lv.lastIdx
  let best = lv.entry
  let stop = lv.stop
  let stopReason = R_SL
  if (trailFrac > 0 && best + best * trailFrac < stop) {
    stop = best + best * trailFrac
    stopReason = R_TRAILING
  }
  let nearest = stop < liq ? stop : liq
  const skip = qb !== null && trailFrac === 0
  for (let k = e; ; k++) {
    if (skip && (k & (BLOCK - 1)) === 0) {
      let b = k >> BLOCK_SHIFT
      while (k + BLOCK - 1 < end && qb.high[b] < nearest && qb.low[b] > tp && qb.exit[b] === 0) {
        k += BLOCK
        b++
      }
    }
    const lk = l[k]
    const hk = h[k]
    if (hk >= nearest || lk <= tp) {
      const ok = o[k]
      if (ok >= liq) return set(out, k, ok, R_LIQUIDATION, FILL_OPEN, false)
      if (ok >= stop) return set(out, k, ok, stopReason, FILL_OPEN, false)
      if (hk >= nearest) {
        if (liq <= stop) return set(out, k, liq, R_LIQUIDATION, FILL_INTRABAR, lk <= tp)
        return set(out, k, stop, stopReason, FILL_INTRABAR, lk <= tp)
      }
      return set(out, k, tp, R_TP, FILL_INTRABAR, false)
    }
    if (k === end) return set(out, k, c[k], k === lv.timeoutIdx ? R_TIMEOUT : R_END, FILL_CLOSE, false)
    if (exitMask !== null && exitMask[k] !== 0) return set(out, k + 1, o[k + 1], R_SIGNAL, FILL_OPEN, false)
    if (trailFrac > 0 && lk < best) {
      best = lk
      const trail = best + best * trailFrac
      if (trail < stop) {
        stop = trail
        stopReason = R_TRAILING
        nearest = stop < liq ? stop : liq
      }
    }
  }
}

function set(out: ExitScratch, idx: number, price: number, reason: number, fill: number, sameBar: boolean): void {
  out.idx = idx
  out.price = price
  out.reason = reason
  out.fill = fill
  out.sameBar = sameBar
}

/** Signal bars a random entry may use: s in [fromIdx, last − 1], allowed, with a positive next open. */
export function entryCandidates(coin: RandomEntryCoin): Int32Array {
  const { bars, allowed } = coin
  const o = bars.o
  const last = Math.min(coin.toIdx, bars.n - 1)
  const from = Math.max(coin.fromIdx, 0)
  const out = new Int32Array(Math.max(0, last - from))
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
  private readonly lv: Levels
  private readonly scratch: ExitScratch = { idx: 0, price: 0, reason: 0, fill: 0, sameBar: false }
  private readonly funding: FundingSums | null
  private readonly futures: boolean
  private readonly lev: number
  private readonly long: boolean
  private readonly trailing: boolean
  private readonly liqMove: number
  private readonly blocks: QuietBlocks | null

  constructor(private readonly coin: RandomEntryCoin, private readonly p: TradeParams) {
    this.futures = p.marketType === 'futures'
    this.lev = this.futures ? p.leverage : 1
    this.long = p.direction === 'long'
    this.trailing = p.tpSource === 'trailing'
    this.liqMove = 1 / this.lev - p.mmrFrac
    const trailPct = this.trailing ? (p.trailingPct ?? p.tpPct) : 0
    this.blocks = this.trailing ? null : quietBlocks(coin.bars, coin.exit)
    this.funding = this.futures ? new FundingSums(coin.bars, coin.funding) : null
    this.lv = { entry: 0, stop: 0, tp: 0, liq: 0, trailFrac: trailPct / 100, timeoutIdx: 0, lastIdx: Math.min(coin.toIdx, coin.bars.n - 1) }
  }

  /** The trade of a signal at bar s's close (entry at s + 1's open); s must be a candidate. */
  pnlPct(s: number): number {
    const { bars, exit } = this.coin
    const p = this.p
    const lv = this.lv
    const e = s + 1
    const entryPrice = bars.o[e]
    lv.entry = entryPrice
    lv.timeoutIdx = e + p.maxBars - 1
    if (this.long) {
      lv.stop = entryPrice - (entryPrice * p.slPct) / 100
      lv.tp = this.trailing ? Infinity : entryPrice + (entryPrice * p.tpPct) / 100
      lv.liq = this.futures ? entryPrice - entryPrice * this.liqMove : -Infinity
      exitLong(bars, exit, e, lv, this.scratch, this.blocks)
    } else {
      lv.stop = entryPrice + (entryPrice * p.slPct) / 100
      lv.tp = this.trailing ? -Infinity : entryPrice - (entryPrice * p.tpPct) / 100
      lv.liq = this.futures ? entryPrice + entryPrice * this.liqMove : Infinity
      exitShort(bars, exit, e, lv, this.scratch, this.blocks)
    }
    const sc = this.scratch
    if (sc.reason === R_LIQUIDATION) return -100
    const k = sc.idx
    const t = bars.t
    const exitTimeMs = sc.fill === FILL_OPEN ? t[k] : sc.fill === FILL_CLOSE ? t[k] + bars.stepMs : t[k] + bars.stepMs / 2
    const dirSign = this.long ? 1 : -1
    const fundingPct = this.funding === null ? 0 : (dirSign * this.funding.rateTimesPrice(t[e], exitTimeMs) * this.lev * 100) / entryPrice
    const priceRatio = sc.price / entryPrice
    const grossPct = dirSign * (priceRatio - 1) * this.lev * 100
    const feePct = p.feeFrac * this.lev * 100 * (1 + priceRatio)
    return grossPct - feePct - fundingPct
  }
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
export function randomEntrySums(coin: RandomEntryCoin, p: TradeParams, tradeCount: number, simulations: number, seed: number): Float64Array {
  const sums = new Float64Array(simulations)
  if (tradeCount <= 0 || simulations <= 0) return sums
  const candidates = entryCandidates(coin)
  const nCand = candidates.length
  if (nCand === 0) return sums.fill(Number.NaN)
  const outcomes = new TradeOutcomes(coin, p)
  const memo = new Float64Array(nCand)
  const known = new Uint8Array(nCand)
  const rng = new Mulberry32(seed)
  const simsPerBlock = Math.max(1, Math.floor(DRAWS_PER_BLOCK / tradeCount))
  const draws = new Int32Array(Math.min(simulations, simsPerBlock) * tradeCount)
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
