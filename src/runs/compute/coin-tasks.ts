/**
 * The tasks of a run's coins: their signals and trades, one chunk of coins per task
 * (coinTrades; the main thread merges the chunks and books them), or small runs done
 * whole in one thread (wholeRuns, for compare).
 */
import { markMovesAt, type MidnightCloses } from '../../engine/equity-curve'
import type { IntrabarCounts, IntrabarDetail } from '../../engine/intrabar'
import { entryMaskOf, filtersEntries } from '../../engine/entry-mask'
import { barsInsideWindows, maskOutsideWindows, membershipAt, membershipsOf, type Memberships } from '../../engine/tradable-windows'
import type { BacktestMetrics } from '../../engine/metrics'
import { bookSteps, daySpan, markOver, type DaySpan } from '../../engine/run'
import { simulateCoin, simulateCoinKnownRows, simulateCoinRows, writeTradeRow, type BarRuleTwin, type CoinSimInput, type KnownTrades, type KnownTradeSink, type TradeModel, type TradeModelInput, type TradeRowSink } from '../../engine/trade-model'
import type { Direction, TradeParams } from '../../engine/types'
import { TradeTableBuilder, type TradeTable } from '../../engine/trade-table'
import { intrabarOf, portfolioOptionsOf, tradeParamsOf, windowOf, type RunSpec } from '../spec'
import { executionReport } from '../execution-report'
import { intrabarBlock, mergeIntrabar, type ChunkIntrabar } from '../intrabar-summary'
import type { CapacityBlock, CostsBlock, IntrabarBlock } from '../result-model'
import { detailSourceOf } from './intrabar-detail'
import { acceptSteps } from '../../engine/portfolio'
import { finish } from '../../engine/steps'
import type { Bars } from '../../market/types'
import { lowerBound } from '../../sorted-search'
import type { Trade } from '../../engine/types'
import { strategyKeyOf, type TaskContext } from './context'

export interface CoinTradesPayload {
  spec: RunSpec
  symbols: string[]
  /**
   * a point-in-time universe (runs/universe-plan.ts): each coin's membership intervals
   * [from, to, …] in ms, in the order of `symbols`; a coin opens trades only inside them
   * (absent: no such limit)
   */
  memberships?: Memberships
  /** the coins among `symbols` that are delisted: a trade open at their last candle exits `delisted` */
  delisted?: string[]
  /**
   * a point-in-time run's twin on today's universe (its survivorship figures: twin-tasks.ts):
   * the chunk's coins of today's top N; what the chunk knows of their twin trades comes
   * back as `twin` (ChunkTwin)
   */
  twin?: string[]
  /**
   * false: do not simulate the bar rule's trades of the coins a minute replay changed (they
   * serve only `rule_bias`: a run that answers no intrabar block, like a metrics-only batch,
   * skips them); default true
   */
  ruleTrades?: boolean
}

export interface CoinOutcome {
  symbol: string
  /** at least one bar inside the date window */
  inWindow: boolean
  /** first and last bar open time inside the window */
  fromMs: number | null
  toMs: number | null
  /** bars inside the window where data a leaf reads was absent (0 when the trees read none) */
  absentBars?: number
}

export interface CoinTradesResult {
  coins: CoinOutcome[]
  /**
   * The chunk's trades coin by coin (`coin` indexes the payload's symbols), with their
   * midnight marks on the 1H base series: columns cross to the main thread in a few
   * copies, and the portfolio's daily marks need no candle reads there.
   */
  trades: TradeTable
  /** what the chunk knows of the twin's trades of the payload's `twin` coins */
  twin?: ChunkTwin
  /** the chunk's minute replays (absent with intrabar 'bar') */
  intrabar?: ChunkIntrabar
}

/**
 * A chunk's rows of a point-in-time run's twin on today's coins, in the columns its
 * survivorship figures read (the portfolio's choice and the net P&L; twin-tasks.ts): coin
 * k's rows are start[k] … start[k + 1] − 1, in time order.
 */
export interface TwinRows {
  /** the chunk's twin coins with a bar in the window, in the order asked */
  symbols: string[]
  start: Int32Array
  entryMs: Float64Array
  exitMs: Float64Array
  pnlPct: Float64Array
}

