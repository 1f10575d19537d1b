/**
 * A run's trades as columns (struct of arrays): the portfolio, the metrics, the
 * reliability checks and the statistics read tens of thousands of trades a run, and
 * one typed array per field is read several times faster than one object per trade
 * (bench/pipeline.ts). Trade objects are made only for the few a response lists.
 */
import { EXIT_REASON_CODE, EXIT_REASONS, type Direction, type Trade } from './types'

export interface TradeTable {
  n: number
  /** every trade of a run goes the run's way */
  direction: Direction
  /** the run's coins; `coin[i]` indexes this list */
  symbols: readonly string[]
  coin: Int32Array
  entryIdx: Int32Array
  exitIdx: Int32Array
  entryMs: Float64Array
  exitMs: Float64Array
  entryPrice: Float64Array
  exitPrice: Float64Array
  barsHeld: Int32Array
  /** code into EXIT_REASONS */
  exitReason: Uint8Array
  pnlPct: Float64Array
  grossPct: Float64Array
  feePct: Float64Array
  fundingPct: Float64Array
  slTpSameBar: Uint8Array
  fundingEvents: Int32Array
  fundingEventsReal: Int32Array
  /** slippage, % of margin, and its size-dependent parts (execution.ts SizeCosts; 0 without them) */
  slippagePct: Float64Array
  slipSpread: Float64Array
  slipImpact: Float64Array
  maeFrac: Float64Array
  fillsUnestimated: Uint8Array
  /** how the exit was found: 0 the bar rule, 1 minute detail (the exit unchanged), 3 minute detail that changed it (types.ts exitResolution) */
  resolution: Uint8Array
  /** the open positions' marks at the UTC midnights they span (dayMarksOf); absent until computed */
  marks?: DayMarks
}

/**
 * What an open trade is worth at each UTC midnight strictly inside (entry, exit), as a
 * fraction of its margin (equity-curve.ts, markMove): trade i's values are
 * move[start[i]] … move[start[i + 1] − 1], one per midnight from the first after its entry.
 */
export interface DayMarks {
  start: Int32Array
  move: Float64Array
}

/** The trades a portfolio took, with their margin and USD P&L. */
export interface SizedTradeTable extends TradeTable {
  marginUsd: Float64Array
  pnlUsd: Float64Array
}

export function allocTradeTable(n: number, direction: Direction, symbols: readonly string[]): TradeTable {
  return tableOver(n, direction, symbols, null)
}

/**
 * A table of n rows whose columns are the first n rows of `over`'s (views), or new ones
 * without it: one object literal either way, so every table has the same shape for the JIT.
 */
function tableOver(n: number, direction: Direction, symbols: readonly string[], over: TradeTable | null): TradeTable {
  const i32 = (a: Int32Array | undefined) => (a ? a.subarray(0, n) : new Int32Array(n))
  const f64 = (a: Float64Array | undefined) => (a ? a.subarray(0, n) : new Float64Array(n))
  const u8 = (a: Uint8Array | undefined) => (a ? a.subarray(0, n) : new Uint8Array(n))
  return {
    n,
    direction,
    symbols,
    coin: i32(over?.coin),
    entryIdx: i32(over?.entryIdx),
    exitIdx: i32(over?.exitIdx),
    entryMs: f64(over?.entryMs),
    exitMs: f64(over?.exitMs),
    entryPrice: f64(over?.entryPrice),
    exitPrice: f64(over?.exitPrice),
    barsHeld: i32(over?.barsHeld),
    exitReason: u8(over?.exitReason),
    pnlPct: f64(over?.pnlPct),
    grossPct: f64(over?.grossPct),
    feePct: f64(over?.feePct),
    fundingPct: f64(over?.fundingPct),
    slTpSameBar: u8(over?.slTpSameBar),
    fundingEvents: i32(over?.fundingEvents),
    fundingEventsReal: i32(over?.fundingEventsReal),
    slippagePct: f64(over?.slippagePct),
    slipSpread: f64(over?.slipSpread),
    slipImpact: f64(over?.slipImpact),
    maeFrac: f64(over?.maeFrac),
    fillsUnestimated: u8(over?.fillsUnestimated),
    resolution: u8(over?.resolution),
  }
}

