/**
 * The paper trader (docs/paper-trading.md), one step of the hourly live-records job,
 * after scoring:
 * 1. cycles of CYCLE_DAYS from the first run's UTC day; when one ends its open positions
 *    close at the last close before the end (`cycle_end`) and the next cycle starts with
 *    the same capital, by itself;
 * 2. once a day, an hour after midnight (the ranking runs at 00:30), the picks: the
 *    three best-ranked configurations of distinct strategies in the latest 30-day top-50
 *    ranking with profit factor ≥ 1.5 and ≥ 30 trades; when none qualifies, the current
 *    regime's recommended strategies on 1H with their own settings;
 * 3. every live signal (not a catch-up row) published after the picks that matches a pick
 *    (strategy and timeframe) is taken if a slot is free and the coin has no position: entry at the signal's own
 *    entry bar (bar i+1, as a backtest enters) when it was published within
 *    PAPER_ENTRY_GRACE_MS of that bar's open, else at the open of the first bar that opens
 *    after its publication (never a price older than the decision), margin = capital /
 *    slots, leverage 1, futures fee;
 * 4. positions follow the engine's one trade model with the pick's SL/TP/max bars and
 *    are marked to the last completed close every hour; each finished day's equity is
 *    written to the history once. A position carries, from its opening, the engine label
 *    current then and is priced as a scored signal of that label is
 *    (records/scoring-execution.ts, live/trade-inputs.ts): `reference-engine-v4` (opened
 *    since issue 25 §4) pays the execution costs at its own notional and replays its
 *    ambiguous bars minute by minute where the coin has minute detail, with liquidation on
 *    the mark price where stored, as /simulate does, and says how its exit was found
 *    (`exit_resolution`); `reference-engine-v3` the same costs by the bar rule; one opened
 *    before issue 25 keeps the model it was opened with (no `engine`: taker fee, flat margin).
 */
import type { PaperPick } from '../../db/schema'
import type { Clock } from '../clock'
import type { Db } from '../db'
import { TradeModel } from '../engine/trade-model'
import { DEFAULT_FEE_FRAC, DEFAULT_MMR_FRAC, EXIT_REASONS, type Direction } from '../engine/types'
import type { CandleStore } from '../market/candle-store'
import type { SeriesCache } from '../market/series'
import { isTimeframe, TIMEFRAME_MS } from '../market/timeframe'
import {
  completeCycle,
  equityAt,
  historyOf,
  insertCycle,
  insertHistory,
  insertPicks,
  insertPosition,
  openPositions,
  paperCycle,
  paperWaitingReason,
  picksOfCycle,
  picksOfDay,
  PICK_COUNT,
  PICK_GROUP,
  PICK_MIN_PF,
  PICK_MIN_TRADES,
  PICK_PERIOD,
  positionsOfCycle,
  setProcessedThrough,
  updateOpenPositions,
  type PaperCycleRow,
  type PaperPositionRow,
} from '../records/paper'
import { DayFiles } from '../records/rankings/day-files'
import { EXECUTION_ENGINE, replaysMinutes } from '../records/scoring-execution'
import { signalsPublishedBetween } from '../records/signals'
import { getStrategy } from '../strategies/registry'
import { lastCompletedBar } from '../runs/compute/signal-tasks'
import { exitMask, firstBarAtOrAfter } from './signal-scan'
import { tradeParams } from './signal-score'
import { exitResolution, LiveMarket } from './trade-inputs'
import { DAY_MS, HOUR_MS, isoDay } from '../time'

export const CYCLE_DAYS = 30
export const STARTING_CAPITAL = 10_000
export const SLOTS = 10
/** picks are made this long after midnight UTC, after the 00:30 ranking */
export const PICK_AFTER_MS = HOUR_MS
/**
 * A signal published this soon after its bar closed is entered at the next bar's open, the
 * backtests' entry: a bot acting at the close fills there, give or take the first
 * seconds' drift (the hourly scan publishes about 10 s after the close). Later, the open
 * of the next bar after publication.
 */
export const PAPER_ENTRY_GRACE_MS = 60_000

export interface PaperDeps {
  db: Db
  clock: Clock
  store: CandleStore
  series: SeriesCache
  /** the regime's recommended registry ids (fallback picks); absent or failing: no fallback */
  regimeStrategies?: () => Promise<string[]>
}

