/**
 * The /backtest body → RunSpec step, in the run pipeline so that every area that runs a
 * custom tree as /backtest does (/backtest, the bot generator's recomputed backtest, the
 * research endpoints' custom trees, the share cards' presets) calls the one mapping,
 * without importing the backtest module. The body's shape is written structurally here
 * (the run pipeline imports no module); /backtest's request schema (`BacktestRequest` in
 * src/modules/backtest/model.ts) is checked against it where the service passes its parsed
 * body in.
 */
import { DEFAULT_FEE_FRAC } from '../engine/types'
import type { Timeframe } from '../market/timeframe'
import type { ConditionNode } from '../strategies/conditions'
import { executionSpecOf, type ExecutionBodyFields } from './execution-spec'
import type { RunSpec } from './spec'

/** The fields of a /backtest body (its schema: `BacktestRequest` in src/modules/backtest/model.ts). */
export interface BacktestFields extends ExecutionBodyFields {
  name: string
  direction?: 'short' | 'long'
  indicators: Record<string, Record<string, number>>
  entry: Record<string, unknown>
  exit_conditions?: Record<string, unknown> | null
  avoid_hours: number[]
  avoid_months: number[] | null
  min_vol_regime: number | null
  sl_pct: number
  tp_pct: number
  tp_source: 'custom_pct' | 'trailing'
  trailing_pct: number | null
  max_bars: number
  top_n: number | null
  symbols: string[] | null
  include_stablecoins: boolean
  symbol: string | null
  start_date: string | null
  end_date: string | null
  timeframe: Timeframe
  per_coin_usd: number
  leverage: number
  max_concurrent_positions: number
  compounding: boolean
  stop_at_ruin: boolean
}

const sortedUnique = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b)

export function backtestSpec(body: BacktestFields): RunSpec {
  const symbols = body.symbol ? [body.symbol] : body.symbols
  return {
    kind: 'backtest',
    name: body.name,
    strategyId: null,
    direction: body.direction ?? 'short',
    directionSource: body.direction ? 'request' : 'default_short',
    strategy: { indicators: body.indicators, entry: body.entry as unknown as ConditionNode, exit_conditions: (body.exit_conditions ?? null) as ConditionNode | null },
    avoidHours: sortedUnique(body.avoid_hours),
    avoidMonths: body.avoid_months ? sortedUnique(body.avoid_months) : null,
    minVolRegime: body.min_vol_regime,
    slPct: body.sl_pct,
    tpPct: body.tp_pct,
    tpSource: body.tp_source,
    trailingPct: body.tp_source === 'trailing' ? body.trailing_pct : null,
    maxBars: body.max_bars,
    marketType: 'futures',
    leverage: body.leverage,
    feeFrac: DEFAULT_FEE_FRAC.futures,
    timeframe: body.timeframe,
    startDate: body.start_date,
    endDate: body.end_date,
    topN: symbols ? null : body.top_n,
    symbols: symbols ? [...new Set(symbols.map(s => s.toUpperCase()))] : null,
    includeStablecoins: symbols ? false : body.include_stablecoins,
    perCoinUsd: body.per_coin_usd,
    maxConcurrent: body.max_concurrent_positions,
    compounding: body.compounding,
    stopAtRuin: body.stop_at_ruin,
    ...executionSpecOf(body),
  }
}
