/**
 * The floor of issue 30: streaming the store's five OHLCV columns once (every coin, every
 * bar, open/high/low/close/volume as 8-byte floats) on one core. No run can beat reading its
 * inputs, so every speed row (bench/speed.ts) prints its figure as a multiple of the floor
 * taken in the same process, minutes apart at most: a figure from a busy machine still says
 * how far from the hardware it is.
 *
 * `measureFloor(dataDir)` opens the store (its columns memory-mapped), touches every page once
 * untimed (so the first pass's page faults are not counted), then times `passes` passes and
 * keeps the fastest wall time and the CPU time of that pass; a pass sums the five columns of
 * every coin, so the reads cannot be optimised away.
 *   bun bench/floor.ts [--passes N]     (BENCH_DATA_DIR reuses a store, else one is generated)
 */
import { rmSync } from 'node:fs'
import { CandleStore } from '../src/market/candle-store'
import { benchStore } from './_server'

export interface Floor {
  /** fastest pass, wall ms */
  ms: number
  /** CPU ms (user + system) of the passes, per pass */
  cpuMs: number
  bars: number
  coins: number
  /** bytes streamed in one pass (bars × 5 × 8) */
  bytes: number
  /** GB/s of the fastest pass */
  gbPerS: number
}

function pass(store: CandleStore, symbols: string[]): number {
  let sum = 0
  for (const s of symbols) {
    const b = store.bars(s)
    if (!b) continue
    const { o, h, l, c, v, n } = b
    // one loop over the five columns: what a fused indicator pass would read
    let a0 = 0
    let a1 = 0
    for (let i = 0; i < n; i++) {
      a0 += o[i] + h[i]
      a1 += l[i] + c[i] + v[i]
    }
    sum += a0 + a1
  }
  return sum
}

export function measureFloor(dataDir: string, passes = 7): Floor {
  const store = CandleStore.open(dataDir)
  const symbols = store.symbols()
  let bars = 0
  for (const s of symbols) bars += store.bars(s)?.n ?? 0
  let sink = pass(store, symbols) // untimed: page faults of the mapped columns
  let best = Infinity
  const cpu0 = process.cpuUsage()
  for (let k = 0; k < passes; k++) {
    const t0 = performance.now()
    sink += pass(store, symbols)
    best = Math.min(best, performance.now() - t0)
  }
  const cpu = process.cpuUsage(cpu0)
  if (!Number.isFinite(sink)) throw new Error('floor pass read a non-finite sum') // keeps the sum alive
  const bytes = bars * 5 * 8
  return { ms: best, cpuMs: (cpu.user + cpu.system) / 1000 / passes, bars, coins: symbols.length, bytes, gbPerS: bytes / (best / 1000) / 1e9 }
}

/** The 1-minute load average (shared machine: say how busy it was when a figure was taken). */
export function loadAvg(): string {
  return require('node:os')
    .loadavg()
    .map((x: number) => x.toFixed(2))
    .join(' ')
}

if (import.meta.main) {
  const passes = Number(process.argv[process.argv.indexOf('--passes') + 1]) || 7
  const store = benchStore('floor', 535)
  try {
    const f = measureFloor(store.dir, passes)
    console.log('| measurement | value |')
    console.log('|---|---:|')
    console.log(`| coins | ${f.coins} |`)
    console.log(`| bars | ${f.bars.toLocaleString('en')} |`)
    console.log(`| bytes per pass (bars × 5 × 8) | ${(f.bytes / 1e6).toFixed(1)} MB |`)
    console.log(`| floor: one pass over the five OHLCV columns, fastest of ${passes} | ${f.ms.toFixed(1)} ms |`)
    console.log(`| CPU per pass | ${f.cpuMs.toFixed(1)} ms |`)
    console.log(`| rate | ${f.gbPerS.toFixed(1)} GB/s |`)
    console.log(`| load average (1/5/15 min) | ${loadAvg()} |`)
  } finally {
    if (store.temp) rmSync(store.dir, { recursive: true, force: true })
  }
}