export interface PaperReport {
  /** the active cycle; null when the step waited (see `waiting`) */
  cycle: number | null
  taken: number
  closed: number
  open: number
  historyDays: number
  /** why nothing was done: the store's candles do not reach today */
  waiting: string | null
}

const dayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS
const OPEN_STATUSES = ['pending', 'open']

export async function runPaper(deps: PaperDeps): Promise<PaperReport> {
  const now = deps.clock.now()
  const waiting = paperWaitingReason(deps.store, now)
  if (waiting !== null) return { cycle: null, taken: 0, closed: 0, open: 0, historyDays: 0, waiting }
  const cycle = await rollCycles(deps, now)
  await pickOfTheDay(deps, cycle, now)
  const closedBefore = await updatePositions(deps, cycle, now)
  const taken = await takeSignals(deps, cycle, now)
  const closedAfter = await updatePositions(deps, cycle, now)
  const historyDays = await writeHistory(deps, cycle, Math.min(now, cycle.startMs + cycle.lengthDays * DAY_MS))
  const open = (await openPositions(deps.db, cycle.id)).length
  return { cycle: cycle.id, taken, closed: closedBefore + closedAfter, open, historyDays, waiting: null }
}

/** The active cycle at `now`, completing the cycles that ended and starting their successors. */
async function rollCycles(deps: PaperDeps, now: number): Promise<PaperCycleRow> {
  const { db } = deps
  let cycle = await paperCycle(db)
  if (!cycle) {
    const start = dayStart(now)
    cycle = { id: 1, startMs: start, lengthDays: CYCLE_DAYS, startingCapital: STARTING_CAPITAL, slots: SLOTS, status: 'active', processedThroughMs: start, completedAtMs: null, finalEquity: null }
    await insertCycle(db, cycle)
  }
  while (now >= cycle.startMs + cycle.lengthDays * DAY_MS) {
    const endMs = cycle.startMs + cycle.lengthDays * DAY_MS
    // positions still open at the end close at the last close before it
    await updatePositions(deps, cycle, endMs, true)
    await takeSignals(deps, cycle, endMs)
    await updatePositions(deps, cycle, endMs, true)
    await writeHistory(deps, cycle, endMs)
    const equity = (await equityAt(deps, cycle, endMs)).equity
    await completeCycle(db, cycle.id, { completedAtMs: now, finalEquity: equity, processedThroughMs: endMs })
    const next: PaperCycleRow = { id: cycle.id + 1, startMs: endMs, lengthDays: CYCLE_DAYS, startingCapital: STARTING_CAPITAL, slots: SLOTS, status: 'active', processedThroughMs: endMs, completedAtMs: null, finalEquity: null }
    await insertCycle(db, next)
    cycle = next
  }
  return cycle
}

async function pickOfTheDay(deps: PaperDeps, cycle: PaperCycleRow, now: number): Promise<void> {
  const day = isoDay(now)
  if (now - dayStart(now) < PICK_AFTER_MS) return
  if (await picksOfDay(deps.db, cycle.id, day)) return
  const files = new DayFiles(deps.db)
  const rankingDate = await files.latestOnOrBefore(day)
  let picks: PaperPick[] = []
  let rule = 'none'
  if (rankingDate !== null) {
    const rows = (await files.get(rankingDate))!.file.periods[PICK_PERIOD]?.groups[PICK_GROUP]?.rows ?? []
    const seen = new Set<string>()
    for (const r of [...rows].sort((a, b) => a.rank - b.rank)) {
      if (picks.length >= PICK_COUNT) break
      if (seen.has(r.strategy) || r.profit_factor < PICK_MIN_PF || r.total_trades < PICK_MIN_TRADES) continue
      seen.add(r.strategy)
      picks.push({ configuration_id: r.configuration_id, strategy: r.strategy, timeframe: r.timeframe, sl_pct: r.sl_pct, tp_pct: r.tp_pct, max_bars: r.max_bars, profit_factor: r.profit_factor, total_trades: r.total_trades })
    }
    if (picks.length) rule = 'ranking'
  }
  if (picks.length === 0 && deps.regimeStrategies) {
    const ids = await deps.regimeStrategies().catch(() => [] as string[])
    picks = ids
      .map(id => getStrategy(id))
      .filter(s => s !== undefined)
      .map(s => ({ configuration_id: `regime:${s.id}:1H`, strategy: s.id, timeframe: '1H', sl_pct: s.sl_pct, tp_pct: s.tp_pct, max_bars: s.max_bars, profit_factor: null, total_trades: null }))
    if (picks.length) rule = 'regime'
  }
  await insertPicks(deps.db, { cycleId: cycle.id, day, pickedAtMs: now, rule, rankingDate: rule === 'ranking' ? rankingDate : null, picks })
}

