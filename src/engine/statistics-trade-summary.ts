/**
 * Counting figures of a list of net trade returns (percent of margin), shared by the
 * walk-forward folds, the regime split and session scoring, with the same conventions as
 * the engine's metrics (docs/metrics.md, docs/statistics.md): a win is a trade with
 * pnl > 0, every other trade is a loss (so wins + losses = trades); rates are in percent;
 * a reported profit factor is capped at the engine's PROFIT_FACTOR_CAP (999), which
 * stands for "no losing trade" because JSON has no Infinity.
 */
import { PROFIT_FACTOR_CAP, profitFactor } from './metrics-breakdown'

export { PROFIT_FACTOR_CAP }

export interface TradeSummary {
  trades: number
  wins: number
  losses: number
  /** percent of trades with pnl > 0 */
  win_rate: number
  /** capped at PROFIT_FACTOR_CAP */
  profit_factor: number
  /** sum of the trades' net % ("summed return") */
  total_return_pct: number
  /** mean pnl of the winning trades, 0 without wins */
  avg_win_pct: number
  /** mean pnl of the losing trades (≤ 0), 0 without losses */
  avg_loss_pct: number
  /** mean pnl per trade, = win_rate·avg_win + (1 − win_rate)·avg_loss */
  expectancy: number
}

export function summarizeTrades(pnlPct: ArrayLike<number>): TradeSummary {
  const n = pnlPct.length
  let wins = 0
  let gain = 0
  let loss = 0
  for (let i = 0; i < n; i++) {
    const p = pnlPct[i]
    if (p > 0) {
      wins++
      gain += p
    } else {
      loss += p
    }
  }
  const losses = n - wins
  return {
    trades: n,
    wins,
    losses,
    win_rate: n > 0 ? (100 * wins) / n : 0,
    profit_factor: profitFactor(pnlPct).value,
    total_return_pct: gain + loss,
    avg_win_pct: wins > 0 ? gain / wins : 0,
    avg_loss_pct: losses > 0 ? loss / losses : 0,
    expectancy: n > 0 ? (gain + loss) / n : 0,
  }
}
