/**
 * The candle store's optional minute detail: 1m candles per symbol, for the trade model's
 * replays of the bars whose outcome depends on the path inside them (docs/data.md,
 * "Minute detail"), and for GET /ohlcv?timeframe=1m.
 *
 * On disk (under `<DATA_DIR>/store/detail/1m/<SYMBOL>/`): the same immutable columnar
 * segment files as the hourly candles (segment-file.ts: t,o,h,l,c,v as Float64, written to
 * a temp file, fsynced and renamed), one per UTC month of an append (a month appended in
 * several parts has several), named by their first minute. Nothing is rewritten: an append adds segments, and
 * rows at or before the symbol's last stored minute are skipped.
 *
 * Unlike the hourly candles the minutes are never loaded whole (100 coins × a year is about
 * 52 million minutes, 2.5 GB): a reader opens the segment of a bar a replay asks for,
 * finds the bar's first row by positioned reads of the time column (its minute offset
 * first, a binary search where minutes are missing) and reads only that bar's rows (one
 * positioned read per column). The reader keeps the segment list and their row counts;
 * the run's thread keeps a bounded number of decoded hours (runs/compute/intrabar-detail.ts).
 * Any thread can open a reader on the folder.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync } from 'node:fs'
import { join } from 'node:path'
import { ensureDir, listSegments, segmentName, writeSegment } from './segment-file'
import type { MinuteColumns } from './synthetic-minutes'
import { lowerBound, upperBound } from '../sorted-search'
import { MINUTE_MS } from '../time'

export const DETAIL_TIMEFRAME = '1m'
const COLS = 6
const HEADER_BYTES = 16
const MAGIC = 0x31475350

export class DetailStoreError extends Error {}

/** Minute candles of one range: rows 0 … n − 1 of the columns. */
export interface MinuteRows extends MinuteColumns {
  n: number
}

export interface DetailCoverage {
  symbol: string
  /** first and last minute's open time */
  firstMs: number
  lastMs: number
  minutes: number
  segments: number
}

/** The minute-detail folder of a store. */
export class DetailStore {
  readonly dir: string
  private lastT = new Map<string, number>()

  constructor(storeRoot: string) {
    this.dir = join(storeRoot, 'detail', DETAIL_TIMEFRAME)
  }

  /** symbols with at least one minute */
  symbols(): string[] {
    if (!existsSync(this.dir)) return []
    return readdirSync(this.dir)
      .filter(s => listSegments(join(this.dir, s)).length > 0)
      .sort()
  }

  has(symbol: string): boolean {
    return listSegments(join(this.dir, symbol)).length > 0
  }

  /** first and last minute and the count, from the segments' headers and time columns */
  coverage(symbol: string): DetailCoverage | null {
    const segs = listSegments(join(this.dir, symbol))
    if (segs.length === 0) return null
    let minutes = 0
    let firstMs = Infinity
    let lastMs = -Infinity
    for (const name of segs) {
      const seg = openSeg(join(this.dir, symbol, name))
      try {
        minutes += seg.rows
        if (seg.rows > 0) {
          firstMs = Math.min(firstMs, readCol(seg, 0, 0, 1)[0])
          lastMs = Math.max(lastMs, readCol(seg, 0, seg.rows - 1, seg.rows)[0])
        }
      } finally {
        closeSync(seg.fd)
      }
    }
    return { symbol, firstMs, lastMs, minutes, segments: segs.length }
  }

  lastMinuteMs(symbol: string): number | null {
    const cached = this.lastT.get(symbol)
    if (cached !== undefined) return cached
    const cov = this.coverage(symbol)
    if (cov) this.lastT.set(symbol, cov.lastMs)
    return cov ? cov.lastMs : null
  }

