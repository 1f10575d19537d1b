/**
 * POST /simulate/validate: one run over the window, split by entry time into an
 * in-sample and an out-of-sample part (each booked as its own portfolio), a bootstrap of
 * the run's trades for the spread of outcomes, and the random-entry null with the
 * request's simulation count. Formulas: docs/statistics.md, "Validation".
 */
import type { PortfolioResult } from '../../engine/portfolio'
import { book, markOver } from '../../engine/run'
import { bookPath, percentileTable } from '../../engine/trade-bootstrap'
import { rowsWhereEntry, selectRows, type TradeTable } from '../../engine/trade-table'
import { effectiveLeverage } from '../../engine/types'
import type { CandleStore } from '../../market/candle-store'
import { DAY_MS, isoDay, isoInstant } from '../../time'
import type { Universe } from '../../market/universe'
import { dataRange, executionOf, type RunResult } from '../../runs/present'
import type { RunMonteCarlo } from '../../runs/research'
import type { RunService } from '../../runs/service'
import { portfolioOptionsOf, type RunSpec } from '../../runs/spec'
import type { ValidateRequest, ValidateResponse } from './model'
import { researchRun, type ResearchRun } from './research-spec'

export type ValidateBody = typeof ValidateRequest.static

export interface ResearchDeps {
  runs: RunService
  universe: Universe
  store: CandleStore
}

/** The verdict's thresholds (reported with it). */
export const VALIDATE_THRESHOLDS = {
  /** fewer trades than this in either part: no verdict */
  min_trades_per_part: 10,
  /** degradation ratio at or above this: robust */
  robust_ratio: 0.5,
  /** at or below this (the out-of-sample average trade lost): overfit */
  overfit_ratio: 0,
} as const

export type Verdict = 'robust' | 'degraded' | 'overfit' | 'no_in_sample_edge' | 'insufficient_data'
const RISK: Record<Verdict, 'low' | 'medium' | 'high' | 'unknown'> = {
  robust: 'low',
  degraded: 'medium',
  overfit: 'high',
  no_in_sample_edge: 'high',
  insufficient_data: 'unknown',
}

/** The figures of one part of the window: its trades booked as a portfolio of their own. */
export function partMetrics(spec: RunSpec, symbols: string[], trades: TradeTable, fromDayMs: number, toDayMs: number, store: CandleStore) {
  const { metrics: m, portfolio } = book(trades, portfolioOptionsOf(spec, symbols.length), markOver({ fromDayMs, toDayMs }, s => store.bars(s)))
  return {
    date_range: dataRange({ fromDayMs, toDayMs }),
    days: Math.round((toDayMs - fromDayMs) / DAY_MS) + 1,
    total_trades: m.total_trades,
    wins: m.wins,
    losses: m.losses,
    win_rate: m.win_rate,
    profit_factor: m.profit_factor,
    total_return_pct: m.total_return_pct,
    avg_trade_pct: m.expectancy,
    total_return_pct_portfolio: m.total_return_pct_portfolio,
    max_drawdown_pct: m.max_drawdown_pct,
    // each part is booked as a run of its own (fresh capital), so it is ruined or not on its own
    ruined_at: portfolio.ruinedAtMs === null ? null : isoInstant(portfolio.ruinedAtMs),
    sharpe_ratio: m.sharpe_ratio,
    sortino_ratio: m.sortino_ratio,
    calmar_ratio: m.calmar_ratio,
  }
}

export type PartMetrics = ReturnType<typeof partMetrics>

/** First out-of-sample day: the window's days cut at round(days × (1 − oos_pct/100)), at least one day on each side. */
export function splitDay(fromDayMs: number, toDayMs: number, oosPct: number): number | null {
  const days = Math.round((toDayMs - fromDayMs) / DAY_MS) + 1
  if (days < 2) return null
  const inSampleDays = Math.min(days - 1, Math.max(1, Math.round((days * (100 - oosPct)) / 100)))
  return fromDayMs + inSampleDays * DAY_MS
}

export function verdictOf(is: { total_trades: number; avg_trade_pct: number }, oos: { total_trades: number; avg_trade_pct: number }) {
  const t = VALIDATE_THRESHOLDS
  let verdict: Verdict
  let ratio: number | null = null
  if (is.total_trades < t.min_trades_per_part || oos.total_trades < t.min_trades_per_part) verdict = 'insufficient_data'
  else if (!(is.avg_trade_pct > 0)) verdict = 'no_in_sample_edge'
  else {
    ratio = oos.avg_trade_pct / is.avg_trade_pct
    verdict = ratio >= t.robust_ratio ? 'robust' : ratio > t.overfit_ratio ? 'degraded' : 'overfit'
  }
  const messages: Record<Verdict, string> = {
    robust: 'The out-of-sample average trade kept at least half of the in-sample one.',
    degraded: 'The out-of-sample average trade stayed positive but lost more than half of the in-sample one.',
    overfit: 'The out-of-sample average trade lost money: the in-sample result did not carry over.',
    no_in_sample_edge: 'The in-sample average trade is not positive: there is no edge to carry over.',
    insufficient_data: `Fewer than ${t.min_trades_per_part} trades in a part: too few to judge.`,
  }
  return { degradation_ratio: ratio, verdict, risk: RISK[verdict], message: messages[verdict], thresholds: { ...t } }
}