/**
 * What a point-in-time chunk knows of its twin on today's coins: the rows of the twin's
 * coins whose membership cut none of their signals (the twin's trades of such a coin are the run's),
 * and the coins the twin must simulate again without limits (runTwinRows, on the same
 * worker, while the main thread books the run), with the run's own rows of those it held.
 */
export interface ChunkTwin {
  rows: TwinRows
  /** the twin's coins of the chunk to simulate again, in the order asked */
  left: string[]
  /** the run's rows of the coins of `left` it held, for runTwinRows to reuse where they entered */
  known: KnownRows
}

/** A chunk's rows of some coins with the bars they entered and exited at (simulateCoinKnownRows's KnownTrades). */
export interface KnownRows extends TwinRows {
  entryIdx: Int32Array
  exitIdx: Int32Array
}

/** a coin without minutes: every bar that needed them is counted as left to the rule */
const NO_MINUTES: IntrabarDetail = { minutes: () => null }

/**
 * The coins of a task whose funding amounts the thread does not keep yet that the task works
 * out (TaskContext.keptFunding, 80 µs a coin of two years): a trade's funding is then a sum
 * of kept amounts instead of two cache misses per event, but one run's lookups cost less than
 * the pass, so each task pays for a few coins only: a worker's coins all have them after a
 * few runs, and no run, a fresh server's first included, pays more than about 2.6 ms for it.
 */
const KEPT_FUNDING_PER_TASK = 32

export interface WholeRunsPayload {
  /** runs over the same coins (compare's strategies) */
  specs: RunSpec[]
  symbols: string[]
  /** a point-in-time universe's membership intervals and delisted coins (CoinTradesPayload) */
  tradable?: Record<string, number[]>
  delisted?: string[]
  /** the portfolio's coin count when it is not the symbols' (a point-in-time run's largest set) */
  coinCount?: number
  /** each run's `intrabar`, `costs` and `capacity` too (compare's answer; RunMetricsResult.report) */
  report?: boolean
}

/**
 * What compare shows of a run beside its metrics, built by the code that builds them for
 * /simulate's body (intrabar-summary.ts, execution-report.ts): `intrabar` null for a spec
 * without the setting, `capacity` null for one without execution settings.
 */
export interface RunReport {
  intrabar: IntrabarBlock | null
  costs: CostsBlock
  capacity: CapacityBlock | null
}

/** The metrics of a run done whole in one worker, and its day span (null: no bar in the window). */
export interface RunMetricsResult {
  metrics: BacktestMetrics
  span: DaySpan | null
  /** when the portfolio's equity reached zero (PortfolioResult.ruinedAtMs) */
  ruinedAtMs: number | null
  /** asked for with WholeRunsPayload.report (absent from every other task's answer) */
  report?: RunReport
}

/**
 * What a coin's trades need for the run's execution (engine/execution.ts): its cost series
 * and brackets when the run uses them, and its mark-price candles where the store has them
 * and the run has an execution model (a spec without one is the model before issue 25,
 * liquidated on the last price). `bars`: the run's bars of the coin (its timeframe).
 */
export function executionInputs(ctx: TaskContext, params: TradeParams, symbol: string, bars?: Bars, tf: RunSpec['timeframe'] = '1H'): Pick<TradeModelInput, 'costs' | 'brackets' | 'mark'> {
  return {
    costs: params.execution?.slippage === 'impact' ? ctx.costs(symbol) : null,
    brackets: params.execution?.margin === 'brackets' ? (ctx.view.marginBrackets(symbol) ?? null) : null,
    mark: params.execution && params.marketType === 'futures' && bars ? ctx.mark(symbol, tf, bars) : null,
  }
}

/**
 * A coin's entry mask after the run's entry filters, and its exit mask (from the thread's
 * signal cache). `entry` null: no filter, and `entryBars` lists the signals (the cache may
 * keep no mask for them: its mask is not made for a reader that steps along the list).
 */
export function coinMasks(ctx: TaskContext, spec: RunSpec, strategyKey: string, symbol: string, bars: Bars): { entry: Uint8Array | null; exit: Uint8Array | null; absent: Uint8Array | null; entryBars: Int32Array | null } {
  const masks = ctx.signals(spec, strategyKey, symbol, bars)
  if (masks.entryBars !== null && !filtersEntries(spec)) return { entry: null, exit: masks.exit, absent: masks.absent, entryBars: masks.entryBars }
  const entry = entryMaskOf(masks.entry, bars, spec)
  // the cached list of signal bars holds for the cached mask only (a filtered mask has fewer)
  return { entry, exit: masks.exit, absent: masks.absent, entryBars: entry === masks.entry ? masks.entryBars : null }
}

