/**
 * Aroon's own two-pass kernel (block suffixes, then four blocks of prefixes per round with the
 * output written in the join) against the TA-Lib definition by brute force, on every period
 * where its round and tail paths meet, with runs of ties and series cut anywhere.
 */
import { describe, expect, test } from 'bun:test'
import { aroon } from '../src/indicators/aroon'
import { syntheticBars } from './indicators-synthetic'

/** TA-Lib: over the last period + 1 bars, bars since the highest high / lowest low, ties to the most recent */
function aroonByScan(h: Float64Array, l: Float64Array, period: number, rows: number): [Float64Array, Float64Array] {
  const up = new Float64Array(rows).fill(Number.NaN)
  const down = new Float64Array(rows).fill(Number.NaN)
  for (let i = period; i < rows; i++) {
    let hi = i - period
    let lo = i - period
    for (let j = i - period + 1; j <= i; j++) {
      if (h[j] >= h[hi]) hi = j
      if (l[j] <= l[lo]) lo = j
    }
    up[i] = (100 / period) * (period - (i - hi))
    down[i] = (100 / period) * (period - (i - lo))
  }
  return [up, down]
}

describe('Aroon kernel against a scan', () => {
  const b = syntheticBars(700, 11)
  // runs of equal highs and lows, so ties decide the age
  const h = Float64Array.from(b.h, (x) => Math.round(x))
  const l = Float64Array.from(b.l, (x) => Math.round(x))

  test('every period 2..20 and 57, every length around the four-block rounds: the same values, nothing past n written', () => {
    for (const period of [...Array.from({ length: 19 }, (_, k) => k + 2), 57]) {
      const w = period + 1
      const lengths = new Set([1, period, w, 2 * w - 1, 5 * w - 1, 5 * w, 5 * w + 1, 9 * w + 3, 700])
      for (const rows of lengths) {
        const up = new Float64Array(700).fill(-1)
        const down = new Float64Array(700).fill(-1)
        aroon(h, l, period, up, down, rows)
        const [wantUp, wantDown] = aroonByScan(h, l, period, Math.min(rows, 700))
        for (let i = 0; i < 700; i++) {
          const eu = i < rows ? wantUp[i] : -1
          const ed = i < rows ? wantDown[i] : -1
          if (!Object.is(up[i], eu) || !Object.is(down[i], ed)) {
            expect({ period, rows, i, up: up[i], down: down[i] }).toEqual({ period, rows, i, up: eu, down: ed })
          }
        }
      }
    }
  })
})
