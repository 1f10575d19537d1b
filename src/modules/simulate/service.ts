/**
 * /simulate, /simulate/coin and /simulate/compare: registry strategies turned into RunSpecs
 * and run by the run service; also the per-coin figures /coins/stats shows.
 */
import { resultBucket } from '../../engine/metrics-breakdown'
import { asSpelled, OverLimit } from '../../runs/errors'
import { COMPARE_MAX_TOP_N, INDICATOR_CACHE_COINS } from '../../runs/limits'
import { dataRange, executionOf, responseBody, tradeItemsFrom } from '../../runs/present'
import { isoInstant } from '../../time'
import type { RunMetricsResult } from '../../runs/compute/coin-tasks'
import { executionSpecOf } from '../../runs/execution-spec'
import type { CapacityBlock, CostsBlock, IntrabarBlock } from '../../runs/result-model'
import type { RunService } from '../../runs/service'
import { checkDates, registrySpec, registryStrategy } from '../../runs/spec'
import { checkSpotSide, marketSpecOf, simulateSpec } from '../../runs/simulate-spec'
import { listStrategies } from '../../strategies/registry'
import type { CoinSimRequest, CoinSimResponse, CompareRequest, CompareResponse, SimulateRequest, SimulateResponse } from './model'

export type SimulateBody = typeof SimulateRequest.static
export type CoinSimBody = typeof CoinSimRequest.static
export type CompareBody = typeof CompareRequest.static

export async function runSimulate(runs: RunService, body: SimulateBody, noCache: boolean): Promise<typeof SimulateResponse.static> {
  checkDates(body.start_date, body.end_date)
  const spec = runs.withUniverse(simulateSpec(body), body)
  const s = registryStrategy(body.strategy)
  // the body is built by runs/present.ts as the result schema's type; the response schema checks it on the way out
  const run = await runs.run(spec, { noCache }).catch(asSpelled(body.symbols ?? []))
  return { ...responseBody(run), strategy: s.id, strategy_name: s.name, status: s.status }
}

export async function runCoinSim(runs: RunService, body: CoinSimBody, noCache: boolean): Promise<typeof CoinSimResponse.static> {
  checkDates(body.start_date, body.end_date)
  const requested = body.strategy ? registryStrategy(body.strategy) : null
  const direction = body.direction ?? requested?.direction ?? 'short'
  const s = requested ?? registryStrategy(`bb-squeeze-${direction}`)
  checkSpotSide(
    body.market_type,
    direction,
    body.direction !== undefined
      ? { field: 'direction', input: body.direction, why: "direction is 'short'" }
      : requested
        ? { field: 'strategy', input: body.strategy, why: `'${requested.id}' is a short strategy` }
        : { field: 'direction', input: null, why: "direction defaults to 'short' when neither direction nor strategy is given" },
  )
  const spec = registrySpec(s, {
    direction,
    slPct: body.sl_pct,
    tpPct: body.tp_pct,
    maxBars: body.max_bars,
    ...marketSpecOf(body),
    symbols: [body.symbol.toUpperCase()],
    maxConcurrent: 1,
    stopAtRuin: body.stop_at_ruin,
  })
  const r = await runs.run(spec, { noCache, statistics: false }).catch(asSpelled([body.symbol]))
  const m = r.assembled.metrics
  const p = r.assembled.portfolio
  return {
    symbol: spec.symbols![0],
    strategy: s.id,
    direction,
    market_type: spec.marketType,
    fee_pct: spec.feeFrac,
    leverage: spec.leverage,
    total_trades: m.total_trades,
    win_rate: m.win_rate,
    profit_factor: m.profit_factor,
    total_return_pct: m.total_return_pct,
    max_drawdown_pct: m.max_drawdown_pct,
    tp_count: m.tp_count,
    sl_count: m.sl_count,
    timeout_count: m.timeout_count,
    trailing_count: m.trailing_count,
    signal_count: m.signal_count,
    liquidation_count: m.liquidation_count,
    end_of_data_count: m.end_of_data_count,
    delisted_count: m.delisted_count,
    stop_at_ruin: r.assembled.body.stop_at_ruin,
    ruined_at: r.assembled.body.ruined_at,
    sharpe_ratio: m.sharpe_ratio,
    sortino_ratio: m.sortino_ratio,
    calmar_ratio: m.calmar_ratio,
    total_fees_pct: m.total_fees_pct,
    total_funding_pct: m.total_funding_pct,
    funding_coverage_pct: m.funding_coverage_pct,
    data_range: r.assembled.body.data_range,
    trades: tradeItemsFrom(p).map((item, k) => ({ ...item, result: resultBucket(item.exit_reason, p.trades.pnlPct[p.entryOrder[k]]) })),
    ...executionOf(r.assembled.body),
    result_hash: r.hash,
    compute_time_ms: r.computeMs,
  }
}

