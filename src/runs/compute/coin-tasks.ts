/**
 * The tasks of a run's coins: their signals and trades, one chunk of coins per task
 * (coinTrades; the main thread merges the chunks and books them), or small runs done
 * whole in one thread (wholeRuns, for compare).
 */
import { markMovesOf } from '../../engine/equity-curve'
import { entryMaskOf } from '../../engine/entry-mask'
import { maskOutsideWindows } from '../../engine/tradable-windows'
import type { BacktestMetrics } from '../../engine/metrics'
import { book, daySpan, markOver, type DaySpan } from '../../engine/run'
import { simulateCoin } from '../../engine/trade-model'
import { TradeTableBuilder, type TradeTable } from '../../engine/trade-table'
import { portfolioOptionsOf, tradeParamsOf, windowOf, type RunSpec } from '../spec'
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
   * a point-in-time run's twin on today's universe (its survivorship figures): the chunk's
   * coins of today's top N, whose trades come back as `twin` (without membership limits);
   * a coin that was in every set of the window has the same trades in both, computed once
   */
  twin?: string[]
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
  /** the twin's coins and trades (CoinTradesPayload.twin), coin by coin in its order */
  twin?: { coins: CoinOutcome[]; trades: TradeTable }
}

/** A run's trades booked whole on a worker (a point-in-time run's twin, while the main thread books the run). */
export interface BookTradesPayload {
  spec: RunSpec
  symbols: string[]
  coins: CoinOutcome[]
  trades: TradeTable
}

export interface WholeRunsPayload {
  /** runs over the same coins (compare's strategies) */
  specs: RunSpec[]
  symbols: string[]
  /** a point-in-time universe's membership intervals and delisted coins (CoinTradesPayload) */
  tradable?: Record<string, number[]>
  delisted?: string[]
  /** the portfolio's coin count when it is not the symbols' (a point-in-time run's largest set) */
  coinCount?: number
}

/** The metrics of a run done whole in one worker, and its day span (null: no bar in the window). */
export interface RunMetricsResult {
  metrics: BacktestMetrics
  span: DaySpan | null
  /** when the portfolio's equity reached zero (PortfolioResult.ruinedAtMs) */
  ruinedAtMs: number | null
}

/** A coin's entry mask after the run's entry filters, and its exit mask (from the thread's signal cache). */
export function coinMasks(ctx: TaskContext, spec: RunSpec, strategyKey: string, symbol: string, bars: Bars): { entry: Uint8Array; exit: Uint8Array | null; absent: Uint8Array | null } {
  const masks = ctx.signals(spec, strategyKey, symbol, bars)
  return { entry: entryMaskOf(masks.entry, bars, spec), exit: masks.exit, absent: masks.absent }
}

/** Bars fromIdx … toIdx marked in `absent`. */
function countAbsent(absent: Uint8Array | null, fromIdx: number, toIdx: number): number {
  if (!absent) return 0
  let k = 0
  for (let i = fromIdx; i <= toIdx; i++) k += absent[i]
  return k
}

/** One coin's trades in a run, and whether its membership (if any) covered the whole window. */
export interface CoinRun {
  outcome: CoinOutcome
  trades: Trade[]
  covered: boolean
}

/**
 * Coins' trades already simulated under one spec in this task, by coin, delisting and
 * membership: runs over several coin sets of one spec (the rankings' point-in-time groups)
 * simulate a coin with the same membership once.
 */
export type CoinRunMemo = Map<string, CoinRun>

