/**
 * /simulate, /simulate/coin, /simulate/compare and /export/csv as services over the
 * SimulationService: registry strategies turned into RunSpecs.
 */
import type { Direction, MarketType } from '../engine/types'
import { DEFAULT_FEE_FRAC } from '../engine/types'
import { HttpError, unprocessable } from '../http/errors'
import type { Timeframe } from '../market/timeframe'
import { getStrategy, listStrategies, type StrategyDef } from '../strategies/registry'
import { runBody, requestProblems } from './backtest'
import { dataRange, tradeItem } from './run-result'
import type { RunSpec } from './run-spec'
import { UnknownSymbols, type SimulationService } from './simulation'
import { resultBucket } from '../engine/metrics-breakdown'
import { tradesInEntryOrder } from '../engine/portfolio'

export interface SimulateBody {
  strategy: string
  sl_pct?: number
  tp_pct?: number
  max_bars?: number
  market_type: MarketType
  top_n: number | null
  /** explicit symbols instead of the top-N universe */
  symbols?: string[] | null
  timeframe: Timeframe
  start_date: string | null
  end_date: string | null
  leverage: number
  fee_pct: number | null
  per_coin_usd: number
  max_concurrent_positions: number
  compounding: boolean
  include_stablecoins: boolean
}

export interface CoinSimBody {
  symbol: string
  fee_pct: number | null
  sl_pct: number
  tp_pct: number
  max_bars: number
  direction?: Direction
  market_type: MarketType
  start_date: string | null
  end_date: string | null
  timeframe: Timeframe
  strategy: string | null
  leverage: number
}

export interface CompareBody {
  sl_pct: number
  tp_pct: number
  max_bars: number
  top_n: number | null
}

/** most coins /simulate/compare runs (null top_n means this too) */
export const COMPARE_MAX_TOP_N = 5
/** coins whose indicators the cached paths (compare, validate, optimize) compute per request */
export const INDICATOR_CACHE_COINS = 50

function strategyOr404(id: string): StrategyDef {
  const s = getStrategy(id)
  if (!s) throw new HttpError(404, { detail: `Unknown strategy '${id}'. Valid ids: ${listStrategies().map(x => x.id).join(', ')}` })
  return s
}

function registrySpec(s: StrategyDef, over: Partial<RunSpec>): RunSpec {
  return {
    kind: 'simulate',
    name: s.name,
    strategyId: s.id,
    direction: s.direction,
    directionSource: 'request',
    strategy: { indicators: s.indicators, entry: s.entry, exit_conditions: s.exit_conditions ?? null },
    avoidHours: [],
    avoidMonths: null,
    minVolRegime: null,
    slPct: s.sl_pct,
    tpPct: s.tp_pct,
    tpSource: 'custom_pct',
    trailingPct: null,
    maxBars: s.max_bars,
    marketType: 'futures',
    leverage: 1,
    feeFrac: DEFAULT_FEE_FRAC.futures,
    timeframe: '1H',
    startDate: null,
    endDate: null,
    topN: null,
    symbols: null,
    includeStablecoins: false,
    perCoinUsd: 60,
    maxConcurrent: 100,
    compounding: false,
    ...over,
  }
}

function checkDates(start: string | null, end: string | null): void {
  const problems = requestProblems(start, end)
  if (problems.length) throw unprocessable(problems)
}

/** Market, costs and window of a request: the same fields on /simulate and /simulate/coin. */
function marketOf(body: { market_type: MarketType; leverage: number; fee_pct: number | null; timeframe: Timeframe; start_date: string | null; end_date: string | null }): Partial<RunSpec> {
  return {
    marketType: body.market_type,
    leverage: body.market_type === 'spot' ? 1 : body.leverage, // spot: no leverage
    feeFrac: body.fee_pct ?? DEFAULT_FEE_FRAC[body.market_type],
    timeframe: body.timeframe,
    startDate: body.start_date,
    endDate: body.end_date,
  }
}

export function simulateSpec(body: SimulateBody): RunSpec {
  const s = strategyOr404(body.strategy)
  return registrySpec(s, {
    slPct: body.sl_pct ?? s.sl_pct,
    tpPct: body.tp_pct ?? s.tp_pct,
    maxBars: body.max_bars ?? s.max_bars,
    ...marketOf(body),
    topN: body.symbols ? null : body.top_n,
    symbols: body.symbols ? body.symbols.map(x => x.toUpperCase()) : null,
    includeStablecoins: body.include_stablecoins,
    perCoinUsd: body.per_coin_usd,
    maxConcurrent: body.max_concurrent_positions,
    compounding: body.compounding,
  })
}

