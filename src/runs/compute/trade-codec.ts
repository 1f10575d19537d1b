/**
 * Trades as one Float64Array for the trip from a worker to the main thread: the
 * structured clone of tens of thousands of small objects costs far more than copying
 * one buffer and building the objects again on arrival.
 */
import { EXIT_REASON_CODE, EXIT_REASONS, type Trade } from '../../engine/types'

const FIELDS = 21

/** Every trade of one coin, in order; all trades of a coin share symbol and direction. */
export interface PackedTrades {
  symbol: string
  direction: Trade['direction']
  n: number
  data: Float64Array
}

export function packTrades(symbol: string, direction: Trade['direction'], trades: readonly Trade[]): PackedTrades {
  const data = new Float64Array(trades.length * FIELDS)
  let o = 0
  for (const t of trades) {
    data[o] = t.entryIdx
    data[o + 1] = t.exitIdx
    data[o + 2] = t.entryTimeMs
    data[o + 3] = t.exitTimeMs
    data[o + 4] = t.entryPrice
    data[o + 5] = t.exitPrice
    data[o + 6] = t.barsHeld
    data[o + 7] = EXIT_REASON_CODE.get(t.exitReason)!
    data[o + 8] = t.pnlPct
    data[o + 9] = t.grossPct
    data[o + 10] = t.feePct
    data[o + 11] = t.fundingPct
    data[o + 12] = t.slTpSameBar ? 1 : 0
    data[o + 13] = t.fundingEvents
    data[o + 14] = t.fundingEventsReal
    data[o + 15] = t.exitResolution === 'detail' ? (t.exitChanged ? 3 : 1) : 0
    data[o + 16] = t.slippagePct ?? 0
    data[o + 17] = t.slipSpread ?? 0
    data[o + 18] = t.slipImpact ?? 0
    data[o + 19] = t.maeFrac ?? 0
    data[o + 20] = t.fillsUnestimated ?? 0
    o += FIELDS
  }
  return { symbol, direction, n: trades.length, data }
}

export function unpackTrades(p: PackedTrades): Trade[] {
  const out: Trade[] = new Array(p.n)
  const d = p.data
  for (let k = 0, o = 0; k < p.n; k++, o += FIELDS)
    out[k] = {
      symbol: p.symbol,
      direction: p.direction,
      entryIdx: d[o],
      exitIdx: d[o + 1],
      entryTimeMs: d[o + 2],
      exitTimeMs: d[o + 3],
      entryPrice: d[o + 4],
      exitPrice: d[o + 5],
      barsHeld: d[o + 6],
      exitReason: EXIT_REASONS[d[o + 7]],
      pnlPct: d[o + 8],
      grossPct: d[o + 9],
      feePct: d[o + 10],
      fundingPct: d[o + 11],
      slTpSameBar: d[o + 12] === 1,
      fundingEvents: d[o + 13],
      fundingEventsReal: d[o + 14],
      slippagePct: d[o + 16],
      slipSpread: d[o + 17],
      slipImpact: d[o + 18],
      maeFrac: d[o + 19],
      fillsUnestimated: d[o + 20],
      ...(d[o + 15] !== 0 ? { exitResolution: 'detail' as const, exitChanged: d[o + 15] === 3 } : {}),
    }
  return out
}

