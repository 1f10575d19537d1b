/**
 * No look-ahead: the value of every registry field at bar i depends on bars <= i only.
 */
import { describe, expect, test } from 'bun:test'
import { computeIndicator, listIndicators, validateParams } from '../src/indicators/registry'
import type { IndicatorDef } from '../src/indicators/types'
import type { Bars } from '../src/market/types'
import { perturbAfter, rng, syntheticBars } from './indicators-synthetic'

const N = 1500
const bars = syntheticBars(N, 7)

/** Default params plus two random valid sets (periods kept short enough to matter on N bars). */
function paramSets(def: IndicatorDef, seed: number): Record<string, number>[] {
  const r = rng(seed)
  const sets: Record<string, number>[] = [{}]
  while (sets.length < 3) {
    const p: Record<string, number> = {}
    for (const [name, spec] of Object.entries(def.params)) {
      const hi = Math.min(spec.max, spec.integer ? 120 : spec.max)
      const x = spec.min + r() * (hi - spec.min)
      p[name] = spec.integer ? Math.round(x) : x
    }
    if (validateParams(def.id, p).length === 0) sets.push(p)
  }
  return sets
}

/** the first row <= cut where a and b differ (NaN equals NaN), or -1 */
function firstDifference(a: Float64Array, b: Float64Array, upTo: number): number {
  for (let i = 0; i <= upTo; i++) if (!Object.is(a[i], b[i])) return i
  return -1
}

const prefix = (b: Bars, rows: number): Bars => ({ ...b, n: rows })

describe('every registry indicator is causal', () => {
  const seeds = rng(99)
  for (const def of listIndicators()) {
    test(`${def.id}: changing candles after bar i, or cutting the series at i, changes no value at bars <= i`, () => {
      let changedAfterCut = false
      for (const params of paramSets(def, def.id.length * 31 + 5)) {
        const full = computeIndicator(def.id, bars, params)
        for (let k = 0; k < 4; k++) {
          const cut = 100 + Math.floor(seeds() * (N - 200))
          const other = computeIndicator(def.id, perturbAfter(bars, cut, k + 1), params)
          const short = computeIndicator(def.id, prefix(bars, cut + 1), params)
          for (const f of def.fields) {
            expect({ field: f.name, params, cut, perturbed: firstDifference(full[f.name], other[f.name], cut) }).toEqual({
              field: f.name,
              params,
              cut,
              perturbed: -1,
            })
            expect({ field: f.name, params, cut, truncated: firstDifference(full[f.name], short[f.name], cut) }).toEqual({
              field: f.name,
              params,
              cut,
              truncated: -1,
            })
            if (firstDifference(full[f.name].subarray(cut + 1), other[f.name].subarray(cut + 1), N - cut - 2) >= 0) {
              changedAfterCut = true
            }
          }
        }
      }
      // the perturbation must reach the indicator, or the check above proves nothing
      expect(changedAfterCut).toBe(true)
    })
  }
})
