/**
 * The bar rule's portfolio choice of a run whose minute replays changed some of its trades
 * (rule_bias.bar, runs/intrabar-summary.ts barRuleFigures), on a worker: a choice over every
 * trade of the run, about ten milliseconds for a 535-coin run, made while the main thread
 * books the run instead of after it (issue 30: a new result's main-thread path).
 */
import type { PnlFigures } from '../../engine/metrics-breakdown'
import type { AcceptInput, PortfolioOptions } from '../../engine/portfolio'
import { chosenFigures } from '../intrabar-summary'
import type { TaskContext } from './context'

export interface BarRuleFiguresPayload {
  /** the run's trades with the bar rule's exits and P&L in place of the replayed ones */
  trades: AcceptInput
  portfolio: PortfolioOptions
}

/** The figures of the portfolio's choice over the bar rule's trades (the main thread's chosenFigures, here). */
export function runBarRuleFigures(_ctx: TaskContext, payload: BarRuleFiguresPayload): PnlFigures {
  return chosenFigures(payload.trades, payload.portfolio)
}
