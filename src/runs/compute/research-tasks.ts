/**
 * Worker tasks of the research statistics (registered in tasks.ts): the
 * random-entry Monte Carlo null, the bootstrap intervals, the regime split, validate's
 * trade bootstrap and the SL/TP grid. Coin tasks compute one chunk of a run's coins, on the worker that ran
 * those coins (its signal cache is warm); the main thread merges chunks in universe
 * order, so a result does not depend on the chunking (in-process or any number of workers).
 */
import { entryMaskOf } from '../../engine/entry-mask'
import { randomEntrySums, RandomEntryScratch, type RandomEntryCoin } from '../../engine/random-entry'
import { deriveSeed } from '../../engine/random'
import { BENCHMARK_SYMBOL, regimeSplit } from '../../engine/regime-split'
import { profitFactorNormalCI } from '../../engine/statistics-bootstrap'
import { bootstrapCI, type BootstrapStatistic, type MetricCI, type RegimePerformance } from '../../engine/statistics'
import { simulateCoin } from '../../engine/trade-model'
import { maskOutsideWindows } from '../../engine/tradable-windows'
import { tradeBootstrap, type PathSizing, type TradeBootstrapResult } from '../../engine/trade-bootstrap'
import type { Bars } from '../../market/types'
import { intrabarOf, tradeParamsOf, windowOf, type RunSpec } from '../spec'
import { coinMasks, entriesWithin, executionInputs } from './coin-tasks'
import { strategyKeyOf, type TaskContext } from './context'
import { packTrades, type PackedTrades } from './trade-codec'

export interface RandomEntryPayload {
  spec: RunSpec
  /** coins of the chunk and how many trades each took in the run */
  coins: { symbol: string; trades: number }[]
  simulations: number
  /** request seed; each coin draws from deriveSeed(seed, symbol) */
  seed: number
  /**
   * a point-in-time run's membership intervals of the chunk's coins (CoinTradesPayload):
   * random entries are drawn only where the run could enter, while the coin is in the set
   */
  tradable?: Record<string, number[]>
}

export interface RandomEntryResult {
  /** per coin (payload order): each simulation's summed net % of its random trades */
  sums: Float64Array[]
}

export interface BootstrapPayload {
  values: Float64Array
  statistic: BootstrapStatistic
  resamples: number
  seed: number
  /** 'normal-sums' (profit factor only): profitFactorNormalCI instead of resampling; default 'percentile' */
  method?: 'percentile' | 'normal-sums'
}

export interface RegimesPayload {
  entryMs: Float64Array
  pnlPct: Float64Array
  fromDayMs: number
  toDayMs: number
}

export interface TradeBootstrapPayload {
  /** net % of each trade */
  pnlPct: Float64Array
  sizing: PathSizing
  simulations: number
  seed: number
}

export interface GridCell {
  slPct: number
  tpPct: number
}

export interface GridTradesPayload {
  spec: RunSpec
  symbols: string[]
  cells: GridCell[]
  /** a point-in-time universe's membership intervals and delisted coins (CoinTradesPayload) */
  tradable?: Record<string, number[]>
  delisted?: string[]
}

export interface GridCoin {
  symbol: string
  inWindow: boolean
  fromMs: number | null
  toMs: number | null
  /** trades per cell, in payload cell order (packed for the trip, trade-codec.ts) */
  cells: PackedTrades[]
}

export interface GridTradesResult {
  coins: GridCoin[]
}

/**
 * Random entries may use the bars the calendar filters (avoid_hours, avoid_months) allow;
 * min_vol_regime is part of the entry rule under test, so it does not restrict them.
 */
function calendarAllowed(spec: RunSpec, bars: Bars): Uint8Array | null {
  if (spec.avoidHours.length === 0 && (spec.avoidMonths === null || spec.avoidMonths.length === 0)) return null
  return entryMaskOf(new Uint8Array(bars.n).fill(1), bars, { avoidHours: spec.avoidHours, avoidMonths: spec.avoidMonths, minVolRegime: null })
}

/**
 * What a coin's random entries draw from in a run (engine/random-entry.ts): its window,
 * exits and costs, and the signal bars allowed: the calendar filters', and for a
 * point-in-time run (`tradable`) only those whose entry falls inside the coin's
 * membership, as the run's own entries did. Null: no bar in the window.
 */
