/**
 * The trade simulator of one coin: entry signals → trades, one position at a time. The
 * exit and cost rules of each trade are trade-model.ts's.
 *
 * - A signal at bar i's close (entry[i] = 1) enters at bar i+1's open. Only signal bars
 *   in [fromIdx, toIdx − 1] can open a trade (a signal at toIdx would enter after the
 *   window's last bar).
 * - One position at a time: a signal bar must be at or after the previous trade's exit
 *   bar. An exit inside bar k or at its close lets a signal at k's close enter at k+1's
 *   open; an exit at bar k's open (gap, exit signal) lets a signal at k's close enter at
 *   k+1's open too, never at the same instant as the exit.
 */
import { REASONS, TradeModel, type TradeModelInput } from './trade-model'
import type { Trade, TradeParams } from './types'

export interface CoinSimInput extends TradeModelInput {
  symbol: string
  /** entry[i] = 1: the entry condition (after filters) is true at bar i's close */
  entry: Uint8Array
}

/**
 * First i in [from, end) with mask[i] ≠ 0, else end. Signals are rare (a few % of bars),
 * so the scan tests four bytes at a time through `words` (a Uint32Array view of the same
 * memory, null when the mask is not 4-byte aligned).
 */
function nextSignal(mask: Uint8Array, words: Uint32Array | null, from: number, end: number): number {
  let i = from
  if (words !== null) {
    while ((i & 3) !== 0) {
      if (i >= end) return end
      if (mask[i] !== 0) return i
      i++
    }
    let w = i >>> 2
    const wEnd = end >>> 2
    while (w < wEnd && words[w] === 0) w++
    i = w << 2
  }
  for (; i < end; i++) if (mask[i] !== 0) return i
  return end
}

function wordView(mask: Uint8Array): Uint32Array | null {
  return mask.byteOffset % 4 === 0 ? new Uint32Array(mask.buffer, mask.byteOffset, mask.length >>> 2) : null
}

/** Simulate every trade of one coin; trades come out in time order. */
export function simulateCoin(input: CoinSimInput, p: TradeParams): Trade[] {
  const { bars, entry, symbol } = input
  const model = new TradeModel(input, p)
  const trades: Trade[] = []
  const lastIdx = model.lastIdx
  const o = bars.o
  const t = bars.t
  const words = wordView(entry)
  let i = Math.max(input.fromIdx, 0)
  for (;;) {
    i = nextSignal(entry, words, i, lastIdx)
    if (i >= lastIdx) break
    const e = i + 1
    const entryPrice = o[e]
    if (!(entryPrice > 0)) {
      i++
      continue
    }
    model.tradeFrom(e)
    const k = model.exitIdx
    trades.push({
      symbol,
      direction: p.direction,
      entryIdx: e,
      exitIdx: k,
      entryTimeMs: t[e],
      exitTimeMs: model.exitTimeMs,
      entryPrice,
      exitPrice: model.exitPrice,
      barsHeld: model.barsHeld,
      exitReason: REASONS[model.reason],
      pnlPct: model.pnlPct,
      grossPct: model.grossPct,
      feePct: model.feePct,
      fundingPct: model.fundingPct,
      slTpSameBar: model.sameBar,
      fundingEvents: model.fundingEvents,
      fundingEventsReal: model.fundingEventsReal,
    })
    i = k > i + 1 ? k : i + 1
  }
  return trades
}
