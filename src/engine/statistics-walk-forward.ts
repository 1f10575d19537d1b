/**
 * Walk-forward consistency: does the edge hold in each part of the window, or did one
 * lucky stretch make the whole result? The window is cut into consecutive folds of equal
 * length and each fold is scored on the trades that closed in it.
 */
import { isoDay } from '../time'
import { profitFactorOf } from './metrics-breakdown'

export interface WalkForwardTrade {
  exitTimeMs: number
  pnlPct: number
}

/** The trades as columns (exit instants and net %), the form a run's statistics pass. */
export interface WalkForwardColumns {
  exitMs: ArrayLike<number>
  pnlPct: ArrayLike<number>
}

export interface WalkForwardFold {
  fromMs: number
  /** exclusive, except for the last fold, which ends at the window's end inclusive */
  toMs: number
  trades: number
  /** summed net % of the fold's trades */
  return_pct: number
  /** percent */
  win_rate: number
  /** capped at PROFIT_FACTOR_CAP */
  profit_factor: number
}

export interface WalkForwardResult {
  /** share of folds whose summed return is > 0, 0..1 */
  consistency: number
  details: string
  folds: WalkForwardFold[]
}

const signed = (x: number, digits: number) => `${x >= 0 ? '+' : ''}${x.toFixed(digits)}`

/**
 * Fold boundaries b_k = start + round(k·(end − start)/folds); fold k holds the trades with
 * b_k ≤ exit < b_{k+1} (the last one also exit = end). Trades closing outside the window
 * are counted in the nearest fold. A fold without trades is not profitable.
 * Null when there are no trades, the window is empty, or folds is not a positive integer.
 */
export function walkForward(
  trades: readonly WalkForwardTrade[] | WalkForwardColumns,
  windowStartMs: number,
  windowEndMs: number,
  folds = 5,
): WalkForwardResult | null {
  const cols: WalkForwardColumns = Array.isArray(trades)
    ? { exitMs: trades.map((t) => t.exitTimeMs), pnlPct: trades.map((t) => t.pnlPct) }
    : (trades as WalkForwardColumns)
  const n = cols.pnlPct.length
  if (!Number.isInteger(folds) || folds < 1) return null
  if (n === 0 || !(windowEndMs > windowStartMs)) return null
  const bounds: number[] = []
  for (let k = 0; k <= folds; k++) bounds.push(windowStartMs + Math.round((k * (windowEndMs - windowStartMs)) / folds))
  // per fold, in trade order, the sums summarizeTrades takes (the same figures to the last bit)
  const count = new Float64Array(folds)
  const wins = new Float64Array(folds)
  const gain = new Float64Array(folds)
  const loss = new Float64Array(folds)
  for (let i = 0; i < n; i++) {
    const x = cols.exitMs[i]
    let k = 0
    while (k < folds - 1 && x >= bounds[k + 1]) k++
    const p = cols.pnlPct[i]
    count[k]++
    if (p > 0) {
      wins[k]++
      gain[k] += p
    } else loss[k] += p
  }
  const out: WalkForwardFold[] = Array.from({ length: folds }, (_, k) => ({
    fromMs: bounds[k],
    toMs: bounds[k + 1],
    trades: count[k],
    return_pct: gain[k] + loss[k],
    win_rate: count[k] > 0 ? (100 * wins[k]) / count[k] : 0,
    // gross loss = −loss exactly (negation commutes with rounding)
    profit_factor: profitFactorOf(gain[k], -loss[k]).value,
  }))
  const profitable = out.filter((f) => f.return_pct > 0).length
  const lines = out.map(
    (f, k) =>
      `fold ${k + 1} ${isoDay(f.fromMs)} to ${isoDay(k === folds - 1 ? f.toMs : f.toMs - 1)}: ${f.trades} trades, ` +
      `${signed(f.return_pct, 2)}%, win rate ${f.win_rate.toFixed(1)}%, PF ${f.profit_factor.toFixed(2)}`,
  )
  return {
    consistency: profitable / folds,
    details: `${profitable} of ${folds} folds profitable. ${lines.join('; ')}`,
    folds: out,
  }
}
