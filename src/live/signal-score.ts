/**
 * The scorer (docs/signals.md): every recorded signal followed forward by the engine's
 * one trade model (engine/trade-model.ts), entering at the signal's entry bar (bar i+1)
 * with the inputs frozen when the row was first written: the strategy's SL/TP/max bars,
 * futures taker fee, leverage 1, the default maintenance margin, and the engine label, which
 * freezes the model (records/scoring-execution.ts): a row first written under
 * `reference-engine-v4` replays its ambiguous bars minute by minute where the coin has minute
 * detail, as /simulate does (live/trade-inputs.ts), and says how its exit was found
 * (`exit_resolution`); a row written under v3 keeps the bar rule to its end.
 *
 * - The trade still running at the last completed candle: `open`, pnl_pct = the gross
 *   reference move to that candle's close (no fees, no funding: contract rule 1).
 * - The trade model closed it: `tp`, `sl`, `timeout` or `liquidation` (an exit-condition
 *   exit is reported by its result bucket, as /simulate/coin reports it, and keeps its
 *   precise `exit_reason`), net of fees and funding, field for field the trade that
 *   /simulate/coin reports for that entry.
 * - `unscoreable` with a reason: the entry candle is gone or differs from the recorded
 *   price, the strategy left the registry, or the coin's candles stopped.
 * A signal recorded from the forming candle's open waits `open` (pnl 0) until its entry
 * candle has completed and is in the series.
 * Final rows are never written again (and the database refuses it).
 */
import type { Clock } from '../clock'
import type { Db } from '../db'
import { resultBucket } from '../engine/metrics-breakdown'
import { TradeModel } from '../engine/trade-model'
import { replaysMinutes } from '../records/scoring-execution'
import { DEFAULT_FEE_FRAC, DEFAULT_MMR_FRAC, EXIT_REASONS, type Direction, type TradeParams } from '../engine/types'
import type { CandleStore } from '../market/candle-store'
import type { SeriesCache } from '../market/series'
import { isTimeframe } from '../market/timeframe'
import { HOUR_MS } from '../time'
import { scoredEvent } from '../records/scored-event'
import { ENGINE_LABEL, saveScored, signalsToScore, type ScoredRow, type SignalRow } from '../records/signals'
import { lastCompletedBar } from '../runs/compute/signal-tasks'
import { getStrategy } from '../strategies/registry'
import { exitMask, firstBarAtOrAfter, slicer, type Pause } from './signal-scan'
import { exitResolution, LiveMarket } from './trade-inputs'

/** an open trade whose coin has had no new candle for this long is unscoreable */
export const STALE_CANDLES_MS = 48 * HOUR_MS
/** the frozen cost inputs of a new row */
export const SCORING_LEVERAGE = 1
export const SCORING_FEE_FRAC = DEFAULT_FEE_FRAC.futures

export interface ScoreDeps {
  db: Db
  store: CandleStore
  series: SeriesCache
  clock: Clock
}

export interface ScoreReport {
  scored: number
  open: number
  closed: number
  unscoreable: number
}

interface Pending {
  signal: SignalRow
  scored: ScoredRow | null
}

/** The scored status of a closed trade: its result bucket, liquidation kept apart. */
export function closedStatus(exitReason: string, pnlPct: number): 'tp' | 'sl' | 'timeout' | 'liquidation' {
  if (exitReason === 'liquidation') return 'liquidation'
  return resultBucket(exitReason as Parameters<typeof resultBucket>[0], pnlPct)
}

