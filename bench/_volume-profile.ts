/**
 * The volume-profile kernel alone over a whole store (issue 30: the slowest indicator of the
 * registry's first runs): `volumeProfilePoc(close, volume, 168, 20)` over every coin with more
 * than 200 bars, one thread, seven passes, each pass's wall and ns a bar, and how many rows
 * re-summed their histogram (the window's lowest or highest close moved, or `period` rows
 * carried) against the carried ones. Not part of `bun run bench` (the `_` scripts are helpers).
 *   BENCH_DATA_DIR=<store> bun bench/_volume-profile.ts
 */
import { CandleStore } from '../src/market/candle-store'
import { rollingMax, rollingMin } from '../src/indicators/rolling-extremes'
import { volumeProfilePoc } from '../src/indicators/volume-profile'

const dataDir = process.env.BENCH_DATA_DIR
if (!dataDir) throw new Error('BENCH_DATA_DIR: a store (e.g. one of `bun src/cli.ts data generate --coins 535`)')
const PERIOD = 168
const BINS = 20
const store = CandleStore.open(dataDir)
const bars = store.symbols().flatMap(s => {
  const b = store.bars(s)
  return b && b.n > 200 ? [b] : []
})
const total = bars.reduce((n, b) => n + b.n, 0)
const out = new Float64Array(Math.max(...bars.map(b => b.n)))

// the rows that re-sum: the kernel's own rule (volume-profile.ts), counted from the window's extremes
const lo = new Float64Array(out.length)
const hi = new Float64Array(out.length)
let resums = 0
for (const b of bars) {
  rollingMin(b.c, PERIOD, lo, b.n, 1)
  rollingMax(b.c, PERIOD, hi, b.n, 1)
  for (let i = PERIOD, carried = PERIOD; i < b.n; i++) {
    if (carried < PERIOD && lo[i] === lo[i - 1] && hi[i] === hi[i - 1] && i > PERIOD) carried++
    else if (hi[i] > lo[i]) {
      resums++
      carried = 0
    } else carried = PERIOD
  }
}
console.log(`${bars.length} coins, ${total.toLocaleString('en-US')} bars; rows that re-sum their ${PERIOD}-bar histogram: ${resums.toLocaleString('en-US')} (${((100 * resums) / total).toFixed(1)} %)`)
let check = 0
for (let r = 0; r < 7; r++) {
  const t0 = performance.now()
  for (const b of bars) {
    volumeProfilePoc(b.c, b.v, PERIOD, BINS, out, b.n)
    check += out[b.n - 1]
  }
  const ms = performance.now() - t0
  console.log(`pass ${r + 1}: ${ms.toFixed(1)} ms, ${((ms * 1e6) / total).toFixed(1)} ns a bar`)
}
console.log(`(check ${check.toPrecision(12)})`)
