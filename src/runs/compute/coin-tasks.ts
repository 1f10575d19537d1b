/**
 * The tasks of a run's coins: their signals and trades, one chunk of coins per task
 * (coinTrades; the main thread merges the chunks and books them), or small runs done
 * whole in one thread (wholeRuns, for compare).
 */
import { markMovesOf } from '../../engine/equity-curve'
import type { IntrabarCounts, IntrabarDetail } from '../../engine/intrabar'
import { entryMaskOf } from '../../engine/entry-mask'
import type { BacktestMetrics } from '../../engine/metrics'
import { book, daySpan, markOver, type DaySpan } from '../../engine/run'
import { simulateCoin, type TradeModelInput } from '../../engine/trade-model'
import type { TradeParams } from '../../engine/types'
import { TradeTableBuilder, type TradeTable } from '../../engine/trade-table'
import { intrabarOf, portfolioOptionsOf, tradeParamsOf, windowOf, type RunSpec } from '../spec'
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
  /** the chunk's minute replays (absent with intrabar 'bar') */
  intrabar?: ChunkIntrabar
}

/** What a chunk's coins did with minute detail. */
export interface ChunkIntrabar extends IntrabarCounts {
  /** coins of the chunk with no minute detail at all */
  coinsWithout: string[]
  /** coins of the chunk where a minute replay changed a trade */
  changedCoins: string[]
  /**
   * those coins' trades under the bar rule (for `rule_bias`), each coin simulated again
   * without detail; the other coins' bar-rule trades are their trades
   */
  barTrades: TradeTable
}

/** a coin without minutes: every bar that needed them is counted as left to the rule */
const NO_MINUTES: IntrabarDetail = { minutes: () => null }

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

/** What a coin's trades need for the run's execution (engine/execution.ts): its cost series and brackets, when the run uses them. */
export function executionInputs(ctx: TaskContext, params: TradeParams, symbol: string): Pick<TradeModelInput, 'costs' | 'brackets'> {
  return {
    costs: params.execution?.slippage === 'impact' ? ctx.costs(symbol) : null,
    brackets: params.execution?.margin === 'brackets' ? (ctx.view.marginBrackets(symbol) ?? null) : null,
  }
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
  const withDetail = intrabarOf(spec) !== 'bar'
  const counts: IntrabarCounts = { replayed: 0, leftToRule: 0 }
  const coinsWithout: string[] = []
  const changedCoins: string[] = []
  const barTable = withDetail ? new TradeTableBuilder(params.direction, payload.symbols) : null
  payload.symbols.forEach((symbol, coin) => {
    const bars = ctx.bars(symbol, spec.timeframe)
    const win = windowOf(spec, bars)
    if (!bars || !win) {
      coins.push({ symbol, inWindow: false, fromMs: null, toMs: null })
      return
    }
    const { entry, exit, absent } = coinMasks(ctx, spec, strategyKey, symbol, bars)
    let detail: IntrabarDetail | null = null
    if (withDetail) {
      detail = ctx.detail(symbol)
      if (detail === null) {
        coinsWithout.push(symbol)
        detail = NO_MINUTES
      }
    }
    const input = {
      symbol, bars, entry, exit, fromIdx: win.fromIdx, toIdx: win.toIdx, funding: params.marketType === 'spot' ? null : ctx.view.funding(symbol) ?? null,
      ...executionInputs(ctx, params, symbol),
      detail,
    }
    const trades = simulateCoin(input, params, counts)
    const markBars = ctx.view.bars(symbol)
    let changed = 0
    for (const tr of trades) {
      markMovesOf(tr.entryTimeMs, tr.exitTimeMs, tr.entryPrice, tr.entryIdx, tr.direction, params.leverage, markBars, table)
      table.push(tr, coin)
      if (tr.exitChanged) changed++
    }
    if (barTable && changed > 0) {
      // the bar rule's trades of this coin: the same ones up to the first the minutes changed,
      // then the bar rule's own from that trade's signal on (one position at a time: nothing before it differs)
      changedCoins.push(symbol)
      const first = trades.findIndex(tr => tr.exitChanged)
      for (let k = 0; k < first; k++) barTable.push(trades[k], coin)
      for (const tr of simulateCoin({ ...input, detail: null, fromIdx: trades[first].entryIdx - 1 }, params)) barTable.push(tr, coin)
    }
    const absentBars = countAbsent(absent, win.fromIdx, win.toIdx)
    coins.push({ symbol, inWindow: true, fromMs: bars.t[win.fromIdx], toMs: bars.t[win.toIdx], ...(absentBars > 0 ? { absentBars } : {}) })
  })
  const trades = table.finish()
  if (!barTable) return { coins, trades }
  return { coins, trades, intrabar: { ...counts, coinsWithout, changedCoins, barTrades: barTable.finish() } }
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
