/**
 * The work a simulation worker does, as plain functions of (store view, payload), so the
 * same code runs inside a Worker and, in tests, in-process. A task computes one chunk of
 * a run's coins: their signals and trades; the main thread merges chunks into the
 * portfolio (merge.ts).
 */
import { applyEntryFilters } from '../engine/filters'
import { simulateCoin } from '../engine/simulate-coin'
import type { Trade, TradeParams } from '../engine/types'
import { DEFAULT_MMR_FRAC } from '../engine/types'
import { windowIndices } from '../engine/window'
import { atrRatio } from '../indicators/atr'
import { resample } from '../market/resample'
import type { Timeframe } from '../market/timeframe'
import type { Bars } from '../market/types'
import { prepareStrategy, type CompiledStrategy } from '../strategies/compile'
import { canonicalJson, parseDay, type RunSpec } from './run-spec'
import type { StoreView } from './store-view'
import { runGridTrades, runRandomEntry, type GridTradesPayload, type GridTradesResult, type RandomEntryPayload, type RandomEntryResult } from './research-tasks'

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
  trades: Trade[]
}

export interface CoinTradesResult {
  coins: CoinOutcome[]
}

export interface TaskMap {
  coinTrades: { payload: CoinTradesPayload; result: CoinTradesResult }
  randomEntry: { payload: RandomEntryPayload; result: RandomEntryResult }
  gridTrades: { payload: GridTradesPayload; result: GridTradesResult }
}
export type TaskName = keyof TaskMap
export type TaskPayload<N extends TaskName> = TaskMap[N]['payload']
export type TaskResult<N extends TaskName> = TaskMap[N]['result']

/** ATR period and mean length of the min_vol_regime filter (docs/indicators.md, `atr_ratio`) */
const VOL_REGIME_ATR = 14
const VOL_REGIME_MEAN = 14

export function tradeParamsOf(spec: RunSpec): TradeParams {
  return {
    direction: spec.direction,
    slPct: spec.slPct,
    tpPct: spec.tpPct,
    tpSource: spec.tpSource,
    trailingPct: spec.trailingPct,
    maxBars: spec.maxBars,
    leverage: spec.marketType === 'spot' ? 1 : spec.leverage,
    feeFrac: spec.feeFrac,
    mmrFrac: DEFAULT_MMR_FRAC,
    marketType: spec.marketType,
  }
}

/** Resampled series and compiled strategies are kept per thread between tasks. */
export class TaskContext {
  private readonly resampled = new Map<string, Bars>()
  private readonly compiled = new Map<string, CompiledStrategy>()
  private version = ''

  constructor(public view: StoreView) {}

  setView(view: StoreView): void {
    this.view = view
    if (view.dataVersion() !== this.version) {
      this.resampled.clear()
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
  const compiled = ctx.strategy(spec)
  const startDay = spec.startDate ? parseDay(spec.startDate) : null
  const endDay = spec.endDate ? parseDay(spec.endDate) : null
  const coins: CoinOutcome[] = []
  for (const symbol of payload.symbols) {
    const bars = ctx.bars(symbol, spec.timeframe)
    const win = bars && bars.n > 0 ? windowIndices(bars, startDay, endDay) : null
    if (!bars || !win) {
      coins.push({ symbol, inWindow: false, fromMs: null, toMs: null, trades: [] })
      continue
    }
    const masks = compiled.signals(bars)
    let ratio: Float64Array | null = null
    if (spec.minVolRegime !== null) {
      ratio = new Float64Array(bars.n)
      atrRatio(bars.h, bars.l, bars.c, VOL_REGIME_ATR, VOL_REGIME_MEAN, ratio, bars.n)
    }
    const entry = applyEntryFilters(masks.entry, bars, {
      avoidHours: spec.avoidHours,
      avoidMonths: spec.avoidMonths,
      minVolRegime: spec.minVolRegime,
      atrRatio: ratio,
    })
    const trades = simulateCoin(
      { symbol, bars, entry, exit: masks.exit, fromIdx: win.fromIdx, toIdx: win.toIdx, funding: params.marketType === 'spot' ? null : ctx.view.funding(symbol) ?? null },
      params,
    )
    coins.push({ symbol, inWindow: true, fromMs: bars.t[win.fromIdx], toMs: bars.t[win.toIdx], trades })
  }
  return { coins }
}

export const TASKS: { [N in TaskName]: (ctx: TaskContext, payload: TaskPayload<N>) => TaskResult<N> } = {
  coinTrades: runCoinTrades,
  randomEntry: runRandomEntry,
  gridTrades: runGridTrades,
}
