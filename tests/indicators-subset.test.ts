import { expect, test } from 'bun:test'
import { listIndicators } from '../src/indicators/registry'
import { walkCandles } from './helpers/fixtures'

const cols = walkCandles(600, Date.UTC(2025, 0, 1), 9)
const [t, o, h, l, c, v] = cols.map(x => Float64Array.from(x))
const bars = { t, o, h, l, c, v, n: 600, stepMs: 3_600_000 }

test('asking compute for one field gives the values it gives when asked for all', () => {
  for (const def of listIndicators()) {
    const params = Object.fromEntries(Object.entries(def.params).map(([k, p]) => [k, p.default]))
    const all: Record<string, Float64Array> = {}
    for (const f of def.fields) all[f.name] = new Float64Array(600)
    def.compute(bars, params, all)
    for (const f of def.fields) {
      const one = { [f.name]: new Float64Array(600).fill(12345) }
      def.compute(bars, params, one)
      expect([def.id, f.name, Array.from(one[f.name])]).toEqual([def.id, f.name, Array.from(all[f.name])])
    }
  }
})
