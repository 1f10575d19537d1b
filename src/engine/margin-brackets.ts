/**
 * Binance's maintenance-margin brackets and the liquidation price of one isolated
 * position (docs/metrics.md §1 "Liquidation"). A bracket covers position notionals in
 * (floor, cap]; its maintenance margin is notional · mmr − cum, and it allows at most
 * `maxLeverage`. Liquidation is the price where margin + unrealised P&L equals that
 * maintenance margin:
 *
 *   long:  L = E · (1 − 1/lev − cum/N) / (1 − mmr)
 *   short: L = E · (1 + 1/lev + cum/N) / (1 + mmr)
 *
 * with N = the position's notional at entry. Without brackets the flat rule stays:
 * L = E · (1 ∓ (1/lev − mmr)).
 */
import type { MarginBracket } from '../market/types'

export type { MarginBracket }

/** the liquidation fee Binance charges on a liquidated isolated position's notional, when a request does not set one */
export const DEFAULT_LIQUIDATION_FEE_FRAC = 0.0125

/** The bracket holding a notional; null above the last cap (no such position can be opened). Brackets sorted by floor. */
export function bracketOf(brackets: readonly MarginBracket[], notionalUsd: number): MarginBracket | null {
  for (const b of brackets) if (notionalUsd <= b.capUsd) return b
  return null
}

/**
 * The adverse move (fraction of the entry price) at which the position is liquidated.
 * `bracket` null: the flat rate `flatMmr`.
 */
export function liquidationMove(long: boolean, leverage: number, notionalUsd: number, bracket: MarginBracket | null, flatMmr: number): number {
  if (bracket === null) return 1 / leverage - flatMmr
  const cumPerN = bracket.cumUsd / notionalUsd
  return long ? 1 - (1 - 1 / leverage - cumPerN) / (1 - bracket.mmrFrac) : (1 + 1 / leverage + cumPerN) / (1 + bracket.mmrFrac) - 1
}

/** The liquidation price of a position entered at `entry`. */
export function liquidationPrice(long: boolean, entry: number, leverage: number, notionalUsd: number, bracket: MarginBracket | null, flatMmr: number): number {
  const m = liquidationMove(long, leverage, notionalUsd, bracket, flatMmr)
  return long ? entry - entry * m : entry + entry * m
}
