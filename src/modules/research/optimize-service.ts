/**
 * POST /simulate/optimize: an SL/TP grid search. Each coin's signals are computed once
 * (in the workers, from their signal cache) and only the exits change per cell; every
 * cell is booked as a portfolio of its own. The best cell's Sharpe ratio is deflated for
 * the grid's size (Bailey & López de Prado 2014): docs/statistics.md, "SL/TP optimisation".
 */
import type { BacktestMetrics } from '../../engine/metrics'
import { deflatedSharpe, dsrHaircutPct, trialSharpeVariance as sharpeVarianceAcross, type DeflatedSharpeInfo } from '../../engine/statistics'
import { effectiveLeverage } from '../../engine/types'
import type { GridCell } from '../../runs/compute/research-tasks'
import { InvalidRequest } from '../../runs/errors'
import { dataRange } from '../../runs/present'
import type { GridCellResult } from '../../runs/research'
import type { RunSpec } from '../../runs/spec'
import { isoInstant } from '../../time'
import type { OptimizeRequest, OptimizeResponse } from './model'
import { researchRun } from './research-spec'
import type { ResearchDeps } from './validate-service'

export type Objective = 'profit_factor' | 'sharpe' | 'total_return' | 'calmar'

export type OptimizeBody = typeof OptimizeRequest.static

/** The contract's limit: at most 36 simulations per grid. */
export const OPTIMIZE_MAX_CELLS = 36
/** A best cell with a deflated Sharpe below this is reported as not significant. */
export const DSR_SIGNIFICANCE = 0.95

const OBJECTIVE_METRIC: Record<Objective, keyof BacktestMetrics> = {
  profit_factor: 'profit_factor',
  sharpe: 'sharpe_ratio',
  total_return: 'total_return_pct',
  calmar: 'calmar_ratio',
}

const uniqueSorted = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b)

/** Candidate lists made unique and ascending; more than OPTIMIZE_MAX_CELLS cells is an InvalidRequest naming the limit. */
export function gridOf(slValues: number[], tpValues: number[]): { sl: number[]; tp: number[]; cells: GridCell[] } {
  const sl = uniqueSorted(slValues)
  const tp = uniqueSorted(tpValues)
  const n = sl.length * tp.length
  if (n > OPTIMIZE_MAX_CELLS)
    throw new InvalidRequest([
      {
        loc: ['body', 'tp_values'],
        msg: `sl_values × tp_values gives ${sl.length} × ${tp.length} = ${n} cells; the optimize grid runs at most ${OPTIMIZE_MAX_CELLS}`,
        input: tpValues,
      },
    ])
  return { sl, tp, cells: sl.flatMap(slPct => tp.map(tpPct => ({ slPct, tpPct }))) }
}

/** The grid search as one admitted run (RunService.gridSearch): a burst of optimize requests sheds with 503 like any run. */
export async function runOptimize(deps: ResearchDeps, body: OptimizeBody): Promise<typeof OptimizeResponse.static> {
  const started = performance.now()
  const grid = gridOf(body.sl_values, body.tp_values)
  const run = researchRun(body, deps.universe)
  const spec: RunSpec = deps.runs.withUniverse({ ...run.spec, slPct: grid.sl[0], tpPct: grid.tp[0] }, body)
  const { symbols } = deps.runs.runUniverse(spec)
  const { span, cells } = await deps.runs.gridSearch(spec, symbols, grid.cells)
  const metricKey = OBJECTIVE_METRIC[body.objective]
  const results = grid.cells.map((cell, j) => cellOf(cell, cells[j], metricKey))
  const best = bestCell(results)
  const deflation = deflationOf(results, best)
  const matrix = grid.sl.map((_, i) => results.slice(i * grid.tp.length, (i + 1) * grid.tp.length).map(r => r.item))
  return {
    strategy: run.strategyId ?? run.name,
    strategy_name: run.name,
    direction: spec.direction,
    objective: body.objective,
    max_bars: spec.maxBars,
    timeframe: spec.timeframe,
    leverage: effectiveLeverage(spec),
    coins_used: symbols.length,
    data_range: dataRange(span),
    top_n_requested: run.top_n_requested,
    eligible_universe: run.eligible_universe,
    universe_capped: run.universe_capped,
    universe_mode: spec.universe === 'point_in_time' ? ('point_in_time' as const) : ('current' as const),
    rebalance: spec.rebalance ?? null,
    run_cap: run.run_cap,
    run_cap_reason: run.run_cap_reason,
    n_cells: grid.cells.length,
    sl_values: grid.sl,
    tp_values: grid.tp,
    grid: matrix,
    heatmap: { rows: 'sl_pct', cols: 'tp_pct', metric: metricKey, values: matrix.map(row => row.map(c => c.objective_value)) },
    best: best?.item ?? null,
    ...deflation,
    warning: significanceWarning(best?.item ?? null, deflation.deflated_sharpe_info, grid.cells.length),
    compute_time_ms: Math.round(performance.now() - started),
  }
}