/** One scoring pass at the clock's time over every unscored or open signal. */
export async function scoreSignals(deps: ScoreDeps, pause: Pause = async () => {}): Promise<ScoreReport> {
  const nowMs = deps.clock.now()
  const groups = new Map<string, Pending[]>()
  for (const p of await signalsToScore(deps.db)) {
    const key = `${p.signal.strategy}|${p.signal.timeframe}|${p.signal.coin}`
    let g = groups.get(key)
    if (!g) groups.set(key, (g = []))
    g.push(p)
  }
  const out: { row: ScoredRow; existed: boolean }[] = []
  const report: ScoreReport = { scored: 0, open: 0, closed: 0, unscoreable: 0 }
  const fundingSource = deps.store.sources().sort().join('+') || 'none'
  let done = 0
  const market = new LiveMarket(deps.store)
  const existed = new Set<string>()
  for (const group of groups.values()) for (const p of group) if (p.scored) existed.add(p.signal.id)
  for (const group of groups.values()) {
    // a turn for the event loop every few thousand signals
    if ((done += group.length) > 2000) {
      done = 0
      await pause()
    }
    for (const row of scoreGroup(deps, market, group, nowMs, fundingSource)) {
      out.push({ row, existed: existed.has(row.signalId) })
      report.scored++
      if (row.status === 'open') report.open++
      else if (row.status === 'unscoreable') report.unscoreable++
      else report.closed++
    }
  }
  const signalOf = new Map([...groups.values()].flat().map(p => [p.signal.id, p.signal]))
  const finalized = out.filter(o => o.row.status !== 'open').map(o => scoredEvent({ signal: signalOf.get(o.row.signalId)!, scored: o.row }))
  if (out.length) await saveScored(deps.db, out, { nowMs, events: finalized })
  return report
}

function scoreGroup(deps: ScoreDeps, market: LiveMarket, group: Pending[], nowMs: number, fundingSource: string): ScoredRow[] {
  const first = group[0]!.signal
  const strategy = getStrategy(first.strategy)
  const bars = isTimeframe(first.timeframe) ? deps.series.get(first.coin, first.timeframe) : undefined
  const unscoreable = (reason: string) => group.map(p => unscoreableRow(p, reason, nowMs, fundingSource))
  if (!bars || bars.n === 0) return unscoreable('the coin is no longer in the candle store')
  const needsExitMask = strategy?.exit_conditions != null
  if (!strategy) return unscoreable('the strategy is no longer in the registry')
  const last = lastCompletedBar(bars, nowMs)
  const exit = needsExitMask ? exitMask(strategy, bars) : null
  const funding = deps.store.funding(first.coin) ?? null
  // one trade model per frozen parameter set (rows written at different times may differ),
  // its funding window from the group's first entry (a trade is charged only after its entry)
  const models = new Map<string, TradeModel>()
  const fromIdx = Math.max(0, firstBarAtOrAfter(bars, Math.min(...group.map(p => p.signal.signalTimeMs))))
  const rows: ScoredRow[] = []
  for (const p of group) {
    const s = p.signal
    const frozen = frozenInputs(p, fundingSource)
    const e = firstBarAtOrAfter(bars, s.signalTimeMs)
    if (e >= bars.n) {
      // the entry candle has not completed yet (a signal recorded from the forming candle's open)
      const stoppedMs = bars.t[bars.n - 1] + bars.stepMs
      if (nowMs - stoppedMs > STALE_CANDLES_MS) rows.push(unscoreableRow(p, `the coin's candles stopped at ${new Date(stoppedMs).toISOString()}`, nowMs, fundingSource))
      else if (!p.scored) rows.push({ ...frozen, status: 'open', pnlPct: 0, markedThroughMs: s.signalTimeMs, updatedAtMs: nowMs })
      continue
    }
    if (bars.t[e] !== s.signalTimeMs) {
      rows.push(unscoreableRow(p, 'the entry candle is missing from the store', nowMs, fundingSource))
      continue
    }
    if (bars.o[e] !== s.entryPrice) {
      rows.push(unscoreableRow(p, `the stored entry candle opens at ${bars.o[e]}, not at the recorded ${s.entryPrice}`, nowMs, fundingSource))
      continue
    }
    if (last < e) {
      // the entry bar has not completed yet
      if (!p.scored) rows.push({ ...frozen, status: 'open', pnlPct: 0, markedThroughMs: s.signalTimeMs, updatedAtMs: nowMs })
      continue
    }
    const key = `${frozen.slPct}|${frozen.tpPct}|${frozen.maxBars}|${frozen.feeFrac}|${frozen.leverage}|${frozen.mmrFrac}|${frozen.engine}`
    let model = models.get(key)
    if (!model) {
      // the model of the row's engine label: its execution costs' inputs, and for v4 the coin's minutes and mark candles
      const { execution, input } = market.inputs(frozen.engine, first.coin, first.timeframe, bars, frozen.leverage)
      const params = { ...tradeParams(s.direction as Direction, frozen), ...(execution ? { execution } : {}) }
      models.set(key, (model = new TradeModel({ bars, exit, fromIdx, toIdx: last, funding, ...input }, params, group.length > 8)))
    }
    model.tradeFrom(e)
    const reason = EXIT_REASONS[model.reason]!
    const markedThroughMs = bars.t[last] + bars.stepMs
    if (reason === 'end_of_data') {
      if (nowMs - markedThroughMs > STALE_CANDLES_MS) {
        rows.push(unscoreableRow(p, `the coin's candles stopped at ${new Date(markedThroughMs).toISOString()}`, nowMs, fundingSource))
        continue
      }
      const sign = s.direction === 'long' ? 1 : -1
      const gross = sign * (bars.c[last] / s.entryPrice - 1) * frozen.leverage * 100
      // nothing new since the last mark: no write
      if (p.scored && p.scored.markedThroughMs === markedThroughMs && p.scored.pnlPct === gross) continue
      rows.push({ ...frozen, status: 'open', pnlPct: gross, markedThroughMs, updatedAtMs: nowMs })
      continue
    }
    rows.push({
      ...frozen,
      status: closedStatus(reason, model.pnlPct),
      exitReason: reason,
      pnlPct: model.pnlPct,
      grossPct: model.grossPct,
      feePct: model.feePct,
      fundingPct: model.fundingPct,
      exitPrice: model.exitPrice,
      exitTimeMs: model.exitTimeMs,
      barsHeld: model.barsHeld,
      slTpSameBar: model.sameBar,
      fundingEvents: model.fundingEvents,
      fundingEventsReal: model.fundingEventsReal,
      markedThroughMs,
      updatedAtMs: nowMs,
      finalizedAtMs: nowMs,
      exitResolution: replaysMinutes(frozen.engine) ? exitResolution(model) : null,
    })
  }
  return rows
}

