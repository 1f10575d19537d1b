/**
 * The nouns of the trade model (docs/metrics.md). One representation per concept:
 * times are epoch ms UTC; `…Pct` fields are percent numbers (10 = 10 %); `…Frac` fields
 * are fractions (0.0005 = 0.05 %); every P&L and cost of a trade is in % of its margin.
 */
import { HOUR_MS } from '../time'
import type { Execution } from './execution'

export type Direction = 'long' | 'short'

/**
 * The precise reasons a trade closes; a reason's code (trade table, trade model, trade codec) is its index here.
 * New reasons go at the end, so the codes of the others never change. `delisted`: the coin's
 * market closed while the trade was open; it exits at the close of the coin's last candle
 * (docs/metrics.md §1, docs/data.md "Delisted coins").
 */
export const EXIT_REASONS = ['tp', 'sl', 'trailing', 'signal', 'timeout', 'liquidation', 'end_of_data', 'delisted'] as const

/** The precise reason a trade closed. */
export type ExitReason = (typeof EXIT_REASONS)[number]

/** The code of each exit reason (its index in EXIT_REASONS). */
export const EXIT_REASON_CODE: ReadonlyMap<ExitReason, number> = new Map(EXIT_REASONS.map((r, i) => [r, i]))

/** The contract's three result buckets (see `resultBucket` in metrics.ts). */
export type ResultBucket = 'tp' | 'sl' | 'timeout'

export type MarketType = 'futures' | 'spot'

export type TpSource = 'custom_pct' | 'trailing'

/**
 * How a run resolves the path inside a bar (docs/metrics.md §1, "Minute detail"):
 * `detail` replays the bars that need it minute by minute where the coin has minutes (the
 * bar rule elsewhere, counted and warned of); `bar` is the bar rule everywhere; and
 * `detail_required` is `detail` refusing coins without minutes.
 */
export const INTRABAR_MODES = ['detail', 'bar', 'detail_required'] as const
export type IntrabarMode = (typeof INTRABAR_MODES)[number]

export interface TradeParams {
  direction: Direction
  /** hard stop distance from the entry price, percent */
  slPct: number
  /** take-profit distance (custom_pct) or the default trail distance (trailing), percent */
  tpPct: number
  tpSource: TpSource
  /** trail distance for tp_source `trailing`, percent; null means tpPct */
  trailingPct: number | null
  /** the trade times out at the close of its maxBars-th bar (the entry bar is the first) */
  maxBars: number
  /** ignored for spot (always 1) */
  leverage: number
  /** taker fee per side on notional, fraction */
  feeFrac: number
  /** maintenance-margin rate for the liquidation price, fraction (DEFAULT_MMR_FRAC) */
  mmrFrac: number
  marketType: MarketType
  /** fees, slippage, margin brackets of issue 25 (execution.ts); absent: the model before it (taker fee both sides, no slippage, flat rate) */
  execution?: Execution
}

/** The leverage trades carry: spot has none, whatever the request says. */
export function effectiveLeverage(p: { marketType: MarketType; leverage: number }): number {
  return p.marketType === 'spot' ? 1 : p.leverage
}

export const DEFAULT_MMR_FRAC = 0.005
/** default taker fee per side: futures 0.05 %, spot 0.10 % */
export const DEFAULT_FEE_FRAC: Readonly<Record<MarketType, number>> = { futures: 0.0005, spot: 0.001 }
/** stand-in funding where the store has no real events: 0.01 % per event … */
export const FALLBACK_FUNDING_RATE = 0.0001
/** … at 00:00, 08:00 and 16:00 UTC */
export const FALLBACK_FUNDING_INTERVAL_MS = 8 * HOUR_MS

export interface Trade {
  symbol: string
  direction: Direction
  /** index of the entry bar (the bar after the signal bar) in the coin's bars */
  entryIdx: number
  /** index of the bar in which the exit filled (at its open, inside it or at its close) */
  exitIdx: number
  /** the entry fill instant: the entry bar's open time */
  entryTimeMs: number
  /**
   * The exit fill instant: a fill at a bar's open is at its open time, at its close at its
   * close time (open + stepMs), an intrabar fill (stop, take profit, trailing,
   * liquidation) at the bar's midpoint (open + stepMs / 2), the instant the funding rule
   * and the portfolio's slot accounting both use.
   */
  exitTimeMs: number
  entryPrice: number
  exitPrice: number
  /** bars held: the entry bar counts; a fill at bar k's open holds k − entryIdx bars */
  barsHeld: number
  exitReason: ExitReason
  /** net P&L, % of margin; exactly −100 for a liquidation */
  pnlPct: number
  /** price move × leverage, % of margin */
  grossPct: number
  /** entry + exit fee, % of margin */
  feePct: number
  /** funding, % of margin; positive = paid, negative = received */
  fundingPct: number
  /** the stop (or liquidation) and the take profit were both touched in the exit bar */
  slTpSameBar: boolean
  /** funding events charged (real + stand-in) */
  fundingEvents: number
  /** of those, events that came from the store's real series */
  fundingEventsReal: number
  /** slippage, % of margin (execution.ts; 0 or absent without it) */
  slippagePct?: number
  /** the size-dependent parts of the costs (execution.ts SizeCosts), for the capacity curve */
  slipSpread?: number
  slipImpact?: number
  maeFrac?: number
  fillsUnestimated?: number
  /**
   * `detail` when the exit bar was replayed minute by minute (intrabar.ts); absent when
   * the bar rule gave the exit (the response's `exit_resolution` "bar")
   */
  exitResolution?: ExitResolution
  /** with `detail`: the minutes changed the exit (reason, price or time) from the bar rule's */
  exitChanged?: boolean
}

export type ExitResolution = 'detail' | 'bar'