/**
 * A coin's entry signals for the simulator under a point-in-time membership (its
 * intervals; null: none limits them, undefined or empty: the coin never was in the set):
 * a coin with a cached signal list reads that list cut to its membership, and no mask is
 * made for it; else its mask cut.
 */
export function entriesWithin(masks: { entry: Uint8Array | null; entryBars: Int32Array | null }, bars: Bars, membership: ArrayLike<number> | null | undefined): Pick<CoinSimInput, 'entry' | 'entryBars'> {
  if (membership === null) return { entry: masks.entry, entryBars: masks.entryBars }
  if (masks.entryBars !== null) return { entry: null, entryBars: barsInsideWindows(masks.entryBars, bars, membership) }
  // (a mask where there is no list: coinMasks)
  return { entry: maskOutsideWindows(masks.entry!, bars, membership), entryBars: null }
}

/** Bars fromIdx … toIdx marked in `absent`. */
function countAbsent(absent: Uint8Array | null, fromIdx: number, toIdx: number): number {
  if (!absent) return 0
  let k = 0
  for (let i = fromIdx; i <= toIdx; i++) k += absent[i]
  return k
}

/** One coin's trades in a run, and the simulator's input they came from (for the bar rule's trades of intrabar). */
export interface CoinRun {
  outcome: CoinOutcome
  trades: Trade[]
  input: Parameters<typeof simulateCoin>[0]
  /** with minute detail: the bar rule's trades where a replay changed one (simulateCoin's twin), else null */
  barRule: Trade[] | null
}

/**
 * Coins' trades already simulated under one spec in this task, by coin, delisting and
 * membership: runs over several coin sets of one spec (the rankings' point-in-time groups)
 * simulate a coin with the same membership once.
 */
export type CoinRunMemo = Map<string, CoinRun>

/** What simulating a coin of one spec needs, worked out once per task. */
interface SpecRun {
  spec: RunSpec
  params: TradeParams
  strategyKey: string
  withDetail: boolean
  delisted: ReadonlySet<string>
  /** the coins whose funding amounts the task may still work out (KEPT_FUNDING_PER_TASK) */
  keptFundingLeft: number
}

function specRunOf(spec: RunSpec, delisted: readonly string[] = []): SpecRun {
  return { spec, params: tradeParamsOf(spec), strategyKey: strategyKeyOf(spec.strategy), withDetail: intrabarOf(spec) !== 'bar', delisted: new Set(delisted), keptFundingLeft: KEPT_FUNDING_PER_TASK }
}

/** A coin's bars and window under the run (null: no bar in it), and whether its membership (null: none) limits nothing there. */
interface CoinWindow {
  bars: Bars
  win: { fromIdx: number; toIdx: number }
  covered: boolean
}

function coinWindowOf(ctx: TaskContext, r: SpecRun, symbol: string, membership: Float64Array | null): CoinWindow | null {
  const bars = ctx.bars(symbol, r.spec.timeframe)
  const win = windowOf(r.spec, bars)
  if (!bars || !win) return null
  // a single interval over every entry instant of the window masks nothing
  const covered = membership === null || (membership.length === 2 && membership[0] <= bars.t[win.fromIdx] + bars.stepMs && membership[1] > bars.t[win.toIdx])
  return { bars, win, covered }
}

/**
 * The simulator's input of a coin in its window (its masks from the thread's signal cache,
 * its minutes, execution inputs and funding), its outcome, and whether its membership cut
 * none of its signals in the window (its trades are then those without the membership).
 */
