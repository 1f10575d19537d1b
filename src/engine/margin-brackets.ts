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

export interface MarginBracket {
  /** Binance's bracket number (1 = the smallest notionals) */
  bracket: number
  /** notionals above this (USD) … */
  floorUsd: number
  /** … up to and including this */
  capUsd: number
  mmrFrac: number
  /** maintenance amount (Binance's `cum`), USD */
  cumUsd: number
  maxLeverage: number
}

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

/** Problems of a bracket list (sorted, contiguous, rates in (0, 1), leverage ≥ 1), empty when it is sound. */
export function bracketProblems(brackets: readonly MarginBracket[]): string[] {
  const out: string[] = []
  if (brackets.length === 0) out.push('no brackets')
  brackets.forEach((b, i) => {
    if (!(b.capUsd > b.floorUsd)) out.push(`bracket ${b.bracket}: cap ${b.capUsd} is not above floor ${b.floorUsd}`)
    if (i > 0 && b.floorUsd !== brackets[i - 1].capUsd) out.push(`bracket ${b.bracket}: floor ${b.floorUsd} does not meet the previous cap ${brackets[i - 1].capUsd}`)
    if (!(b.mmrFrac > 0 && b.mmrFrac < 1)) out.push(`bracket ${b.bracket}: maintenance rate ${b.mmrFrac} outside (0, 1)`)
    if (!(b.maxLeverage >= 1)) out.push(`bracket ${b.bracket}: max leverage ${b.maxLeverage} below 1`)
    if (!(b.cumUsd >= 0)) out.push(`bracket ${b.bracket}: maintenance amount ${b.cumUsd} negative`)
  })
  if (brackets.length > 0 && brackets[0].floorUsd !== 0) out.push(`bracket ${brackets[0].bracket}: the first floor is ${brackets[0].floorUsd}, not 0`)
  return out
}
