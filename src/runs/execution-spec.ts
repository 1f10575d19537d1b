/**
 * A request's execution settings → RunSpec fields: the one mapping for every road that
 * takes them (/simulate, /backtest, /simulate/coin, compare, research, the bot generator,
 * the cards, the rankings). The body's shape is written structurally (the run pipeline
 * imports no module); its schema is `ExecutionRequestFields` in src/model/shared.ts.
 */
import type { IntrabarMode } from '../engine/types'
import { DEFAULT_EXECUTION, type RunSpec } from './spec'

export interface ExecutionBodyFields {
  slippage?: 'impact' | 'none'
  impact_k?: number
  tp_order?: 'market' | 'limit'
  /** percent */
  maker_fee_pct?: number
  /** percent */
  liquidation_fee_pct?: number
  margin?: 'brackets' | 'flat'
  intrabar?: IntrabarMode
}

/** percent → fraction without binary noise (0.02 → 0.0002) */
const frac = (pct: number) => Number((pct / 100).toPrecision(12))

export function executionSpecOf(body: ExecutionBodyFields): Pick<Required<RunSpec>, 'slippage' | 'impactK' | 'tpOrder' | 'makerFeeFrac' | 'liquidationFeeFrac' | 'margin' | 'intrabar'> {
  return {
    slippage: body.slippage ?? DEFAULT_EXECUTION.slippage,
    impactK: body.impact_k ?? DEFAULT_EXECUTION.impactK,
    tpOrder: body.tp_order ?? DEFAULT_EXECUTION.tpOrder,
    makerFeeFrac: body.maker_fee_pct === undefined ? DEFAULT_EXECUTION.makerFeeFrac : frac(body.maker_fee_pct),
    liquidationFeeFrac: body.liquidation_fee_pct === undefined ? DEFAULT_EXECUTION.liquidationFeeFrac : frac(body.liquidation_fee_pct),
    margin: body.margin ?? DEFAULT_EXECUTION.margin,
    intrabar: body.intrabar ?? DEFAULT_EXECUTION.intrabar,
  }
}

/** The settings as a request body carries them (what a published body writes out). */
export function executionBodyOf(spec: Pick<RunSpec, 'slippage' | 'impactK' | 'tpOrder' | 'makerFeeFrac' | 'liquidationFeeFrac' | 'margin'>): Required<ExecutionBodyFields> {
  const s = { ...DEFAULT_EXECUTION, ...spec }
  return {
    slippage: s.slippage,
    impact_k: s.impactK,
    tp_order: s.tpOrder,
    maker_fee_pct: Number((s.makerFeeFrac * 100).toPrecision(12)),
    liquidation_fee_pct: Number((s.liquidationFeeFrac * 100).toPrecision(12)),
    margin: s.margin,
    intrabar: s.intrabar,
  }
}

/** The execution fields of a request body, and nothing else (to pass a body's settings on to another mapping). */
export function pickExecution(body: ExecutionBodyFields): ExecutionBodyFields {
  const { slippage, impact_k, tp_order, maker_fee_pct, liquidation_fee_pct, margin, intrabar } = body
  return { slippage, impact_k, tp_order, maker_fee_pct, liquidation_fee_pct, margin, intrabar }
}