function coinInputOf(ctx: TaskContext, r: SpecRun, symbol: string, w: CoinWindow, membership: Float64Array | null, coinsWithout: string[]): Pick<CoinRun, 'input' | 'outcome'> & { cutNothing: boolean } {
  const { spec, params } = r
  const { bars, win } = w
  const masks = coinMasks(ctx, spec, r.strategyKey, symbol, bars)
  let detail: IntrabarDetail | null = null
  if (r.withDetail) {
    detail = ctx.detail(symbol)
    if (detail === null) {
      coinsWithout.push(symbol)
      detail = NO_MINUTES
    }
  }
  // the execution inputs named one by one: a spread of them costs a generic property copy per coin
  const ex = executionInputs(ctx, params, symbol, bars, spec.timeframe)
  const { entry, entryBars } = entriesWithin(masks, bars, w.covered ? null : membership!)
  // a membership that cut no signal of the window (a coin listed inside it with none before it
  // entered the set, most limited coins of a monthly run) leaves the coin's trades as they are
  // without it: the list cut from the cached one (cut ⊆ cached) has as many signals there
  const cutNothing = w.covered || (entryBars != null && masks.entryBars !== null && signalsWithin(entryBars, win) === signalsWithin(masks.entryBars, win))
  const funding = params.marketType === 'spot' ? null : ctx.view.funding(symbol) ?? null
  const input: CoinSimInput = {
    symbol, bars, entry, entryBars, exit: masks.exit, fromIdx: win.fromIdx, toIdx: win.toIdx,
    funding,
    // the coin's funding amounts where the thread keeps them (an earlier run or its random-entry null made them), else made here within the task's share
    keptFunding: params.marketType === 'spot' ? null : () => ctx.keptFundingIfAny(symbol, spec.timeframe, bars, funding) ?? (r.keptFundingLeft-- > 0 ? ctx.keptFunding(symbol, spec.timeframe, bars) : null),
    costs: ex.costs,
    brackets: ex.brackets,
    mark: ex.mark,
    detail,
    delisted: r.delisted.has(symbol),
  }
  const absentBars = countAbsent(masks.absent, win.fromIdx, win.toIdx)
  // absentBars set only where there are some (a spread of an empty object per coin cost a generic property copy)
  const outcome: CoinOutcome = { symbol, inWindow: true, fromMs: bars.t[win.fromIdx], toMs: bars.t[win.toIdx] }
  if (absentBars > 0) outcome.absentBars = absentBars
  return { input, outcome, cutNothing }
}

/** The signal bars of a sorted list inside the window. */
function signalsWithin(list: Int32Array, win: { fromIdx: number; toIdx: number }): number {
  return lowerBound(list, win.toIdx + 1) - lowerBound(list, win.fromIdx)
}

/**
 * A coin's trades under its membership (`membership` null: none) from a memo across runs,
 * simulated and kept there where it lacks them, or null when the coin has no bar in the
 * window; and whether the membership limited nothing.
 */
function coinRunOf(
  ctx: TaskContext,
  r: SpecRun,
  symbol: string,
  membership: Float64Array | null,
  counts: IntrabarCounts,
  coinsWithout: string[],
  memo: CoinRunMemo,
): { run: CoinRun; covered: boolean } | null {
  const w = coinWindowOf(ctx, r, symbol, membership)
  if (w === null) return null
  const { covered } = w
  const key = `${symbol}|${r.delisted.has(symbol) ? 'd' : ''}|${covered ? '*' : membership!.join(',')}`
  let run = memo.get(key)
  if (!run) {
    const c = coinInputOf(ctx, r, symbol, w, membership, coinsWithout)
    const twin: BarRuleTwin = { trades: null }
    const trades = simulateCoin(c.input, r.params, counts, twin)
    run = { ...c, trades, barRule: twin.trades }
    memo.set(key, run)
  }
  return { run, covered }
}

/**
 * The builder a thread's coin tasks write their rows into (TradeTableBuilder.takeRows: the
 * answer is a copy), kept between tasks with its columns up to KEPT_ROWS rows (about 8.5 MB):
 * a task that needs more adds segments, dropped after it.
 */
let keptRows: TradeTableBuilder | null = null
const KEPT_ROWS = 1 << 16

/** A chunk's rows and marks, each coin's trades written as they are priced (simulateCoinRows), no Trade object made. */
class ChunkRows implements TradeRowSink {
  readonly table: TradeTableBuilder
  private coin = 0
  private bars: Bars | null = null
  private days: MidnightCloses | null = null

  constructor(
    direction: Direction,
    symbols: readonly string[],
    private readonly leverage: number,
  ) {
    const kept = keptRows
    keptRows = null
    this.table = kept ?? new TradeTableBuilder(direction, symbols, 4096, 8192)
    this.table.restart(direction, symbols)
  }