/** Take the matching signals published since the cycle's watermark, up to `untilMs`. */
async function takeSignals(deps: PaperDeps, cycle: PaperCycleRow, untilMs: number): Promise<number> {
  const { db } = deps
  const current = (await paperCycle(db, cycle.id))!
  if (untilMs <= current.processedThroughMs) return 0
  const picksRows = await picksOfCycle(db, cycle.id)
  const fresh = await signalsPublishedBetween(db, current.processedThroughMs, untilMs)
  const endMs = cycle.startMs + cycle.lengthDays * DAY_MS
  const positions = await positionsOfCycle(db, cycle.id)
  let taken = 0
  for (const s of fresh) {
    // the picks in force when the signal was published
    const active = picksRows.filter(p => p.pickedAtMs <= s.publishedAtMs).at(-1)
    const pick = active?.picks.find(p => p.strategy === s.strategy && p.timeframe === s.timeframe)
    // a catch-up row is history (a newer bar of its coin had closed when it was recorded), not a live signal
    if (!pick || s.backfill || !isTimeframe(s.timeframe)) continue
    const entryTimeMs = paperEntryTimeMs(s.signalTimeMs, s.publishedAtMs, TIMEFRAME_MS[s.timeframe])
    if (entryTimeMs >= endMs) continue
    const busy = positions.filter(p => OPEN_STATUSES.includes(p.status) || (p.exitTimeMs ?? Infinity) > s.publishedAtMs)
    if (busy.length >= cycle.slots || busy.some(p => p.coin === s.coin)) continue
    const row: PaperPositionRow = {
      id: `${cycle.id}:${s.id}`, cycleId: cycle.id, signalId: s.id, configurationId: pick.configuration_id, strategy: s.strategy, coin: s.coin, direction: s.direction, timeframe: s.timeframe,
      slPct: pick.sl_pct, tpPct: pick.tp_pct, maxBars: pick.max_bars, feeFrac: DEFAULT_FEE_FRAC.futures, leverage: 1, mmrFrac: DEFAULT_MMR_FRAC,
      marginUsd: cycle.startingCapital / cycle.slots, referenceEntryPrice: s.entryPrice, entryTimeMs, entryPrice: null, status: 'pending',
      exitReason: null, exitPrice: null, exitTimeMs: null, barsHeld: null, pnlPct: null, pnlUsd: null, markPrice: null, unrealizedUsd: null,
      markedThroughMs: entryTimeMs, openedAtMs: s.publishedAtMs, closedAtMs: null, engine: EXECUTION_ENGINE, exitResolution: null,
    }
    await insertPosition(db, row)
    positions.push(row)
    taken++
  }
  await setProcessedThrough(db, cycle.id, untilMs)
  return taken
}

/** The open time of the bar a paper position enters at (PAPER_ENTRY_GRACE_MS). */
export function paperEntryTimeMs(signalTimeMs: number, publishedAtMs: number, stepMs: number): number {
  if (publishedAtMs - signalTimeMs <= PAPER_ENTRY_GRACE_MS) return signalTimeMs
  return Math.ceil(publishedAtMs / stepMs) * stepMs
}

/**
 * Open pending positions whose entry bar has arrived, follow open ones with the trade
 * model through the last completed candle (at a cycle's end: through its last bar, where
 * what is still open closes), mark the rest. Returns how many closed.
 */
