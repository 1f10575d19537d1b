/**
 * What the scorer and the paper trader hand the engine's TradeModel for one row, by the
 * row's engine label (records/scoring-execution.ts): the execution costs' inputs (the coin's
 * daily cost sums for slippage, its margin brackets) and, for `reference-engine-v4`, the
 * coin's minute detail and mark-price candles. They are built from the store on this thread
 * with the same sources a coin task builds on a worker (runs/compute/coin-tasks.ts
 * `executionInputs`, runs/compute/context.ts `detail`): `openDetail` (stored minutes read
 * lazily, or a synthetic store's derived minutes), `alignMark`, `coinCostSeries`; so a v4 row
 * is the trade /simulate/coin makes of that entry with its defaults.
 *
 * One `LiveMarket` serves one pass: it holds the coins' series of the store as the pass read it.
 */
import type { Execution } from '../engine/execution'
import type { IntrabarDetail } from '../engine/intrabar'
import { alignMark, type MarkBars } from '../engine/mark-price'
import { coinCostSeries, type CoinCostSeries } from '../engine/slippage'
import type { TradeModel, TradeModelInput } from '../engine/trade-model'
import type { CandleStore } from '../market/candle-store'
import type { Bars } from '../market/types'
import { replaysMinutes, scoringExecution } from '../records/scoring-execution'
import { openDetail } from '../runs/compute/intrabar-detail'

export type LabelInputs = Pick<TradeModelInput, 'costs' | 'brackets' | 'detail' | 'mark'>

export class LiveMarket {
  private readonly costsOf = new Map<string, CoinCostSeries | null>()
  private readonly detailOf = new Map<string, IntrabarDetail | null>()
  private readonly markOf = new Map<string, MarkBars | null>()

  constructor(private readonly store: CandleStore) {}

  /**
   * The execution (undefined: the model before issue 25) and the trade model's inputs of a
   * row of `engine` on `coin`, its bars `bars` of timeframe `timeframe`.
   */
  inputs(engine: string | null, coin: string, timeframe: string, bars: Bars, leverage: number, marginUsd?: number): { execution: Execution | undefined; input: LabelInputs } {
    const execution = scoringExecution(engine, leverage, marginUsd)
    if (!execution) return { execution, input: {} }
    const input: LabelInputs = {
      // slippage reads the coin's 1H candles whatever the row's timeframe
      costs: this.costs(coin),
      brackets: this.store.marginBrackets(coin) ?? null,
    }
    if (replaysMinutes(engine)) {
      input.detail = this.detail(coin)
      input.mark = this.mark(coin, timeframe, bars)
    }
    return { execution, input }
  }

  private costs(coin: string): CoinCostSeries | null {
    let c = this.costsOf.get(coin)
    if (c === undefined) {
      const base = this.store.bars(coin)
      this.costsOf.set(coin, (c = base ? coinCostSeries(base) : null))
    }
    return c
  }

  /** the coin's minutes (null: none; its ambiguous bars go to the bar rule) */
  private detail(coin: string): IntrabarDetail | null {
    let d = this.detailOf.get(coin)
    if (d === undefined) this.detailOf.set(coin, (d = openDetail(this.store.detailInfo(), coin, this.store.bars(coin))))
    return d
  }

  private mark(coin: string, timeframe: string, bars: Bars): MarkBars | null {
    const key = `${coin}|${timeframe}`
    let m = this.markOf.get(key)
    if (m === undefined) {
      const series = this.store.mark(coin)
      this.markOf.set(key, (m = series ? alignMark(bars, series) : null))
    }
    return m
  }
}

/** How the trade model's last trade found its exit: by its minutes, or by the bar rule. */
export function exitResolution(model: TradeModel): 'detail' | 'bar' {
  return model.replay?.resolved ? 'detail' : 'bar'
}