  /** The next trades are coin `coin`'s on `bars`, marked at `days` (its midnight closes). */
  startCoin(coin: number, bars: Bars, days: MidnightCloses | null): void {
    this.coin = coin
    this.bars = bars
    this.days = days
  }

  take(model: TradeModel, e: number): void {
    const bars = this.bars!
    const table = this.table
    // the trade's midnight marks (markMovesOf's, priced from the coin's midnight closes), then its row (which owns the marks added before it)
    markMovesAt(bars.t[e], model.exitTimeMs, bars.o[e], table.rows.direction, this.leverage, this.days, table)
    const i = table.append(this.coin)
    writeTradeRow(table.rows, i, model, bars, e)
  }

  /** The chunk's table; the builder kept for the thread's next task, its columns cut back to KEPT_ROWS rows. */
  finish(): TradeTable {
    const t = this.table.takeRows()
    this.table.restart(t.direction, t.symbols, KEPT_ROWS)
    keptRows = this.table
    return t
  }
}

/**
 * The bar rule's trades of a coin a replay changed (simulateCoin's twin `bar`, against the
 * coin's own trades `own`) into the bar rule's table, each with its row among the coin's
 * own (`barRows`; −1 where the two lists do not pair up).
 */
function pushBarRule(barTable: TradeTableBuilder, barRows: number[], own: readonly Trade[], bar: readonly Trade[], coin: number): void {
  if (bar.length === own.length && bar.every((tr, k) => tr.entryIdx === own[k].entryIdx)) {
    // the same entries: the trades that differ stand in for theirs (the twin holds the others themselves)
    bar.forEach((tr, k) => {
      if (tr === own[k]) return
      barTable.push(tr, coin)
      barRows.push(k)
    })
  } else
    for (const tr of bar) {
      barTable.push(tr, coin)
      barRows.push(-1)
    }
}

/**
 * Each coin's filtered entry signals → its trades under the run's trade model, with their
 * daily marks. Written as rows as they are priced, unless the task keeps a coin's Trade
 * objects in a memo across runs.
 */
export function runCoinTrades(ctx: TaskContext, payload: CoinTradesPayload, memo?: CoinRunMemo): CoinTradesResult {
  const r = specRunOf(payload.spec, payload.delisted)
  const { params, withDetail } = r
  const { symbols, memberships } = payload
  const coins: CoinOutcome[] = []
  const counts: IntrabarCounts = { replayed: 0, leftToRule: 0 }
  const coinsWithout: string[] = []
  const changedCoins: string[] = []
  const barTable = withDetail && payload.ruleTrades !== false ? new TradeTableBuilder(params.direction, symbols) : null
  const barRows: number[] = []
  /** the chunk's coins for its twin (CoinTradesPayload.twin): each one's rows in the chunk's table, and whether they are its trades without the membership too (ChunkCoins) */
  const seen: ChunkCoins | null = payload.twin ? new Map() : null
  const rows = new ChunkRows(params.direction, symbols, params.leverage)
  const table = rows.table
  const outside = (symbol: string) => {
    seen?.set(symbol, null)
    coins.push({ symbol, inWindow: false, fromMs: null, toMs: null })
  }
  symbols.forEach((symbol, coin) => {
    const membership = memberships ? membershipAt(memberships, coin) : null
    const from = table.size
    // as rows, but for a memo across runs
    if (memo === undefined) {
      const w = coinWindowOf(ctx, r, symbol, membership)
      if (w === null) return outside(symbol)
      const c = coinInputOf(ctx, r, symbol, w, membership, coinsWithout)
      rows.startCoin(coin, w.bars, ctx.midnightCloses(symbol))
      if (simulateCoinRows(c.input, params, rows, counts) && barTable) {
        // a replay changed a trade: the coin again as objects for the bar rule's (its counts already added)
        const twin: BarRuleTwin = { trades: null }
        const own = simulateCoin(c.input, params, undefined, twin)
        changedCoins.push(symbol)
        pushBarRule(barTable, barRows, own, twin.trades!, coin)
      }
      seen?.set(symbol, { from, to: table.size, asRun: c.cutNothing })
      coins.push(c.outcome)
      return
    }
    const got = coinRunOf(ctx, r, symbol, membership, counts, coinsWithout, memo)
    if (!got) return outside(symbol)
    const { run } = got
    // marked on the 1H base series, whatever the run's timeframe (TaskContext.midnightCloses)
    const days = ctx.midnightCloses(symbol)
    let changed = 0
    for (const tr of run.trades) {
      markMovesAt(tr.entryTimeMs, tr.exitTimeMs, tr.entryPrice, tr.direction, params.leverage, days, table)
      table.push(tr, coin)
      if (tr.exitChanged) changed++
    }
    if (barTable && changed > 0) {
      // the bar rule's trades of this coin (simulateCoin's twin: only the changed trades are priced again)
      changedCoins.push(symbol)
      pushBarRule(barTable, barRows, run.trades, run.barRule!, coin)
    }
    seen?.set(symbol, { from, to: table.size, asRun: got.covered })
    coins.push(run.outcome)
  })
  const result: CoinTradesResult = { coins, trades: rows.finish() }
  if (barTable) result.intrabar = { ...counts, coinsWithout, changedCoins, barTrades: barTable.finish(), barRows: Int32Array.from(barRows) }
  if (payload.twin) result.twin = chunkTwinOf(payload.twin, seen!, result.trades)
  return result
}

