/**
 * POST /research/walk-forward, GET and DELETE /research/walk-forward/{id}: on each fold the
 * sweep's space is searched over the in-sample days only (each trial's end_date is the
 * fold's last in-sample day, and a trade still open then closes at that bar: nothing after
 * it is read), the best trial by the objective (min_trades applies) is run over the
 * out-of-sample days that follow the purge gap, and the out-of-sample parts are stitched
 * into one run with every /backtest statistic. docs/api-research.md, "Walk-forward";
 * the folds and the figures: docs/statistics.md, "Walk-forward optimisation".
 */
import { daysNeeded, foldWindows, type FoldPlan, type FoldWindow } from '../../engine/walk-forward-folds'
import { appendTrials, researchRun, saveInterim, trialCount, type NewTrial, type ResearchRunRow } from '../../records/research-runs'
import type { SweepTrialOutcome } from '../../runs/compute/sweep-tasks'
import { InvalidRequest, NotFound } from '../../runs/errors'
import { responseBody } from '../../runs/present'
import type { RunSpec } from '../../runs/spec'
import { roundTo } from '../../round'
import { DAY_MS, isoDay, parseDay } from '../../time'
import type { ResearchAccepted, WalkForwardFold, WalkForwardRequest, WalkForwardResponse } from './model'
import { baseFieldsOf, baseSpec, checkTrialStrategies, expandSpace, paramsOf, requestHashOf, SWEEP_LIMITS, trialPoints, trialSpec, type Dimension, type ParamValue, type Point } from './plan'
import type { RunContext } from './runner'
import { objectiveOf, runHead, sweepSymbols, type SweepDeps } from './service'
import { runTrials, trialsPerTask } from './trials'

type WalkForwardBody = typeof WalkForwardRequest.static
type Fold = typeof WalkForwardFold.static
type Metrics = Record<string, number | boolean | null>

/** Objectives that add up over days: compared per day between parts of different lengths (walk_forward_efficiency). */
const SUMMED_OBJECTIVES = new Set(['total_return_pct', 'total_return_pct_portfolio'])

export interface StoredWalkForwardRequest {
  base: unknown
  space: { name: string; path: string; values: ParamValue[] }[]
  method: 'grid' | 'random'
  seed: number
  budget: number | null
  objective: string
  min_trades: number
  mode: 'anchored' | 'rolling'
  in_sample_days: number
  out_of_sample_days: number
  folds: number
  purge_days: number
  symbols: string[]
  start_date: string
  end_date: string
  timeframe: string
}

/** The days the data covers for these coins, within the base's dates: first and last UTC midnight. */
function dataDays(deps: SweepDeps, base: RunSpec, symbols: readonly string[]): { first: number; last: number } | null {
  let first = Infinity
  let last = -Infinity
  for (const s of symbols) {
    const b = deps.store.bars(s)
    if (!b || b.n === 0) continue
    first = Math.min(first, Math.floor(b.t[0] / DAY_MS) * DAY_MS)
    last = Math.max(last, Math.floor(b.t[b.n - 1] / DAY_MS) * DAY_MS)
  }
  if (base.startDate) first = Math.max(first, parseDay(base.startDate)!)
  if (base.endDate) last = Math.min(last, parseDay(base.endDate)!)
  return Number.isFinite(first) && Number.isFinite(last) && last >= first ? { first, last } : null
}

export async function startWalkForward(deps: SweepDeps, body: WalkForwardBody, client: string): Promise<typeof ResearchAccepted.static> {
  const base = baseSpec(body)
  const dims = expandSpace(body.space, base)
  const points = trialPoints(dims, body.method, body.budget, body.seed)
  if (points.length * body.folds > SWEEP_LIMITS.maxTrials)
    throw new InvalidRequest([{ loc: ['body', 'folds'], msg: `${body.folds} folds × ${points.length} trials = ${points.length * body.folds} trials; a walk-forward run has at most ${SWEEP_LIMITS.maxTrials}`, input: body.folds }])
  checkTrialStrategies(points.map(p => trialSpec(base, dims, p)), points, dims)
  const symbols = sweepSymbols(deps.runs, base, body)
  const plan: FoldPlan = { mode: body.mode, inSampleDays: body.in_sample_days, outOfSampleDays: body.out_of_sample_days, folds: body.folds, purgeDays: body.purge_days }
  const days = dataDays(deps, base, symbols)
  const windows = days ? foldWindows(plan, days.first, days.last) : null
  if (!days || !windows) {
    const have = days ? `${Math.round((days.last - days.first) / DAY_MS) + 1} days (${isoDay(days.first)} to ${isoDay(days.last)})` : 'no day'
    throw new InvalidRequest([
      {
        loc: ['body', 'folds'],
        msg: `the folds need ${daysNeeded(plan)} days (in_sample_days + purge_days + folds × out_of_sample_days); the data has ${have}`,
        input: { in_sample_days: body.in_sample_days, purge_days: body.purge_days, folds: body.folds, out_of_sample_days: body.out_of_sample_days },
      },
    ])
  }
  const request: StoredWalkForwardRequest = {
    base: baseFieldsOf(body),
    space: dims.map(d => ({ name: d.name, path: d.path, values: d.values })),
    method: body.method,
    seed: body.seed,
    budget: body.budget ?? null,
    objective: body.objective,
    min_trades: body.min_trades,
    mode: body.mode,
    in_sample_days: body.in_sample_days,
    out_of_sample_days: body.out_of_sample_days,
    folds: body.folds,
    purge_days: body.purge_days,
    symbols,
    start_date: isoDay(days!.first),
    end_date: isoDay(days!.last),
    timeframe: base.timeframe,
  }
  const planned = body.folds * points.length + body.folds + 1
  const id = await deps.runner.start('walk_forward', client, request, planned, ctx => walkForwardWork(deps, ctx, { base, dims, points, symbols, windows, request }))
  return { id, state: 'queued', n_planned: planned, links: { self: `/research/walk-forward/${id}`, events: `/research/walk-forward/${id}/events` } }
}

