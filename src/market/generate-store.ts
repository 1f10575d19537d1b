/**
 * Writing a whole synthetic store: generated into a staging folder beside the store and
 * renamed into place when complete, so a crash or an error midway leaves no
 * half-generated store behind.
 */
import { existsSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { CandleStore } from './candle-store'
import { generateSyntheticUniverse } from './synthetic'

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
