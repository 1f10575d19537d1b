/**
 * POST /research/sweeps, GET /research/sweeps/{id}, DELETE /research/sweeps/{id}: a sweep
 * is planned and checked here (plan.ts), stored and started (runner.ts), its trials run on
 * the workers (trials.ts) and written to the ledger as they finish; once stopped, its
 * overfitting figures (PBO by CSCV, the best trial's deflated Sharpe over the ledger's
 * n_trials, the neighbourhood stability) are computed and stored with it.
 * docs/api-research.md, "Sweeps"; the formulas: docs/statistics.md, "Sweeps".
 */
import type { Clock } from '../../clock'
import type { Db } from '../../db'
import { bestTrialDeflation } from '../../engine/sweep-deflation'
import { blockStatsOf, joinBlockStats, type BlockStats, type PboResult } from '../../engine/statistics-pbo'
import { neighbourhoodStability, type Stability } from '../../engine/sweep-stability'
import type { CandleStore } from '../../market/candle-store'
import { appendTrials, bestTrial, researchRun, trialCount, trialPage, type NewTrial, type ResearchRunRow, type TrialRow } from '../../records/research-runs'
import type { SweepTrialOutcome } from '../../runs/compute/sweep-tasks'
import { asSpelled, InvalidRequest, NotFound } from '../../runs/errors'
import type { RunService } from '../../runs/service'
import type { RunSpec } from '../../runs/spec'
import { yieldToLoop } from '../../runs/yield'
import { DAY_MS, isoInstant } from '../../time'
import type { ResearchAccepted, SweepRequest, SweepResponse, SweepTrialsQuery } from './model'
import {
  baseFieldsOf,
  baseSpec,
  checkTrialStrategies,
  expandSpace,
  paramsOf,
  requestHashOf,
  SWEEP_LIMITS,
  trialPoints,
  trialSpec,
  type Dimension,
  type ParamValue,
  type Point,
} from './plan'
import type { ResearchRunner, RunContext } from './runner'
import { runTrials, trialsPerTask, type FinishedTrial } from './trials'

export interface SweepDeps {
  runs: RunService
  db: Db
  clock: Clock
  store: CandleStore
  runner: ResearchRunner
}

/** A best trial with a deflated Sharpe below this is reported as not significant (as optimize). */
export const DSR_SIGNIFICANCE = 0.95

type SweepBody = typeof SweepRequest.static
type Objective = SweepBody['objective']

/** The stored, normalised request of a sweep. */
export interface StoredSweepRequest {
  base: unknown
  space: { name: string; path: string; values: ParamValue[] }[]
  method: 'grid' | 'random'
  seed: number
  budget: number | null
  objective: Objective
  min_trades: number
  pbo_blocks: number
  symbols: string[]
  start_date: string | null
  end_date: string | null
  timeframe: string
}

/** A trial's objective value: null with fewer than max(1, min_trades) trades or a non-finite value. */
export function objectiveOf(metrics: Record<string, number | boolean | null>, objective: string, minTrades: number): number | null {
  const trades = Number(metrics.total_trades ?? 0)
  const v = metrics[objective]
  return trades >= Math.max(1, minTrades) && typeof v === 'number' && Number.isFinite(v) ? v : null
}

/** The base's coins, within the sweep's coin limit (else an InvalidRequest naming the universe). */
export function sweepSymbols(runs: RunService, base: RunSpec, body: { symbols?: string[] | null; symbol?: string | null }, loc: (string | number)[] = ['body']): string[] {
  let symbols: string[]
  try {
    symbols = runs.resolveUniverse(base).symbols
  } catch (e) {
    // an unknown symbol is the 404 of every route that takes one, named as the request spelled it
    return asSpelled(body.symbol ? [body.symbol] : (body.symbols ?? []))(e)
  }
  if (symbols.length > SWEEP_LIMITS.maxCoins)
    throw new InvalidRequest([{ loc: [...loc, base.symbols ? 'symbols' : 'top_n'], msg: `a sweep runs over at most ${SWEEP_LIMITS.maxCoins} coins; this universe has ${symbols.length}`, input: base.symbols ?? base.topN }])
  if (symbols.length === 0) throw new InvalidRequest([{ loc: [...loc, 'top_n'], msg: 'the universe has no coin', input: base.topN }])
  return symbols
}

