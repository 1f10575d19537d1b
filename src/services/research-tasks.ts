/**
 * Worker tasks of the research statistics (registered in tasks.ts's TASKS): the
 * random-entry Monte Carlo null and the SL/TP grid. Like coinTrades, each computes one
 * chunk of a run's coins; the main thread merges chunks in universe order, so a result
 * does not depend on how the coins were chunked (in-process or on any number of workers).
 */
import { applyEntryFilters } from '../engine/filters'
import { randomEntrySums, type RandomEntryCoin } from '../engine/random-entry'
import { deriveSeed } from '../engine/random'
import { simulateCoin } from '../engine/simulate-coin'
import type { Trade } from '../engine/types'
import { windowIndices } from '../engine/window'
import { atrRatio } from '../indicators/atr'
import type { Bars } from '../market/types'
import { parseDay, type RunSpec } from './run-spec'
import { tradeParamsOf, type TaskContext } from './tasks'

export interface RandomEntryPayload {
  spec: RunSpec
  /** coins of the chunk and how many trades each took in the run */
  coins: { symbol: string; trades: number }[]
  simulations: number
  /** request seed; each coin draws from deriveSeed(seed, symbol) */
  seed: number
}

export interface RandomEntryResult {
  /** per coin (payload order): each simulation's summed net % of its random trades */
  sums: Float64Array[]
}

export interface GridCell {
  slPct: number
  tpPct: number
}

export interface GridTradesPayload {
  spec: RunSpec
  symbols: string[]
  cells: GridCell[]
}

export interface GridCoin {
  symbol: string
  inWindow: boolean
  fromMs: number | null
  toMs: number | null
  /** trades per cell, in payload cell order */
  cells: Trade[][]
}

export interface GridTradesResult {
  coins: GridCoin[]
}

/** ATR period and mean length of the min_vol_regime filter, as runCoinTrades uses them (docs/indicators.md, `atr_ratio`). */
const VOL_REGIME_ATR = 14
const VOL_REGIME_MEAN = 14

function windowOf(spec: RunSpec, bars: Bars | undefined) {
  if (!bars || bars.n === 0) return null
  return windowIndices(bars, spec.startDate ? parseDay(spec.startDate) : null, spec.endDate ? parseDay(spec.endDate) : null)
}

/**
 * The filtered entry mask and the exit mask of a coin, as runCoinTrades builds them
 * (a shared helper belongs in tasks.ts; this mirrors it until then).
 */
function coinMasks(ctx: TaskContext, spec: RunSpec, bars: Bars): { entry: Uint8Array; exit: Uint8Array | null } {
  const masks = ctx.strategy(spec).signals(bars)
  let ratio: Float64Array | null = null
  if (spec.minVolRegime !== null) {
    ratio = new Float64Array(bars.n)
    atrRatio(bars.h, bars.l, bars.c, VOL_REGIME_ATR, VOL_REGIME_MEAN, ratio, bars.n)
  }
  const entry = applyEntryFilters(masks.entry, bars, { avoidHours: spec.avoidHours, avoidMonths: spec.avoidMonths, minVolRegime: spec.minVolRegime, atrRatio: ratio })
  return { entry, exit: masks.exit }
}

/**
 * The exit mask alone: the exit tree compiled as an entry tree, so only the indicators it
 * reads are computed (the entry's are not needed for random entries).
 */
function exitMask(ctx: TaskContext, spec: RunSpec, bars: Bars): Uint8Array | null {
  const tree = spec.strategy.exit_conditions
  if (!tree) return null
  const exitOnly: RunSpec = { ...spec, strategy: { indicators: spec.strategy.indicators, entry: tree, exit_conditions: null } }
  return ctx.strategy(exitOnly).signals(bars).entry
}

/**
 * Random entries may use the bars the calendar filters (avoid_hours, avoid_months) allow;
 * min_vol_regime is part of the entry rule under test, so it does not restrict them.
 */
function calendarAllowed(spec: RunSpec, bars: Bars): Uint8Array | null {
  if (spec.avoidHours.length === 0 && (spec.avoidMonths === null || spec.avoidMonths.length === 0)) return null
  return applyEntryFilters(new Uint8Array(bars.n).fill(1), bars, { avoidHours: spec.avoidHours, avoidMonths: spec.avoidMonths, minVolRegime: null, atrRatio: null })
}

export function runRandomEntry(ctx: TaskContext, payload: RandomEntryPayload): RandomEntryResult {
  const { spec, simulations, seed } = payload
  const params = tradeParamsOf(spec)
  const sums: Float64Array[] = []
  for (const { symbol, trades } of payload.coins) {
    const bars = ctx.bars(symbol, spec.timeframe)
    const win = windowOf(spec, bars)
    if (!bars || !win || trades === 0) {
      sums.push(new Float64Array(simulations))
      continue
    }
    const coin: RandomEntryCoin = {
      bars,
      exit: exitMask(ctx, spec, bars),
      allowed: calendarAllowed(spec, bars),
      fromIdx: win.fromIdx,
      toIdx: win.toIdx,
      funding: params.marketType === 'spot' ? null : (ctx.view.funding(symbol) ?? null),
    }
    sums.push(randomEntrySums(coin, params, trades, simulations, deriveSeed(seed, symbol)))
  }
  return { sums }
}

/** Each coin's signals once, then its trades under every SL/TP cell (only the exits change). */
export function runGridTrades(ctx: TaskContext, payload: GridTradesPayload): GridTradesResult {
  const { spec } = payload
  const base = tradeParamsOf(spec)
  const coins: GridCoin[] = []
  for (const symbol of payload.symbols) {
    const bars = ctx.bars(symbol, spec.timeframe)
    const win = windowOf(spec, bars)
    if (!bars || !win) {
      coins.push({ symbol, inWindow: false, fromMs: null, toMs: null, cells: payload.cells.map(() => []) })
      continue
    }
    const { entry, exit } = coinMasks(ctx, spec, bars)
    const funding = base.marketType === 'spot' ? null : (ctx.view.funding(symbol) ?? null)
    const cells = payload.cells.map(cell =>
      simulateCoin({ symbol, bars, entry, exit, fromIdx: win.fromIdx, toIdx: win.toIdx, funding }, // with a trailing exit the cell's tp is the trail distance
      { ...base, slPct: cell.slPct, tpPct: cell.tpPct, trailingPct: null }),
    )
    coins.push({ symbol, inWindow: true, fromMs: bars.t[win.fromIdx], toMs: bars.t[win.toIdx], cells })
  }
  return { coins }
}
