/**
 * Writing a whole synthetic store: generated into a staging folder beside the store and
 * renamed into place when complete, so a crash or an error midway leaves no
 * half-generated store behind.
 */
import { existsSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { CandleStore } from './candle-store'
import { generateSyntheticUniverse } from './synthetic'
import { MINUTES_PER_HOUR, minuteLabel, syntheticMinutes } from './synthetic-minutes'

/** what `serve` generates into an empty store, and `data generate`'s defaults */
export const SYNTHETIC_DEFAULTS = { coins: 200, days: 730, seed: 7, delistings: 6 }

export interface GenerateStoreOptions {
  coins: number
  days: number
  seed: number
  endMs: number
  /** coins delisted inside the window, beside the list (synthetic.ts DELISTINGS) */
  delistings?: number
  onProgress?: (done: number, total: number) => void
}

/** Generate into `<dataDir>/store` (which must not exist, or be replaced with `replace`). */
export function generateStore(dataDir: string, opts: GenerateStoreOptions, replace = false): { store: CandleStore; coins: number; rows: number } {
  const staging = join(dataDir, `.staging-${process.pid}-${Date.now()}`)
  try {
    const staged = CandleStore.open(staging)
    const res = generateSyntheticUniverse(staged, opts)
    staged.setSyntheticSeed(opts.seed)
    const target = join(dataDir, 'store')
    if (existsSync(target)) {
      if (!replace) throw new Error(`${target} appeared while generating; not replaced`)
      const old = join(dataDir, `.old-store-${process.pid}-${Date.now()}`)
      renameSync(target, old)
      renameSync(join(staging, 'store'), target)
      rmSync(old, { recursive: true, force: true })
    } else renameSync(join(staging, 'store'), target)
    return { store: CandleStore.open(dataDir), ...res }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

/**
 * Write every coin's derived minutes (synthetic-minutes.ts) to the store as stored 1m
 * detail: the store of the stored-detail benchmark (`data generate --detail-stored`),
 * whose runs then read minutes from disk, lazily, as on real data. `coins` limits it to the
 * first trading coins by name (the synthetic delisted coins, whose candles end early, are
 * not the ones a detail benchmark means). Returns the minutes written.
 */
export function storeDerivedDetail(store: CandleStore, seed: number, coins = Infinity, onProgress?: (done: number, total: number) => void): number {
  const symbols = store.symbols().filter(s => store.meta(s)?.status !== 'delisted').slice(0, coins)
  let written = 0
  // a month of minutes at a time: one segment per UTC month, as an import of a month's file writes them
  const cap = 31 * 24 * MINUTES_PER_HOUR
  const cols = { t: new Float64Array(cap), o: new Float64Array(cap), h: new Float64Array(cap), l: new Float64Array(cap), c: new Float64Array(cap), v: new Float64Array(cap) }
  symbols.forEach((symbol, i) => {
    const b = store.bars(symbol)!
    const label = minuteLabel(seed, symbol)
    for (let k = 0; k < b.n; ) {
      const month = new Date(b.t[k]).getUTCMonth()
      let m = 0
      for (; k < b.n && new Date(b.t[k]).getUTCMonth() === month && m < 31 * 24; k++, m++) syntheticMinutes(label, b.t[k], b.o[k], b.h[k], b.l[k], b.c[k], b.v[k], cols, m * MINUTES_PER_HOUR)
      const n = m * MINUTES_PER_HOUR
      written += store.appendDetail(symbol, [cols.t, cols.o, cols.h, cols.l, cols.c, cols.v].map(c => c.subarray(0, n)), n, { durable: false }).appended
    }
    onProgress?.(i + 1, symbols.length)
  })
  return written
}