/**
 * The table of trade objects, in their order. `symbols` fixes the coin list (a trade of
 * another coin is appended to it); without it the coins are listed as first met.
 */
export function tradeTableOf(trades: readonly Trade[], symbols: readonly string[] = [], direction?: Direction): TradeTable {
  const list = [...symbols]
  const index = new Map(list.map((s, i) => [s, i]))
  const t = allocTradeTable(trades.length, direction ?? trades[0]?.direction ?? 'short', list)
  for (let i = 0; i < trades.length; i++) {
    const tr = trades[i]
    let c = index.get(tr.symbol)
    if (c === undefined) {
      c = list.length
      list.push(tr.symbol)
      index.set(tr.symbol, c)
    }
    writeTrade(t, i, tr, c)
  }
  return t
}

/** Write trade `tr` of coin `coin` into row i. */
function writeTrade(t: TradeTable, i: number, tr: Trade, coin: number): void {
  t.coin[i] = coin
  t.entryIdx[i] = tr.entryIdx
  t.exitIdx[i] = tr.exitIdx
  t.entryMs[i] = tr.entryTimeMs
  t.exitMs[i] = tr.exitTimeMs
  t.entryPrice[i] = tr.entryPrice
  t.exitPrice[i] = tr.exitPrice
  t.barsHeld[i] = tr.barsHeld
  t.exitReason[i] = EXIT_REASON_CODE.get(tr.exitReason)!
  t.pnlPct[i] = tr.pnlPct
  t.grossPct[i] = tr.grossPct
  t.feePct[i] = tr.feePct
  t.fundingPct[i] = tr.fundingPct
  t.slTpSameBar[i] = tr.slTpSameBar ? 1 : 0
  t.fundingEvents[i] = tr.fundingEvents
  t.fundingEventsReal[i] = tr.fundingEventsReal
  t.slippagePct[i] = tr.slippagePct ?? 0
  t.slipSpread[i] = tr.slipSpread ?? 0
  t.slipImpact[i] = tr.slipImpact ?? 0
  t.maeFrac[i] = tr.maeFrac ?? 0
  t.fillsUnestimated[i] = tr.fillsUnestimated ?? 0
  t.resolution[i] = tr.exitResolution === 'detail' ? (tr.exitChanged ? 3 : 1) : 0
}

/** Row i as a trade object. */
export function tradeAt(t: TradeTable, i: number): Trade {
  return {
    symbol: t.symbols[t.coin[i]],
    direction: t.direction,
    entryIdx: t.entryIdx[i],
    exitIdx: t.exitIdx[i],
    entryTimeMs: t.entryMs[i],
    exitTimeMs: t.exitMs[i],
    entryPrice: t.entryPrice[i],
    exitPrice: t.exitPrice[i],
    barsHeld: t.barsHeld[i],
    exitReason: EXIT_REASONS[t.exitReason[i]],
    pnlPct: t.pnlPct[i],
    grossPct: t.grossPct[i],
    feePct: t.feePct[i],
    fundingPct: t.fundingPct[i],
    slTpSameBar: t.slTpSameBar[i] === 1,
    fundingEvents: t.fundingEvents[i],
    fundingEventsReal: t.fundingEventsReal[i],
    slippagePct: t.slippagePct[i],
    slipSpread: t.slipSpread[i],
    slipImpact: t.slipImpact[i],
    maeFrac: t.maeFrac[i],
    fillsUnestimated: t.fillsUnestimated[i],
    ...(t.resolution[i] !== 0 ? { exitResolution: 'detail' as const, exitChanged: t.resolution[i] === 3 } : {}),
  }
}

export const TRADE_COLUMNS = [
  'coin',
  'entryIdx',
  'exitIdx',
  'entryMs',
  'exitMs',
  'entryPrice',
  'exitPrice',
  'barsHeld',
  'exitReason',
  'pnlPct',
  'grossPct',
  'feePct',
  'fundingPct',
  'slTpSameBar',
  'fundingEvents',
  'fundingEventsReal',
  'slippagePct',
  'slipSpread',
  'slipImpact',
  'maeFrac',
  'fillsUnestimated',
  'resolution',
] as const satisfies readonly (keyof TradeTable)[]

