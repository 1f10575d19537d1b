/**
 * A/B of the indicator passes a registry strategy's first run makes, this tree against
 * another checkout's src/ (made as bench/_ab.ts says), in CPU time (process.cpuUsage, so a
 * shared machine's load weighs less than on wall time) and in alternating rounds, over the
 * synthetic store of bench/first-run.ts:
 *   BENCH_DATA_DIR=<store> bun bench/_ab-first.ts <other dir> [rounds] [--only id,id]
 * Each side computes, for every coin, each indicator the strategy reads, asked for the fields
 * its trees read (as the compiled strategy asks), into columns reused coin after coin.
 * Prints CPU ms over all coins: best of the rounds, per side.
 */
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { benchStore } from './_server'
import { CandleStore } from '../src/market/candle-store'
import { Universe } from '../src/market/universe'
import { listStrategies } from '../src/strategies/registry'
import { prepareStrategy } from '../src/strategies/compile'
import type { IndicatorDef } from '../src/indicators/types'

const other = process.argv[2]
if (!other || !existsSync(join(other, 'src'))) {
  console.log('usage: bun bench/_ab-first.ts <dir holding the other src/> [rounds] [--only ids]')
  process.exit(1)
}
const rounds = Number(process.argv[3]) > 0 ? Number(process.argv[3]) : 7
const at = process.argv.indexOf('--only')
const only = at >= 0 ? process.argv[at + 1].split(',') : null
const sides: { name: string; indicators: Record<string, IndicatorDef> }[] = [
  { name: 'other', indicators: (await import(join(other, 'src/indicators/registry.ts'))).INDICATORS },
  { name: 'this', indicators: (await import('../src/indicators/registry')).INDICATORS },
]
const { dir, temp } = benchStore('ab-first', 535)
try {
  const store = CandleStore.open(dir)
  const bars = new Universe(store).eligible().slice(0, 535).map(c => store.bars(c.meta.symbol)!)
  const maxN = Math.max(...bars.map(b => b.n))
  console.log(`${bars.length} coins, ${bars.reduce((s, b) => s + b.n, 0).toLocaleString('en')} bars; ${rounds} alternating rounds, CPU ms (best); load ${require('node:os').loadavg()[0].toFixed(1)}\n`)
  console.log('| strategy | indicators (fields read) | other | this | ratio |')
  console.log('|---|---|---:|---:|---:|')
  for (const s of listStrategies()) {
    if (only && !only.includes(s.id)) continue
    const compiled = prepareStrategy(s)
    const jobs = compiled.indicatorsUsed.map(id => ({ id, params: { ...compiled.paramsOf(id) }, fields: [...compiled.fieldsOf(id)!] }))
    const buffers = jobs.map(j => j.fields.map(() => new Float64Array(maxN)))
    const pass = (defs: Record<string, IndicatorDef>) => {
      const c0 = process.cpuUsage()
      for (const b of bars)
        jobs.forEach((j, k) => {
          const out: Record<string, Float64Array> = {}
          j.fields.forEach((f, m) => (out[f] = buffers[k][m].subarray(0, b.n)))
          defs[j.id].compute(b, j.params, out)
        })
      const c = process.cpuUsage(c0)
      return (c.user + c.system) / 1000
    }
    const best = [Infinity, Infinity]
    for (let r = 0; r < rounds; r++) for (const k of r % 2 ? [1, 0] : [0, 1]) best[k] = Math.min(best[k], pass(sides[k].indicators))
    const what = jobs.map(j => `${j.id} (${j.fields.join(', ')})`).join('; ')
    console.log(`| ${s.id} | ${what} | ${best[0].toFixed(0)} | ${best[1].toFixed(0)} | ${(best[1] / best[0]).toFixed(2)} |`)
  }
} finally {
  if (temp) rmSync(dir, { recursive: true, force: true })
}
