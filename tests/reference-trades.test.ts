import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import type { Execution } from '../src/engine/execution'
import { hasSharedData } from './engine-fixtures'
import { REFERENCE_CASES, REFERENCE_TRADES_FILE, referenceFields, referenceRun } from './helpers/reference-trades'
import type { Trade } from '../src/engine/types'

/** the pinned form: JSON keeps every bit of a number but writes −0 as 0 */
const asPinned = (trades: Trade[]) => JSON.parse(JSON.stringify(trades.map(referenceFields)))

/** the settings that keep the model before issue 25: no slippage, market take profit, flat margin */
const reference = (notionalUsd: number): Execution => ({ slippage: 'none', impactK: 1, tpOrder: 'market', makerFeeFrac: 0.0002, liquidationFeeFrac: 0.0125, margin: 'flat', notionalUsd })

describe.skipIf(!hasSharedData)('the held-out reference trades (tests/fixtures/reference-trades.json)', () => {
  const pinned = JSON.parse(readFileSync(REFERENCE_TRADES_FILE, 'utf8')) as { symbol: string; trades: ReturnType<typeof referenceFields>[] }[]

  test('the fixture pins a few hundred trades with every exit kind', () => {
    const all = pinned.flatMap(c => c.trades)
    expect(all.length).toBeGreaterThan(400)
    expect(new Set(all.map(t => t.exitReason))).toEqual(new Set(['tp', 'sl', 'trailing', 'timeout', 'liquidation', 'end_of_data']))
  })

  for (const [i, c] of REFERENCE_CASES.entries()) {
    test(`${c.symbol}: slippage "none", tp_order "market", margin "flat" give exactly the pinned trades at any size`, () => {
      for (const notional of [60, 600_000]) {
        const trades = referenceRun(c, { ...c.params, execution: reference(notional) })
        expect(asPinned(trades)).toEqual(pinned[i].trades)
        expect(trades.every(t => t.slippagePct === 0)).toBe(true)
      }
    })
    test(`${c.symbol}: the engine without execution settings gives them too`, () => {
      expect(asPinned(referenceRun(c))).toEqual(pinned[i].trades)
    })
  }
})
