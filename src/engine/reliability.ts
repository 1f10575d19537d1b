/**
 * The five reliability axes of a backtest result (contract: "Reliability check").
 * Thresholds and the reasons for them are in docs/metrics.md; each check fills `value`
 * and `threshold`. A result with zero trades evaluates only `trades`: the other four are
 * `not_evaluated` (value null), which is not a pass.
 */
import { roundTo } from '../round'
import { DAY_MS, isoDay } from '../time'
import type { TradeTable } from './trade-table'

export type AxisId = 'trades' | 'ruin' | 'sample' | 'leverage' | 'diversification'
export type Verdict = 'pass' | 'fail' | 'not_evaluated'

export interface ReliabilityCheck {
  axis_id: AxisId
  verdict: Verdict
  value: number | null
  threshold: number | null
  message: string | null
}

export const RELIABILITY_THRESHOLDS = {
  /** fewer trades than this: the win rate and profit factor are mostly noise */
  minTrades: 30,
  /** a daily-equity drawdown at or beyond this % of the peak is near ruin */
  maxDrawdownPct: 50,
  /** trades spanning fewer days than this cover one market regime at best */
  minSpanDays: 90,
  /** above this leverage a few % against the position liquidates it */
  maxLeverage: 10,
  /** above this share (%) of the coins' absolute net P&L, one coin decides the result */
  maxTopCoinSharePct: 50,
} as const

export interface ReliabilityInput {
  totalTrades: number
  /** max drawdown of the daily equity curve, % (a magnitude ≥ 0) */
  maxDrawdownPct: number
  /** days from the first entry to the last exit */
  spanDays: number
  leverage: number
  /** summed net % per coin that traded */
  coinReturnsPct: readonly number[]
  /** the instant the portfolio's equity reached zero (PortfolioResult.ruinedAtMs); null or absent when it never did */
  ruinedAtMs?: number | null
}

/** The input of the checks from the accepted trades, the drawdown, the leverage and the instant of ruin. */
export function reliabilityInput(trades: TradeTable, maxDrawdownPct: number, leverage: number, ruinedAtMs: number | null = null): ReliabilityInput {
  let first = Infinity
  let last = -Infinity
  const byCoin = new Float64Array(trades.symbols.length)
  const traded = new Uint8Array(trades.symbols.length)
  for (let i = 0; i < trades.n; i++) {
    if (trades.entryMs[i] < first) first = trades.entryMs[i]
    if (trades.exitMs[i] > last) last = trades.exitMs[i]
    byCoin[trades.coin[i]] += trades.pnlPct[i]
    traded[trades.coin[i]] = 1
  }
  return {
    totalTrades: trades.n,
    maxDrawdownPct,
    spanDays: trades.n > 0 ? (last - first) / DAY_MS : 0,
    leverage,
    coinReturnsPct: Array.from(byCoin).filter((_, c) => traded[c] === 1),
    ruinedAtMs,
  }
}

/** Share (%) of Σ|coin net P&L| held by the coin with the largest |net P&L|; 0 when all are 0. */
export function topCoinSharePct(coinReturnsPct: readonly number[]): number {
  let total = 0
  let top = 0
  for (const x of coinReturnsPct) {
    total += Math.abs(x)
    if (Math.abs(x) > top) top = Math.abs(x)
  }
  return total > 0 ? (100 * top) / total : 0
}

function check(axis_id: AxisId, failed: boolean, value: number, threshold: number, why: string): ReliabilityCheck {
  return { axis_id, verdict: failed ? 'fail' : 'pass', value, threshold, message: failed ? why : null }
}

const fmt = (x: number) => String(roundTo(x, 1))

export function reliabilityChecks(input: ReliabilityInput): ReliabilityCheck[] {
  const th = RELIABILITY_THRESHOLDS
  const trades = check(
    'trades',
    input.totalTrades < th.minTrades,
    input.totalTrades,
    th.minTrades,
    `only ${input.totalTrades} trades (fewer than ${th.minTrades}): the figures are mostly noise`,
  )
  if (input.totalTrades === 0) {
    const skipped = (axis_id: AxisId, threshold: number): ReliabilityCheck => ({
      axis_id,
      verdict: 'not_evaluated',
      value: null,
      threshold,
      message: 'not evaluated: no trades',
    })
    return [
      trades,
      skipped('ruin', th.maxDrawdownPct),
      skipped('sample', th.minSpanDays),
      skipped('leverage', th.maxLeverage),
      skipped('diversification', th.maxTopCoinSharePct),
    ]
  }
  const share = topCoinSharePct(input.coinReturnsPct)
  const ruinedAt = input.ruinedAtMs ?? null
  return [
    trades,
    ruinedAt !== null
      ? check('ruin', true, input.maxDrawdownPct, th.maxDrawdownPct, `ruined on ${isoDay(ruinedAt)}: the portfolio's equity reached zero`)
      : check(
          'ruin',
          input.maxDrawdownPct >= th.maxDrawdownPct,
          input.maxDrawdownPct,
          th.maxDrawdownPct,
          `max drawdown ${fmt(input.maxDrawdownPct)}% (at least ${th.maxDrawdownPct}%): close to ruin`,
        ),
    check(
      'sample',
      input.spanDays < th.minSpanDays,
      input.spanDays,
      th.minSpanDays,
      `trades span ${fmt(input.spanDays)} days (fewer than ${th.minSpanDays}): one market regime at best`,
    ),
    check(
      'leverage',
      input.leverage > th.maxLeverage,
      input.leverage,
      th.maxLeverage,
      `leverage ${input.leverage}x (above ${th.maxLeverage}x): a small adverse move liquidates`,
    ),
    check(
      'diversification',
      share > th.maxTopCoinSharePct,
      share,
      th.maxTopCoinSharePct,
      `one coin carries ${fmt(share)}% of the P&L (more than ${th.maxTopCoinSharePct}%)`,
    ),
  ]
}

/** null when no check failed; otherwise the failed checks' messages in one sentence. */
export function reliabilityWarning(checks: readonly ReliabilityCheck[]): string | null {
  const failed = checks.filter((c) => c.verdict === 'fail')
  if (failed.length === 0) return null
  return `Reliability: ${failed.map((c) => c.message ?? c.axis_id).join('; ')}.`
}
