/**
 * The tasks of a run's coins: their signals and trades, one chunk of coins per task
 * (coinTrades; the main thread merges the chunks and books them), or small runs done
 * whole in one thread (wholeRuns, for compare).
 */
import { markMovesAt, type MidnightCloses } from '../../engine/equity-curve'
import type { IntrabarCounts, IntrabarDetail } from '../../engine/intrabar'
import { entryMaskOf, filtersEntries } from '../../engine/entry-mask'
import { barsInsideWindows, maskOutsideWindows } from '../../engine/tradable-windows'
import type { BacktestMetrics } from '../../engine/metrics'
import { bookSteps, daySpan, markOver, type DaySpan } from '../../engine/run'
import { simulateCoin, simulateCoinRows, writeTradeRow, type BarRuleTwin, type CoinSimInput, type TradeModel, type TradeModelInput, type TradeRowSink } from '../../engine/trade-model'
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
import type { Trade } from '../../engine/types'
import { strategyKeyOf, type TaskContext } from './context'

export interface CoinTradesPayload {
  spec: RunSpec
  symbols: string[]
  /**
   * a point-in-time universe (runs/universe-plan.ts): each coin's membership intervals
   * [from, to, …] in ms; a coin opens trades only inside them (absent: no such limit)
   */
  tradable?: Record<string, number[]>
  /** the coins among `symbols` that are delisted: a trade open at their last candle exits `delisted` */
  delisted?: string[]
  /**
   * a point-in-time run's twin on today's universe (its survivorship figures: twin-tasks.ts):
   * the chunk's coins of today's top N, simulated without membership limits from the run's
   * trades (twinRowsOf), whose rows come back as `twin`
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
  /** the twin's rows of the payload's `twin` coins */
  twin?: TwinRows
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
export function entriesWithin(masks: { entry: Uint8Array | null; entryBars: Int32Array | null }, bars: Bars, membership: readonly number[] | null | undefined): Pick<CoinSimInput, 'entry' | 'entryBars'> {
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
  /** the coin's entry signals before its membership cut them (the input's own where it cut nothing) */
  unlimited: Pick<CoinSimInput, 'entry' | 'entryBars'>
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

function coinWindowOf(ctx: TaskContext, r: SpecRun, symbol: string, membership: number[] | null): CoinWindow | null {
  const bars = ctx.bars(symbol, r.spec.timeframe)
  const win = windowOf(r.spec, bars)
  if (!bars || !win) return null
  // a single interval over every entry instant of the window masks nothing
  const covered = membership === null || (membership.length === 2 && membership[0] <= bars.t[win.fromIdx] + bars.stepMs && membership[1] > bars.t[win.toIdx])
  return { bars, win, covered }
}

/**
 * The simulator's input of a coin in its window (its masks from the thread's signal cache,
 * its minutes, execution inputs and funding), its outcome, and its entry signals before
 * the membership cut them.
 */
function coinInputOf(ctx: TaskContext, r: SpecRun, symbol: string, w: CoinWindow, membership: number[] | null, coinsWithout: string[]): Pick<CoinRun, 'input' | 'outcome' | 'unlimited'> {
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
  return { input, outcome, unlimited: { entry: masks.entry, entryBars: masks.entryBars } }
}

/**
 * A coin's trades under its membership (`membership` null: none), or null when the coin
 * has no bar in the window: its outcome and trades, the memo key they are kept under
 * (CoinRunMemo; '' without a memo), and whether the membership limited nothing. `barRule` false: the bar
 * rule's trades of the coin are not made (a twin answers no rule_bias).
 */
function coinRunOf(
  ctx: TaskContext,
  r: SpecRun,
  symbol: string,
  membership: number[] | null,
  counts: IntrabarCounts,
  coinsWithout: string[],
  opts: { memo?: CoinRunMemo; barRule?: boolean } = {},
): { run: CoinRun; key: string; covered: boolean } | null {
  const w = coinWindowOf(ctx, r, symbol, membership)
  if (w === null) return null
  const { covered } = w
  // the memo's key only where there is a memo (a string per coin otherwise made for nothing)
  const memo = opts.memo
  const key = memo === undefined ? '' : `${symbol}|${r.delisted.has(symbol) ? 'd' : ''}|${covered ? '*' : membership!.join(',')}`
  let run = memo?.get(key)
  if (!run) {
    const c = coinInputOf(ctx, r, symbol, w, membership, coinsWithout)
    const twin: BarRuleTwin | undefined = opts.barRule === false ? undefined : { trades: null }
    const trades = simulateCoin(c.input, r.params, counts, twin)
    run = { ...c, trades, barRule: twin?.trades ?? null }
    memo?.set(key, run)
  }
  return { run, key, covered }
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
 * objects: a memo across runs, and a point-in-time run's coin whose membership limits it
 * (its twin on today's coins prices it again from them).
 */
export function runCoinTrades(ctx: TaskContext, payload: CoinTradesPayload, memo?: CoinRunMemo): CoinTradesResult {
  const r = specRunOf(payload.spec, payload.delisted)
  const { params, withDetail } = r
  const { symbols, tradable } = payload
  const coins: CoinOutcome[] = []
  const counts: IntrabarCounts = { replayed: 0, leftToRule: 0 }
  const coinsWithout: string[] = []
  const changedCoins: string[] = []
  const barTable = withDetail && payload.ruleTrades !== false ? new TradeTableBuilder(params.direction, symbols) : null
  const barRows: number[] = []
  /** the chunk's trades, for its twin (CoinTradesPayload.twin) */
  const kept: RunTrades | null = payload.twin ? new Map() : null
  const rows = new ChunkRows(params.direction, symbols, params.leverage)
  const table = rows.table
  const opts = { memo }
  symbols.forEach((symbol, coin) => {
    const membership = tradable ? (tradable[symbol] ?? []) : null
    const w = memo === undefined ? coinWindowOf(ctx, r, symbol, membership) : undefined
    if (w === null) return void coins.push({ symbol, inWindow: false, fromMs: null, toMs: null })
    // as rows, but for a memo across runs and, in a point-in-time run, a coin its membership
    // limits: the twin prices that one again from its Trade objects (twinRowsOf)
    if (w !== undefined && (kept === null || w.covered)) {
      const c = coinInputOf(ctx, r, symbol, w, membership, coinsWithout)
      rows.startCoin(coin, w.bars, ctx.midnightCloses(symbol))
      const from = table.size
      if (simulateCoinRows(c.input, params, rows, counts) && barTable) {
        // a replay changed a trade: the coin again as objects for the bar rule's (its counts already added)
        const twin: BarRuleTwin = { trades: null }
        const own = simulateCoin(c.input, params, undefined, twin)
        changedCoins.push(symbol)
        pushBarRule(barTable, barRows, own, twin.trades!, coin)
      }
      kept?.set(symbol, { from, to: table.size })
      coins.push(c.outcome)
      return
    }
    const got = coinRunOf(ctx, r, symbol, membership, counts, coinsWithout, opts)
    if (!got) return void coins.push({ symbol, inWindow: false, fromMs: null, toMs: null })
    const { run, covered } = got
    kept?.set(symbol, { run, covered })
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
    coins.push(run.outcome)
  })
  const result: CoinTradesResult = { coins, trades: rows.finish() }
  if (barTable) result.intrabar = { ...counts, coinsWithout, changedCoins, barTrades: barTable.finish(), barRows: Int32Array.from(barRows) }
  if (payload.twin) result.twin = twinRowsOf(ctx, r, payload.twin, kept!, result.trades)
  return result
}

/**
 * A chunk's coins of a point-in-time run: a coin whose membership limited nothing by its
 * rows in the chunk's table, [from, to) (the twin's trades of the coin are the run's); any
 * other by its run (and whether its membership limited nothing, for a coin of a memo's run).
 */
type RunTrades = Map<string, { from: number; to: number } | { run: CoinRun; covered: boolean }>

/**
 * The twin's rows of `symbols`, simulated without membership limits, from the run's trades
 * of the chunk (`run`): a coin whose membership limited nothing has them; a limited one
 * reuses them where it entered (simulateCoin's `known`: a trade depends on its entry bar
 * alone); a coin the run never held is simulated.
 */
function twinRowsOf(ctx: TaskContext, r: SpecRun, symbols: readonly string[], run: RunTrades, table: TradeTable): TwinRows {
  const unused: IntrabarCounts = { replayed: 0, leftToRule: 0 }
  const own: string[] = []
  const runs: (readonly Trade[] | { from: number; to: number })[] = []
  for (const symbol of symbols) {
    const k = run.get(symbol)
    let trades: readonly Trade[] | { from: number; to: number }
    if (k !== undefined && !('run' in k)) trades = k
    else if (k?.covered) trades = k.run.trades
    // the run's inputs of the coin with its signals before the membership cut them
    else if (k) trades = simulateCoin({ ...k.run.input, ...k.run.unlimited }, r.params, unused, undefined, k.run.trades)
    else {
      const got = coinRunOf(ctx, r, symbol, null, unused, [], { barRule: false })
      if (!got) continue
      trades = got.run.trades
    }
    own.push(symbol)
    runs.push(trades)
  }
  const start = new Int32Array(own.length + 1)
  runs.forEach((t, k) => (start[k + 1] = start[k] + ('from' in t ? t.to - t.from : t.length)))
  const n = start[own.length]
  const rows: TwinRows = { symbols: own, start, entryMs: new Float64Array(n), exitMs: new Float64Array(n), pnlPct: new Float64Array(n) }
  let at = 0
  for (const trades of runs) {
    if ('from' in trades) {
      // the run's own rows of the coin (the same values its Trade objects held)
      rows.entryMs.set(table.entryMs.subarray(trades.from, trades.to), at)
      rows.exitMs.set(table.exitMs.subarray(trades.from, trades.to), at)
      rows.pnlPct.set(table.pnlPct.subarray(trades.from, trades.to), at)
      at += trades.to - trades.from
      continue
    }
    for (const tr of trades) {
      rows.entryMs[at] = tr.entryTimeMs
      rows.exitMs[at] = tr.exitTimeMs
      rows.pnlPct[at++] = tr.pnlPct
    }
  }
  return rows
}

/**
 * Several small runs done whole in this thread (compare): each run's trades booked by the
 * same step the main thread takes for one big run (engine/run.ts); the metrics go back,
 * and with `report` the run's `intrabar`, `costs` and `capacity` as /simulate's body has them.
 */
export function runWholeRuns(ctx: TaskContext, payload: WholeRunsPayload): RunMetricsResult[] {
  return payload.specs.map(spec => {
    // the bar rule's trades behind rule_bias only when the blocks are asked for
    const { coins, trades, intrabar } = runCoinTrades(ctx, { spec, symbols: payload.symbols, tradable: payload.tradable, delisted: payload.delisted, ruleTrades: payload.report === true })
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
