/**
 * The run behind /simulate/validate and /simulate/optimize: a registry strategy (as
 * /simulate) or a custom condition tree (as /backtest), over the top-N universe capped at
 * the indicator-cache size (the contract's "cached paths compute at most the
 * indicator-cache size of coins per request"), with run_cap reported as compare does.
 */
import { DEFAULT_FEE_FRAC } from '../../engine/types'
import type { Universe } from '../../market/universe'
import { InvalidRequest } from '../../runs/errors'
import { checkDates, DEFAULT_TOP_N, type RunSpec } from '../../runs/spec'
import { checkSpotSide } from '../../runs/simulate-spec'
import type { StrategySpec } from '../../strategies/conditions'
import { validateStrategy } from '../../strategies/validate'
import { backtestSpec } from '../../runs/backtest-spec'
import { pickExecution } from '../../runs/execution-spec'
import { INDICATOR_CACHE_COINS } from '../../runs/limits'
import { simulateSpec } from '../../runs/simulate-spec'
import type { ValidateRequest } from './model'

/** Fields shared by the validate and optimize requests. */
export type ResearchBody = Omit<typeof ValidateRequest.static, 'oos_pct' | 'n_simulations' | 'seed'>

export interface ResearchRun {
  spec: RunSpec
  /** the registry id, or null for a custom tree */
  strategyId: string | null
  name: string
  top_n_requested: number
  eligible_universe: number
  universe_capped: boolean
  run_cap: number | null
  run_cap_reason: 'indicator_cache' | null
}

/** Backtest defaults where a custom tree leaves them out (the registry has its own). */
const CUSTOM_DEFAULTS = { name: 'Custom Strategy', slPct: 10, tpPct: 8, maxBars: 48 }

function customSpec(body: ResearchBody): RunSpec {
  const spec = backtestSpec({
    name: body.name ?? CUSTOM_DEFAULTS.name,
    direction: body.direction,
    indicators: body.indicators ?? { bb: {}, ema: {}, volume: {}, candle: {} },
    entry: body.entry!,
    exit_conditions: body.exit_conditions ?? null,
    avoid_hours: body.avoid_hours ?? [],
    avoid_months: body.avoid_months ?? null,
    min_vol_regime: body.min_vol_regime ?? null,
    sl_pct: body.sl_pct ?? CUSTOM_DEFAULTS.slPct,
    tp_pct: body.tp_pct ?? CUSTOM_DEFAULTS.tpPct,
    tp_source: body.tp_source ?? 'custom_pct',
    trailing_pct: body.trailing_pct ?? null,
    max_bars: body.max_bars ?? CUSTOM_DEFAULTS.maxBars,
    top_n: body.top_n,
    symbols: null,
    include_stablecoins: body.include_stablecoins,
    symbol: null,
    start_date: body.start_date,
    end_date: body.end_date,
    timeframe: body.timeframe,
    per_coin_usd: body.per_coin_usd,
    leverage: body.leverage,
    max_concurrent_positions: body.max_concurrent_positions,
    compounding: body.compounding,
    stop_at_ruin: body.stop_at_ruin,
    ...pickExecution(body),
  })
  const spot = body.market_type === 'spot'
  checkSpotSide(body.market_type, spec.direction, {
    field: 'direction',
    input: body.direction ?? null,
    why: body.direction ? "direction is 'short'" : "direction defaults to 'short' for a custom tree",
  })
  return { ...spec, marketType: body.market_type, leverage: spot ? 1 : spec.leverage, feeFrac: body.fee_pct ?? DEFAULT_FEE_FRAC[body.market_type] }
}

/**
 * The request as a RunSpec over at most INDICATOR_CACHE_COINS coins. InvalidRequest for bad
 * dates, for neither or both of strategy and entry, and for an invalid tree (with the
 * validation messages); UnknownStrategy for an unknown registry id (as /simulate).
 */
export function researchRun(body: ResearchBody, universe: Universe): ResearchRun {
  checkDates(body.start_date, body.end_date)
  const hasStrategy = body.strategy !== undefined
  const hasTree = body.entry !== undefined
  if (hasStrategy === hasTree)
    throw new InvalidRequest([
      { loc: ['body'], msg: hasStrategy ? 'give either strategy or entry, not both' : 'give strategy (a registry id, GET /strategies) or a custom entry tree', input: null },
    ])
  let spec: RunSpec
  if (hasStrategy) {
    spec = simulateSpec({
      strategy: body.strategy!,
      sl_pct: body.sl_pct,
      tp_pct: body.tp_pct,
      max_bars: body.max_bars,
      market_type: body.market_type,
      top_n: body.top_n,
      timeframe: body.timeframe,
      start_date: body.start_date,
      end_date: body.end_date,
      leverage: body.leverage,
      fee_pct: body.fee_pct,
      per_coin_usd: body.per_coin_usd,
      max_concurrent_positions: body.max_concurrent_positions,
      compounding: body.compounding,
      stop_at_ruin: body.stop_at_ruin,
      include_stablecoins: body.include_stablecoins,
      ...pickExecution(body),
    })
  } else {
    spec = customSpec(body)
    const errors = validateStrategy(spec.strategy as StrategySpec)
    if (errors.length) throw new InvalidRequest(errors.map(msg => ({ loc: ['body', 'entry'], msg, input: null })))
  }
  const topN = body.top_n ?? DEFAULT_TOP_N
  const eligible = universe.eligible({ includeStablecoins: body.include_stablecoins }).length
  const runCap = Math.min(topN, eligible) > INDICATOR_CACHE_COINS ? INDICATOR_CACHE_COINS : null
  return {
    spec: { ...spec, topN: runCap ?? topN },
    strategyId: spec.strategyId,
    name: spec.name,
    top_n_requested: topN,
    eligible_universe: eligible,
    universe_capped: eligible < topN,
    run_cap: runCap,
    run_cap_reason: runCap === null ? null : 'indicator_cache',
  }
}
