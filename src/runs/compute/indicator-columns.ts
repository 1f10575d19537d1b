/**
 * The indicator columns a thread keeps between strategies (strategies/compile.ts,
 * `IndicatorColumns`): a new condition tree on a coin whose indicators an earlier tree
 * computed compares on those columns (issue 30: a tree edited in the builder and run
 * again). Least recently used first out, within a byte budget; a column is kept per coin,
 * timeframe and bars (their count and last open time), and the whole cache is dropped when
 * the thread's data version changes (TaskContext.setView).
 */
import type { Timeframe } from '../../market/timeframe'
import type { Bars } from '../../market/types'
import type { IndicatorColumns } from '../../strategies/compile'

/**
 * Per thread: 96 MiB holds three fields of the coins a worker gets of a 535-coin two-year
 * run (89 MB on the synthetic store: up to 17,520 bars × 8 bytes, 140 KB a column; a run's
 * coins are cut into the same chunks on the same workers every time). A tree reading more
 * computes what does not fit, as without the cache.
 */
export const INDICATOR_COLUMN_BYTES = 96 * 1024 * 1024

/** evicted columns held for reuse: a run whose columns outgrow the budget computes into them instead of allocating */
const SPARE_COLUMNS = 8

export class IndicatorColumnCache {
  /** key → column, oldest use first (a Map keeps insertion order; a hit moves to the end) */
  private readonly columns = new Map<string, Float64Array>()
  private spares: Float64Array[] = []
  private bytes = 0

  constructor(private readonly budget = INDICATOR_COLUMN_BYTES) {}

  /** The columns kept for one coin's bars on a timeframe. */
  of(symbol: string, tf: Timeframe, bars: Bars): IndicatorColumns {
    const scope = `${symbol}|${tf}|${bars.n}|${bars.n ? bars.t[bars.n - 1] : 0}|`
    return {
      get: key => {
        const k = scope + key
        const hit = this.columns.get(k)
        if (hit === undefined) return undefined
        this.columns.delete(k)
        this.columns.set(k, hit)
        return hit
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
      this.bytes -= old.byteLength
    }
    this.columns.set(key, col)
    this.bytes += col.byteLength
    for (const [k, v] of this.columns) {
      if (this.bytes <= this.budget) break
      this.columns.delete(k)
      this.bytes -= v.byteLength
      // a column of the coin being computed may still be read by its tree: never handed out again
      if (!k.startsWith(scope) && this.spares.length < SPARE_COLUMNS) this.spares.push(v)
    }
  }
}