// one gather per element type: a single generic one is megamorphic and several times slower
function gatherF64(col: Float64Array, rows: Int32Array): Float64Array {
  const out = new Float64Array(rows.length)
  for (let k = 0; k < rows.length; k++) out[k] = col[rows[k]]
  return out
}
function gatherI32(col: Int32Array, rows: Int32Array): Int32Array {
  const out = new Int32Array(rows.length)
  for (let k = 0; k < rows.length; k++) out[k] = col[rows[k]]
  return out
}
function gatherU8(col: Uint8Array, rows: Int32Array): Uint8Array {
  const out = new Uint8Array(rows.length)
  for (let k = 0; k < rows.length; k++) out[k] = col[rows[k]]
  return out
}

function gatherMarks(m: DayMarks, rows: Int32Array): DayMarks {
  const start = new Int32Array(rows.length + 1)
  for (let k = 0; k < rows.length; k++) start[k + 1] = start[k] + m.start[rows[k] + 1] - m.start[rows[k]]
  const move = new Float64Array(start[rows.length])
  // a plain loop: a subarray per row (a trade has one or two marks) costs more than the copy
  for (let k = 0, o = 0; k < rows.length; k++) for (let j = m.start[rows[k]], end = m.start[rows[k] + 1]; j < end; j++) move[o++] = m.move[j]
  return { start, move }
}

/** The given rows of a table, in the given order (sized columns and marks follow when present). */
export function selectRows<T extends TradeTable>(t: T, rows: Int32Array): T {
  const out: TradeTable = {
    n: rows.length,
    direction: t.direction,
    symbols: t.symbols,
    coin: gatherI32(t.coin, rows),
    entryIdx: gatherI32(t.entryIdx, rows),
    exitIdx: gatherI32(t.exitIdx, rows),
    entryMs: gatherF64(t.entryMs, rows),
    exitMs: gatherF64(t.exitMs, rows),
    entryPrice: gatherF64(t.entryPrice, rows),
    exitPrice: gatherF64(t.exitPrice, rows),
    barsHeld: gatherI32(t.barsHeld, rows),
    exitReason: gatherU8(t.exitReason, rows),
    pnlPct: gatherF64(t.pnlPct, rows),
    grossPct: gatherF64(t.grossPct, rows),
    feePct: gatherF64(t.feePct, rows),
    fundingPct: gatherF64(t.fundingPct, rows),
    slTpSameBar: gatherU8(t.slTpSameBar, rows),
    fundingEvents: gatherI32(t.fundingEvents, rows),
    fundingEventsReal: gatherI32(t.fundingEventsReal, rows),
    slippagePct: gatherF64(t.slippagePct, rows),
    slipSpread: gatherF64(t.slipSpread, rows),
    slipImpact: gatherF64(t.slipImpact, rows),
    maeFrac: gatherF64(t.maeFrac, rows),
    fillsUnestimated: gatherU8(t.fillsUnestimated, rows),
    resolution: gatherU8(t.resolution, rows),
  }
  if (t.marks) out.marks = gatherMarks(t.marks, rows)
  const sized = t as unknown as Partial<SizedTradeTable>
  if (sized.marginUsd && sized.pnlUsd) {
    ;(out as SizedTradeTable).marginUsd = gatherF64(sized.marginUsd, rows)
    ;(out as SizedTradeTable).pnlUsd = gatherF64(sized.pnlUsd, rows)
  }
  return out as T
}

/**
 * Coin-grouped tables (each listing its coins' trades coin by coin, with `coin` indexing
 * its own `symbols`) merged into one table over `symbols`, in that coin order: the
 * universe order the portfolio breaks entry-time ties by, whatever the split over workers.
 */