/** The row's inputs: those of the stored row when there is one (frozen), else today's. */
function frozenInputs(p: Pending, fundingSource: string): ScoredRow {
  const s = p.signal
  const old = p.scored
  return {
    signalId: s.id,
    engine: old?.engine ?? ENGINE_LABEL,
    status: 'open',
    exitReason: null,
    reason: null,
    entryTimeMs: s.signalTimeMs,
    entryPrice: s.entryPrice,
    pnlPct: 0,
    grossPct: null,
    feePct: null,
    fundingPct: null,
    exitPrice: null,
    exitTimeMs: null,
    barsHeld: null,
    slTpSameBar: null,
    feeFrac: old?.feeFrac ?? SCORING_FEE_FRAC,
    leverage: old?.leverage ?? SCORING_LEVERAGE,
    mmrFrac: old?.mmrFrac ?? DEFAULT_MMR_FRAC,
    slPct: old?.slPct ?? s.slPct,
    tpPct: old?.tpPct ?? s.tpPct,
    maxBars: old?.maxBars ?? s.maxBars,
    fundingSource: old?.fundingSource ?? fundingSource,
    fundingEvents: null,
    fundingEventsReal: null,
    markedThroughMs: old?.markedThroughMs ?? s.signalTimeMs,
    updatedAtMs: 0,
    finalizedAtMs: null,
    exitResolution: null,
  }
}

function unscoreableRow(p: Pending, reason: string, nowMs: number, fundingSource: string): ScoredRow {
  return { ...frozenInputs(p, fundingSource), status: 'unscoreable', reason, pnlPct: 0, updatedAtMs: nowMs, finalizedAtMs: nowMs }
}

/** The trade model's parameters of a scored row (the same shape /simulate/coin builds). */
export function tradeParams(direction: Direction, f: Pick<ScoredRow, 'slPct' | 'tpPct' | 'maxBars' | 'feeFrac' | 'leverage' | 'mmrFrac'>): TradeParams {
  return {
    direction,
    slPct: f.slPct,
    tpPct: f.tpPct,
    tpSource: 'custom_pct',
    trailingPct: null,
    maxBars: f.maxBars,
    leverage: f.leverage,
    feeFrac: f.feeFrac,
    mmrFrac: f.mmrFrac,
    marketType: 'futures',
  }
}
