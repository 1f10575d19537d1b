/**
 * The bots' worker tasks (docs/bots.md): the DCA and grid bots on one coin's stored 1H
 * bars, and a generated bot's zip. The bot routes' services send them through the run
 * service's dcaBot, gridBot and botZip, admitted like any run, so they run off the request
 * loop and are shed with the rest when the queue is full.
 */
import { packBot, type PackInput } from '../../bot-generator/pack'
import { simulateDca, type DcaParams, type DcaResult } from '../../engine/bots/dca'
import { simulateGrid, type GridParams, type GridResult } from '../../engine/bots/grid'
import type { BotInput } from '../../engine/bots/types'
import type { TaskContext } from './context'

export interface BotWindow {
  symbol: string
  /** the window's first and last bar (indices into the coin's 1H bars) */
  fromIdx: number
  lastIdx: number
}

function inputOf(ctx: TaskContext, w: BotWindow): BotInput {
  const bars = ctx.view.bars(w.symbol)
  if (!bars || w.lastIdx >= bars.n) throw new Error(`bot task: no bars ${w.fromIdx}–${w.lastIdx} of ${w.symbol}`)
  return { bars, funding: ctx.view.funding(w.symbol) ?? null, fromIdx: w.fromIdx, lastIdx: w.lastIdx }
}

export function runDcaBot(ctx: TaskContext, p: BotWindow & { params: DcaParams }): DcaResult {
  return simulateDca(inputOf(ctx, p), p.params)
}

export function runGridBot(ctx: TaskContext, p: BotWindow & { params: GridParams }): GridResult {
  return simulateGrid(inputOf(ctx, p), p.params)
}

/** A generated bot's zip: its self-test candles and signals from the store view, and every file. */
export function runPackBot(ctx: TaskContext, p: PackInput): Uint8Array {
  return packBot(p, coin => {
    const bars = ctx.bars(coin, p.cfg.timeframe)
    if (!bars) throw new Error(`bot task: no bars of ${coin}`)
    return bars
  })
}
