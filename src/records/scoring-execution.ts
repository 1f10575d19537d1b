/**
 * The model a scored signal or a paper position is priced with, frozen by its engine label
 * (docs/signals.md "The scorer", docs/paper-trading.md):
 * - `reference-engine-v4` (issue 25 §1, §4): the model of a /simulate run with the defaults:
 *   v3's execution costs, the ambiguous bars replayed minute by minute where the coin has
 *   minute detail (stored 1m, or a synthetic store's derived minutes; the bar rule where it
 *   has none: the row says `exit_resolution`), and liquidation tested on the mark price where
 *   the store has mark-price candles;
 * - `reference-engine-v3`: impact slippage at a 60 USD position (× the row's leverage),
 *   market take profits and the coin's margin brackets with the liquidation fee, every bar
 *   resolved by the bar rule, liquidation on the last price;
 * - `reference-engine-v2` and before: no slippage, flat margin.
 * A row keeps the label it was first written with, so no published score, paper position or
 * Merkle leaf changes. Paper positions (live/paper-trader.ts) carry the label current at their
 * opening and are priced at their own margin.
 */
import { DEFAULT_MAKER_FEE_FRAC, type Execution } from '../engine/execution'
import { DEFAULT_LIQUIDATION_FEE_FRAC } from '../engine/margin-brackets'
import { DEFAULT_IMPACT_K } from '../engine/slippage'

/** the label of the execution costs of issue 25 §2–3, bar rule and last price */
export const ENGINE_V3 = 'reference-engine-v3'
/** v3 plus minute detail and the mark price: the model /simulate runs with its defaults */
export const ENGINE_V4 = 'reference-engine-v4'
/** the label of rows first written (scored signals) and positions opened from now on */
export const EXECUTION_ENGINE = ENGINE_V4
/** the margin a scored signal's costs are priced at (the rankings' and /simulate's default per_coin_usd) */
export const SCORING_MARGIN_USD = 60

/** labels that pay the execution costs */
const EXECUTION_LABELS: readonly string[] = [ENGINE_V3, ENGINE_V4]

/** `marginUsd`: the position's margin (a scored signal's is SCORING_MARGIN_USD, a paper position's its own). */
export function scoringExecution(engine: string | null, leverage: number, marginUsd = SCORING_MARGIN_USD): Execution | undefined {
  if (engine === null || !EXECUTION_LABELS.includes(engine)) return undefined
  return {
    slippage: 'impact',
    impactK: DEFAULT_IMPACT_K,
    tpOrder: 'market',
    makerFeeFrac: DEFAULT_MAKER_FEE_FRAC,
    liquidationFeeFrac: DEFAULT_LIQUIDATION_FEE_FRAC,
    margin: 'brackets',
    notionalUsd: marginUsd * leverage,
  }
}

/**
 * Whether rows of this label resolve ambiguous bars by the coin's minute detail (and test
 * liquidation on its mark-price candles where stored), as /simulate does by default.
 */
export function replaysMinutes(engine: string | null): boolean {
  return engine === ENGINE_V4
}

/** The settings as a published item's frozen inputs show them (absent for rows of the older engines). */
export function scoringExecutionItem(engine: string | null, leverage: number, marginUsd = SCORING_MARGIN_USD) {
  const ex = scoringExecution(engine, leverage, marginUsd)
  if (!ex) return {}
  return {
    execution: {
      slippage: ex.slippage,
      impact_k: ex.impactK,
      tp_order: ex.tpOrder,
      liquidation_fee_pct: ex.liquidationFeeFrac * 100,
      margin: ex.margin,
      position_notional_usd: ex.notionalUsd,
      // only v4 items carry it, so the items (and leaves) of v3 rows keep their text
      ...(replaysMinutes(engine) ? { intrabar: 'detail' as const } : {}),
    },
  }
}
