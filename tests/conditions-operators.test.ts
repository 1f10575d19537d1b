/**
 * The operators the named strategies' rules need (docs/conditions.md, "Series, arithmetic,
 * ANY_PRIOR, lists"), on tiny hand-made candles: every expected mask is worked out by hand.
 */
import { describe, expect, test } from 'bun:test'
import type { Bars } from '../src/market/types'
import { compileStrategy } from '../src/strategies/compile'
import type { ConditionNode } from '../src/strategies/conditions'
import { lookAheadProblems, validateStrategy } from '../src/strategies/validate'

const HOUR = 3_600_000

/** candles with the given closes and opens (volume = the bar index + 1), hourly from 00:00 UTC */
function bars(close: number[], open?: number[]): Bars {
  const n = close.length
  const c = Float64Array.from(close)
  const o = Float64Array.from(open ?? close)
  return {
    t: Float64Array.from({ length: n }, (_, i) => Date.UTC(2024, 0, 1) + i * HOUR),
    o,
    h: c.map((x, i) => Math.max(x, o[i])),
    l: c.map((x, i) => Math.min(x, o[i])),
    c,
    v: Float64Array.from({ length: n }, (_, i) => i + 1),
    n,
    stepMs: HOUR,
  }
}

const mask = (entry: ConditionNode, b: Bars) => Array.from(compileStrategy({ indicators: {}, entry }, b).entry)
const errors = (entry: unknown) => validateStrategy({ indicators: {}, entry })

describe('series: mean / min / max over bars, then shift', () => {
  const b = bars([5, 3, 4, 6, 2, 7])
  test('the highest close of the prior 3 bars (stat max, bars 3, shift 1)', () => {
    // prior-3 max: - - - 5 6 6 ; close > it: bars 3 (6 > 5) and 5 (7 > 6)
    expect(mask({ field: 'close', op: '>', value: { field: 'close', stat: 'max', bars: 3, shift: 1 } }, b)).toEqual([0, 0, 0, 1, 0, 1])
  })
  test('the lowest close of the prior 2 bars', () => {
    // prior-2 min: - - 3 3 4 2 ; close < it: bar 4 (2 < 4)
    expect(mask({ field: 'close', op: '<', value: { field: 'close', stat: 'min', bars: 2, shift: 1 } }, b)).toEqual([0, 0, 0, 0, 1, 0])
  })
  test('the mean including the current bar, on the left side too', () => {
    // mean of 2 closes: - 4 3.5 5 4 4.5 ; > 4: bars 3 and 5
    expect(mask({ field: 'close', stat: 'mean', bars: 2, op: '>', value: 4 }, b)).toEqual([0, 0, 0, 1, 0, 1])
  })
})

describe('mult × series + offset, each side with its own shift', () => {
  test('close > 0.9 × open', () => {
    const b = bars([9, 9, 10], [10, 11, 10])
    // 0.9 × open: 9 9.9 9 ; close >: bar 2 only (9 > 9 is false)
    expect(mask({ field: 'close', op: '>', value: { field: 'open', mult: 0.9 } }, b)).toEqual([0, 0, 1])
  })
  test('close[i−1] > close[i−2] + 2 × volume (offset a scaled field with its own shift)', () => {
    const b = bars([1, 2, 10, 20, 21])
    // volume = 1 2 3 4 5; right at i: close[i−2] + 2·v[i] = - - 1+6=7 2+8=10 10+10=20
    // left close[i−1]: - 1 2 10 20 → i=2: 2 > 7 no; i=3: 10 > 10 no; i=4: 20 > 20 no
    expect(mask({ field: 'close', shift: 1, op: '>', value: { field: 'close', shift: 2, offset: { field: 'volume', mult: 2 } } }, b)).toEqual([0, 0, 0, 0, 0])
    // and with >=: bars 3 and 4
    expect(mask({ field: 'close', shift: 1, op: '>=', value: { field: 'close', shift: 2, offset: { field: 'volume', mult: 2 } } }, b)).toEqual([0, 0, 0, 1, 1])
  })
  test('a number offset, and crosses_above an arithmetic right side', () => {
    const b = bars([1, 1, 5, 5, 9])
    // right = close[i−1] + 3: - 4 4 8 8 ; crosses_above: bar 2 (5 > 4, 1 <= 4); bar 4 (9 > 8, 5 <= 8)
    expect(mask({ field: 'close', op: 'crosses_above', value: { field: 'close', shift: 1, offset: 3 } }, b)).toEqual([0, 0, 1, 0, 1])
  })
})