const dated = (spec: RunSpec, fromMs: number, toMs: number): RunSpec => ({ ...spec, startDate: isoDay(fromMs), endDate: isoDay(toMs) })

/** The objective per day for summed objectives (parts differ in length), else as it is. */
function comparable(objective: string, value: number | null, fromMs: number, toMs: number): number | null {
  if (value === null) return null
  return SUMMED_OBJECTIVES.has(objective) ? value / (Math.round((toMs - fromMs) / DAY_MS) + 1) : value
}

/** The best trial by the objective (the first of equals in plan order); -1 when none has a value. */
export function chooseTrial(values: readonly (number | null)[]): number {
  let best = -1
  values.forEach((v, i) => {
    if (v !== null && (best < 0 || v > values[best]!)) best = i
  })
  return best
}

async function walkForwardWork(
  deps: SweepDeps,
  ctx: RunContext,
  plan: { base: RunSpec; dims: Dimension[]; points: Point[]; symbols: string[]; windows: FoldWindow[]; request: StoredWalkForwardRequest },
): Promise<unknown> {
  const { base, dims, points, symbols, windows, request } = plan
  const version = deps.store.dataVersion()
  const perTask = trialsPerTask(symbols.length, request.in_sample_days)
  let ledger = 0
  let done = 0
  const total = windows.length * points.length + windows.length + 1
  const folds: Fold[] = []
  const chosenSpecs: RunSpec[] = []
  const chosenPoints: Point[] = []
  for (let k = 0; k < windows.length && !ctx.signal.aborted; k++) {
    const w = windows[k]
    const specs = points.map(p => dated(trialSpec(base, dims, p), w.inSampleFromMs, w.inSampleToMs))
    const outcomes: (SweepTrialOutcome | null)[] = points.map(() => null)
    const values: (number | null)[] = points.map(() => null)
    await runTrials(deps.runs, specs, symbols, { signal: ctx.signal, perTask, parallelism: deps.runs.parallelism }, async finished => {
      const rows: NewTrial[] = finished.map(f => {
        outcomes[f.index] = f.outcome
        values[f.index] = objectiveOf(f.outcome.metrics, request.objective, request.min_trades)
        return {
          trial: ledger++,
          fold: k + 1,
          params: paramsOf(dims, points[f.index]),
          metrics: f.outcome.metrics,
          totalTrades: Number(f.outcome.metrics.total_trades ?? 0),
          objectiveValue: values[f.index],
          requestHash: requestHashOf(specs[f.index], version),
        }
      })
      await appendTrials(deps.db, ctx.id, rows, rows.length, deps.clock.now())
      done += rows.length
      ctx.emit({ type: 'progress', done, total })
    })
    // a fold cut short by a cancel is not a fold: its choice would be of part of the space
    if (ctx.signal.aborted) break
    const best = chooseTrial(values)
    let oosMetrics: Metrics | null = null
    if (best >= 0) {
      const spec = dated(trialSpec(base, dims, points[best]), w.outOfSampleFromMs, w.outOfSampleToMs)
      oosMetrics = (await deps.runs.sweepTrials([spec], symbols))[0].metrics
      chosenSpecs.push(spec)
      chosenPoints.push(points[best])
    }
    await appendTrials(deps.db, ctx.id, [], 1, deps.clock.now())
    done++
    ctx.emit({ type: 'progress', done, total })
    const oosTrades = Number(oosMetrics?.total_trades ?? 0)
    const oosValue = oosMetrics && oosTrades > 0 && typeof oosMetrics[request.objective] === 'number' ? (oosMetrics[request.objective] as number) : null
    folds.push({
      fold: k + 1,
      in_sample: {
        start_date: isoDay(w.inSampleFromMs),
        end_date: isoDay(w.inSampleToMs),
        objective_value: best >= 0 ? values[best] : null,
        metrics: best >= 0 ? outcomes[best]!.metrics : null,
        trials: points.length,
        equity_curve: best >= 0 ? curveOf(outcomes[best]!) : [],
      },
      out_of_sample: { start_date: isoDay(w.outOfSampleFromMs), end_date: isoDay(w.outOfSampleToMs), objective_value: oosValue, metrics: oosMetrics },
      params: best >= 0 ? paramsOf(dims, points[best]) : null,
    })
    // the folds so far are readable while the run goes on (the page's time line)
    await saveInterim(deps.db, ctx.id, { folds, out_of_sample: null, walk_forward_efficiency: null, parameter_stability: null })
  }
  let outOfSample = null
  if (chosenSpecs.length > 0 && !ctx.signal.aborted) {
    const done0 = folds[folds.length - 1]
    const stitchedSpec = { ...chosenSpecs[0], startDate: folds[0].out_of_sample.start_date, endDate: done0.out_of_sample.end_date }
    const stitched = await deps.runs.stitchedRun(stitchedSpec, chosenSpecs, { nTrials: Math.max(1, ledger) })
    // the stitched run is no single request's: nothing to fetch by hash
    outOfSample = { ...responseBody(stitched), result_hash: null }
    await appendTrials(deps.db, ctx.id, [], 1, deps.clock.now())
  }
  return {
    folds,
    out_of_sample: outOfSample,
    walk_forward_efficiency: efficiency(folds, request.objective),
    parameter_stability: parameterStability(dims, chosenPoints),
  }
}

