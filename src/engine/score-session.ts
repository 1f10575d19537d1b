/**
 * Scoring of a replay session: hand-made trades (direction, entry and exit price, optional
 * times, size, leverage and fee) scored with the engine's trade model (docs/statistics.md,
 * "Session scoring"). Pure: stores nothing.
 */
import { summarizeTrades } from './statistics-trade-summary'

export interface SessionTrade {
  direction: 'long' | 'short'
  entry_price: number
  exit_price: number
  /** epoch ms, or an ISO 8601 string */
  entry_time?: number | string | null
  /** epoch ms, or an ISO 8601 string */
  exit_time?: number | string | null
  /** margin put up in USD (notional = size_usd × leverage); without it no USD figures */
  size_usd?: number | null
  /** default 1 */
  leverage?: number | null
  /** taker fee in percent of notional per side (0.05 = 0.05 %), like BotSimRequest.taker_fee_pct; default 0 */
  fee_pct?: number | null
}

export interface SessionScore {
  trades: number
  wins: number
  losses: number
  /** percent */
  win_rate: number
  /** capped at PROFIT_FACTOR_CAP */
  profit_factor: number
  /** deepest fall of the summed-return path from its running peak (start 0), percentage points */
  max_drawdown_pct: number
  /** sum of the trades' net % of margin */
  total_return_pct: number
  avg_win_pct: number
  /** ≤ 0 */
  avg_loss_pct: number
  /** mean net % per trade */
  expectancy: number
  /** sum of pnl in USD; null unless every trade has size_usd */
  total_pnl_usd: number | null
  /** drawdown of the cumulative USD pnl; null unless every trade has size_usd */
  max_drawdown_usd: number | null
  /** trades whose loss reached the whole margin (isolated margin: −100 %) */
  liquidations: number
  /** each trade's net % of margin, in the order given */
  trade_pnl_pct: number[]
}

const MAX_LOSS_PCT = -100

function timeMs(value: number | string | null | undefined, field: string, index: number): number | null {
  if (value === null || value === undefined) return null
  const ms = typeof value === 'number' ? value : Date.parse(value)
  if (!Number.isFinite(ms)) throw new RangeError(`trades[${index}].${field} is not a valid time: ${String(value)}`)
  return ms
}

function positive(value: number, field: string, index: number): number {
  if (!(value > 0) || !Number.isFinite(value)) throw new RangeError(`trades[${index}].${field} must be a positive number`)
  return value
}

/**
 * Net P&L of one trade in percent of margin:
 *   gross = d·(exit − entry)/entry·L·100,  fees = f·L·(1 + exit/entry),
 *   net = max(gross − fees, −100),
 * with d = +1 long / −1 short, L the leverage and f the fee in percent per side; the fee
 * is charged on the notional at each fill (entry notional = margin·L, exit notional =
 * margin·L·exit/entry), as the engine does, and isolated margin caps the loss at the margin.
 */
export function sessionTradePnlPct(trade: SessionTrade, index = 0): number {
  const entry = positive(trade.entry_price, 'entry_price', index)
  const exit = positive(trade.exit_price, 'exit_price', index)
  const leverage = trade.leverage ?? 1
  const feePct = trade.fee_pct ?? 0
  if (!(leverage >= 1) || !Number.isFinite(leverage)) throw new RangeError(`trades[${index}].leverage must be >= 1`)
  if (!(feePct >= 0) || !Number.isFinite(feePct)) throw new RangeError(`trades[${index}].fee_pct must be >= 0`)
  if (trade.direction !== 'long' && trade.direction !== 'short') {
    throw new RangeError(`trades[${index}].direction must be 'long' or 'short'`)
  }
  const d = trade.direction === 'long' ? 1 : -1
  const gross = ((d * (exit - entry)) / entry) * leverage * 100
  const fees = feePct * leverage * (1 + exit / entry)
  return Math.max(gross - fees, MAX_LOSS_PCT)
}

/** Largest fall of the running sum of `steps` below its running peak, the peak starting at 0. */
function maxDrawdownOfSum(steps: readonly number[]): number {
  let cum = 0
  let peak = 0
  let worst = 0
  for (const s of steps) {
    cum += s
    if (cum > peak) peak = cum
    if (peak - cum > worst) worst = peak - cum
  }
  return worst
}

/**
 * Scores the session. The drawdown follows the trades in exit-time order when every trade
 * has an exit_time (ties keep their given order), otherwise in the order given.
 */
export function scoreSession(trades: readonly SessionTrade[]): SessionScore {
  const pnl = trades.map((t, i) => sessionTradePnlPct(t, i))
  const exits = trades.map((t, i) => timeMs(t.exit_time, 'exit_time', i))
  trades.forEach((t, i) => timeMs(t.entry_time, 'entry_time', i))
  const order = trades.map((_, i) => i)
  if (exits.every((e) => e !== null)) order.sort((a, b) => (exits[a] as number) - (exits[b] as number) || a - b)

  const summary = summarizeTrades(pnl)
  const sized = trades.length > 0 && trades.every((t) => t.size_usd !== null && t.size_usd !== undefined)
  let usd: number[] | null = null
  if (sized) {
    usd = order.map((i) => (positive(trades[i].size_usd as number, 'size_usd', i) * pnl[i]) / 100)
  }
  return {
    trades: summary.trades,
    wins: summary.wins,
    losses: summary.losses,
    win_rate: summary.win_rate,
    profit_factor: summary.profit_factor,
    max_drawdown_pct: maxDrawdownOfSum(order.map((i) => pnl[i])),
    total_return_pct: summary.total_return_pct,
    avg_win_pct: summary.avg_win_pct,
    avg_loss_pct: summary.avg_loss_pct,
    expectancy: summary.expectancy,
    total_pnl_usd: usd ? usd.reduce((s, x) => s + x, 0) : null,
    max_drawdown_usd: usd ? maxDrawdownOfSum(usd) : null,
    liquidations: pnl.filter((p) => p === MAX_LOSS_PCT).length,
    trade_pnl_pct: pnl,
  }
}