export function mergeCoinTables(symbols: readonly string[], direction: Direction, parts: readonly TradeTable[], columns?: MergeColumns): TradeTable {
  const index = new Map(symbols.map((s, i) => [s, i]))
  // each coin's row range in its part
  const partOf = new Int32Array(symbols.length).fill(-1)
  const from = new Int32Array(symbols.length)
  const to = new Int32Array(symbols.length)
  let n = 0
  parts.forEach((p, k) => {
    n += p.n
    for (let i = 0; i < p.n; ) {
      const c = p.coin[i]
      let j = i + 1
      while (j < p.n && p.coin[j] === c) j++
      const u = index.get(p.symbols[c])
      if (u === undefined) throw new Error(`mergeCoinTables: ${p.symbols[c]} is not a coin of the run`)
      if (partOf[u] !== -1) throw new Error(`mergeCoinTables: the trades of ${p.symbols[c]} are not in one block`)
      partOf[u] = k
      from[u] = i
      to[u] = j
      i = j
    }
  })
  // each coin's block of rows copied to its place, coin blocks in universe order: column by
  // column, so that each column is written front to back (a scatter through a row map per
  // part wrote the same places in the parts' order, 6 ms of a new tree's 63,700 rows)
  const t = columns ? columns.lend(n, direction, symbols) : allocTradeTable(n, direction, symbols)
  for (let u = 0, at = 0; u < symbols.length; u++) {
    if (partOf[u] < 0) continue
    t.coin.fill(u, at, at + to[u] - from[u])
    at += to[u] - from[u]
  }
  const col = <K extends keyof TradeTable>(k: K): TradeTable[K][] => parts.map(p => p[k])
  blocksI32(col('entryIdx'), partOf, from, to, t.entryIdx)
  blocksI32(col('exitIdx'), partOf, from, to, t.exitIdx)
  blocksF64(col('entryMs'), partOf, from, to, t.entryMs)
  blocksF64(col('exitMs'), partOf, from, to, t.exitMs)
  blocksF64(col('entryPrice'), partOf, from, to, t.entryPrice)
  blocksF64(col('exitPrice'), partOf, from, to, t.exitPrice)
  blocksI32(col('barsHeld'), partOf, from, to, t.barsHeld)
  blocksU8(col('exitReason'), partOf, from, to, t.exitReason)
  blocksF64(col('pnlPct'), partOf, from, to, t.pnlPct)
  blocksF64(col('grossPct'), partOf, from, to, t.grossPct)
  blocksF64(col('feePct'), partOf, from, to, t.feePct)
  blocksF64(col('fundingPct'), partOf, from, to, t.fundingPct)
  blocksU8(col('slTpSameBar'), partOf, from, to, t.slTpSameBar)
  blocksI32(col('fundingEvents'), partOf, from, to, t.fundingEvents)
  blocksI32(col('fundingEventsReal'), partOf, from, to, t.fundingEventsReal)
  blocksF64(col('slippagePct'), partOf, from, to, t.slippagePct)
  blocksF64(col('slipSpread'), partOf, from, to, t.slipSpread)
  blocksF64(col('slipImpact'), partOf, from, to, t.slipImpact)
  blocksF64(col('maeFrac'), partOf, from, to, t.maeFrac)
  blocksU8(col('fillsUnestimated'), partOf, from, to, t.fillsUnestimated)
  blocksU8(col('resolution'), partOf, from, to, t.resolution)
  if (parts.length > 0 && parts.every(p => p.marks)) t.marks = mergeMarks(parts, partOf, from, to, n)
  return t
}

/**
 * The parts' marks in the merged table's row order (coin blocks in universe order): a coin's
 * rows are one range of its part, and so are their marks, copied whole.
 */
function mergeMarks(parts: readonly TradeTable[], partOf: Int32Array, from: Int32Array, to: Int32Array, n: number): DayMarks {
  const start = new Int32Array(n + 1)
  const blocks: { move: Float64Array; from: number; to: number; at: number }[] = []
  let row = 0
  let at = 0
  for (let u = 0; u < partOf.length; u++) {
    if (partOf[u] < 0) continue
    const pm = parts[partOf[u]].marks!
    const shift = at - pm.start[from[u]]
    for (let r = from[u]; r < to[u]; r++) start[row++] = pm.start[r] + shift
    blocks.push({ move: pm.move, from: pm.start[from[u]], to: pm.start[to[u]], at })
    at += pm.start[to[u]] - pm.start[from[u]]
  }
  start[n] = at
  const move = new Float64Array(at)
  for (const b of blocks) move.set(b.move.subarray(b.from, b.to), b.at)
  return { start, move }
}

