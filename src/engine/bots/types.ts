/**
 * The nouns of the bot simulators (docs/bots.md). Units as in engine/types.ts: times are
 * epoch ms UTC, `…Pct` percent numbers, `…Frac` fractions, money in USDT.
 */
import type { Bars, FundingSeries } from '../../market/types'

/** One coin's bars and funding, and the window the bot runs in (bar indices, inclusive). */
export interface BotInput {
  bars: Bars
  funding: FundingSeries | null
  fromIdx: number
  lastIdx: number
}

/** Shared by both bots: taker fee per fill and maintenance-margin rate, fractions. */
export interface BotCosts {
  feeFrac: number
  mmrFrac: number
}

/** Why a DCA deal or a grid ended; `end` = still open at the window's last close (marked). */
export type BotExit = 'take_profit' | 'stop_loss' | 'liquidation' | 'end'

/** The fill instants of the trade model: a bar's open, strictly inside it (its midpoint), its close. */
export function midMs(bars: Bars, k: number): number {
  return bars.t[k] + bars.stepMs / 2
}
