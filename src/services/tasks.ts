/**
 * The work a simulation worker does, as plain functions of (store view, payload), so the
 * same code runs inside a Worker and, in tests, in-process. A task computes one chunk of
 * a run's coins: their signals and trades; the main thread merges chunks into the
 * portfolio (run-result.ts).
 */
import { markMovesOf } from '../engine/equity-curve'
import { simulateCoin } from '../engine/simulate-coin'
import { TradeTableBuilder, type TradeTable } from '../engine/trade-table'
import { DEFAULT_MMR_FRAC, effectiveLeverage, type TradeParams } from '../engine/types'
import { windowIndices } from '../engine/window'
import { resample } from '../market/resample'
import type { Timeframe } from '../market/timeframe'
import type { Bars } from '../market/types'
import { prepareStrategy, type CompiledStrategy } from '../strategies/compile'
import { entryMaskOf } from './entry-mask'
import { bookRun, daySpan } from './run-result'
import { finish } from '../engine/steps'
import type { BacktestMetrics } from '../engine/metrics'
import { canonicalJson, parseDay, type RunSpec } from './run-spec'
import type { StoreView } from './store-view'
import {
  runBootstrap,
  runGridTrades,
  runRandomEntry,
  runRegimes,
  runTradeBootstrap,
  type BootstrapPayload,
  type GridTradesPayload,
  type GridTradesResult,
  type RandomEntryPayload,
  type RandomEntryResult,
  type RegimesPayload,
  type TradeBootstrapPayload,
} from './research-tasks'
import type { TradeBootstrapResult } from '../engine/trade-bootstrap'
import type { MetricCI, RegimePerformance } from '../engine/statistics'

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
  span: { fromDayMs: number; toDayMs: number } | null
}

export interface TaskMap {
  coinTrades: { payload: CoinTradesPayload; result: CoinTradesResult }
  wholeRuns: { payload: WholeRunsPayload; result: RunMetricsResult[] }
  randomEntry: { payload: RandomEntryPayload; result: RandomEntryResult }
  gridTrades: { payload: GridTradesPayload; result: GridTradesResult }
  bootstrap: { payload: BootstrapPayload; result: MetricCI | null }
  tradeBootstrap: { payload: TradeBootstrapPayload; result: TradeBootstrapResult }
  regimes: { payload: RegimesPayload; result: RegimePerformance | null }
}
export type TaskName = keyof TaskMap
export type TaskPayload<N extends TaskName> = TaskMap[N]['payload']
export type TaskResult<N extends TaskName> = TaskMap[N]['result']

export function tradeParamsOf(spec: RunSpec): TradeParams {
  return {
    direction: spec.direction,
    slPct: spec.slPct,
    tpPct: spec.tpPct,
    tpSource: spec.tpSource,
    trailingPct: spec.trailingPct,
    maxBars: spec.maxBars,
    leverage: effectiveLeverage(spec),
    feeFrac: spec.feeFrac,
    mmrFrac: DEFAULT_MMR_FRAC,
    marketType: spec.marketType,
  }
}

/** signal masks a thread keeps between tasks, in bytes (one byte per bar and mask) */
const SIGNAL_CACHE_BYTES = 160 * 1024 * 1024

interface CachedSignals {
  entry: Uint8Array
  exit: Uint8Array | null
}

/**
 * Resampled series, compiled strategies and signal masks are kept per thread between
 * tasks (and dropped when the data changes): a run that only changes exits, costs or
 * sizing reuses the masks instead of recomputing every indicator.
 */
export class TaskContext {
  private readonly resampled = new Map<string, Bars>()
  private readonly compiled = new Map<string, CompiledStrategy>()
  private readonly signalCache = new Map<string, CachedSignals>()
  private signalBytes = 0
  private version = ''

  constructor(public view: StoreView) {}

  setView(view: StoreView): void {
    this.view = view
    if (view.dataVersion() !== this.version) {
      this.resampled.clear()
      this.signalCache.clear()
      this.signalBytes = 0
      this.version = view.dataVersion()
    }
  }

  bars(symbol: string, tf: Timeframe): Bars | undefined {
    const base = this.view.bars(symbol)
    if (!base || tf === '1H') return base
    const key = `${symbol}|${tf}`
    let b = this.resampled.get(key)
    if (!b) {
      b = resample(base, tf)
      if (this.resampled.size > 4096) this.resampled.clear()
      this.resampled.set(key, b)
    }
    return b
  }

