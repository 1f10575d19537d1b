/**
 * The execution costs of a scored signal (issue 25), frozen by the row's engine label: rows
 * scored by `reference-engine-v3` pay impact slippage at a 60 USD position (× the row's
 * leverage), market take profits and the coin's margin brackets with the liquidation fee,
 * as a /simulate run with the defaults does; rows of `reference-engine-v2` and before keep
 * the model they were scored with (no slippage, flat margin), so no published score and no
 * Merkle leaf changes (docs/signals.md).
 */
import { DEFAULT_MAKER_FEE_FRAC, type Execution } from '../engine/execution'
import { DEFAULT_LIQUIDATION_FEE_FRAC } from '../engine/margin-brackets'
import { DEFAULT_IMPACT_K } from '../engine/slippage'

/** the engine label of rows that pay the execution costs */
export const EXECUTION_ENGINE = 'reference-engine-v3'
/** the margin a scored signal's costs are priced at (the rankings' and /simulate's default per_coin_usd) */
export const SCORING_MARGIN_USD = 60

export function scoringExecution(engine: string, leverage: number): Execution | undefined {
  if (engine !== EXECUTION_ENGINE) return undefined
  return {
    slippage: 'impact',
    impactK: DEFAULT_IMPACT_K,
    tpOrder: 'market',
    makerFeeFrac: DEFAULT_MAKER_FEE_FRAC,
    liquidationFeeFrac: DEFAULT_LIQUIDATION_FEE_FRAC,
    margin: 'brackets',
    notionalUsd: SCORING_MARGIN_USD * leverage,
  }
}

/** The settings as a published item's frozen inputs show them (absent for rows of the older engines). */
export function scoringExecutionItem(engine: string, leverage: number) {
  const ex = scoringExecution(engine, leverage)
  if (!ex) return {}
  return {
    execution: {
      slippage: ex.slippage,
      impact_k: ex.impactK,
      tp_order: ex.tpOrder,
      liquidation_fee_pct: ex.liquidationFeeFrac * 100,
      margin: ex.margin,
      position_notional_usd: ex.notionalUsd,
    },
  }
}
