/**
 * The indicator columns a thread keeps between strategies (strategies/compile.ts,
 * `IndicatorColumns`): a new condition tree on a coin whose indicators earlier trees
 * computed compares on those columns (issue 30: a tree edited in the builder and run
 * again). A column is kept from its second use on, least recently used first out within
 * a byte budget, per coin, timeframe and bars (their count and last open time); the whole
 * cache is dropped when the thread's data version changes (TaskContext.setView). Beside the
 * columns, in a small budget of their own, the bars where an AND's comparison leaf holds (a
 * bit set: n / 8 bytes against a column's 8n), so a tree edited in one leaf reads no column
 * of its unchanged leaves; and in a third, the list of bars where such leaves all hold and
 * the edited leaf's column's values on it, so a tree edited in that leaf again reads neither
 * the sets nor its column.
 */
import type { Timeframe } from '../../market/timeframe'
import type { Bars } from '../../market/types'
import type { IndicatorColumns } from '../../strategies/compile'

/**
 * Per thread: 64 MiB in all (columns and leaf sets), four fifths of the three fields a
 * worker's coins of a 535-coin two-year run read (82 MB on the synthetic store: up to 17,520
 * bars × 8 bytes, 140 KB a column; a run's coins are cut into the same chunks on the same
 * workers every time). The memory bound (the server within 1.2× of its size before)
 * is shared by every change of issue 30: 96 MiB held all three fields (+164 MB of the
 * server's ~990 MB on the synthetic store, 1.15×); 64 MiB keeps +128 MB at most and
 * computes the rest in scratch.
 */
export const INDICATOR_COLUMN_BYTES = 64 * 1024 * 1024

/**
 * Of it, the leaves' bit sets: 4 MiB, about seven leaves of every coin a worker runs of a
 * 535-coin two-year run (2.2 KB a coin and leaf). Apart from the columns, so the columns
 * a tree's first runs fill the budget with (wanted from their second use, as the leaves
 * are) never keep a leaf out: a kept leaf spares a column 64 times its size.
 */
export const LEAF_SET_BYTES = 4 * 1024 * 1024

/**
 * Of it too, the lists of bars where an AND's kept leaves all hold and columns' values on
 * them (IndicatorColumns.sparse): 4 MiB, taken from the columns' share. The row's tree lists
 * about 370 bars a coin (12 bytes each with the RSI's values: 4.4 KB a coin, 1.1 MB for a
 * worker's coins), and a list is kept only while it holds at most one bar in 16 of the coin.
 */
export const LIST_BYTES = 4 * 1024 * 1024

/** evicted columns held for reuse: a run whose columns outgrow the budget computes into them instead of allocating */
const SPARE_COLUMNS = 8

/**
 * Keys missed once, remembered so that a second miss keeps the column (16,384 keys, a few
 * MB: about twenty runs of three fields on a worker's coins). A column is kept from its
 * second use on: writing it to memory no cache holds costs more than computing it in the
 * thread's scratch, so a tree over indicator params never seen again (a sweep over a period)
 * runs as it did without the cache, and a tree edited and run again finds them from its
 * third run. Leaves alike (their set costs a pass over their columns when the leaf was not
 * the one that listed the AND's bars).
 */
const SEEN_KEYS = 16_384

/**
 * The keys missed once among the last SEEN_KEYS misses: a ring of them and each one's place
 * in it. (A Set dropping its oldest key by `values().next()` once full cost 20–60 µs a miss:
 * the iterator walks past every key deleted before it; a tree edited in one leaf misses a
 * new key per coin: about 20 ms a request of 516 coins.)
 */
class SeenKeys {
  private readonly ring: (string | undefined)[] = new Array(SEEN_KEYS).fill(undefined)
  private readonly slot = new Map<string, number>()
  private next = 0

  /** whether `k` was missed before (then forgotten, as its second miss keeps it), else remembered */
  again(k: string): boolean {
    const at = this.slot.get(k)
    if (at !== undefined) {
      this.slot.delete(k)
      this.ring[at] = undefined
      return true
    }
    const old = this.ring[this.next]
    if (old !== undefined) this.slot.delete(old)
    this.ring[this.next] = k
    this.slot.set(k, this.next)
    this.next = (this.next + 1) % SEEN_KEYS
    return false
  }

  clear(): void {
    this.ring.fill(undefined)
    this.slot.clear()
    this.next = 0
  }
}

interface Kept {
  /** a column, a leaf's bit set, or a list of bars or values on one */
  col: Float64Array | Uint32Array | Int32Array
  /** the lookup count at its last use */
  used: number
}

