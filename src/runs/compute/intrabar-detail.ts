/**
 * The minute detail a coin task hands the trade model (engine/intrabar.ts IntrabarDetail):
 * the store's 1m series where it holds one for the coin (read lazily, only the hours a
 * replay asks for: market/detail-store.ts), else, on a synthetic store, the minutes derived
 * from the coin's hourly candles (market/synthetic-minutes.ts), else none.
 *
 * A replay reads only the prices (no volume). The hours decoded or derived are kept in the
 * thread's MinuteCache, bounded in rows: the same request again (or another that replays
 * the same bars: other sizes, costs or portfolio settings) reads no minute twice.
 */
import type { IntrabarDetail, MinuteSpan } from '../../engine/intrabar'
import type { DetailInfo } from '../../market/candle-store'
import { MinuteReader } from '../../market/detail-store'
import { MINUTES_PER_HOUR, minuteLabel, syntheticMinutes, type MinutePrices } from '../../market/synthetic-minutes'
import type { Bars } from '../../market/types'
import { lowerBound } from '../../sorted-search'

/**
 * Minutes a thread keeps decoded (5 price columns of 8 bytes: 40 bytes a minute, so
 * 16 MB): 6,666 replayed hours, a run's worth even with tight exits.
 */
export const MINUTE_CACHE_ROWS = 400_000

/** One replayed bar's minutes, kept: rows from … from + n − 1 of the columns. */
interface Kept {
  endMs: number
  t: Float64Array
  o: Float64Array
  h: Float64Array
  l: Float64Array
  c: Float64Array
  from: number
  n: number
  /** the block of the cache's chunks it sits in (−1: columns of its own) */
  block: number
  /** its place in the cache's list */
  slot: number
  owner: Map<number, Kept>
  key: number
}

/** an hour's minutes: the cache's unit of room */
const BLOCK_ROWS = 60
/** blocks per chunk of columns (a chunk is 5 × 7,680 minutes, 300 KB) */
const CHUNK_BLOCKS = 128

interface Chunk {
  t: Float64Array
  o: Float64Array
  h: Float64Array
  l: Float64Array
  c: Float64Array
}

/**
 * The thread's decoded minutes, over every coin's detail: each detail keeps its bars by
 * open time in its own map, the cache bounds their rows together. An hour's minutes go
 * to a block of 60 rows in shared chunks of columns (no allocation per bar once the
 * chunks are there); a longer bar (a 4H or 1D run's) gets columns of its own. When full,
 * a new bar replaces bars chosen at random (a run replaying more bars than fit still
 * finds a share of them again, where dropping the oldest would find none).
 */
export class MinuteCache {
  private rows = 0
  private readonly list: Kept[] = []
  private seed = 0x2545f491
  private chunks: Chunk[] = []
  private blocks = 0
  private free: number[] = []

  constructor(readonly capacityRows = MINUTE_CACHE_ROWS) {}

  get(owner: Map<number, Kept>, startMs: number, endMs: number): Kept | undefined {
    const k = owner.get(startMs)
    return k !== undefined && k.endMs === endMs ? k : undefined
  }

  /** Keep rows from … from + n − 1 of `src` as the bar [startMs, endMs) of `owner` (none when n exceeds the whole cache). */
  put(owner: Map<number, Kept>, startMs: number, endMs: number, src: MinutePrices, from: number, n: number): void {
    const room = n <= BLOCK_ROWS ? BLOCK_ROWS : n
    if (room > this.capacityRows) return
    const old = owner.get(startMs)
    if (old !== undefined) this.drop(old)
    while (this.rows + room > this.capacityRows) this.drop(this.list[this.random(this.list.length)])
    let cols: Chunk
    let at = 0
    let block = -1
    if (n <= BLOCK_ROWS) {
      block = this.free.length > 0 ? this.free.pop()! : this.blocks++
      const c = block / CHUNK_BLOCKS | 0
      if (c === this.chunks.length) {
        const rows = CHUNK_BLOCKS * BLOCK_ROWS
        this.chunks.push({ t: new Float64Array(rows), o: new Float64Array(rows), h: new Float64Array(rows), l: new Float64Array(rows), c: new Float64Array(rows) })
      }
      cols = this.chunks[c]
      at = (block % CHUNK_BLOCKS) * BLOCK_ROWS
    } else cols = { t: new Float64Array(n), o: new Float64Array(n), h: new Float64Array(n), l: new Float64Array(n), c: new Float64Array(n) }
    for (let i = 0; i < n; i++) {
      cols.t[at + i] = src.t[from + i]
      cols.o[at + i] = src.o[from + i]
      cols.h[at + i] = src.h[from + i]
      cols.l[at + i] = src.l[from + i]
      cols.c[at + i] = src.c[from + i]
    }
    const kept: Kept = { endMs, t: cols.t, o: cols.o, h: cols.h, l: cols.l, c: cols.c, from: at, n, block, slot: this.list.length, owner, key: startMs }
    this.list.push(kept)
    owner.set(startMs, kept)
    this.rows += room
  }

  clear(): void {
    for (const k of this.list) k.owner.delete(k.key)
    this.list.length = 0
    this.rows = 0
    this.chunks = []
    this.blocks = 0
    this.free = []
  }

  /** rows kept */
  size(): number {
    return this.rows
  }

