/**
 * The tasks of a run's coins: their signals and trades, one chunk of coins per task
 * (coinTrades; the main thread merges the chunks and books them), or small runs done
 * whole in one thread (wholeRuns, for compare).
 */
import { markMovesOf } from '../../engine/equity-curve'
import { entryMaskOf } from '../../engine/entry-mask'
import type { BacktestMetrics } from '../../engine/metrics'
import { book, daySpan, markOver, type DaySpan } from '../../engine/run'
import { simulateCoin } from '../../engine/trade-model'
import { TradeTableBuilder, type TradeTable } from '../../engine/trade-table'
import { portfolioOptionsOf, tradeParamsOf, windowOf, type RunSpec } from '../spec'
import type { Bars } from '../../market/types'
import { strategyKeyOf, type TaskContext } from './context'

export interface CoinTradesPayload {
  spec: RunSpec
  symbols: string[]
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
}

export interface WholeRunsPayload {
  /** runs over the same coins (compare's strategies) */
  specs: RunSpec[]
  symbols: string[]
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

/** Each coin's filtered entry signals → its trades under the run's trade model, with their daily marks. */
export function runCoinTrades(ctx: TaskContext, payload: CoinTradesPayload): CoinTradesResult {
  const { spec } = payload
  const params = tradeParamsOf(spec)
  const strategyKey = strategyKeyOf(spec.strategy)
  const coins: CoinOutcome[] = []
  const table = new TradeTableBuilder(params.direction, payload.symbols)
  payload.symbols.forEach((symbol, coin) => {
    const bars = ctx.bars(symbol, spec.timeframe)
    const win = windowOf(spec, bars)
    if (!bars || !win) {
      coins.push({ symbol, inWindow: false, fromMs: null, toMs: null })
      return
    }
    const { entry, exit, absent } = coinMasks(ctx, spec, strategyKey, symbol, bars)
    const trades = simulateCoin(
      { symbol, bars, entry, exit, fromIdx: win.fromIdx, toIdx: win.toIdx, funding: params.marketType === 'spot' ? null : ctx.view.funding(symbol) ?? null },
      params,
    )
    const markBars = ctx.view.bars(symbol)
    for (const tr of trades) {
      markMovesOf(tr.entryTimeMs, tr.exitTimeMs, tr.entryPrice, tr.entryIdx, tr.direction, params.leverage, markBars, table)
      table.push(tr, coin)
    }
    const absentBars = countAbsent(absent, win.fromIdx, win.toIdx)
    coins.push({ symbol, inWindow: true, fromMs: bars.t[win.fromIdx], toMs: bars.t[win.toIdx], ...(absentBars > 0 ? { absentBars } : {}) })
  })
  return { coins, trades: table.finish() }
}

/**
 * Several small runs done whole in this thread (compare): each run's trades booked by the
 * same step the main thread takes for one big run (engine/run.ts); only the metrics go back.
 */
export function runWholeRuns(ctx: TaskContext, payload: WholeRunsPayload): RunMetricsResult[] {
  return payload.specs.map(spec => {
    const { coins, trades } = runCoinTrades(ctx, { spec, symbols: payload.symbols })
    const span = daySpan(coins)
    const { metrics, portfolio } = book(trades, portfolioOptionsOf(spec, payload.symbols.length), markOver(span, s => ctx.view.bars(s)))
    return { metrics, span, ruinedAtMs: portfolio.ruinedAtMs }
  })
}