/**
 * The columns of a run's merged table (mergeCoinTables), kept from one run for the next.
 * Every run merges its chunks' rows into a table of every candidate trade, tens of
 * megabytes for the heavier strategies, which it reads only until its portfolio's choice
 * is booked: allocated afresh, each run faulted those pages in again on the main thread
 * (docs/benchmarks.md, session 17). A table lent here is views over kept columns of at
 * least its rows (`onLoan` says so); the run gives it back once booked, and until then no
 * other run gets those columns. One set is kept, of at most `maxRows` rows: a larger table,
 * or one wanted while the set is lent, gets columns of its own.
 */
export class MergeColumns {
  private kept: TradeTable | null = null

  constructor(private readonly maxRows: number) {}

  /** A table of n rows, its columns lent (written whole by the caller before it is read). */
  lend(n: number, direction: Direction, symbols: readonly string[]): TradeTable {
    if (n > this.maxRows) return allocTradeTable(n, direction, symbols)
    const kept = this.kept
    // a quarter more than asked, up to the limit: the next run's table is seldom the same size
    const own = kept !== null && kept.coin.length >= n ? kept : allocTradeTable(Math.min(this.maxRows, Math.ceil(n * 1.25)), direction, symbols)
    this.kept = null
    const t = tableOver(n, direction, symbols, own)
    lent.set(t, { by: this, own })
    return t
  }

  /** `t`'s columns back, for the next run: nothing reads them through `t` any more. */
  giveBack(t: TradeTable): void {
    const loan = lent.get(t)
    if (loan === undefined || loan.by !== this) return
    lent.delete(t)
    if (this.kept === null || this.kept.coin.length < loan.own.coin.length) this.kept = loan.own
  }
}
/** the lent tables and the whole columns behind each (a table never given back is simply collected) */
const lent = new WeakMap<TradeTable, { by: MergeColumns; own: TradeTable }>()

/**
 * Whether `t`'s columns are lent for one run (MergeColumns): another run's merge writes them
 * once this one is done, so a reader keeps copies of what it keeps, never the columns.
 */
export function onLoan(t: TradeTable): boolean {
  return lent.has(t)
}

// one block copy per element type (monomorphic loops): coin u's rows from[u] … to[u] − 1 of part partOf[u], coins in order
function blocksF64(cols: Float64Array[], partOf: Int32Array, from: Int32Array, to: Int32Array, out: Float64Array): void {
  for (let u = 0, at = 0; u < partOf.length; u++) {
    if (partOf[u] < 0) continue
    const src = cols[partOf[u]]
    for (let r = from[u], end = to[u]; r < end; r++) out[at++] = src[r]
  }
}
function blocksI32(cols: Int32Array[], partOf: Int32Array, from: Int32Array, to: Int32Array, out: Int32Array): void {
  for (let u = 0, at = 0; u < partOf.length; u++) {
    if (partOf[u] < 0) continue
    const src = cols[partOf[u]]
    for (let r = from[u], end = to[u]; r < end; r++) out[at++] = src[r]
  }
}
function blocksU8(cols: Uint8Array[], partOf: Int32Array, from: Int32Array, to: Int32Array, out: Uint8Array): void {
  for (let u = 0, at = 0; u < partOf.length; u++) {
    if (partOf[u] < 0) continue
    const src = cols[partOf[u]]
    for (let r = from[u], end = to[u]; r < end; r++) out[at++] = src[r]
  }
}

/**
 * Trades' midnight marks (markMovesOf's `out`), trade by trade: a trade's marks are those
 * added since the previous `endTrade`. A worker marks each coin's trades right after
 * simulating them, while the coin's bars are still in the cache, and writes the rows once
 * it knows how many there are (TradeTableBuilder.finish(marks)); the builder keeps its
 * own rows' marks in one too.
 */
export class DayMarksBuilder {
  private moves: Float64Array
  private nMoves = 0
  private starts: Int32Array
  private nTrades = 0