  /**
   * Append minutes (columns t,o,h,l,c,v; t strictly increasing, whole minutes): rows at or
   * before the last stored minute are skipped; the rest is written one segment per UTC
   * month (a month's segment is 2 MB: twelve atomic writes a coin-year).
   */
  append(symbol: string, cols: ArrayLike<number>[], n: number, durable = true): { appended: number; skipped: number } {
    if (!/^[A-Z0-9]{1,24}USDT$/.test(symbol)) throw new DetailStoreError(`invalid symbol ${JSON.stringify(symbol)}: expected <BASE>USDT`)
    if (cols.length !== COLS) throw new DetailStoreError('minute detail takes 6 columns: t,o,h,l,c,v')
    const last = this.lastMinuteMs(symbol) ?? -Infinity
    const t = cols[0]
    let start = 0
    while (start < n && t[start] <= last) start++
    for (let i = start; i < n; i++) {
      if (!Number.isFinite(t[i]) || t[i] % MINUTE_MS !== 0) throw new DetailStoreError(`${symbol}: row ${i} is not a whole minute (${t[i]})`)
      if (i > start && t[i] <= t[i - 1]) throw new DetailStoreError(`${symbol}: times must increase (row ${i}: ${t[i]} after ${t[i - 1]})`)
    }
    if (start >= n) return { appended: 0, skipped: n }
    const dir = join(this.dir, symbol)
    ensureDir(dir)
    for (let a = start; a < n; ) {
      const d = new Date(t[a])
      const monthEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
      let b = a
      while (b < n && t[b] < monthEnd) b++
      const part = cols.map(c => Float64Array.from({ length: b - a }, (_, i) => c[a + i]))
      writeSegment(join(dir, segmentName(t[a])), part, b - a, durable)
      a = b
    }
    this.lastT.set(symbol, t[n - 1])
    return { appended: n - start, skipped: start }
  }

  /**
   * Rows [from, to) of the symbol's minutes counted from its first stored minute (in time
   * order; `range` picks them knowing the total): the window of GET /ohlcv?timeframe=1m,
   * read from the segments holding it only. `total` is every stored minute of the symbol.
   */
  window(symbol: string, range: (total: number) => [number, number]): { rows: MinuteRows; total: number; from: number } | null {
    const dir = join(this.dir, symbol)
    const names = listSegments(dir)
    if (names.length === 0) return null
    const segs = names.map(n => openSeg(join(dir, n)))
    try {
      // overlapping rows cannot occur (appends skip them): a segment's rows follow the previous one's
      const total = segs.reduce((a, s) => a + s.rows, 0)
      const [from, to] = range(total)
      const a = Math.max(0, Math.min(from, total))
      const b = Math.max(a, Math.min(to, total))
      const rows: MinuteRows = { t: new Float64Array(b - a), o: new Float64Array(b - a), h: new Float64Array(b - a), l: new Float64Array(b - a), c: new Float64Array(b - a), v: new Float64Array(b - a), n: b - a }
      const out = [rows.t, rows.o, rows.h, rows.l, rows.c, rows.v]
      let start = 0
      for (const seg of segs) {
        const lo = Math.max(a, start), hi = Math.min(b, start + seg.rows)
        if (hi > lo) for (let k = 0; k < COLS; k++) readCol(seg, k, lo - start, hi - start, out[k], lo - a)
        start += seg.rows
      }
      return { rows, total, from: a }
    } finally {
      for (const s of segs) closeSync(s.fd)
    }
  }

  /** A lazy reader of one symbol's minutes (null without any). */
  reader(symbol: string): MinuteReader | null {
    return this.has(symbol) ? new MinuteReader(join(this.dir, symbol)) : null
  }
}

interface Seg {
  fd: number
  rows: number
}

function openSeg(path: string): Seg {
  const fd = openSync(path, 'r')
  const head = new Uint32Array(4)
  readSync(fd, new Uint8Array(head.buffer), 0, HEADER_BYTES, 0)
  if (head[0] !== MAGIC || head[1] !== COLS) {
    closeSync(fd)
    throw new DetailStoreError(`${path}: not a minute segment`)
  }
  return { fd, rows: head[2] }
}

/** rows from … to − 1 of column k */
function readCol(seg: Seg, k: number, from: number, to: number, out?: Float64Array, at = 0): Float64Array {
  const dest = out ?? new Float64Array(to - from)
  const bytes = new Uint8Array(dest.buffer, dest.byteOffset + at * 8, (to - from) * 8)
  readSync(seg.fd, bytes, 0, bytes.byteLength, HEADER_BYTES + (k * seg.rows + from) * 8)
  return dest
}

/** first row of a segment with time ≥ x, by positioned reads: the minute offset first (minutes are contiguous almost everywhere), else a binary search */
function firstAtOrAfter(seg: Seg, x: number): number {
  const one = new Float64Array(1)
  const at = (i: number) => readCol(seg, 0, i, i + 1, one)[0]
  if (seg.rows === 0) return 0
  const t0 = at(0)
  if (x <= t0) return 0
  const guess = Math.min(seg.rows - 1, Math.round((x - t0) / MINUTE_MS))
  const g = at(guess)
  if (g === x && (guess === 0 || at(guess - 1) < x)) return guess
  // the kit's search over the time column read row by row
  const times = new Proxy({ length: seg.rows } as ArrayLike<number>, { get: (o, k) => (k === 'length' ? o.length : at(Number(k))) })
  return lowerBound(times, x, seg.rows)
}