  /** Entry/exit masks of the run's strategy on one coin (cached; callers must not write them). */
  signals(spec: RunSpec, strategyKey: string, symbol: string, bars: Bars): CachedSignals {
    const key = `${strategyKey}|${spec.timeframe}|${symbol}`
    const hit = this.signalCache.get(key)
    if (hit && hit.entry.length === bars.n) {
      this.signalCache.delete(key)
      this.signalCache.set(key, hit)
      return hit
    }
    const masks = this.strategy(spec).signals(bars)
    const bytes = masks.entry.length + (masks.exit?.length ?? 0)
    if (bytes <= SIGNAL_CACHE_BYTES) {
      this.signalCache.set(key, masks)
      this.signalBytes += bytes
      for (const [k, v] of this.signalCache) {
        if (this.signalBytes <= SIGNAL_CACHE_BYTES) break
        this.signalCache.delete(k)
        this.signalBytes -= v.entry.length + (v.exit?.length ?? 0)
      }
    }
    return masks
  }

  strategy(spec: RunSpec): CompiledStrategy {
    const key = canonicalJson(spec.strategy)
    let c = this.compiled.get(key)
    if (!c) {
      c = prepareStrategy(spec.strategy)
      if (this.compiled.size > 256) this.compiled.clear()
      this.compiled.set(key, c)
    }
    return c
  }
}

export function runCoinTrades(ctx: TaskContext, payload: CoinTradesPayload): CoinTradesResult {
  const { spec } = payload
  const params = tradeParamsOf(spec)
  const strategyKey = canonicalJson(spec.strategy)
  const startDay = spec.startDate ? parseDay(spec.startDate) : null
  const endDay = spec.endDate ? parseDay(spec.endDate) : null
  const coins: CoinOutcome[] = []
  const table = new TradeTableBuilder(params.direction, payload.symbols)
  payload.symbols.forEach((symbol, coin) => {
    const bars = ctx.bars(symbol, spec.timeframe)
    const win = bars && bars.n > 0 ? windowIndices(bars, startDay, endDay) : null
    if (!bars || !win) {
      coins.push({ symbol, inWindow: false, fromMs: null, toMs: null })
      return
    }
    const masks = ctx.signals(spec, strategyKey, symbol, bars)
    const entry = entryMaskOf(masks.entry, bars, spec)
    const trades = simulateCoin(
      { symbol, bars, entry, exit: masks.exit, fromIdx: win.fromIdx, toIdx: win.toIdx, funding: params.marketType === 'spot' ? null : ctx.view.funding(symbol) ?? null },
      params,
    )
    const markBars = ctx.view.bars(symbol)
    for (const tr of trades) {
      markMovesOf(tr.entryTimeMs, tr.exitTimeMs, tr.entryPrice, tr.entryIdx, tr.direction, params.leverage, markBars, table)
      table.push(tr, coin)
    }
    coins.push({ symbol, inWindow: true, fromMs: bars.t[win.fromIdx], toMs: bars.t[win.toIdx] })
  })
  return { coins, trades: table.finish() }
}

/**
 * Several small runs done whole in this thread (compare): each run's trades, portfolio and
 * metrics by the same steps the main thread takes for one big run (bookRun); only the
 * metrics go back.
 */
export function runWholeRuns(ctx: TaskContext, payload: WholeRunsPayload): RunMetricsResult[] {
  return payload.specs.map(spec => {
    const { coins, trades } = runCoinTrades(ctx, { spec, symbols: payload.symbols })
    const span = daySpan(coins)
    const { metrics } = finish(bookRun(spec, payload.symbols.length, trades, span, s => ctx.view.bars(s)))
    return { metrics, span }
  })
}

export const TASKS: { [N in TaskName]: (ctx: TaskContext, payload: TaskPayload<N>) => TaskResult<N> } = {
  coinTrades: runCoinTrades,
  wholeRuns: runWholeRuns,
  randomEntry: runRandomEntry,
  gridTrades: runGridTrades,
  bootstrap: runBootstrap,
  tradeBootstrap: runTradeBootstrap,
  regimes: runRegimes,
}