export async function startSweep(deps: SweepDeps, body: SweepBody, client: string): Promise<typeof ResearchAccepted.static> {
  if (body.pbo_blocks % 2 !== 0) throw new InvalidRequest([{ loc: ['body', 'pbo_blocks'], msg: 'the CSCV splits the blocks in halves: an even number', input: body.pbo_blocks }])
  const base = baseSpec(body)
  const dims = expandSpace(body.space, base)
  const points = trialPoints(dims, body.method, body.budget, body.seed)
  const specs = points.map(p => trialSpec(base, dims, p))
  checkTrialStrategies(specs, points, dims)
  const symbols = sweepSymbols(deps.runs, base, body)
  const request: StoredSweepRequest = {
    base: baseFieldsOf(body),
    space: dims.map(d => ({ name: d.name, path: d.path, values: d.values })),
    method: body.method,
    seed: body.seed,
    budget: body.budget ?? null,
    objective: body.objective,
    min_trades: body.min_trades,
    pbo_blocks: body.pbo_blocks,
    symbols,
    start_date: base.startDate,
    end_date: base.endDate,
    timeframe: base.timeframe,
  }
  const id = await deps.runner.start('sweep', client, request, specs.length, ctx => sweepWork(deps, ctx, { dims, points, specs, symbols, request }))
  return { id, state: 'queued', n_planned: specs.length, links: { self: `/research/sweeps/${id}`, events: `/research/sweeps/${id}/events` } }
}

/** Days a run spans (its dates, or the store's first to last bar of its coins). */
export function spanDays(store: CandleStore, spec: RunSpec, symbols: readonly string[]): number {
  let from = spec.startDate ? Date.parse(spec.startDate) : Infinity
  let to = spec.endDate ? Date.parse(spec.endDate) : -Infinity
  if (!spec.startDate || !spec.endDate)
    for (const s of symbols) {
      const b = store.bars(s)
      if (!b || b.n === 0) continue
      if (!spec.startDate) from = Math.min(from, b.t[0])
      if (!spec.endDate) to = Math.max(to, b.t[b.n - 1])
    }
  return Number.isFinite(from) && Number.isFinite(to) ? Math.max(1, Math.round((to - from) / DAY_MS) + 1) : 1
}

/** One finished trial in memory: what the overfitting figures need after the ledger has it. */
interface Kept {
  trial: number
  point: Point
  objective: number | null
  sharpe: number
  trades: number
  outcome: SweepTrialOutcome
}

async function sweepWork(
  deps: SweepDeps,
  ctx: RunContext,
  plan: { dims: Dimension[]; points: Point[]; specs: RunSpec[]; symbols: string[]; request: StoredSweepRequest },
): Promise<unknown> {
  const { dims, points, specs, symbols, request } = plan
  const version = deps.store.dataVersion()
  const kept: Kept[] = []
  const perTask = trialsPerTask(symbols.length, spanDays(deps.store, specs[0], symbols))
  await runTrials(deps.runs, specs, symbols, { signal: ctx.signal, perTask, parallelism: deps.runs.parallelism }, async finished => {
    const rows = finished.map(f => ledgerRow(f, kept.length + finished.indexOf(f), dims, points, specs, request, version))
    await appendTrials(deps.db, ctx.id, rows, rows.length, deps.clock.now())
    finished.forEach((f, j) => {
      const r = rows[j]
      kept.push({ trial: r.trial, point: points[f.index], objective: r.objectiveValue, sharpe: Number(r.metrics.sharpe_ratio ?? 0), trades: r.totalTrades, outcome: f.outcome })
      ctx.emit({ type: 'trial', trial: r.trial, item: trialItemOf(r) })
    })
    ctx.emit({ type: 'progress', done: kept.length, total: specs.length })
  })
  return sweepFigures(deps.runs, kept, request.pbo_blocks)
}

function ledgerRow(f: FinishedTrial, trial: number, dims: Dimension[], points: Point[], specs: RunSpec[], request: { objective: string; min_trades: number }, version: string): NewTrial {
  const m = f.outcome.metrics
  return {
    trial,
    fold: null,
    params: paramsOf(dims, points[f.index]),
    metrics: m,
    totalTrades: Number(m.total_trades ?? 0),
    objectiveValue: objectiveOf(m, request.objective, request.min_trades),
    requestHash: requestHashOf(specs[f.index], version),
  }
}

const trialItemOf = (r: NewTrial) => ({ trial: r.trial, params: r.params, total_trades: r.totalTrades, objective_value: r.objectiveValue, metrics: r.metrics, request_hash: r.requestHash })

/** The trials' daily returns on one calendar (the union of their spans; a day a trial did not span is 0). */
export function alignedDaily(outcomes: readonly SweepTrialOutcome[]): Float64Array[] {
  let from = Infinity
  let to = -Infinity
  for (const o of outcomes)
    if (o.fromDayMs !== null && o.daily.length) {
      from = Math.min(from, o.fromDayMs)
      to = Math.max(to, o.fromDayMs + (o.daily.length - 1) * DAY_MS)
    }
  if (!Number.isFinite(from)) return outcomes.map(() => new Float64Array(0))
  const days = Math.round((to - from) / DAY_MS) + 1
  return outcomes.map(o => {
    const col = new Float64Array(days)
    if (o.fromDayMs !== null) col.set(o.daily, Math.round((o.fromDayMs - from) / DAY_MS))
    return col
  })
}