export function randomEntryCoinOf(ctx: TaskContext, spec: RunSpec, symbol: string, tradable?: Record<string, number[]>): RandomEntryCoin | null {
  const params = tradeParamsOf(spec)
  const bars = ctx.bars(symbol, spec.timeframe)
  const win = windowOf(spec, bars)
  if (!bars || !win) return null
  const calendar = calendarAllowed(spec, bars)
  return {
    bars,
    // the run's own exit mask: the worker that ran the coin has it cached (chunk affinity)
    exit: spec.strategy.exit_conditions ? ctx.signals(spec, strategyKeyOf(spec.strategy), symbol, bars).exit : null,
    allowed: tradable ? maskOutsideWindows(calendar ?? new Uint8Array(bars.n).fill(1), bars, tradable[symbol] ?? []) : calendar,
    fromIdx: win.fromIdx,
    toIdx: win.toIdx,
    funding: params.marketType === 'spot' ? null : (ctx.view.funding(symbol) ?? null),
    ...executionInputs(ctx, params, symbol, bars, spec.timeframe),
    // passes over the coin's whole bars the thread keeps for the next run that tests it
    quietExtremes: () => ctx.quietExtremes(symbol, spec.timeframe, bars),
    keptFunding: () => ctx.keptFunding(symbol, spec.timeframe, bars),
  }
}

export function runRandomEntry(ctx: TaskContext, payload: RandomEntryPayload): RandomEntryResult {
  const { spec, simulations, seed } = payload
  const params = tradeParamsOf(spec)
  const sums: Float64Array[] = []
  // the window-sized buffers of the null, allocated once for the chunk's coins
  const scratch = new RandomEntryScratch()
  for (const { symbol, trades } of payload.coins) {
    const coin = trades === 0 ? null : randomEntryCoinOf(ctx, spec, symbol, payload.tradable)
    sums.push(coin ? randomEntrySums(coin, params, trades, simulations, deriveSeed(seed, symbol), scratch) : new Float64Array(simulations))
  }
  return { sums }
}

/** One bootstrap interval of a run, off the request thread (the profit factor's is the costliest statistic after the null). */
export function runBootstrap(_ctx: TaskContext, p: BootstrapPayload): MetricCI | null {
  if (p.method === 'normal-sums' && p.statistic === 'profit_factor') return profitFactorNormalCI(p.values, { resamples: p.resamples, seed: p.seed })
  return bootstrapCI(p.values, p.statistic, { resamples: p.resamples, seed: p.seed })
}

/** The regime split of a run's trades; null when the store has no BTC. */
export function runRegimes(ctx: TaskContext, p: RegimesPayload): RegimePerformance | null {
  const btc = ctx.view.bars(BENCHMARK_SYMBOL)
  return btc && btc.n > 0 ? regimeSplit(btc, p.entryMs, p.pnlPct, p.fromDayMs, p.toDayMs) : null
}

/** The bootstrap paths of /simulate/validate's Monte Carlo (up to 10,000 × the run's trades). */
export function runTradeBootstrap(_ctx: TaskContext, p: TradeBootstrapPayload): TradeBootstrapResult {
  return tradeBootstrap(p.pnlPct, p.sizing, p.simulations, p.seed)
}

/** Each coin's signals once, then its trades under every SL/TP cell (only the exits change). */
export function runGridTrades(ctx: TaskContext, payload: GridTradesPayload): GridTradesResult {
  const { spec } = payload
  const base = tradeParamsOf(spec)
  const strategyKey = strategyKeyOf(spec.strategy)
  const coins: GridCoin[] = []
  for (const symbol of payload.symbols) {
    const bars = ctx.bars(symbol, spec.timeframe)
    const win = windowOf(spec, bars)
    if (!bars || !win) {
      coins.push({ symbol, inWindow: false, fromMs: null, toMs: null, cells: payload.cells.map(() => packTrades(symbol, base.direction, [])) })
      continue
    }
    const masks = coinMasks(ctx, spec, strategyKey, symbol, bars)
    const exit = masks.exit
    const { entry, entryBars } = entriesWithin(masks, bars, payload.tradable ? payload.tradable[symbol] : null)
    const delisted = payload.delisted?.includes(symbol) === true
    const funding = base.marketType === 'spot' ? null : (ctx.view.funding(symbol) ?? null)
    const exec = executionInputs(ctx, base, symbol, bars, spec.timeframe)
    // the cells resolve bars as the run would (minute detail where the coin has it)
    const detail = intrabarOf(spec) !== 'bar' ? ctx.detail(symbol) : null
    // every cell steps along the cached list of signal bars where there is one (entriesWithin) and sums the thread's kept funding
    // amounts (worked out here when missing: the cells' lookups, event by event, would cost more than one pass over the series)
    const keptFunding = base.marketType === 'spot' ? null : () => ctx.keptFunding(symbol, spec.timeframe, bars)
    const cells = payload.cells.map(cell => {
      // with a trailing exit the cell's tp is the trail distance
      const params = { ...base, slPct: cell.slPct, tpPct: cell.tpPct, trailingPct: null }
      return packTrades(symbol, base.direction, simulateCoin({ symbol, bars, entry, entryBars, exit, fromIdx: win.fromIdx, toIdx: win.toIdx, funding, keptFunding, ...exec, detail, delisted }, params))
    })
    coins.push({ symbol, inWindow: true, fromMs: bars.t[win.fromIdx], toMs: bars.t[win.toIdx], cells })
  }
  return { coins }
}