describe('ANY_PRIOR: true on at least one of the prior n bars', () => {
  test('the current bar does not count, and the first n bars are 0', () => {
    const b = bars([1, 9, 1, 1, 1, 9, 1])
    // close > 5 at bars 1 and 5; any of the prior 2 bars: bars 2, 3, 6 (and 7 would be)
    expect(mask({ type: 'ANY_PRIOR', bars: 2, condition: { field: 'close', op: '>', value: 5 } }, b)).toEqual([0, 0, 1, 1, 0, 0, 1])
  })
})

describe('in / not_in, and next_hour', () => {
  const b = bars([1, 1, 1, 1])
  test('hour in a list; next_hour is the following bar’s hour', () => {
    expect(mask({ field: 'hour', op: 'in', value: [1, 3] }, b)).toEqual([0, 1, 0, 1])
    expect(mask({ field: 'next_hour', op: 'in', value: [1, 3] }, b)).toEqual([1, 0, 1, 0])
    expect(mask({ field: 'next_hour', op: 'not_in', value: [1, 3] }, b)).toEqual([0, 1, 0, 1])
  })
  test('lists of any numbers; NaN is neither in nor not in', () => {
    const c = bars([0.5, 2.5, 300, -1])
    expect(mask({ field: 'close', op: 'in', value: [2.5, -1] }, c)).toEqual([0, 1, 0, 1])
    expect(mask({ field: 'close', op: 'not_in', value: [300] }, c)).toEqual([1, 1, 0, 1])
    expect(mask({ field: 'close', shift: 1, op: 'not_in', value: [7] }, c)).toEqual([0, 1, 1, 1])
  })
})

describe('validation of the new parts', () => {
  test('a stat needs bars and a number field; bars needs a stat', () => {
    expect(errors({ field: 'close', stat: 'max', op: '>', value: 1 })).toEqual([expect.stringContaining('entry.bars: required')])
    expect(errors({ field: 'close', bars: 3, op: '>', value: 1 })).toEqual([expect.stringContaining('bars needs a stat')])
    expect(errors({ field: 'close', stat: 'median', bars: 3, op: '>', value: 1 })[0]).toContain("unknown stat \"median\"")
    expect(validateStrategy({ indicators: { candle: {} }, entry: { field: 'is_bullish', stat: 'mean', bars: 3, op: '>', value: 1 } })[0]).toContain('needs a number field')
  })
  test('mult and offset need numbers and number fields; an offset has no offset', () => {
    expect(errors({ field: 'close', op: '>', value: { field: 'open', mult: 'x' } })[0]).toContain('entry.value.mult: expected a finite number')
    expect(errors({ field: 'close', op: '>', value: { field: 'open', offset: { field: 'open', offset: 1 } } })[0]).toContain('an offset takes no offset')
    expect(validateStrategy({ indicators: { candle: {} }, entry: { field: 'close', op: '>', value: { field: 'open', offset: { field: 'is_bullish' } } } })[0]).toContain('needs a number field')
  })
  test('in / not_in need a list, a list needs in / not_in', () => {
    expect(errors({ field: 'hour', op: 'in', value: 3 })[0]).toContain('in needs a list of numbers')
    expect(errors({ field: 'hour', op: '==', value: [3] })[0]).toContain('a list of values goes with in or not_in')
    expect(errors({ field: 'hour', op: 'in', value: [] })[0]).toContain('a list of 1 to 64 finite numbers')
  })
  test('ANY_PRIOR needs bars from 1 to 500 and one child', () => {
    expect(errors({ type: 'ANY_PRIOR', condition: { field: 'close', op: '>', value: 1 } })[0]).toContain('entry.bars: required')
    expect(errors({ type: 'ANY_PRIOR', bars: 501, condition: { field: 'close', op: '>', value: 1 } })[0]).toContain('from 1 to 500')
    expect(errors({ type: 'ANY_PRIOR', bars: 2, conditions: [] })[0]).toContain('ANY_PRIOR takes exactly one child')
  })
  test('negative shifts and bars are look-ahead: named with their place, and invalid too', () => {
    const tree = { type: 'NOT', condition: { field: 'close', op: '>', shift: -1, value: { field: 'close', stat: 'min', bars: -2 } } }
    expect(lookAheadProblems(tree, ['entry']).map(p => p.loc.join('.'))).toEqual(['entry.condition.shift', 'entry.condition.value.bars'])
    expect(errors(tree).length).toBe(2)
    expect(lookAheadProblems({ field: 'close', op: '>', value: 1, shift: 3 }, ['entry'])).toEqual([])
  })
})

