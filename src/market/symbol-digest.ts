/**
 * The digest of one symbol's stored rows up to a point in time: what a queued task carries
 * for every coin it reads (src/runs/queue-wire.ts), so a worker on another host takes the
 * task only if its store holds the same candles and funding up to the run's last bar, and
 * may hold more (newer hours, other coins) without refusing.
 *
 * It digests the rows themselves (their Float64 bytes), not the segment files: two hosts
 * whose stores hold the same rows in different files (one imported at once, one synced
 * hour by hour and compacted) agree. It must stay cheap, because every task asks it for
 * each of its coins: the rows are cut into blocks of BLOCK_ROWS, a full block's sha256 is
 * computed once and kept (appends never rewrite stored rows, so a full block never
 * changes), and a digest up to row k hashes the kept block digests plus at most one partial
 * block. The last digest asked per symbol is kept too, so repeated runs on an unchanged
 * store hash nothing.
 */
import { createHash } from 'node:crypto'

/** rows per kept block: a partial block is at most this × 6 columns × 8 bytes (24 KiB) to hash */
export const BLOCK_ROWS = 512

/** A symbol's columns as the store keeps them: `n` filled rows, first column the times. */
export interface RowColumns {
  readonly cols: readonly Float64Array[]
  readonly n: number
}

const bytesOf = (col: Float64Array, from: number, to: number) => new Uint8Array(col.buffer, col.byteOffset + from * 8, (to - from) * 8)

/** The kept block digests of one series (candles or funding) of one symbol. */
class BlockDigests {
  private readonly blocks: Buffer[] = []

  /** The digest of the first `k` rows (k ≤ columns.n). */
  upTo(columns: RowColumns, k: number): Buffer {
    const full = Math.floor(k / BLOCK_ROWS)
    for (let b = this.blocks.length; b < full; b++) {
      const h = createHash('sha256')
      for (const col of columns.cols) h.update(bytesOf(col, b * BLOCK_ROWS, (b + 1) * BLOCK_ROWS))
      this.blocks.push(h.digest())
    }
    const h = createHash('sha256').update(`${k};`)
    for (let b = 0; b < full; b++) h.update(this.blocks[b])
    for (const col of columns.cols) h.update(bytesOf(col, full * BLOCK_ROWS, k))
    return h.digest()
  }
}

/** The per-symbol digests of one store (dropped with the store: a re-read store starts afresh). */
export class SymbolDigests {
  /** kept blocks by series (candles, funding, each kind of samples) and symbol */
  private readonly series = new Map<string, BlockDigests>()
  /** digests already asked, by symbol and row counts (a worker asks for its whole rows and for each task's) */
  private readonly asked = new Map<string, string>()

  /**
   * The digest (16 hex) of `symbol`'s series, each up to its row count: `parts[0]` the
   * candles, then funding and the derivatives samples (a series absent or at 0 rows adds
   * nothing), and `extras`, what the coin has beside rows, as text. Callers count the rows
   * up to a time (CandleStore.symbolRowsWithin).
   */
  digest(symbol: string, parts: readonly (readonly [RowColumns | undefined, number])[], extras = ''): string {
    const key = `${symbol}:${parts.map(p => p[1]).join(':')}:${extras}`
    const hit = this.asked.get(key)
    if (hit) return hit
    const h = createHash('sha256').update(`${symbol}|`)
    parts.forEach(([columns, rows], i) => {
      if (!columns || rows <= 0) return
      h.update(`${i}:`).update(this.blocks(`${i}|${symbol}`).upTo(columns, rows))
    })
    // what the coin has beside rows (its minute detail's coverage, its margin brackets)
    if (extras) h.update(`x:${extras}`)
    const digest = h.digest('hex').slice(0, 16)
    if (this.asked.size > 16_384) this.asked.clear()
    this.asked.set(key, digest)
    return digest
  }

  private blocks(key: string): BlockDigests {
    let d = this.series.get(key)
    if (!d) this.series.set(key, (d = new BlockDigests()))
    return d
  }
}
