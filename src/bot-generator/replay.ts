/**
 * The entries a generated bot takes on a series of candles, computed by the service's own
 * modules: the condition tree compiled by strategies/compile.ts, the entry filters of
 * engine/filters.ts (avoid_hours) and one position at a time by engine/trade-model.ts's simulateCoin
 * with the bot's stop loss, take profit, max bars and leverage. The service runs it to
 * write the self-test's expected signals; the bot (a bundle of the same files) runs it in
 * `--self-test` and on every closed candle. Pure: no I/O.
 */
import { applyEntryFilters } from '../engine/filters'
import { simulateCoin } from '../engine/trade-model'
import { DEFAULT_FEE_FRAC, DEFAULT_MMR_FRAC, type TradeParams } from '../engine/types'
import type { Bars } from '../market/types'
import { prepareStrategy, type CompiledStrategy } from '../strategies/compile'
import type { BotConfig } from './bot-config'

/** One entry of a bot: the signal candle's open time and the position's entry and exit. */
export interface BotSignal {
  /** open time of the candle at whose close the entry condition held, ISO 8601 */
  signal_candle: string
  /** the next candle's open, where the bot enters */
  entry_time: string
  exit_time: string
  exit_reason: string
}

export type BotStrategyConfig = Pick<BotConfig, 'strategy' | 'direction' | 'sl_pct' | 'tp_pct' | 'max_bars' | 'leverage' | 'avoid_hours'>

export function tradeParamsOf(cfg: BotStrategyConfig): TradeParams {
  return {
    direction: cfg.direction,
    slPct: cfg.sl_pct,
    tpPct: cfg.tp_pct,
    tpSource: 'custom_pct',
    trailingPct: null,
    maxBars: cfg.max_bars,
    leverage: cfg.leverage,
    feeFrac: DEFAULT_FEE_FRAC.futures,
    mmrFrac: DEFAULT_MMR_FRAC,
    marketType: 'futures',
  }
}

/** The strategy's masks on `bars` with avoid_hours applied: entry[i] = 1 means "enter at bar i+1's open". */
export function entryMasks(compiled: CompiledStrategy, bars: Bars, cfg: Pick<BotConfig, 'avoid_hours'>): { entry: Uint8Array; exit: Uint8Array | null } {
  const masks = compiled.signals(bars)
  const entry = applyEntryFilters(masks.entry, bars, { avoidHours: cfg.avoid_hours, avoidMonths: null, minVolRegime: null, atrRatio: null })
  return { entry, exit: masks.exit }
}

/** Every entry the bot would have taken on `bars`, one position at a time, as /backtest books them. */
export function replaySignals(bars: Bars, cfg: BotStrategyConfig, compiled: CompiledStrategy = prepareStrategy(cfg.strategy)): BotSignal[] {
  if (bars.n < 2) return []
  const { entry, exit } = entryMasks(compiled, bars, cfg)
  const trades = simulateCoin({ symbol: '', bars, entry, exit, fromIdx: 0, toIdx: bars.n - 1, funding: null }, tradeParamsOf(cfg))
  const iso = (ms: number) => new Date(ms).toISOString()
  return trades.map(tr => ({ signal_candle: iso(bars.t[tr.entryIdx - 1]), entry_time: iso(tr.entryTimeMs), exit_time: iso(tr.exitTimeMs), exit_reason: tr.exitReason }))
}

/** Candles as a bot ships and reads them: columns of numbers, times in ms. */
export interface CandleColumns {
  t: number[]
  o: number[]
  h: number[]
  l: number[]
  c: number[]
  v: number[]
}

export function barsOfColumns(cols: CandleColumns, stepMs: number): Bars {
  const f = (x: number[]) => Float64Array.from(x)
  return { t: f(cols.t), o: f(cols.o), h: f(cols.h), l: f(cols.l), c: f(cols.c), v: f(cols.v), n: cols.t.length, stepMs }
}