  private drop(k: Kept): void {
    const last = this.list.pop()!
    if (last !== k) {
      this.list[k.slot] = last
      last.slot = k.slot
    }
    k.owner.delete(k.key)
    this.rows -= k.block >= 0 ? BLOCK_ROWS : k.n
    if (k.block >= 0) this.free.push(k.block)
  }

  /** an index below n (xorshift: which bar goes does not change any answer) */
  private random(n: number): number {
    let x = this.seed
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    this.seed = x >>> 0
    return this.seed % n
  }
}

/** the cache of details opened without one (the live scorer's, a test's): one per thread, bounded alike */
const threadCache = new MinuteCache()

const NONE = new Float64Array(0)
/** the thread's scratch for derived minutes (a replay walks them before the next is derived) */
let scratch: MinutePrices = { t: NONE, o: NONE, h: NONE, l: NONE, c: NONE }

/** A coin's detail: the bars found in the thread's cache, else read by `load`. */
abstract class CachedMinutes implements IntrabarDetail {
  private readonly kept = new Map<number, Kept>()
  private readonly span: MinuteSpan = { t: NONE, o: NONE, h: NONE, l: NONE, c: NONE, from: 0, to: 0 }

  constructor(private readonly cache: MinuteCache) {}

  minutes(startMs: number, endMs: number): MinuteSpan | null {
    let k = this.cache.get(this.kept, startMs, endMs)
    if (k === undefined) {
      const got = this.load(startMs, endMs)
      if (got === null) return null
      this.cache.put(this.kept, startMs, endMs, got.cols, 0, got.n)
      k = this.cache.get(this.kept, startMs, endMs)
      if (k === undefined) return this.show(got.cols, 0, got.n)
    }
    return this.show(k, k.from, k.n)
  }

  /** the bar's minutes (rows 0 … n − 1 of a scratch the next call may reuse), or null */
  protected abstract load(startMs: number, endMs: number): { cols: MinutePrices; n: number } | null

  private show(cols: MinutePrices, from: number, n: number): MinuteSpan {
    const s = this.span
    s.t = cols.t
    s.o = cols.o
    s.h = cols.h
    s.l = cols.l
    s.c = cols.c
    s.from = from
    s.to = from + n
    return s
  }
}

/** Minutes derived from a synthetic coin's 1H candles: a pure function of (seed, symbol, hour). */
export class DerivedMinutes extends CachedMinutes {
  private readonly label: number
  private readonly got = { cols: scratch, n: 0 }

  /** `hours`: the coin's 1H candles (the store's base series) */
  constructor(private readonly hours: Bars, seed: number, symbol: string, cache: MinuteCache = threadCache) {
    super(cache)
    this.label = minuteLabel(seed, symbol)
  }

  protected load(startMs: number, endMs: number): { cols: MinutePrices; n: number } | null {
    const b = this.hours
    let i = lowerBound(b.t, startMs, b.n)
    const first = i
    while (i < b.n && b.t[i] < endMs) i++
    const count = i - first
    if (count === 0) return null
    const rows = count * MINUTES_PER_HOUR
    if (rows > scratch.t.length) {
      const cap = Math.max(rows, 4 * MINUTES_PER_HOUR)
      scratch = { t: new Float64Array(cap), o: new Float64Array(cap), h: new Float64Array(cap), l: new Float64Array(cap), c: new Float64Array(cap) }
    }
    for (let j = 0; j < count; j++) {
      const k = first + j
      syntheticMinutes(this.label, b.t[k], b.o[k], b.h[k], b.l[k], b.c[k], b.v[k], scratch, j * MINUTES_PER_HOUR)
    }
    this.got.cols = scratch
    this.got.n = rows
    return this.got
  }
}

/** A coin's stored 1m candles, read lazily (detail-store.ts MinuteReader; its folder is listed at the first replay). */
export class StoredMinutes extends CachedMinutes {
  private readonly got = { cols: null as unknown as MinutePrices, n: 0 }

  constructor(private readonly reader: MinuteReader, cache: MinuteCache = threadCache) {
    super(cache)
  }

  protected load(startMs: number, endMs: number): { cols: MinutePrices; n: number } | null {
    const r = this.reader.prices(startMs, endMs)
    if (!r) return null
    this.got.cols = r
    this.got.n = r.n
    return this.got
  }
}

/**
 * A coin's minute detail on this thread: its stored minutes, else on a synthetic store the
 * minutes derived from `hours` (its 1H candles), else null. Nothing is read until a replay
 * asks for a bar. `cache`: a task context's; without one the thread's own (the live
 * scorer's on the main thread), bounded alike.
 */
export function openDetail(info: DetailInfo, symbol: string, hours: Bars | undefined, cache: MinuteCache = threadCache): IntrabarDetail | null {
  const source = detailSourceOf(info, symbol, hours !== undefined)
  if (source === 'stored') return new StoredMinutes(new MinuteReader(`${info.storedDir}/${symbol}`), cache)
  if (source === 'derived') return new DerivedMinutes(hours!, info.syntheticSeed!, symbol, cache)
  return null
}

/** Where a coin's minutes come from on this thread (CandleStore.detailSource's rule, read from the view's DetailInfo); `hasHours`: the coin has 1H candles. */
export function detailSourceOf(info: DetailInfo, symbol: string, hasHours: boolean): 'stored' | 'derived' | null {
  if (info.stored.includes(symbol)) return 'stored'
  return info.syntheticSeed !== null && hasHours ? 'derived' : null
}
