/**
 * The /simulate body → RunSpec step, in the run pipeline so that the /simulate service and
 * the jobs that publish /simulate bodies (the daily rankings) call the one mapping: a
 * ranking row's run is, by construction, the run /simulate makes of the body it publishes.
 * The body's shape is written structurally here (the run pipeline imports no module);
 * /simulate's request schema (`SimulateRequest`) is checked against it where the service
 * passes its parsed body in.
 */
import { DEFAULT_FEE_FRAC, type Direction, type MarketType } from '../engine/types'
import type { Timeframe } from '../market/timeframe'
import { InvalidRequest } from './errors'
import { executionSpecOf, type ExecutionBodyFields } from './execution-spec'
import { registrySpec, registryStrategy, type RunSpec } from './spec'

/** Market, costs and window of a request: the same fields on /simulate and /simulate/coin. */
export interface MarketFields extends ExecutionBodyFields {
  market_type: MarketType
  leverage: number
  fee_pct: number | null
  timeframe: Timeframe
  start_date: string | null
  end_date: string | null
}

/** The fields of a /simulate body (its schema: `SimulateRequest` in src/modules/simulate/model.ts). */
export interface SimulateFields extends MarketFields {
  strategy: string
  sl_pct?: number
  tp_pct?: number
  max_bars?: number
  top_n: number | null
  symbols?: string[] | null
  include_stablecoins: boolean
  per_coin_usd: number
  max_concurrent_positions: number
  compounding: boolean
  /** default true (SimulateRequest); optional here for bodies published before it existed */
  stop_at_ruin?: boolean
  /** the universe (RunService.withUniverse decides it); absent in bodies published before it existed */
  universe?: 'point_in_time' | 'current' | null
  rebalance?: 'monthly' | 'weekly' | 'none' | null
}

/** A request's market, costs and window as RunSpec fields (spot: no leverage). */
export function marketSpecOf(body: MarketFields): Partial<RunSpec> {
  return {
    marketType: body.market_type,
    leverage: body.market_type === 'spot' ? 1 : body.leverage, // spot: no leverage
    feeFrac: body.fee_pct ?? DEFAULT_FEE_FRAC[body.market_type],
    timeframe: body.timeframe,
    startDate: body.start_date,
    endDate: body.end_date,
    ...executionSpecOf(body),
  }
}

/** The field a run's direction comes from, as the request sent it, and how it decided the side. */
export interface SideSource {
  field: 'direction' | 'strategy'
  input: unknown
  /** "direction is 'short'", "'bb-squeeze-short' is a short strategy", "direction defaults to 'short' …" */
  why: string
}

/**
 * Spot has no short side: a spot account cannot sell what it does not hold, so a short
 * run on spot would book trades nobody can make. A 422 naming both fields (docs/api.md
 * "Field combinations"), never a run.
 */
export function checkSpotSide(marketType: MarketType, direction: Direction, source: SideSource): void {
  if (marketType !== 'spot' || direction !== 'short') return
  throw new InvalidRequest([
    { loc: ['body', 'market_type'], msg: `market_type 'spot' has no short side, and ${source.why}: use market_type 'futures' to short, or a long ${source.field}`, input: 'spot' },
    { loc: ['body', source.field], msg: `${source.why}; a short needs market_type 'futures', not 'spot'`, input: source.input },
  ])
}

/** The run a /simulate body asks for: the registry strategy with the body's overrides. */
export function simulateSpec(body: SimulateFields): RunSpec {
  const s = registryStrategy(body.strategy)
  checkSpotSide(body.market_type, s.direction, { field: 'strategy', input: body.strategy, why: `'${s.id}' is a short strategy` })
  return registrySpec(s, {
    slPct: body.sl_pct ?? s.sl_pct,
    tpPct: body.tp_pct ?? s.tp_pct,
    maxBars: body.max_bars ?? s.max_bars,
    ...marketSpecOf(body),
    topN: body.symbols ? null : body.top_n,
    symbols: body.symbols ? body.symbols.map(x => x.toUpperCase()) : null,
    includeStablecoins: body.include_stablecoins,
    perCoinUsd: body.per_coin_usd,
    maxConcurrent: body.max_concurrent_positions,
    compounding: body.compounding,
    stopAtRuin: body.stop_at_ruin ?? true,
  })
}