  constructor(trades = 256, moves = 1024) {
    this.starts = new Int32Array(Math.max(1, trades) + 1)
    this.moves = new Float64Array(Math.max(1, moves))
  }

  /** marks added so far */
  get size(): number {
    return this.nMoves
  }

  addMark(move: number): void {
    if (this.nMoves === this.moves.length) {
      const grown = new Float64Array(this.moves.length * 2)
      grown.set(this.moves)
      this.moves = grown
    }
    this.moves[this.nMoves++] = move
  }

  /** The marks added since the previous call are the next trade's. */
  endTrade(): void {
    if (this.nTrades + 1 === this.starts.length) {
      const grown = new Int32Array(this.starts.length * 2)
      grown.set(this.starts)
      this.starts = grown
    }
    this.starts[++this.nTrades] = this.nMoves
  }

  /** The marks, each array its own buffer (the task's answer moves them to the other thread). */
  finish(): DayMarks {
    return { start: this.starts.slice(0, this.nTrades + 1), move: this.moves.slice(0, this.nMoves) }
  }

  /** Empty again, its arrays kept for the next marks. */
  clear(): void {
    this.nMoves = 0
    this.nTrades = 0
  }
}

/**
 * Rows appended one trade at a time (a worker's coins, coin by coin), each after its
 * marks (addMark); `finish` trims the columns to the rows written. A caller that knows
 * how many rows and marks it will write sizes the builder to them (`capacity`,
 * `markCapacity`): no column is then grown or cut, and `finish` hands over the columns
 * themselves (a guess too small still grows, one too large is cut).
 *
 * The columns grow by segments: when the rows fill them, the next rows go to new columns
 * as large as all before them, and the rows are gathered into one table only when it is
 * taken. A grown column copied into one twice its size (the builder before) copied every
 * row again at each doubling and faulted in twice the pages: a strategy that trades on
 * most bars (volume-profile, 547,217 trades over the 535-coin store) spent about 40 % of
 * its coin tasks there (docs/benchmarks.md, session 13).
 */
export class TradeTableBuilder {
  /** the columns in row order: segs[cur] takes the next rows, the ones before it are full */
  private segs: TradeTable[]
  private cur = 0
  /** rows in the full segments before segs[cur] */
  private before = 0
  private t: TradeTable
  private readonly marks: DayMarksBuilder
  private finished = false

  constructor(direction: Direction, symbols: readonly string[], capacity = 256, markCapacity = 1024) {
    this.t = allocTradeTable(Math.max(1, capacity), direction, symbols)
    this.t.n = 0
    this.segs = [this.t]
    this.marks = new DayMarksBuilder(this.t.coin.length, markCapacity)
  }

  /** One midnight mark of the trade pushed next (markMovesOf). */
  addMark(move: number): void {
    if (this.finished) throw new Error('TradeTableBuilder: a mark after finish')
    this.marks.addMark(move)
  }

  /** Append a trade of coin `coin`, owning the marks added since the previous push. */
  push(tr: Trade, coin: number): void {
    const i = this.append(coin)
    writeTrade(this.t, i, tr, coin)
  }

  /**
   * A new row of coin `coin`, owning the marks added since the previous one: its index in
   * `rows`, whose other columns the caller writes (trade-model.ts writeTradeRow).
   */
  append(coin: number): number {
    let t = this.t
    if (this.finished) throw new Error('TradeTableBuilder: a row after finish')
    if (t.n === t.coin.length) t = this.nextSegment()
    const i = t.n++
    t.coin[i] = coin
    this.marks.endTrade()
    return i
  }

  /**
   * The columns the row `append` just made is in, at the index it returned (read after each
   * `append`: a full segment hands over to the next). Not the whole table: see `size`.
   */
  get rows(): TradeTable {
    return this.t
  }

  /** Rows appended so far. */
  get size(): number {
    return this.before + this.t.n
  }

  /** Rows the columns hold before they grow. */
  get capacity(): number {
    let rows = 0
    for (const s of this.segs) rows += s.coin.length
    return rows
  }