type CellResult = ReturnType<typeof cellOf>

/** One cell of the grid as the response lists it (zeros without trades), with its daily returns. */
function cellOf(cell: GridCell, r: GridCellResult | null, metricKey: keyof BacktestMetrics) {
  const m = r?.metrics
  const trades = m?.total_trades ?? 0
  return {
    daily: r?.daily ?? new Float64Array(0),
    item: {
      sl_pct: cell.slPct,
      tp_pct: cell.tpPct,
      total_trades: trades,
      win_rate: m?.win_rate ?? 0,
      profit_factor: m?.profit_factor ?? 0,
      total_return_pct: m?.total_return_pct ?? 0,
      total_return_pct_portfolio: m?.total_return_pct_portfolio ?? 0,
      avg_trade_pct: m?.expectancy ?? 0,
      max_drawdown_pct: m?.max_drawdown_pct ?? 0,
      ruined_at: r?.ruinedAtMs == null ? null : isoInstant(r.ruinedAtMs),
      sharpe_ratio: m?.sharpe_ratio ?? 0,
      sortino_ratio: m?.sortino_ratio ?? 0,
      calmar_ratio: m?.calmar_ratio ?? 0,
      // a cell without trades has nothing to rank
      objective_value: m && trades > 0 ? (m[metricKey] as number) : null,
    },
  }
}

/** The cell with the highest objective (the first of equals), or null when no cell traded. */
function bestCell(results: CellResult[]): CellResult | null {
  let best: CellResult | null = null
  for (const r of results) {
    const v = r.item.objective_value
    if (v !== null && (best === null || v > best.item.objective_value!)) best = r
  }
  return best
}

/** The best cell's Sharpe ratio deflated for the grid's trials, with V[SR] across the cells that traded. */
function deflationOf(results: CellResult[], best: CellResult | null) {
  // V[SR] across the trials: the per-day Sharpe ratios of the cells that traded
  const trialSharpeVariance = sharpeVarianceAcross(results.filter(r => r.item.total_trades > 0).map(r => r.item.sharpe_ratio))
  const opts = trialSharpeVariance === undefined ? {} : { trialSharpeVariance }
  const deflated: DeflatedSharpeInfo | null = best !== null && best.daily.length >= 2 ? deflatedSharpe(best.daily, results.length, opts) : null
  return {
    // as on /backtest and /simulate: the number is the DSR, the object the computation behind it
    deflated_sharpe: deflated ? deflated.dsr : null,
    deflated_sharpe_info: deflated,
    dsr_haircut_pct: deflated ? dsrHaircutPct(deflated, opts) : null,
    significant: deflated ? deflated.dsr >= DSR_SIGNIFICANCE : false,
  }
}

/** Why the best cell should not be trusted, or null when it is significant. */
function significanceWarning(best: CellResult['item'] | null, deflated: DeflatedSharpeInfo | null, nCells: number): string | null {
  if (!best) return 'No cell of the grid traded: there is nothing to pick.'
  if (!deflated)
    return `The best cell (SL ${best.sl_pct}%, TP ${best.tp_pct}%) has no daily return spread, so its Sharpe ratio cannot be deflated; treat it as not significant.`
  if (deflated.dsr < DSR_SIGNIFICANCE)
    return (
      `The best cell (SL ${best.sl_pct}%, TP ${best.tp_pct}%) is not significant after deflation for the ${nCells} cells tried: ` +
      `deflated Sharpe ${deflated.dsr.toFixed(3)} < ${DSR_SIGNIFICANCE}. Its edge may be the luck of picking the best of the grid.`
    )
  return null
}
