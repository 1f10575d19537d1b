import { expect, test } from 'bun:test'
import { INDICATORS, listIndicators } from '../src/indicators/registry'
import { prepareStrategy } from '../src/strategies/compile'
import { listStrategies } from '../src/strategies/registry'
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

test('the fields each registry strategy asks for: the values they have when every field is asked', () => {
  // computeFrame asks an indicator only for the fields the trees read, and the definitions
  // skip the passes of the others (docs/benchmarks.md, first run of each strategy)
  let sets = 0
  for (const s of listStrategies()) {
    const compiled = prepareStrategy(s)
    for (const id of compiled.indicatorsUsed) {
      const def = INDICATORS[id]
      const params = { ...compiled.paramsOf(id) }
      const fields = compiled.fieldsOf(id)!
      const all: Record<string, Float64Array> = {}
      for (const f of def.fields) all[f.name] = new Float64Array(600)
      def.compute(bars, params, all)
      const some: Record<string, Float64Array> = Object.fromEntries(fields.map(f => [f, new Float64Array(600).fill(12345)]))
      def.compute(bars, params, some)
      for (const f of fields) expect([s.id, id, f, Array.from(some[f])]).toEqual([s.id, id, f, Array.from(all[f])])
      sets++
    }
  }
  expect(sets).toBeGreaterThan(40)
})