  private nextSegment(): TradeTable {
    const full = this.t
    this.before += full.n
    this.cur++
    // a new segment as large as all before it (a kept builder reuses the ones it has)
    if (this.cur === this.segs.length) this.segs.push(allocTradeTable(this.capacity, full.direction, full.symbols))
    const t = this.segs[this.cur]
    t.n = 0
    t.direction = full.direction
    t.symbols = full.symbols
    return (this.t = t)
  }

  /** The rows of every segment in new columns of their own, `n` long. */
  private gathered(): TradeTable {
    const n = this.size
    const t = allocTradeTable(n, this.t.direction, this.t.symbols)
    for (const k of TRADE_COLUMNS) {
      const into = t[k] as Float64Array
      for (let s = 0, at = 0; s <= this.cur; at += this.segs[s].n, s++) into.set((this.segs[s][k] as Float64Array).subarray(0, this.segs[s].n), at)
    }
    return t
  }

  /**
   * The table of the rows pushed. `marks`: the rows' marks made apart (DayMarksBuilder, one
   * trade per row in the same order), instead of those added here.
   */
  finish(marks?: DayMarks): TradeTable {
    const src = this.t
    const n = this.size
    let t: TradeTable
    if (this.cur > 0) t = this.gathered()
    else {
      // each column cut to its rows in a copy of its own (a memcpy, not a gather): the table is
      // the task's answer, handed to the other thread with its buffers (compute/tasks.ts); a
      // full column is its own buffer already (allocTradeTable) and goes as it is
      t = { ...src }
      if (n !== src.coin.length) for (const k of TRADE_COLUMNS) (t as unknown as Record<string, Float64Array>)[k] = (src[k] as Float64Array).slice(0, n)
    }
    if (marks !== undefined) {
      if (marks.start.length !== n + 1 || this.marks.size !== 0) throw new Error('TradeTableBuilder: the marks are not those of the rows')
      t.marks = marks
    } else t.marks = this.marks.finish()
    // the columns are given away (moved to the other thread): the builder must not write them again
    this.finished = true
    return t
  }

  /**
   * The rows written so far, with their marks, as a table of their own: every column and
   * the marks copied to buffers of their own (the task's answer moves them), the builder's
   * kept for more rows (`restart`). A worker keeps one such builder between its coin tasks:
   * rows are written into columns already in memory, and only the answer's copies are new
   * pages (fresh columns per task, written row by row, fault a page in every 512 rows of
   * each of 22 columns; growing them faults in more).
   */
  takeRows(): TradeTable {
    if (this.finished) throw new Error('TradeTableBuilder: rows taken after finish')
    let t: TradeTable
    if (this.cur > 0) t = this.gathered()
    else {
      const src = this.t
      t = { ...src }
      for (const k of TRADE_COLUMNS) (t as unknown as Record<string, Float64Array>)[k] = (src[k] as Float64Array).slice(0, src.n)
    }
    t.marks = this.marks.finish()
    return t
  }

  /**
   * Empty again for the rows of another table (`direction`, `symbols`), with columns for
   * up to `keepRows` rows kept (the first segments'; at least the first's). Kept segments
   * become one: the next rows go to one set of columns, taken with one copy a column.
   */
  restart(direction: Direction, symbols: readonly string[], keepRows = Infinity): void {
    if (this.finished) throw new Error('TradeTableBuilder: a restart after finish')
    let rows = this.segs[0].coin.length
    let keep = 1
    while (keep < this.segs.length && rows + this.segs[keep].coin.length <= keepRows) rows += this.segs[keep++].coin.length
    this.segs = keep === 1 ? [this.segs[0]] : [allocTradeTable(rows, direction, symbols)]
    this.cur = 0
    this.before = 0
    this.t = this.segs[0]
    this.t.n = 0
    this.t.direction = direction
    this.t.symbols = symbols
    this.marks.clear()
  }
}

/** Rows whose entry instant satisfies `keep`, in table order. */
export function rowsWhereEntry(t: TradeTable, keep: (entryMs: number) => boolean): Int32Array {
  const rows = new Int32Array(t.n)
  let k = 0
  for (let i = 0; i < t.n; i++) if (keep(t.entryMs[i])) rows[k++] = i
  return rows.subarray(0, k)
}