async function updatePositions(deps: PaperDeps, cycle: PaperCycleRow, nowMs: number, atCycleEnd = false): Promise<number> {
  const { db } = deps
  const updates: { id: string; set: Partial<PaperPositionRow> }[] = []
  let closed = 0
  const market = new LiveMarket(deps.store)
  for (const p of await openPositions(db, cycle.id)) {
    const next = advance(deps, market, p, nowMs, atCycleEnd)
    if (next === null) continue
    if (next.status !== undefined && !OPEN_STATUSES.includes(next.status)) closed++
    updates.push({ id: p.id, set: next })
  }
  await updateOpenPositions(db, updates, nowMs)
  return closed
}

function advance(deps: PaperDeps, market: LiveMarket, p: PaperPositionRow, nowMs: number, atCycleEnd: boolean): Partial<PaperPositionRow> | null {
  const strategy = getStrategy(p.strategy)
  const bars = isTimeframe(p.timeframe) ? deps.series.get(p.coin, p.timeframe) : undefined
  const cancel = (why: string) => ({ status: 'cancelled', exitReason: why, closedAtMs: nowMs, pnlPct: 0, pnlUsd: 0, unrealizedUsd: 0 })
  if (!bars || !strategy) return cancel(!bars ? 'the coin left the candle store' : 'the strategy left the registry')
  const e = firstBarAtOrAfter(bars, p.entryTimeMs)
  if (e >= bars.n || bars.t[e] !== p.entryTimeMs) {
    if (bars.n > 0 && bars.t[bars.n - 1] > p.entryTimeMs) return cancel('the entry candle is missing from the store')
    return atCycleEnd ? cancel('the cycle ended before the entry bar') : null
  }
  if (!(bars.o[e] > 0)) return cancel('the entry bar has no positive open')
  const entryPrice = bars.o[e]
  const last = lastCompletedBar(bars, nowMs)
  if (last < e) {
    if (atCycleEnd) return cancel('the cycle ended before the entry bar completed')
    return p.status === 'pending' ? { status: 'open', entryPrice } : null
  }
  const exit = strategy.exit_conditions != null ? exitMask(strategy, bars) : null
  // the position's model, frozen by its engine label (none: the model before issue 25): its
  // execution costs' inputs, and for v4 the coin's minutes and mark candles
  const { execution, input } = market.inputs(p.engine, p.coin, p.timeframe, bars, p.leverage, p.marginUsd)
  const params = { ...tradeParams(p.direction as Direction, p), ...(execution ? { execution } : {}) }
  const model = new TradeModel({ bars, exit, fromIdx: e, toIdx: last, funding: deps.store.funding(p.coin) ?? null, ...input }, params)
  model.tradeFrom(e)
  const reason = EXIT_REASONS[model.reason]!
  const markedThroughMs = bars.t[last] + bars.stepMs
  if (reason === 'end_of_data' && !atCycleEnd) {
    const sign = p.direction === 'long' ? 1 : -1
    const unrealizedUsd = sign * (bars.c[last] / entryPrice - 1) * p.leverage * p.marginUsd
    return { status: 'open', entryPrice, markPrice: bars.c[last], unrealizedUsd, markedThroughMs }
  }
  return {
    status: reason === 'end_of_data' ? 'cycle_end' : reason,
    entryPrice,
    exitReason: reason === 'end_of_data' ? 'cycle_end' : reason,
    exitPrice: model.exitPrice,
    exitTimeMs: model.exitTimeMs,
    barsHeld: model.barsHeld,
    pnlPct: model.pnlPct,
    pnlUsd: (model.pnlPct / 100) * p.marginUsd,
    markPrice: model.exitPrice,
    unrealizedUsd: 0,
    markedThroughMs,
    closedAtMs: nowMs,
    ...(replaysMinutes(p.engine) ? { exitResolution: exitResolution(model) } : {}),
  }
}

/** History rows for every finished day of the cycle up to `untilMs` not written yet. */
async function writeHistory(deps: PaperDeps, cycle: PaperCycleRow, untilMs: number): Promise<number> {
  const written = new Set((await historyOf(deps.db, cycle.id)).map(r => r.date))
  let n = 0
  for (let d = cycle.startMs; d + DAY_MS <= untilMs; d += DAY_MS) {
    const date = isoDay(d)
    if (written.has(date)) continue
    const e = await equityAt(deps, cycle, d + DAY_MS)
    await insertHistory(deps.db, { cycleId: cycle.id, date, equity: e.equity, openCount: e.open, closedCount: e.closed })
    n++
  }
  return n
}