/**
 * The validation: its run and Monte Carlo on the workers as one admitted run
 * (RunService.validation: its tasks count against QUEUE_MAX with it), then the split.
 */
export async function runValidate(deps: ResearchDeps, body: ValidateBody, noCache: boolean): Promise<typeof ValidateResponse.static> {
  const started = performance.now()
  const researched = researchRun(body, deps.universe)
  const run = { ...researched, spec: deps.runs.withUniverse(researched.spec, body) }
  const v = await deps.runs.validation(run.spec, { noCache, simulations: body.n_simulations, seed: body.seed })
  const r = v.run
  const oos = outOfSample(run.spec, r.symbols, r.assembled.portfolio, body.oos_pct, deps.store)
  return {
    ...runFields(run, r),
    oos_pct: body.oos_pct,
    oos,
    monte_carlo: monteCarloOf(r, v, body.n_simulations),
    ...executionOf(r.assembled.body),
    result_hash: r.hash,
    compute_time_ms: Math.round(performance.now() - started),
  }
}

/** What the validated run was: strategy, settings, universe and trade count. */
function runFields(run: ResearchRun, r: RunResult) {
  const { spec } = run
  return {
    strategy: run.strategyId ?? run.name,
    strategy_name: run.name,
    direction: spec.direction,
    sl_pct: spec.slPct,
    tp_pct: spec.tpPct,
    max_bars: spec.maxBars,
    timeframe: spec.timeframe,
    leverage: effectiveLeverage(spec),
    coins_used: r.symbols.length,
    data_range: r.assembled.body.data_range,
    top_n_requested: run.top_n_requested,
    eligible_universe: run.eligible_universe,
    universe_capped: run.universe_capped,
    universe_mode: spec.universe === 'point_in_time' ? ('point_in_time' as const) : ('current' as const),
    rebalance: spec.rebalance ?? null,
    run_cap: run.run_cap,
    run_cap_reason: run.run_cap_reason,
    total_trades: r.assembled.portfolio.trades.n,
  }
}

/** The run's trades split by entry day into an in-sample and an out-of-sample portfolio, with the verdict. */
function outOfSample(spec: RunSpec, symbols: string[], portfolio: PortfolioResult, oosPct: number, store: CandleStore) {
  const curve = portfolio.equityCurve
  const fromDayMs = curve.length ? curve[0].tMs : null
  const toDayMs = curve.length ? curve[curve.length - 1].tMs : null
  const split = fromDayMs !== null && toDayMs !== null ? splitDay(fromDayMs, toDayMs, oosPct) : null
  if (split === null) {
    const none = { total_trades: 0, avg_trade_pct: 0 }
    return { split_date: null, is_metrics: null, oos_metrics: null, ...verdictOf(none, none) }
  }
  const trades = portfolio.trades
  const isMetrics = partMetrics(spec, symbols, selectRows(trades, rowsWhereEntry(trades, t => t < split)), fromDayMs!, split - DAY_MS, store)
  const oosMetrics = partMetrics(spec, symbols, selectRows(trades, rowsWhereEntry(trades, t => t >= split)), split, toDayMs!, store)
  return { split_date: isoDay(split), is_metrics: isMetrics, oos_metrics: oosMetrics, ...verdictOf(isMetrics, oosMetrics) }
}

/**
 * The run's trades resampled (a bootstrap of paths booked with the run's sizing; the
 * observed path books them in exit order) and the random-entry null over every coin, as
 * the workers computed them (runs/research.ts).
 */
function monteCarloOf(r: RunResult, mc: RunMonteCarlo & { seed: number }, simulations: number) {
  const { seed, sizing, bootstrap: boot, randomEntry: re } = mc
  const inExitOrder = mc.pnlInExitOrder
  const tradeCount = r.assembled.portfolio.trades.n
  const steps = Int32Array.from(boot.steps)
  const observedPath = new Float64Array(steps.length)
  const observed = bookPath(inExitOrder, null, sizing, { steps, out: observedPath })
  return {
    method: 'trade_bootstrap' as const,
    description:
      "Paths of as many trades as the run took, drawn with replacement from the run's net trade returns and booked one after another with the run's sizing.",
    runs: simulations,
    seed,
    trades_per_run: tradeCount,
    final_return_pct: percentileTable(boot.finalReturnPct),
    max_drawdown_pct: percentileTable(boot.maxDrawdownPct),
    probability_positive: tradeCount > 0 ? boot.probabilityPositive : null,
    observed: { final_return_pct: observed.finalReturnPct, max_drawdown_pct: observed.maxDrawdownPct },
    equity_bands: { steps: boot.steps, ...boot.bands, observed: Array.from(observedPath) },
    random_entry: {
      method: 'random_entry' as const,
      description: 'The same number of trades per coin entered at random bars of the window, with the same exits and costs; the p-value is the share of simulations whose summed return is at least the run’s, (k + 1)/(n + 1).',
      runs: simulations,
      p_value: re?.test?.p_value ?? null,
      percentile: re?.test?.percentile ?? null,
      observed_total_return_pct: re?.observed ?? 0,
      null_total_return_pct: re ? percentileTable(re.totals) : null,
    },
  }
}