export async function runCompare(runService: RunService, body: CompareBody, noCache: boolean): Promise<typeof CompareResponse.static> {
  const topN = body.top_n ?? COMPARE_MAX_TOP_N
  if (topN > COMPARE_MAX_TOP_N)
    throw new OverLimit(`compare runs every strategy and is limited to ${COMPARE_MAX_TOP_N} coins; run one strategy over more coins with POST /simulate`, {
      max_top_n: COMPARE_MAX_TOP_N,
      requested: topN,
      alternative: '/simulate',
    })
  const strategies = listStrategies()
  const execution = executionSpecOf(body)
  const specs = strategies.map(s => runService.withUniverse(registrySpec(s, { slPct: body.sl_pct, tpPct: body.tp_pct, maxBars: body.max_bars, topN, ...execution }), body))
  // one request: its strategies run as one batch, each with its intrabar, costs and capacity blocks
  const { symbols, accounting, runs } = await runService.batch(specs, { noCache, report: true })
  // the indicator cache bounds the coins a cached path computes; compare_max_coins no longer binds
  const target = Math.min(topN, accounting.eligible_universe ?? topN)
  const runCap = target > INDICATOR_CACHE_COINS ? INDICATOR_CACHE_COINS : null
  return {
    sl_pct: body.sl_pct,
    tp_pct: body.tp_pct,
    max_bars: body.max_bars,
    coins_used: symbols.length,
    data_range: dataRange(runs[0]?.span ?? null),
    top_n_requested: topN,
    eligible_universe: accounting.eligible_universe,
    universe_capped: accounting.universe_capped,
    universe_mode: specs[0]?.universe === 'point_in_time' ? 'point_in_time' : 'current',
    rebalance: specs[0]?.rebalance ?? null,
    run_cap: runCap,
    run_cap_reason: runCap === null ? null : 'indicator_cache',
    coins_not_computed: [],
    strategies: runs.map((r, i) => {
      const m = r.metrics
      const s = strategies[i]
      const report = reportOf(r)
      return {
        strategy_id: s.id,
        name: s.name,
        direction: s.direction,
        status: s.status,
        win_rate: m.win_rate,
        profit_factor: m.profit_factor,
        total_trades: m.total_trades,
        total_return_pct: m.total_return_pct,
        max_drawdown_pct: m.max_drawdown_pct,
        ruined_at: r.ruinedAtMs === null ? null : isoInstant(r.ruinedAtMs),
        sharpe_ratio: m.sharpe_ratio,
        intrabar: report.intrabar,
        costs: report.costs,
        capacity: report.capacity,
      }
    }),
  }
}

/** A compare run's blocks: its specs carry intrabar and the execution settings, so the batch built all three. */
function reportOf(r: RunMetricsResult): { intrabar: IntrabarBlock; costs: CostsBlock; capacity: CapacityBlock } {
  const rep = r.report
  if (!rep || !rep.intrabar || !rep.capacity) throw new Error('compare: a run came back without its intrabar, costs or capacity block')
  return { intrabar: rep.intrabar, costs: rep.costs, capacity: rep.capacity }
}

/**
 * Per-coin figures of one registry strategy with its default settings (for
 * /coins/stats): trades, win rate, profit factor and summed return per symbol.
 */
export async function coinStrategyFigures(runs: RunService, strategyId: string, symbols: string[]) {
  const s = registryStrategy(strategyId)
  const r = await runs.run(registrySpec(s, { symbols, maxConcurrent: Math.max(1, symbols.length) }), { statistics: false })
  const out = new Map<string, { trades: number; win_rate: number; profit_factor: number; total_return_pct: number }>()
  for (const c of r.assembled.metrics.coin_results)
    out.set(c.symbol, { trades: c.trades, win_rate: c.win_rate, profit_factor: c.profit_factor, total_return_pct: c.total_return_pct })
  return out
}