/** A trial's portfolio day by day from its daily returns: return % since its first day (Π(1 + r) − 1; r is day-over-day equity). */
export function curveOf(o: SweepTrialOutcome): { t: string; return_pct: number }[] {
  if (o.fromDayMs === null) return []
  let growth = 1
  return Array.from(o.daily, (r, d) => {
    growth *= 1 + r
    return { t: isoDay(o.fromDayMs! + d * DAY_MS), return_pct: roundTo(100 * (growth - 1), 6) }
  })
}

/** Mean out-of-sample objective over mean in-sample objective of the folds with both (per day for summed objectives); null when undefined. */
export function efficiency(folds: readonly Fold[], objective: string): number | null {
  const pairs = folds
    .map(f => [
      comparable(objective, f.in_sample.objective_value, Date.parse(f.in_sample.start_date), Date.parse(f.in_sample.end_date)),
      comparable(objective, f.out_of_sample.objective_value, Date.parse(f.out_of_sample.start_date), Date.parse(f.out_of_sample.end_date)),
    ])
    .filter((p): p is [number, number] => p[0] !== null && p[1] !== null)
  if (pairs.length === 0) return null
  const is = pairs.reduce((s, p) => s + p[0], 0) / pairs.length
  const oos = pairs.reduce((s, p) => s + p[1], 0) / pairs.length
  return is > 0 ? oos / is : null
}

/** How much the chosen values move across folds: per dimension the spread of their indices over the list's span; score 1 − the mean spread. */
export function parameterStability(dims: readonly Dimension[], chosen: readonly Point[]) {
  if (chosen.length === 0) return null
  const byParameter: Record<string, { distinct: number; values: (ParamValue | null)[]; spread: number }> = {}
  let sum = 0
  dims.forEach((d, i) => {
    const idx = chosen.map(p => p[i])
    const spread = d.values.length > 1 ? (Math.max(...idx) - Math.min(...idx)) / (d.values.length - 1) : 0
    byParameter[d.name] = { distinct: new Set(idx).size, values: idx.map(x => d.values[x]), spread }
    sum += spread
  })
  return { score: 1 - sum / dims.length, by_parameter: byParameter }
}

async function walkForwardRow(deps: Pick<SweepDeps, 'db'>, id: string): Promise<ResearchRunRow> {
  const row = await researchRun(deps.db, id)
  if (!row || row.kind !== 'walk_forward') throw new NotFound(`no walk-forward run '${id}': POST /research/walk-forward answers with the ids`)
  return row
}

export async function readWalkForward(deps: Pick<SweepDeps, 'db'>, id: string): Promise<typeof WalkForwardResponse.static> {
  const row = await walkForwardRow(deps, id)
  const request = JSON.parse(row.request) as StoredWalkForwardRequest
  const result = row.result ? (JSON.parse(row.result) as Pick<typeof WalkForwardResponse.static, 'folds' | 'out_of_sample' | 'walk_forward_efficiency' | 'parameter_stability'>) : null
  return {
    ...runHead(row),
    n_trials: await trialCount(deps.db, id),
    mode: request.mode,
    objective: request.objective,
    min_trades: request.min_trades,
    space: request.space,
    universe: { symbols: request.symbols, coins_used: request.symbols.length, start_date: request.start_date, end_date: request.end_date, timeframe: request.timeframe },
    folds: result?.folds ?? [],
    out_of_sample: result?.out_of_sample ?? null,
    walk_forward_efficiency: result?.walk_forward_efficiency ?? null,
    parameter_stability: result?.parameter_stability ?? null,
  }
}

export async function cancelWalkForward(deps: Pick<SweepDeps, 'db' | 'runner'>, id: string): Promise<typeof WalkForwardResponse.static> {
  await walkForwardRow(deps, id)
  await deps.runner.cancel(id)
  return readWalkForward(deps, id)
}