export async function runSimulate(sim: SimulationService, body: SimulateBody, noCache: boolean) {
  checkDates(body.start_date, body.end_date)
  const spec = simulateSpec(body)
  const s = getStrategy(body.strategy)!
  let r
  try {
    r = await sim.run(spec, { noCache })
  } catch (e) {
    if (e instanceof UnknownSymbols)
      throw unprocessable(e.symbols.map(x => ({ type: 'value_error', loc: ['body', 'symbols'], msg: `unknown symbol '${x}' (see GET /coins)`, input: x })))
    throw e
  }
  return runBody(r, { strategy: s.id, strategy_name: s.name, status: s.status })
}

export async function runCoinSim(sim: SimulationService, body: CoinSimBody, noCache: boolean) {
  checkDates(body.start_date, body.end_date)
  const requested = body.strategy ? strategyOr404(body.strategy) : null
  const direction = body.direction ?? requested?.direction ?? 'short'
  const s = requested ?? strategyOr404(`bb-squeeze-${direction}`)
  const spec = registrySpec(s, {
    direction,
    slPct: body.sl_pct,
    tpPct: body.tp_pct,
    maxBars: body.max_bars,
    ...marketOf(body),
    symbols: [body.symbol.toUpperCase()],
    maxConcurrent: 1,
  })
  let r
  try {
    r = await sim.run(spec, { noCache, statistics: false })
  } catch (e) {
    if (e instanceof UnknownSymbols) throw new HttpError(404, { detail: `Unknown symbol '${body.symbol}': see GET /coins` })
    throw e
  }
  const m = r.assembled.metrics
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
    sharpe_ratio: m.sharpe_ratio,
    sortino_ratio: m.sortino_ratio,
    calmar_ratio: m.calmar_ratio,
    total_fees_pct: m.total_fees_pct,
    total_funding_pct: m.total_funding_pct,
    funding_coverage_pct: m.funding_coverage_pct,
    data_range: r.assembled.body.data_range,
    trades: tradesInEntryOrder(r.assembled.portfolio).map(t => ({ ...tradeItem(t), result: resultBucket(t.exitReason, t.pnlPct) })),
    result_hash: r.hash,
    compute_time_ms: r.computeMs,
  }
}

export async function runCompare(sim: SimulationService, body: CompareBody, noCache: boolean) {
  const topN = body.top_n ?? COMPARE_MAX_TOP_N
  if (topN > COMPARE_MAX_TOP_N)
    throw new HttpError(400, {
      detail: {
        error: `compare runs every strategy and is limited to ${COMPARE_MAX_TOP_N} coins; run one strategy over more coins with POST /simulate`,
        max_top_n: COMPARE_MAX_TOP_N,
        requested: topN,
        alternative: '/simulate',
      },
    })
  const strategies = listStrategies()
  sim.admit(1) // one request: its strategies run as one batch
  const specs = strategies.map(s => registrySpec(s, { slPct: body.sl_pct, tpPct: body.tp_pct, maxBars: body.max_bars, topN }))
  const { symbols, accounting } = sim.resolveUniverse(specs[0])
  const runs = await sim.batchMetrics(specs, symbols, { noCache })
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
    run_cap: runCap,
    run_cap_reason: runCap === null ? null : 'indicator_cache',
    coins_not_computed: [],
    strategies: runs.map((r, i) => {
      const m = r.metrics
      const s = strategies[i]
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
        sharpe_ratio: m.sharpe_ratio,
      }
    }),
  }
}

const CSV_COLUMNS = ['symbol', 'direction', 'entry_time', 'exit_time', 'entry_price', 'exit_price', 'bars_held', 'exit_reason', 'pnl_pct', 'pnl_usd', 'fee_pct', 'funding_pct', 'sl_tp_same_bar'] as const

export async function exportCsv(sim: SimulationService, hash: string): Promise<string> {
  const r = await sim.byHash(hash)
  if (!r) throw new HttpError(404, { detail: `Unknown result hash '${hash}': run POST /backtest or /simulate first; their responses carry result_hash` })
  const lines = [CSV_COLUMNS.join(',')]
  for (const t of tradesInEntryOrder(r.assembled.portfolio)) {
    const item = tradeItem(t) as Record<string, unknown>
    lines.push(CSV_COLUMNS.map(c => String(item[c])).join(','))
  }
  return lines.join('\n') + '\n'
}

/**
 * Per-coin figures of one registry strategy with its default settings (for
 * /coins/stats): trades, win rate, profit factor and summed return per symbol.
 */
export async function coinStrategyFigures(sim: SimulationService, strategyId: string, symbols: string[]) {
  const s = strategyOr404(strategyId)
  const r = await sim.run(registrySpec(s, { symbols, maxConcurrent: Math.max(1, symbols.length) }), { statistics: false })
  const out = new Map<string, { trades: number; win_rate: number; profit_factor: number; total_return_pct: number }>()
  for (const c of r.assembled.metrics.coin_results)
    out.set(c.symbol, { trades: c.trades, win_rate: c.win_rate, profit_factor: c.profit_factor, total_return_pct: c.total_return_pct })
  return out
}
