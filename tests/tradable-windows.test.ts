/**
 * A point-in-time run's membership on a coin's entries (engine/tradable-windows.ts): the
 * list of signal bars a limited coin reads (barsInsideWindows) is the list of the mask its
 * membership leaves (maskOutsideWindows), whatever the mask and the intervals.
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { barsInsideWindows, maskOutsideWindows } from '../src/engine/tradable-windows'
import { signalBars } from '../src/engine/trade-model'
import type { Bars } from '../src/market/types'
import { HOUR_MS } from '../src/time'

const T0 = Date.UTC(2025, 0, 1)

function hourly(n: number): Bars {
  const t = new Float64Array(n).map((_, i) => T0 + i * HOUR_MS)
  const one = new Float64Array(n).fill(1)
  return { t, o: one, h: one, l: one, c: one, v: one, n, stepMs: HOUR_MS } as unknown as Bars
}

describe('a limited coin reads its entries from a list', () => {
  test('barsInsideWindows(signalBars(mask)) is signalBars(maskOutsideWindows(mask))', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 64, max: 2000 }).chain(n =>
          fc.tuple(
            fc.constant(n),
            fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: Math.floor(n / 40) }),
            // interval edges in hours around the bars (some before the first, some after the last), sorted into [from, to) pairs
            fc.uniqueArray(fc.integer({ min: -5, max: n + 5 }), { maxLength: 10 }),
          ),
        ),
        ([n, signals, edges]) => {
          const bars = hourly(n)
          const mask = new Uint8Array(n)
          for (const i of signals) mask[i] = 1
          const list = signalBars(mask)
          expect(list).not.toBeNull()
          const sorted = [...edges].sort((a, b) => a - b)
          const intervals = sorted.slice(0, sorted.length - (sorted.length % 2)).map(h => T0 + h * HOUR_MS)
          expect(Array.from(barsInsideWindows(list!, bars, intervals))).toEqual(Array.from(signalBars(maskOutsideWindows(mask, bars, intervals))!))
        },
      ),
      { numRuns: 300 },
    )
  })

  test('no membership leaves no entry', () => {
    const bars = hourly(100)
    expect(barsInsideWindows(Int32Array.from([3, 50, 90]), bars, [])).toEqual(new Int32Array(0))
    expect(barsInsideWindows(Int32Array.from([3, 50, 90]), bars, undefined)).toEqual(new Int32Array(0))
  })
})
