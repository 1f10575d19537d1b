/**
 * Immutable columnar segment files: the on-disk unit of the candle store.
 *
 * Layout: 16-byte header (magic "PSG1", u32 column count, u32 row count, u32 reserved)
 * followed by each column as `rows` little-endian Float64 values, column after column.
 * A segment is written to a temp file, fsynced and renamed into place, so a reader
 * sees either the whole segment or none of it; a crash leaves at most a `*.tmp` file,
 * which loaders ignore and remove.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync, readdirSync, mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const MAGIC = 0x31475350 // "PSG1" read as little-endian u32
const HEADER_BYTES = 16

export class SegmentError extends Error {}

/** Write `columns` (each at least `rows` long) atomically to `path`. */
export function writeSegment(path: string, columns: ArrayLike<number>[], rows: number, durable = true): void {
  const ncols = columns.length
  const buf = new ArrayBuffer(HEADER_BYTES + ncols * rows * 8)
  const header = new Uint32Array(buf, 0, 4)
  header[0] = MAGIC
  header[1] = ncols
  header[2] = rows
  const body = new Float64Array(buf, HEADER_BYTES)
  for (let k = 0; k < ncols; k++) {
    const col = columns[k]
    const off = k * rows
    for (let i = 0; i < rows; i++) body[off + i] = col[i]
  }
  writeFileAtomic(path, new Uint8Array(buf), durable)
}

/** Read a segment: its columns as Float64Arrays of equal length. */
export function readSegment(path: string): Float64Array[] {
  const bytes = readFileSync(path)
  if (bytes.byteLength < HEADER_BYTES) throw new SegmentError(`${path}: truncated header`)
  // copy into an 8-byte-aligned buffer (Buffer pool slices may not be aligned)
  const buf = new ArrayBuffer(bytes.byteLength)
  new Uint8Array(buf).set(bytes)
  const header = new Uint32Array(buf, 0, 4)
  if (header[0] !== MAGIC) throw new SegmentError(`${path}: not a segment file`)
  const ncols = header[1], rows = header[2]
  if (bytes.byteLength !== HEADER_BYTES + ncols * rows * 8)
    throw new SegmentError(`${path}: size does not match ${ncols} columns x ${rows} rows`)
  const out: Float64Array[] = []
  for (let k = 0; k < ncols; k++) out.push(new Float64Array(buf, HEADER_BYTES + k * rows * 8, rows))
  return out
}

/**
 * temp file + fsync + rename + directory fsync. `durable: false` skips the fsyncs: the
 * rename still makes the write all-or-nothing for a crashing process, only an OS crash
 * may then lose it (used for data that can be regenerated, like demo candles).
 */
export function writeFileAtomic(path: string, data: Uint8Array | string, durable = true): void {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`
  const fd = openSync(tmp, 'w')
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data
    let off = 0
    while (off < bytes.byteLength) off += writeSync(fd, bytes, off, bytes.byteLength - off)
    if (durable) fsyncSync(fd)
  } catch (e) {
    closeSync(fd)
    try { unlinkSync(tmp) } catch {}
    throw e
  }
  closeSync(fd)
  renameSync(tmp, path)
  if (durable) syncDir(path.slice(0, path.lastIndexOf('/')) || '.')
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r')
    try { fsyncSync(fd) } finally { closeSync(fd) }
  } catch {
    // some filesystems refuse fsync on directories; the rename is still atomic
  }
}

/** Segment names sort by their first timestamp: zero-padded ms. */
export function segmentName(firstTms: number): string {
  return `${String(Math.trunc(firstTms)).padStart(16, '0')}.seg`
}

/** Segment files of a folder in time order; stale temp files are removed. */
export function listSegments(dir: string): string[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  const segs: string[] = []
  for (const n of names) {
    if (n.endsWith('.tmp')) {
      // a temp file older than a few minutes is a crashed writer's leftover
      try {
        const p = join(dir, n)
        if (Date.now() - statSync(p).mtimeMs > 600_000) unlinkSync(p)
      } catch {}
    } else if (n.endsWith('.seg')) segs.push(n)
  }
  return segs.sort()
}

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true })
}
