/**
 * The indicator columns a thread keeps between strategies (strategies/compile.ts,
 * `IndicatorColumns`): a new condition tree on a coin whose indicators earlier trees
 * computed compares on those columns (issue 30: a tree edited in the builder and run
 * again). A column is kept from its second use on, least recently used first out within
 * a byte budget, per coin, timeframe and bars (their count and last open time); the whole
 * cache is dropped when the thread's data version changes (TaskContext.setView).
 */
import type { Timeframe } from '../../market/timeframe'
import type { Bars } from '../../market/types'
import type { IndicatorColumns } from '../../strategies/compile'

/**
 * Per thread: 64 MiB, four fifths of the three fields a worker's coins of a 535-coin
 * two-year run read (82 MB on the synthetic store: up to 17,520 bars × 8 bytes, 140 KB a
 * column; a run's coins are cut into the same chunks on the same workers every time). The
 * issue's memory bound (the server within 1.2× of its size before) is shared by every
 * change of issue 30: 96 MiB held all three fields (+164 MB of the server's ~990 MB on the
 * synthetic store, 1.15×); 64 MiB keeps +128 MB at most and computes the rest in scratch.
 */
export const INDICATOR_COLUMN_BYTES = 64 * 1024 * 1024

/** evicted columns held for reuse: a run whose columns outgrow the budget computes into them instead of allocating */
const SPARE_COLUMNS = 8

/**
 * Keys missed once, remembered so that a second miss keeps the column (16,384 keys, a few
 * MB: about twenty runs of three fields on a worker's coins). A column is kept from its
 * second use on: writing it to memory no cache holds costs more than computing it in the
 * thread's scratch, so a tree over indicator params never seen again (a sweep over a period)
 * runs as it did without the cache, and a tree edited and run again finds them from its
 * third run.
 */
const SEEN_KEYS = 16_384

interface Kept {
  col: Float64Array
  /** the lookup count at its last use */
  used: number
}

export class IndicatorColumnCache {
  /** key → column, oldest use first (a Map keeps insertion order; a hit moves to the end) */
  private readonly columns = new Map<string, Kept>()
  private spares: Float64Array[] = []
  private bytes = 0
  private readonly seen = new Set<string>()
  /** lookups so far: how recently a kept column was used */
  private lookups = 0

  constructor(private readonly budget = INDICATOR_COLUMN_BYTES) {}

  /** The columns kept for one coin's bars on a timeframe. */
  of(symbol: string, tf: Timeframe, bars: Bars): IndicatorColumns {
    const scope = `${symbol}|${tf}|${bars.n}|${bars.n ? bars.t[bars.n - 1] : 0}|`
    return {
      get: key => {
        this.lookups++
        const k = scope + key
        const hit = this.columns.get(k)
        if (hit === undefined) return undefined
        this.columns.delete(k)
        this.columns.set(k, hit)
        hit.used = this.lookups
        return hit.col
      },
      wants: key => {
        const k = scope + key
        if (!this.seen.delete(k)) {
          this.seen.add(k)
          if (this.seen.size > SEEN_KEYS) this.seen.delete(this.seen.values().next().value!)
          return false
        }
        if (this.bytes + bars.n * 8 <= this.budget) return true
        // full: a column replaces the least recently used one only when that one went unused
        // for two cache-fulls of lookups; trees cycling over more columns than fit keep the
        // ones they have (computing the others in scratch) instead of evicting every column
        // before its next use
        const oldest = this.columns.values().next().value
        return oldest === undefined || this.lookups - oldest.used > 2 * this.columns.size
      },
      column: n => {
        const i = this.spares.findIndex(c => c.length === n)
        return i < 0 ? new Float64Array(n) : this.spares.splice(i, 1)[0]
      },
      put: (key, col) => this.put(scope, scope + key, col),
    }
  }

  clear(): void {
    this.columns.clear()
    this.seen.clear()
    this.spares = []
    this.bytes = 0
  }

  /** bytes held */
  get size(): number {
    return this.bytes
  }

  private put(scope: string, key: string, col: Float64Array): void {
    if (col.byteLength > this.budget) return
    const old = this.columns.get(key)
    if (old !== undefined) {
      this.columns.delete(key)
      this.bytes -= old.col.byteLength
    }
    this.columns.set(key, { col, used: this.lookups })
    this.bytes += col.byteLength
    for (const [k, v] of this.columns) {
      if (this.bytes <= this.budget) break
      this.columns.delete(k)
      this.bytes -= v.col.byteLength
      // a column of the coin being computed may still be read by its tree: never handed out again
      if (!k.startsWith(scope) && this.spares.length < SPARE_COLUMNS) this.spares.push(v.col)
    }
  }
}