/** One budget: key → what is kept, oldest use first (a Map keeps insertion order; a hit moves to the end). */
class Pool {
  readonly items = new Map<string, Kept>()
  bytes = 0
  constructor(readonly budget: number) {}
}

export class IndicatorColumnCache {
  private readonly columns: Pool
  private readonly leaves: Pool
  private readonly lists: Pool
  private spares: Float64Array[] = []
  private readonly seen = new SeenKeys()
  /** lookups so far: how recently a kept column was used */
  private lookups = 0

  /** `budget`: the columns'; `leafBudget`: the leaves' bit sets'; `listBudget`: the lists' and their values' */
  constructor(budget = INDICATOR_COLUMN_BYTES - LEAF_SET_BYTES - LIST_BYTES, leafBudget = LEAF_SET_BYTES, listBudget = LIST_BYTES) {
    this.columns = new Pool(budget)
    this.leaves = new Pool(leafBudget)
    this.lists = new Pool(listBudget)
  }

  /** The columns kept for one coin's bars on a timeframe. */
  of(symbol: string, tf: Timeframe, bars: Bars): IndicatorColumns {
    const scope = `${symbol}|${tf}|${bars.n}|${bars.n ? bars.t[bars.n - 1] : 0}|`
    return {
      get: key => this.get(this.columns, scope + key) as Float64Array | undefined,
      wants: key => this.wants(this.columns, scope + key, bars.n * 8),
      column: n => {
        const i = this.spares.findIndex(c => c.length === n)
        return i < 0 ? new Float64Array(n) : this.spares.splice(i, 1)[0]
      },
      put: (key, col) => this.put(this.columns, scope, scope + key, col),
      // leaf keys (`leaf:…`, compile.ts) never meet column keys (`id(params)|field`) in `seen`
      leaf: key => this.get(this.leaves, scope + key) as Uint32Array | undefined,
      wantsLeaf: key => this.wants(this.leaves, scope + key, ((bars.n + 31) >>> 5) * 4),
      putLeaf: (key, bits) => this.put(this.leaves, scope, scope + key, bits),
      // list keys (`list:…`) never meet the others in `seen` either
      sparse: key => this.get(this.lists, scope + key) as Int32Array | Float64Array | undefined,
      wantsSparse: (key, bytes) => this.wants(this.lists, scope + key, bytes),
      putSparse: (key, x) => this.put(this.lists, scope, scope + key, x),
    }
  }

  clear(): void {
    this.columns.items.clear()
    this.leaves.items.clear()
    this.lists.items.clear()
    this.columns.bytes = this.leaves.bytes = this.lists.bytes = 0
    this.seen.clear()
    this.spares = []
  }

  /** bytes held */
  get size(): number {
    return this.columns.bytes + this.leaves.bytes + this.lists.bytes
  }

  private get(pool: Pool, k: string): Float64Array | Uint32Array | Int32Array | undefined {
    this.lookups++
    const hit = pool.items.get(k)
    if (hit === undefined) return undefined
    pool.items.delete(k)
    pool.items.set(k, hit)
    hit.used = this.lookups
    return hit.col
  }

  private wants(pool: Pool, k: string, bytes: number): boolean {
    if (!this.seen.again(k)) return false
    if (pool.bytes + bytes <= pool.budget) return true
    // full: a column replaces the least recently used one only when that one went unused
    // for two cache-fulls of lookups; trees cycling over more columns than fit keep the
    // ones they have (computing the others in scratch) instead of evicting every column
    // before its next use
    const oldest = pool.items.values().next().value
    return oldest === undefined || this.lookups - oldest.used > 2 * pool.items.size
  }

  private put(pool: Pool, scope: string, key: string, col: Float64Array | Uint32Array | Int32Array): void {
    if (col.byteLength > pool.budget) return
    const old = pool.items.get(key)
    if (old !== undefined) {
      pool.items.delete(key)
      pool.bytes -= old.col.byteLength
    }
    pool.items.set(key, { col, used: this.lookups })
    pool.bytes += col.byteLength
    for (const [k, v] of pool.items) {
      if (pool.bytes <= pool.budget) break
      pool.items.delete(k)
      pool.bytes -= v.col.byteLength
      // a column of the coin being computed may still be read by its tree: never handed out again
      if (pool === this.columns && v.col instanceof Float64Array && !k.startsWith(scope) && this.spares.length < SPARE_COLUMNS) this.spares.push(v.col)
    }
  }
}
