/**
 * The held-out reference trades (issue 25 §4): a few hundred trades of the trade model as
 * it was before slippage, maker take profits and margin brackets existed, on real Binance
 * candles and funding (../shared/data), pinned in tests/fixtures/reference-trades.json.
 * `bun tests/helpers/reference-trades.ts --write` wrote that file from the engine of
 * commit eaec617; tests/reference-trades.test.ts checks that the settings "bar / none /
 * flat" still give these trades exactly.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { simulateCoin } from '../../src/engine/trade-model'
import type { Trade, TradeParams } from '../../src/engine/types'
import { fundingOf, params, realBars, realFunding } from '../engine-fixtures'

export const REFERENCE_TRADES_FILE = join(import.meta.dir, '..', 'fixtures', 'reference-trades.json')

export interface ReferenceCase {
  symbol: string
  params: TradeParams
  seed: number
}

/** long and short, fixed take profit and trailing, leverage 1 to 20 (so liquidations occur) */
export const REFERENCE_CASES: ReferenceCase[] = [
  { symbol: 'BTCUSDT', seed: 1, params: params({ direction: 'short', slPct: 5, tpPct: 4, maxBars: 48, leverage: 10, feeFrac: 0.0005 }) },
  { symbol: 'ETHUSDT', seed: 2, params: params({ direction: 'long', slPct: 8, tpPct: 6, maxBars: 72, leverage: 20, feeFrac: 0.0005 }) },
  { symbol: 'XRPUSDT', seed: 3, params: params({ direction: 'long', slPct: 6, tpPct: 5, tpSource: 'trailing', trailingPct: 3, maxBars: 96, leverage: 5, feeFrac: 0.0005 }) },
  { symbol: 'LTCUSDT', seed: 4, params: params({ direction: 'short', slPct: 10, tpPct: 10, maxBars: 24, leverage: 1, feeFrac: 0.001, marketType: 'spot' }) },
]

/** A seeded entry mask with about 1 % of the bars set, from bar 100 on. */
export function referenceMask(n: number, seed: number): Uint8Array {
  let s = seed >>> 0
  const m = new Uint8Array(n)
  for (let i = 100; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    if (s / 2 ** 32 < 0.004) m[i] = 1
  }
  return m
}

/** The trades of one case under the given parameters (the reference model's, or those plus settings). */
export function referenceRun(c: ReferenceCase, p: TradeParams = c.params): Trade[] {
  const bars = realBars(c.symbol)
  const f = realFunding(c.symbol)
  const funding = f === null ? null : fundingOf([...f.t].map((t, j): [number, number] => [t, f.rate[j]]))
  return simulateCoin({ symbol: c.symbol, bars, entry: referenceMask(bars.n, c.seed), exit: null, fromIdx: 0, toIdx: bars.n - 1, funding }, p)
}

/** The fields a trade had before issue 25 (the pinned form). */
export function referenceFields(t: Trade) {
  return {
    symbol: t.symbol, direction: t.direction, entryIdx: t.entryIdx, exitIdx: t.exitIdx, entryTimeMs: t.entryTimeMs, exitTimeMs: t.exitTimeMs,
    entryPrice: t.entryPrice, exitPrice: t.exitPrice, barsHeld: t.barsHeld, exitReason: t.exitReason, pnlPct: t.pnlPct, grossPct: t.grossPct,
    feePct: t.feePct, fundingPct: t.fundingPct, slTpSameBar: t.slTpSameBar, fundingEvents: t.fundingEvents, fundingEventsReal: t.fundingEventsReal,
  }
}

if (import.meta.main && process.argv.includes('--write')) {
  const out = REFERENCE_CASES.map(c => ({ symbol: c.symbol, seed: c.seed, trades: referenceRun(c).map(referenceFields) }))
  writeFileSync(REFERENCE_TRADES_FILE, JSON.stringify(out) + '\n')
  console.log(out.map(o => `${o.symbol}: ${o.trades.length} trades`).join('\n'))
}