/** PBO, the best trial's deflated Sharpe (n_trials = every trial kept) and its neighbourhood's stability. */
async function sweepFigures(runs: RunService, kept: Kept[], blocks: number) {
  if (kept.length === 0) return { pbo: null, deflated_sharpe: null, stability: null }
  kept.sort((a, b) => a.trial - b.trial)
  const columns = alignedDaily(kept.map(k => k.outcome))
  let pbo: PboResult | null = null
  if (kept.length >= 2 && columns[0].length >= 2 * blocks) {
    // the blocks' sums a hundred trials at a time, pausing between, so requests are served
    const parts: BlockStats[] = []
    for (let j = 0; j < columns.length; j += 100) {
      parts.push(blockStatsOf(columns, blocks, j, Math.min(columns.length, j + 100)))
      await yieldToLoop()
    }
    pbo = await runs.overfitting(joinBlockStats(parts))
  }
  const { best, info, haircutPct } = bestTrialDeflation(kept.map((k, i) => ({ daily: columns[i], objective: k.objective, sharpeAnnualized: k.sharpe, trades: k.trades })))
  const deflated = info && { ...info, trial: kept[best].trial, haircut_pct: haircutPct, significant: info.dsr >= DSR_SIGNIFICANCE }
  const stability: Stability | null = best >= 0 ? neighbourhoodStability(kept.map(k => ({ at: k.point, objective: k.objective })), best) : null
  return {
    pbo: pbo && { method: 'cscv' as const, pbo: pbo.pbo, blocks: pbo.blocks, combinations: pbo.combinations, trials: pbo.trials, days: pbo.days, performance: 'sharpe_ratio' as const, logit_median: pbo.logit_median },
    deflated_sharpe: deflated,
    stability,
  }
}

const iso = (ms: number | null) => (ms === null ? null : isoInstant(ms))

export const trialOf = (r: TrialRow) => ({
  trial: r.trial,
  params: JSON.parse(r.params) as Record<string, ParamValue>,
  total_trades: r.totalTrades,
  objective_value: r.objectiveValue,
  metrics: JSON.parse(r.metrics) as Record<string, number | boolean | null>,
  request_hash: r.requestHash,
})

/** The run's common answer: state, times, progress. */
export function runHead(row: ResearchRunRow) {
  return {
    id: row.id,
    state: row.state as 'queued' | 'running' | 'done' | 'cancelled' | 'failed',
    reason: row.reason,
    created_at: isoInstant(row.createdAt),
    started_at: iso(row.startedAt),
    finished_at: iso(row.finishedAt),
    progress: { done: row.finished, total: row.planned, pct: row.planned > 0 ? Math.round((1000 * row.finished) / row.planned) / 10 : 0 },
  }
}

async function sweepRow(db: Db, id: string): Promise<ResearchRunRow> {
  const row = await researchRun(db, id)
  if (!row || row.kind !== 'sweep') throw new NotFound(`no sweep '${id}': POST /research/sweeps answers with the ids`)
  return row
}

export async function readSweep(deps: Pick<SweepDeps, 'db'>, id: string, query: typeof SweepTrialsQuery.static): Promise<typeof SweepResponse.static> {
  const row = await sweepRow(deps.db, id)
  const request = JSON.parse(row.request) as StoredSweepRequest
  const figures = row.result ? (JSON.parse(row.result) as Pick<typeof SweepResponse.static, 'pbo' | 'deflated_sharpe' | 'stability'>) : null
  const [total, page, best] = await Promise.all([trialCount(deps.db, id), trialPage(deps.db, id, query), bestTrial(deps.db, id)])
  return {
    ...runHead(row),
    n_trials: total,
    method: request.method,
    seed: request.seed,
    objective: request.objective,
    min_trades: request.min_trades,
    space: request.space,
    universe: { symbols: request.symbols, coins_used: request.symbols.length, start_date: request.start_date, end_date: request.end_date, timeframe: request.timeframe },
    best: best && { ...trialOf(best), objective_value: best.objectiveValue! },
    trials: { offset: query.offset, limit: query.limit, total, sort: query.sort, items: page.map(trialOf) },
    pbo: figures?.pbo ?? null,
    deflated_sharpe: figures?.deflated_sharpe ?? null,
    stability: figures?.stability ?? null,
  }
}

/** DELETE: cancel the sweep if it runs (its finished trials are kept), then answer it as GET does. */
export async function cancelSweep(deps: Pick<SweepDeps, 'db' | 'runner'>, id: string): Promise<typeof SweepResponse.static> {
  await sweepRow(deps.db, id)
  await deps.runner.cancel(id)
  return readSweep(deps, id, { offset: 0, limit: 100, sort: 'trial' })
}