describe('property: the compiled series, arithmetic and ANY_PRIOR equal plain loops on random candles', () => {
  /** a deterministic pseudo-random walk (xorshift), with repeated closes so ties and equal windows occur */
  function walk(n: number, seed: number): Bars {
    let s = seed >>> 0 || 1
    const rnd = () => {
      s ^= s << 13
      s ^= s >>> 17
      s ^= s << 5
      return (s >>> 0) / 4294967296
    }
    const close: number[] = []
    let x = 100
    for (let i = 0; i < n; i++) {
      x = Math.max(1, x + Math.round((rnd() - 0.5) * 8) / 4)
      close.push(x)
    }
    return bars(close, close.map((c, i) => (i > 0 ? close[i - 1] : c)))
  }
  const plainStat = (x: Float64Array, stat: string, bars: number, i: number): number => {
    if (i - bars + 1 < 0) return Number.NaN
    const w = Array.from(x.subarray(i - bars + 1, i + 1))
    return stat === 'max' ? Math.max(...w) : stat === 'min' ? Math.min(...w) : w.reduce((a, b) => a + b, 0) / bars
  }
  test.each([1, 2, 3, 4, 5, 6])('seed %d', seed => {
    const b = walk(400, seed)
    const n = b.n
    for (const stat of ['min', 'max'] as const)
      for (const w of [1, 3, 7, 20])
        for (const shift of [0, 1, 3]) {
          // close > stat of the window ending `shift` bars back
          const got = mask({ field: 'close', op: '>', value: { field: 'close', stat, bars: w, shift } }, b)
          const want = Array.from({ length: n }, (_, i) => (i - shift >= 0 && b.c[i] > plainStat(b.c, stat, w, i - shift) ? 1 : 0))
          expect({ stat, w, shift, got }).toEqual({ stat, w, shift, got: want })
        }
    // arithmetic with a shifted scaled offset: close[i−1] >= close[i−2] + 0.25 × volume[i]
    const got = mask({ field: 'close', shift: 1, op: '>=', value: { field: 'close', shift: 2, offset: { field: 'volume', mult: 0.25 } } }, b)
    const want = Array.from({ length: n }, (_, i) => (i >= 2 && b.c[i - 1] >= b.c[i - 2] + 0.25 * b.v[i] ? 1 : 0))
    expect(got).toEqual(want)
    // ANY_PRIOR of a crossing
    for (const w of [1, 5, 12]) {
      const cross = (i: number) => i >= 1 && b.c[i] > b.o[i] && b.c[i - 1] <= b.o[i - 1]
      const gotAny = mask({ type: 'ANY_PRIOR', bars: w, condition: { field: 'close', op: 'crosses_above', value: { field: 'open' } } }, b)
      const wantAny = Array.from({ length: n }, (_, i) => {
        if (i < w) return 0
        for (let j = i - w; j < i; j++) if (cross(j)) return 1
        return 0
      })
      expect({ w, got: gotAny }).toEqual({ w, got: wantAny })
    }
  })
})