/**
 * A point-in-time chunk's coins: each one's rows [from, to) in the chunk's table and whether
 * they are its trades without the membership too (`asRun`: the membership cut no signal of
 * the window); null: no bar in the window.
 */
type ChunkCoins = Map<string, { from: number; to: number; asRun: boolean } | null>

/**
 * What the chunk knows of its twin's trades of `twin` (ChunkTwin): a coin whose membership
 * cut none of its signals has the run's rows; one it cut, and one the chunk does not hold, are
 * left to runTwinRows (the first with the run's rows to reuse); one without a bar in the
 * window has no trade in the twin either.
 */
function chunkTwinOf(twin: readonly string[], seen: ChunkCoins, table: TradeTable): ChunkTwin {
  const asRun: string[] = []
  const left: string[] = []
  const held: string[] = []
  for (const s of twin) {
    const c = seen.get(s)
    if (c === null) continue
    if (c?.asRun) asRun.push(s)
    else {
      left.push(s)
      if (c) held.push(s)
    }
  }
  return { rows: rowsOf(asRun, seen, table, false), left, known: rowsOf(held, seen, table, true) }
}

/** The chunk table's rows of `symbols` (each coin's block) as TwinRows, or KnownRows with `withBars`. */
function rowsOf(symbols: string[], seen: ChunkCoins, table: TradeTable, withBars: false): TwinRows
function rowsOf(symbols: string[], seen: ChunkCoins, table: TradeTable, withBars: true): KnownRows
function rowsOf(symbols: string[], seen: ChunkCoins, table: TradeTable, withBars: boolean): TwinRows | KnownRows {
  const start = new Int32Array(symbols.length + 1)
  symbols.forEach((s, k) => {
    const c = seen.get(s)!
    start[k + 1] = start[k] + c.to - c.from
  })
  const n = start[symbols.length]
  const out: TwinRows = { symbols, start, entryMs: new Float64Array(n), exitMs: new Float64Array(n), pnlPct: new Float64Array(n) }
  const idx = withBars ? { entryIdx: new Int32Array(n), exitIdx: new Int32Array(n) } : null
  // row by row: a coin has a few dozen rows, fewer than a subarray per column costs
  symbols.forEach((s, k) => {
    const { from, to } = seen.get(s)!
    for (let i = from, j = start[k]; i < to; i++, j++) {
      out.entryMs[j] = table.entryMs[i]
      out.exitMs[j] = table.exitMs[i]
      out.pnlPct[j] = table.pnlPct[i]
      if (idx) {
        idx.entryIdx[j] = table.entryIdx[i]
        idx.exitIdx[j] = table.exitIdx[i]
      }
    }
  })
  return idx ? { ...out, ...idx } : out
}

export interface TwinRowsPayload {
  spec: RunSpec
  /** the twin's coins to simulate without membership limits (ChunkTwin.left) */
  symbols: string[]
  /** the coins among them that are delisted (CoinTradesPayload.delisted) */
  delisted?: string[]
  /** the run's rows of those it held (ChunkTwin.known) */
  known: KnownRows
}