/** Each coin's filtered entry signals → its trades under the run's trade model, with their daily marks. */
export function runCoinTrades(ctx: TaskContext, payload: CoinTradesPayload, memo?: CoinRunMemo): CoinTradesResult {
  const { spec } = payload
  const params = tradeParamsOf(spec)
  const strategyKey = strategyKeyOf(spec.strategy)
  const markBars = (symbol: string) => ctx.view.bars(symbol)
  /** one coin's trades; `membership` (a point-in-time run's intervals) masks its entries */
  const coinRun = (symbol: string, membership: number[] | undefined | null, delisted: boolean): CoinRun => {
    const bars = ctx.bars(symbol, spec.timeframe)
    const win = windowOf(spec, bars)
    if (!bars || !win) return { outcome: { symbol, inWindow: false, fromMs: null, toMs: null }, trades: [], covered: true }
    // a single interval over every entry instant of the window masks nothing
    const covered = membership === null || (membership !== undefined && membership.length === 2 && membership[0] <= bars.t[win.fromIdx] + bars.stepMs && membership[1] > bars.t[win.toIdx])
    const key = memo ? `${symbol}|${delisted ? 'd' : ''}|${covered ? '*' : (membership ?? []).join(',')}` : ''
    const hit = memo?.get(key)
    if (hit) return hit
    const masks = coinMasks(ctx, spec, strategyKey, symbol, bars)
    const entry = covered ? masks.entry : maskOutsideWindows(masks.entry, bars, membership ?? [])
    const trades = simulateCoin(
      { symbol, bars, entry, exit: masks.exit, fromIdx: win.fromIdx, toIdx: win.toIdx, funding: params.marketType === 'spot' ? null : ctx.view.funding(symbol) ?? null, delisted },
      params,
    )
    const absentBars = countAbsent(masks.absent, win.fromIdx, win.toIdx)
    const run = { outcome: { symbol, inWindow: true, fromMs: bars.t[win.fromIdx], toMs: bars.t[win.toIdx], ...(absentBars > 0 ? { absentBars } : {}) }, trades, covered }
    memo?.set(key, run)
    return run
  }
  const tableOf = (symbols: string[], runs: { outcome: CoinOutcome; trades: Trade[] }[]) => {
    const table = new TradeTableBuilder(params.direction, symbols)
    runs.forEach((r, coin) => {
      for (const tr of r.trades) {
        markMovesOf(tr.entryTimeMs, tr.exitTimeMs, tr.entryPrice, tr.entryIdx, tr.direction, params.leverage, markBars(tr.symbol), table)
        table.push(tr, coin)
      }
    })
    return { coins: runs.map(r => r.outcome), trades: table.finish() }
  }
  const delisted = new Set(payload.delisted ?? [])
  const own = payload.symbols.map(symbol => coinRun(symbol, payload.tradable ? (payload.tradable[symbol] ?? []) : null, delisted.has(symbol)))
  const result: CoinTradesResult = tableOf(payload.symbols, own)
  if (payload.twin) {
    const index = new Map(payload.symbols.map((s, i) => [s, i]))
    const twin = payload.twin.map(symbol => {
      const i = index.get(symbol)
      return i !== undefined && own[i].covered && !delisted.has(symbol) ? own[i] : coinRun(symbol, null, false)
    })
    result.twin = tableOf(payload.twin, twin)
  }
  return result
}

/** A run's trades booked on this thread (engine/run.ts): the metrics of the run, as runWholeRuns answers them. */
export function runBookTrades(ctx: TaskContext, payload: BookTradesPayload): RunMetricsResult {
  const span = daySpan(payload.coins)
  const { metrics, portfolio } = book(payload.trades, portfolioOptionsOf(payload.spec, payload.symbols.length), markOver(span, s => ctx.view.bars(s)))
  return { metrics, span, ruinedAtMs: portfolio.ruinedAtMs }
}

/**
 * Several small runs done whole in this thread (compare): each run's trades booked by the
 * same step the main thread takes for one big run (engine/run.ts); only the metrics go back.
 */
export function runWholeRuns(ctx: TaskContext, payload: WholeRunsPayload): RunMetricsResult[] {
  return payload.specs.map(spec => {
    const { coins, trades } = runCoinTrades(ctx, { spec, symbols: payload.symbols, tradable: payload.tradable, delisted: payload.delisted })
    const span = daySpan(coins)
    const { metrics, portfolio } = book(trades, portfolioOptionsOf(spec, payload.coinCount ?? payload.symbols.length), markOver(span, s => ctx.view.bars(s)))
    return { metrics, span, ruinedAtMs: portfolio.ruinedAtMs }
  })
}
