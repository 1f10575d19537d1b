/**
 * A/B of this tree against another checkout's src/ on the 28 real coins, in alternating rounds
 * (A then B, then B then A, ...), so a load that changes while it runs weighs on both sides
 * alike. Not part of `bun run bench` (it needs the other tree). Make the other tree with
 *   mkdir -p /tmp/base && git archive <commit> src | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/node_modules
 * then
 *   bun bench/_ab.ts /tmp/base [rounds] [--signals id,id,...] [--kernels name,name,...]
 * Signals: CompiledStrategy.signals(bars) of each registry id (the indicators it reads plus its
 * trees), 1 pass per round. Kernels: the indicator kernel alone with preallocated outputs.
 * Prints ns per bar: best and median of the rounds, per side.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { hasRealData, loadRealBars, realSymbols } from '../tests/helpers/real-data'
import type { Bars } from '../src/market/types'

const other = process.argv[2]
if (!other || !existsSync(join(other, 'src'))) {
  console.log('usage: bun bench/_ab.ts <dir holding the other src/> [rounds] [--signals ids] [--kernels names]')
  process.exit(1)
}
if (!hasRealData()) {
  console.log('bench/_ab: skipped, no real candles')
  process.exit(0)
}
const rounds = Number(process.argv[3]) > 0 ? Number(process.argv[3]) : 9
const listArg = (name: string, fallback: string[]) => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? process.argv[at + 1].split(',').filter(Boolean) : fallback
}
const coins: Bars[] = realSymbols().map((s) => loadRealBars(s))
const bars = coins.reduce((s, b) => s + b.n, 0)
const out = [0, 1].map(() => new Float64Array(coins.reduce((m, b) => Math.max(m, b.n), 0)))

type Side = { name: string; src: string }
const sides: Side[] = [
  { name: 'other', src: join(other, 'src') },
  { name: 'this', src: join(import.meta.dir, '../src') },
]

async function runners(side: Side): Promise<Record<string, () => void>> {
  const { prepareStrategy } = await import(join(side.src, 'strategies/compile.ts'))
  const { getStrategy } = await import(join(side.src, 'strategies/registry.ts'))
  const { rsi, stochRsi } = await import(join(side.src, 'indicators/rsi.ts'))
  const { stoch } = await import(join(side.src, 'indicators/stoch.ts'))
  const { volumeProfilePoc } = await import(join(side.src, 'indicators/volume-profile.ts'))
  const r: Record<string, () => void> = {}
  for (const id of listArg('signals', ['stochastic-rsi-long', 'stochastic-rsi-short', 'volume-profile-long', 'volume-profile-short'])) {
    const compiled = prepareStrategy(getStrategy(id))
    r[`signals ${id}`] = () => {
      for (const b of coins) compiled.signals(b)
    }
  }
  const kernels: Record<string, () => void> = {
    volume_profile: () => {
      for (const b of coins) volumeProfilePoc(b.c, b.v, 168, 20, out[0], b.n)
    },
    stochrsi: () => {
      for (const b of coins) stochRsi(b.c, 14, 14, 3, 3, out[0], out[1], b.n)
    },
    stoch: () => {
      for (const b of coins) stoch(b.h, b.l, b.c, 14, 3, 3, out[0], out[1], b.n)
    },
    rsi: () => {
      for (const b of coins) rsi(b.c, 14, out[0], b.n)
    },
  }
  for (const k of listArg('kernels', Object.keys(kernels))) r[`kernel ${k}`] = kernels[k]
  return r
}

const [a, b] = await Promise.all(sides.map(runners))
console.log(`A/B over ${coins.length} coins (${bars} bars), ${rounds} alternating rounds, ns per bar (best / median); bun ${Bun.version}`)
console.log('')
console.log(`| case | ${sides[0].name}: best | median | ${sides[1].name}: best | median | best ratio |`)
console.log('|---|---|---|---|---|---|')
for (const name of Object.keys(b)) {
  const fa = a[name]
  const fb = b[name]
  if (!fa) continue
  fa()
  fb()
  const ta: number[] = []
  const tb: number[] = []
  for (let r = 0; r < rounds; r++) {
    const order: [() => void, number[]][] = r % 2 === 0 ? [[fa, ta], [fb, tb]] : [[fb, tb], [fa, ta]]
    for (const [f, times] of order) {
      const t0 = performance.now()
      f()
      times.push(((performance.now() - t0) * 1e6) / bars)
    }
  }
  const best = (t: number[]) => Math.min(...t)
  const median = (t: number[]) => t.slice().sort((x, y) => x - y)[t.length >> 1]
  console.log(`| ${name} | ${best(ta).toFixed(1)} | ${median(ta).toFixed(1)} | ${best(tb).toFixed(1)} | ${median(tb).toFixed(1)} | ${(best(tb) / best(ta)).toFixed(2)} |`)
}