/**
 * The twin's rows of coins a point-in-time run limited or never held, simulated without
 * membership limits: a held coin reuses the run's trades where they entered
 * (simulateCoinKnownRows: a trade depends on its entry bar alone). Runs on the worker that
 * ran the coins' chunk, whose signal cache holds them.
 */
export function runTwinRows(ctx: TaskContext, payload: TwinRowsPayload): TwinRows {
  const r = specRunOf(payload.spec, payload.delisted)
  const { known } = payload
  const at = new Map(known.symbols.map((s, k) => [s, k]))
  const sink = new TwinRowsSink(known)
  const symbols: string[] = []
  const start = [0]
  const none: KnownTrades = { entryIdx: known.entryIdx, exitIdx: known.exitIdx, from: 0, to: 0 }
  for (const symbol of payload.symbols) {
    const w = coinWindowOf(ctx, r, symbol, null)
    if (w === null) continue
    const { input } = coinInputOf(ctx, r, symbol, w, null, [])
    const k = at.get(symbol)
    sink.bars = w.bars
    simulateCoinKnownRows(input, r.params, k === undefined ? none : { entryIdx: known.entryIdx, exitIdx: known.exitIdx, from: known.start[k], to: known.start[k + 1] }, sink)
    symbols.push(symbol)
    start.push(sink.n)
  }
  return sink.rows(symbols, Int32Array.from(start))
}

/** The twin's rows as runTwinRows makes them: a known trade copied from its row, another from the model that priced it. */
class TwinRowsSink implements KnownTradeSink {
  bars: Bars | null = null
  n = 0
  private entryMs: number[] = []
  private exitMs: number[] = []
  private pnlPct: number[] = []

  constructor(private readonly known: KnownRows) {}

  take(model: TradeModel, e: number): void {
    this.push(this.bars!.t[e], model.exitTimeMs, model.pnlPct)
  }

  takeKnown(row: number): void {
    this.push(this.known.entryMs[row], this.known.exitMs[row], this.known.pnlPct[row])
  }

  private push(entryMs: number, exitMs: number, pnlPct: number): void {
    this.entryMs.push(entryMs)
    this.exitMs.push(exitMs)
    this.pnlPct.push(pnlPct)
    this.n++
  }

  rows(symbols: string[], start: Int32Array): TwinRows {
    return { symbols, start, entryMs: Float64Array.from(this.entryMs), exitMs: Float64Array.from(this.exitMs), pnlPct: Float64Array.from(this.pnlPct) }
  }
}

/**
 * Several small runs done whole in this thread (compare): each run's trades booked by the
 * same step the main thread takes for one big run (engine/run.ts); the metrics go back,
 * and with `report` the run's `intrabar`, `costs` and `capacity` as /simulate's body has them.
 */
export function runWholeRuns(ctx: TaskContext, payload: WholeRunsPayload): RunMetricsResult[] {
  const memberships = payload.tradable ? membershipsOf(payload.symbols, payload.tradable) : undefined
  return payload.specs.map(spec => {
    // the bar rule's trades behind rule_bias only when the blocks are asked for
    const { coins, trades, intrabar } = runCoinTrades(ctx, { spec, symbols: payload.symbols, memberships, delisted: payload.delisted, ruleTrades: payload.report === true })
    const span = daySpan(coins)
    const opts = portfolioOptionsOf(spec, payload.coinCount ?? payload.symbols.length)
    const acceptance = finish(acceptSteps(trades, opts))
    const { metrics, portfolio } = finish(bookSteps(trades, opts, markOver(span, s => ctx.view.bars(s)), acceptance))
    const result: RunMetricsResult = { metrics, span, ruinedAtMs: portfolio.ruinedAtMs }
    if (payload.report) {
      const info = ctx.view.detailInfo()
      const sources = { detailSource: (s: string) => detailSourceOf(info, s, ctx.view.bars(s) !== undefined) }
      const ib = intrabarBlock(spec, payload.symbols, sources, mergeIntrabar(payload.symbols, [intrabar]), trades, acceptance, metrics, opts)
      const { costs, capacity } = executionReport(spec, payload.symbols, portfolio, { marginBrackets: s => ctx.view.marginBrackets(s), mark: s => ctx.view.mark?.(s) })
      result.report = { intrabar: ib?.block ?? null, costs, capacity }
    }
    return result
  })
}
