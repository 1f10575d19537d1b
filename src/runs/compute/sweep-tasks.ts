/**
 * Worker tasks of the research sweeps and walk-forward runs (registered in tasks.ts):
 * `sweepTrials` runs a few trials whole in this thread (each trial a run of its own, booked
 * as a portfolio, as compare's runs are) and sends back their scalar metrics and daily
 * returns; trials that share an entry rule share its signal masks through the thread's
 * signal cache (context.ts), so only their exits are computed again. `cscv` is the
 * probability of backtest overfitting over the trials' daily returns (engine/statistics-pbo.ts).
 */
import { dailyReturns, type BacktestMetrics } from '../../engine/metrics'
import { book, daySpan, markOver } from '../../engine/run'
import { cscvLogits, type BlockStats } from '../../engine/statistics-pbo'
import { portfolioOptionsOf, type RunSpec } from '../spec'
import { runCoinTrades } from './coin-tasks'
import type { TaskContext } from './context'

export interface SweepTrialsPayload {
  /** the trials' runs, over the same coins */
  specs: RunSpec[]
  symbols: string[]
}

/** The metrics of /backtest that are single values (no lists, no tables). */
export type ScalarMetrics = Record<string, number | boolean | null>

export interface SweepTrialOutcome {
  metrics: ScalarMetrics
  /** the first day of `daily` (UTC midnight); null when no coin has a bar in the window */
  fromDayMs: number | null
  /** the trial's portfolio's daily returns, from fromDayMs */
  daily: Float64Array
  /** when the portfolio's equity reached zero; null when it never did */
  ruinedAtMs: number | null
}

/** Every metric of a run that is one number (or flag): what a sweep's ledger keeps per trial. */
export function scalarMetrics(m: BacktestMetrics): ScalarMetrics {
  const out: ScalarMetrics = {}
  for (const [k, v] of Object.entries(m)) if (typeof v === 'number' || typeof v === 'boolean' || v === null) out[k] = typeof v === 'number' && !Number.isFinite(v) ? null : v
  return out
}

/** Each trial run whole here: its coins' trades (signals from the thread's cache), booked as a portfolio of its own. */
export function runSweepTrials(ctx: TaskContext, payload: SweepTrialsPayload): SweepTrialOutcome[] {
  return payload.specs.map(spec => {
    // metrics only: no bar-rule trades for a rule_bias no trial answers
    const { coins, trades } = runCoinTrades(ctx, { spec, symbols: payload.symbols, ruleTrades: false })
    const span = daySpan(coins)
    const { metrics, portfolio } = book(trades, portfolioOptionsOf(spec, payload.symbols.length), markOver(span, s => ctx.view.bars(s)))
    return {
      metrics: scalarMetrics(metrics),
      fromDayMs: span ? span.fromDayMs : null,
      daily: span ? dailyReturns(portfolio.equityCurve, portfolio.initialCapitalUsd) : new Float64Array(0),
      ruinedAtMs: portfolio.ruinedAtMs,
    }
  })
}

export interface CscvPayload {
  stats: BlockStats
  /** the splits from … to − 1 (indices into cscvSplits(S)) */
  from: number
  to: number
}

/** The logits of a range of the CSCV's splits (S = 16 has 12,870 of them, each over every trial): cut into short tasks. */
export function runCscv(_ctx: TaskContext, payload: CscvPayload): Float64Array {
  return cscvLogits(payload.stats, payload.from, payload.to)
}