/**
 * One symbol's minutes, read on demand: `rows(startMs, endMs)` answers the minutes with
 * open time in [startMs, endMs) (into a buffer reused by the next call); `prices` the
 * same without the volume, for a replay. The segment list is read at the first call and
 * each segment's row count at its first use (segments are immutable: an append adds new
 * ones, and changes the store's data version, under which a new reader is opened).
 */
export class MinuteReader {
  private names: string[] | null = null
  private starts = new Float64Array(0)
  /** each segment's row count, −1 until its header was read */
  private rowCount = new Float64Array(0)
  private buf: MinuteRows = { t: new Float64Array(0), o: new Float64Array(0), h: new Float64Array(0), l: new Float64Array(0), c: new Float64Array(0), v: new Float64Array(0), n: 0 }

  constructor(private readonly dir: string) {}

  rows(startMs: number, endMs: number): MinuteRows | null {
    const names = this.list()
    // segments that may hold minutes of the range: from the last starting at or before startMs
    let s = upperBound(this.starts, startMs) - 1
    if (s < 0) s = 0
    let n = 0
    for (; s < names.length && this.starts[s] < endMs; s++) {
      const seg = this.open(s)
      try {
        const a = firstAtOrAfter(seg, startMs)
        const b = firstAtOrAfter(seg, endMs)
        if (b <= a) continue
        this.ensure(n + b - a, n)
        for (let k = 0; k < COLS; k++) readCol(seg, k, a, b, this.col(k), n)
        n += b - a
      } finally {
        closeSync(seg.fd)
      }
    }
    if (n === 0) return null
    this.buf.n = n
    return this.buf
  }

  /**
   * The minutes with open time in [startMs, endMs) without their volume (`v` is not
   * filled): the same rows as `rows`. Where the range's minutes are all stored, in one
   * segment (almost everywhere), they lie at the rows their minute offsets from the
   * segment's first minute (its name) give: one read of the time column proves it and
   * four read the prices. Elsewhere (missing minutes, a range across segments) as `rows`.
   */
  prices(startMs: number, endMs: number): MinuteRows | null {
    const names = this.list()
    const s = upperBound(this.starts, startMs) - 1
    const count = (endMs - startMs) / MINUTE_MS
    if (s >= 0 && Number.isInteger(count) && count > 0) {
      const g = (startMs - this.starts[s]) / MINUTE_MS
      if (Number.isInteger(g) && (this.rowCount[s] < 0 || g + count <= this.rowCount[s])) {
        const seg = this.open(s)
        try {
          if (g + count <= seg.rows) {
            this.ensure(count, 0)
            const b = this.buf
            readCol(seg, 0, g, g + count, b.t, 0)
            // whole minutes, strictly increasing: the first and the last in place means every one is
            if (b.t[0] === startMs && b.t[count - 1] === endMs - MINUTE_MS) {
              readCol(seg, 1, g, g + count, b.o, 0)
              readCol(seg, 2, g, g + count, b.h, 0)
              readCol(seg, 3, g, g + count, b.l, 0)
              readCol(seg, 4, g, g + count, b.c, 0)
              b.n = count
              return b
            }
          }
        } finally {
          closeSync(seg.fd)
        }
      }
    }
    return names.length > 0 ? this.rows(startMs, endMs) : null
  }

  private list(): string[] {
    if (this.names === null) {
      const names = listSegments(this.dir)
      this.starts = Float64Array.from(names, n => Number(n.slice(0, -4)))
      this.rowCount = new Float64Array(names.length).fill(-1)
      this.names = names
    }
    return this.names
  }

  /** segment s, opened (its row count read once) */
  private open(s: number): Seg {
    const path = join(this.dir, this.names![s])
    if (this.rowCount[s] >= 0) return { fd: openSync(path, 'r'), rows: this.rowCount[s] }
    const seg = openSeg(path)
    this.rowCount[s] = seg.rows
    return seg
  }

  private col(k: number): Float64Array {
    const b = this.buf
    return [b.t, b.o, b.h, b.l, b.c, b.v][k]
  }

  /** room for `rows`, keeping the first `keep` rows written */
  private ensure(rows: number, keep: number): void {
    if (rows <= this.buf.t.length) return
    const cap = Math.max(rows, 2 * this.buf.t.length, 256)
    const grow = (a: Float64Array) => {
      const g = new Float64Array(cap)
      g.set(a.subarray(0, keep))
      return g
    }
    const b = this.buf
    this.buf = { t: grow(b.t), o: grow(b.o), h: grow(b.h), l: grow(b.l), c: grow(b.c), v: grow(b.v), n: b.n }
  }
}
