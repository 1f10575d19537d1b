/**
 * The candle store: 1H candles, funding events and coin metadata for every symbol.
 *
 * On disk (under `<DATA_DIR>/store/`):
 *   meta.json                      coin metadata + which sources wrote the store
 *   candles/<SYMBOL>/<t0>.seg      columnar segments t,o,h,l,c,v (Float64)
 *   funding/<SYMBOL>/<t0>.seg      columnar segments t,rate
 *   market-caps/<SYMBOL>/<t0>.seg  columnar segments day,market cap (rank history; optional)
 *   premium_index/<SYMBOL>/<t0>.seg, open_interest/<SYMBOL>/<t0>.seg
 *                                  columnar segments t,value (types.ts SampleSeries: t is
 *                                  when the value is known)
 *   mark/<SYMBOL>/<t0>.seg         columnar segments t,o,h,l,c of the 1H mark-price candles
 * Appends add a new immutable segment (atomic temp + rename); nothing already written
 * is rewritten. When a symbol gathers many segments they are merged into one new file
 * that replaces the first by rename; the loader drops rows at or before the last time
 * it has kept, so a crash between that rename and the removal of the merged segments
 * loses and duplicates nothing.
 *
 * In memory every symbol's columns live in one SharedArrayBuffer with headroom, so
 * workers read the same memory and hourly appends usually need no reallocation.
 *
 * Beside the stored candles the store remembers, in memory only, the open of each
 * symbol's forming candle (types.ts FormingOpen): whoever appends candles (demo mode, the
 * exchange sync) sets it, and it lapses by itself once a newer candle is appended. It is
 * not written to disk: it is market state of the current hour, and the next demo tick or
 * sync after a restart brings it again.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { DetailStore, type DetailCoverage } from './detail-store'
import { BracketBook, type BracketInfo, type BracketSnapshot } from './bracket-book'
import { ensureDir, listSegments, readSegment, segmentName, writeFileAtomic, writeSegment } from './segment-file'
import { SAMPLE_KINDS, type Bars, type CoinMeta, type FormingOpen, type FundingSeries, type MarginBracket, type MarketCapSeries, type MarkSeries, type SampleKind, type SampleSeries } from './types'
import { HOUR_MS } from '../time'
import { upperBound } from '../sorted-search'
import { SymbolDigests } from './symbol-digest'

export type StoreSource = 'synthetic' | 'binance-csv' | 'ccxt'

/** the seed demo mode assumes for a synthetic store that did not record one (generate-store.ts SYNTHETIC_DEFAULTS) */
const DEFAULT_SYNTHETIC_SEED = 7

/** Where a thread finds minute detail (compute/intrabar-detail.ts). */
export interface DetailInfo {
  /** a synthetic store: minutes derived from its hours with this seed; null otherwise */
  syntheticSeed: number | null
  /** the folder of the stored 1m segments */
  storedDir: string
  /** the symbols with stored minutes */
  stored: string[]
}

interface MetaFile {
  version: 1
  sources: StoreSource[]
  coins: CoinMeta[]
  /** the seed a synthetic store was generated with (demo mode continues it) */
  syntheticSeed?: number
}

const CANDLE_COLS = 6
const FUNDING_COLS = 2
const CAP_COLS = 2
const SAMPLE_COLS = 2
const MARK_COLS = 5
/** merge a symbol's segments once it has more than this many */
const COMPACT_AFTER = 48
/** room for a month of hourly appends before a buffer is reallocated */
const HEADROOM_ROWS = 24 * 31

interface Columns {
  sab: SharedArrayBuffer
  cap: number
  n: number
  cols: Float64Array[]
}

export interface AppendResult {
  appended: number
  /** rows dropped because their time was at or before the stored last time */
  skipped: number
}

export class StoreError extends Error {}

/**
 * One symbol's rows up to a time, as a queued task names what it reads (queue-wire.ts):
 * the last candle, funding and sample times it reads (-1: none; samples in SAMPLE_KINDS
 * order) and the digest of those rows.
 */
export interface SymbolRows {
  lastBarMs: number
  lastFundingMs: number
  lastSampleMs: number[]
  digest: string
}

/** SymbolRows of a store that may hold more: its row counts up to those times, and in all (candles, funding, then each kind of samples). */
export interface SymbolRowsWithin extends SymbolRows {
  rows: number[]
  totals: number[]
}

export interface AppendOptions {
  /** false: skip the fsyncs (still atomic for a crashing process); for regenerable data */
  durable?: boolean
}

export class CandleStore {
  private readonly candleDir: string
  private readonly fundingDir: string
  private readonly capsDir: string
  private readonly metaPath: string
  private readonly candles = new Map<string, Columns>()
  private readonly fundingCols = new Map<string, Columns>()
  private readonly capCols = new Map<string, Columns>()
  private readonly sampleCols = new Map<SampleKind, Map<string, Columns>>(SAMPLE_KINDS.map(k => [k, new Map()]))
  private readonly markCols = new Map<string, Columns>()
  private readonly barViews = new Map<string, Bars>()
  private readonly forming = new Map<string, FormingOpen>()
  private metaBySymbol = new Map<string, CoinMeta>()
  private sourceSet = new Set<StoreSource>()
  private seed: number | undefined
  private changeListeners: (() => void)[] = []
  private versionCounter = 0
  private versionHash: string | null = null
  private readonly digests = new SymbolDigests()
  /** the optional 1m detail (detail-store.ts): read lazily, never loaded whole */
  readonly detail: DetailStore
  private detailSymbols: Set<string> | null = null
  /** margin brackets by symbol (issue 25 §3), beside the candles under brackets/ */
  private bracketBook!: BracketBook

  private constructor(readonly root: string) {
    this.detail = new DetailStore(root)
    this.candleDir = join(root, 'candles')
    this.fundingDir = join(root, 'funding')
    this.capsDir = join(root, 'market-caps')
    this.metaPath = join(root, 'meta.json')
  }

  /** Open (and load) the store under `<dataDir>/store`, creating it when absent. */
  static open(dataDir: string): CandleStore {
    const store = new CandleStore(join(dataDir, 'store'))
    ensureDir(store.candleDir)
    ensureDir(store.fundingDir)
    ensureDir(join(store.root, 'mark'))
    for (const kind of SAMPLE_KINDS) ensureDir(join(store.root, kind))
    store.load()
    store.bracketBook = BracketBook.open(join(store.root, 'brackets'))
    return store
  }

  private load(): void {
    if (existsSync(this.metaPath)) {
      const meta = JSON.parse(readFileSync(this.metaPath, 'utf8')) as MetaFile
      this.sourceSet = new Set(meta.sources)
      this.seed = meta.syntheticSeed
      this.metaBySymbol = new Map(meta.coins.map(c => [c.symbol, c]))
    }
    for (const [dir, target, ncols] of [
      [this.candleDir, this.candles, CANDLE_COLS],
      [this.fundingDir, this.fundingCols, FUNDING_COLS],
      [join(this.root, 'mark'), this.markCols, MARK_COLS],
      [this.capsDir, this.capCols, CAP_COLS],
      ...SAMPLE_KINDS.map(k => [join(this.root, k), this.sampleCols.get(k)!, SAMPLE_COLS] as const),
    ] as const) {
      for (const symbol of safeReaddir(dir)) {
        const cols = loadSymbol(join(dir, symbol), ncols)
        if (cols) target.set(symbol, cols)
      }
    }
  }

  // ---------- reading ----------

  /** Symbols with candles, sorted by name (use universe.ts for market-cap order). */
  symbols(): string[] {
    return [...this.candles.keys()].sort()
  }

  get coinCount(): number {
    return this.candles.size
  }

  meta(symbol: string): CoinMeta | undefined {
    return this.metaBySymbol.get(symbol)
  }

  /** metadata of every symbol that has candles (a default record where none was written) */
  allMeta(): CoinMeta[] {
    return this.symbols().map(s => this.metaBySymbol.get(s) ?? defaultMeta(s, this.candles.get(s)!))
  }

  sources(): StoreSource[] {
    return [...this.sourceSet]
  }

  /** the store holds only generated data (demo mode may append to it) */
  isSynthetic(): boolean {
    return this.sourceSet.size === 1 && this.sourceSet.has('synthetic')
  }

  bars(symbol: string): Bars | undefined {
    const c = this.candles.get(symbol)
    if (!c) return undefined
    // views are made once per state of the columns: hot loops ask for them per trade
    let view = this.barViews.get(symbol)
    if (view?.n !== c.n || view.t.buffer !== c.sab) {
      const n = c.n
      const [t, o, h, l, cl, v] = c.cols.map(col => col.subarray(0, n))
      view = { t, o, h, l, c: cl, v, n, stepMs: HOUR_MS }
      this.barViews.set(symbol, view)
    }
    return view
  }

  funding(symbol: string): FundingSeries | undefined {
    const c = this.fundingCols.get(symbol)
    if (!c) return undefined
    return { t: c.cols[0].subarray(0, c.n), rate: c.cols[1].subarray(0, c.n), n: c.n }
  }

  /** Daily market caps of a symbol (rank history), if any were imported. */
  marketCaps(symbol: string): MarketCapSeries | undefined {
    const c = this.capCols.get(symbol)
    if (!c) return undefined
    return { t: c.cols[0].subarray(0, c.n), cap: c.cols[1].subarray(0, c.n), n: c.n }
  }

  /** Symbols with market-cap history, sorted. */
  marketCapSymbols(): string[] {
    return [...this.capCols.keys()].sort()
  }

  /** A coin's derivatives samples of one kind (premium index, open interest), when the store has them. */
  samples(kind: SampleKind, symbol: string): SampleSeries | undefined {
    const c = this.sampleCols.get(kind)!.get(symbol)
    if (!c) return undefined
    return { t: c.cols[0].subarray(0, c.n), value: c.cols[1].subarray(0, c.n), n: c.n }
  }

  /** A coin's 1H mark-price candles, when the store has them (liquidation is tested on them: docs/metrics.md §1). */
  mark(symbol: string): MarkSeries | undefined {
    const m = this.markCols.get(symbol)
    if (!m || m.n === 0) return undefined
    const [t, o, h, l, c] = m.cols.map(col => col.subarray(0, m.n))
    return { t, o, h, l, c, n: m.n }
  }

  /** Symbols with mark-price candles, sorted. */
  markSymbols(): string[] {
    return [...this.markCols.keys()].filter(s => this.markCols.get(s)!.n > 0).sort()
  }

  /** Symbols with samples of a kind, sorted. */
  sampleSymbols(kind: SampleKind): string[] {
    return [...this.sampleCols.get(kind)!.keys()].sort()
  }

  lastCandleMs(symbol: string): number | null {
    const c = this.candles.get(symbol)
    return c && c.n > 0 ? c.cols[0][c.n - 1] : null
  }

  /** The open time of the newest candle of any coin (null: no candle at all): how far the store reaches. */
  newestCandleMs(): number | null {
    // every run asks (its default universe depends on it): worked out once per version of the store
    if (this.newestAt?.version === this.versionCounter) return this.newestAt.ms
    let last = -Infinity
    for (const c of this.candles.values()) if (c.n > 0 && c.cols[0][c.n - 1] > last) last = c.cols[0][c.n - 1]
    const ms = Number.isFinite(last) ? last : null
    this.newestAt = { version: this.versionCounter, ms }
    return ms
  }
  private newestAt: { version: number; ms: number | null } | null = null

  /**
   * The open of the symbol's forming candle, when it is known and still forming on the
   * store's terms: it opens right after the last stored candle.
   */
  formingOpen(symbol: string): FormingOpen | undefined {
    const f = this.forming.get(symbol)
    const last = this.lastCandleMs(symbol)
    return f && last !== null && f.t === last + HOUR_MS ? f : undefined
  }

  /**
   * Remember the open of the candle forming after the symbol's last stored candle. A
   * price that is not positive, or a time that is not the next hour, is refused: it could
   * only be a misread, and a signal would take it for its entry price.
   */
  setFormingOpen(symbol: string, tMs: number, open: number): void {
    const last = this.lastCandleMs(symbol)
    if (last === null || tMs !== last + HOUR_MS) throw new StoreError(`${symbol}: a forming candle at ${tMs} does not follow the last stored candle (${last})`)
    if (!(open > 0) || !Number.isFinite(open)) throw new StoreError(`${symbol}: a forming candle's open must be a positive price, got ${open}`)
    this.forming.set(symbol, { t: tMs, o: open })
  }

  /** The symbols with stored 1m detail. */
  storedDetailSymbols(): Set<string> {
    return (this.detailSymbols ??= new Set(this.detail.symbols()))
  }

  /**
   * Where a symbol's minutes come from: `stored` 1m candles, `derived` from the synthetic
   * market's hours (a synthetic store: docs/data.md "Minutes inside a synthetic hour"), or
   * none.
   */
  detailSource(symbol: string): 'stored' | 'derived' | null {
    if (this.storedDetailSymbols().has(symbol)) return 'stored'
    return this.isSynthetic() && this.candles.has(symbol) ? 'derived' : null
  }

  /** What a task needs to open any coin's minutes on its own thread. */
  detailInfo(): DetailInfo {
    return { syntheticSeed: this.isSynthetic() ? (this.seed ?? DEFAULT_SYNTHETIC_SEED) : null, storedDir: this.detail.dir, stored: [...this.storedDetailSymbols()].sort() }
  }

  detailCoverage(symbol: string): DetailCoverage | null {
    return this.detail.coverage(symbol)
  }

  /** Append 1m detail (columns t,o,h,l,c,v): detail-store.ts; rows at or before the last stored minute are skipped. */
  appendDetail(symbol: string, cols: ArrayLike<number>[], n: number, opts: AppendOptions = {}): AppendResult {
    const res = this.detail.append(symbol, cols, n, opts.durable ?? true)
    if (res.appended > 0) {
      this.detailSymbols = null
      this.changed()
    }
    return res
  }

  /** Increases on every change; cheap to compare. */
  get version(): number {
    return this.versionCounter
  }

  /** A digest of what the store holds (symbols, row counts, last times): part of result hashes. */
  dataVersion(): string {
    if (this.versionHash) return this.versionHash
    const h = createHash('sha256')
    for (const s of this.symbols()) {
      const c = this.candles.get(s)!
      const f = this.fundingCols.get(s)
      h.update(`${s}:${c.n}:${c.n ? c.cols[0][c.n - 1] : 0}:${c.n ? c.cols[4][c.n - 1] : 0}:${f?.n ?? 0};`)
    }
    // the rank history and the delistings decide point-in-time universes; a store without
    // them keeps the digest it had before they existed
    for (const s of this.marketCapSymbols()) {
      const c = this.capCols.get(s)!
      h.update(`caps:${s}:${c.n}:${c.n ? c.cols[0][c.n - 1] : 0}:${c.n ? c.cols[1][c.n - 1] : 0};`)
    }
    for (const m of [...this.metaBySymbol.values()].sort((a, b) => (a.symbol < b.symbol ? -1 : 1)))
      if (m.status === 'delisted') h.update(`delisted:${m.symbol}:${m.delistedMs ?? ''};`)
    // stored minutes change results: a store without them keeps the digest it always had
    for (const s of [...this.storedDetailSymbols()].sort()) h.update(`detail:${s}:${this.detail.lastMinuteMs(s)};`)
    // a store without brackets keeps the digest it had before they existed
    const bv = this.bracketBook?.version()
    if (bv) h.update(`brackets:${bv}`)
    // mark-price candles too: a store without them keeps its version
    for (const s of this.markSymbols()) {
      const m = this.markCols.get(s)!
      h.update(`mark:${s}:${m.n}:${m.cols[0][m.n - 1]}:${m.cols[4][m.n - 1]};`)
    }
    // derivatives samples enter the digest only where there are some, so a store without them keeps its version
    for (const kind of SAMPLE_KINDS)
      for (const [s, c] of [...this.sampleCols.get(kind)!].sort((a, b) => (a[0] < b[0] ? -1 : 1)))
        if (c.n > 0) h.update(`${kind}:${s}:${c.n}:${c.cols[0][c.n - 1]}:${c.cols[1][c.n - 1]};`)
    this.versionHash = h.digest('hex').slice(0, 16)
    return this.versionHash
  }

  /**
   * What else a task reads of a coin beside its rows, as text: its stored minute detail's
   * last minute (none: derived from the candles, with the synthetic seed), its margin
   * brackets, and its mark-price candles' count and last row up to `lastBarMs`. A store whose detail reaches further is taken as another store (conservative:
   * the API and the workers sync their detail alike).
   */
  private coinExtras(symbol: string, lastBarMs: number): string {
    const source = this.detailSource(symbol)
    const detail = source === 'stored' ? `stored:${this.detail.lastMinuteMs(symbol)}` : source === 'derived' ? `derived:${this.seed ?? DEFAULT_SYNTHETIC_SEED}` : 'none'
    // mark-price candles (liquidation reads them) only where there are some: a coin without them keeps its digest
    // (up to the task's last bar: the mark candles after it are never read, so a store whose mark reaches further is the same coin)
    const m = this.markCols.get(symbol)
    const mn = m ? upperBound(m.cols[0], lastBarMs, m.n) : 0
    const mark = mn > 0 ? `|mark:${mn}:${m!.cols[0][mn - 1]}:${m!.cols[3][mn - 1]}` : ''
    return `${detail}|${JSON.stringify(this.marginBrackets(symbol) ?? null)}${mark}`
  }

  /** The symbol's stored rows in all (null: no candles): what a task reading it carries (symbol-digest.ts). */
  symbolRows(symbol: string): SymbolRows | null {
    const within = this.symbolRowsWithin(symbol, Infinity, Infinity, SAMPLE_KINDS.map(() => Infinity))
    return within && { lastBarMs: within.lastBarMs, lastFundingMs: within.lastFundingMs, lastSampleMs: within.lastSampleMs, digest: within.digest }
  }

  /**
   * The symbol's rows up to `lastBarMs`, `lastFundingMs` and each kind's `lastSampleMs`
   * (null: no candles): their digest, to compare with the one a task carries, and how many
   * rows that is of how many, so a worker whose store reaches further shows the task only those.
   */
  symbolRowsWithin(symbol: string, lastBarMs: number, lastFundingMs: number, lastSampleMs: readonly number[]): SymbolRowsWithin | null {
    const c = this.candles.get(symbol)
    if (!c || c.n === 0) return null
    const series = [c, this.fundingCols.get(symbol), ...SAMPLE_KINDS.map(k => this.sampleCols.get(k)!.get(symbol))]
    const upTo = [lastBarMs, lastFundingMs, ...SAMPLE_KINDS.map((_, i) => lastSampleMs[i] ?? -1)]
    const rows = series.map((s, i) => (s ? upperBound(s.cols[0], upTo[i], s.n) : 0))
    const lastOf = (i: number) => (rows[i] ? series[i]!.cols[0][rows[i] - 1] : -1)
    return {
      lastBarMs: lastOf(0),
      lastFundingMs: lastOf(1),
      lastSampleMs: SAMPLE_KINDS.map((_, k) => lastOf(2 + k)),
      digest: this.digests.digest(symbol, series.map((s, i) => [s, rows[i]] as const), this.coinExtras(symbol, lastOf(0))),
      rows,
      totals: series.map(s => s?.n ?? 0),
    }
  }

  /** A symbol's margin brackets, when the store has them (bracket-book.ts). */
  brackets(symbol: string): BracketInfo | undefined {
    return this.bracketBook?.get(symbol)
  }

  /** A symbol's bracket list (the StoreView the trade tasks read). */
  marginBrackets(symbol: string): readonly MarginBracket[] | undefined {
    return this.bracketBook?.get(symbol)?.brackets
  }

  /** Symbols with brackets. */
  bracketSymbols(): string[] {
    return this.bracketBook?.symbols() ?? []
  }

  /** Record a snapshot of brackets (a new file; nothing earlier is rewritten). */
  addBrackets(snapshot: Omit<BracketSnapshot, 'version'>): string {
    const name = this.bracketBook.add(snapshot)
    this.changed()
    return name
  }

  onChange(listener: () => void): void {
    this.changeListeners.push(listener)
  }

  // ---------- writing ----------

  /**
   * Append candles (columns t,o,h,l,c,v; t = open time in ms, strictly increasing).
   * Rows at or before the stored last time are skipped, so re-importing overlapping
   * files is harmless. Persists before memory changes.
   */
  appendCandles(symbol: string, cols: ArrayLike<number>[], n: number, opts: AppendOptions = {}): AppendResult {
    checkSymbol(symbol)
    if (cols.length !== CANDLE_COLS) throw new StoreError('appendCandles takes 6 columns: t,o,h,l,c,v')
    return this.append(this.candleDir, this.candles, symbol, cols, n, opts)
  }

  /** Append funding events (columns t, rate). */
  appendFunding(symbol: string, t: ArrayLike<number>, rate: ArrayLike<number>, n: number, opts: AppendOptions = {}): AppendResult {
    checkSymbol(symbol)
    return this.append(this.fundingDir, this.fundingCols, symbol, [t, rate], n, opts)
  }

  /** Append daily market caps (columns day ms, USD); rows at or before the stored last day are skipped. */
  appendMarketCaps(symbol: string, t: ArrayLike<number>, cap: ArrayLike<number>, n: number, opts: AppendOptions = {}): AppendResult {
    checkSymbol(symbol)
    return this.append(this.capsDir, this.capCols, symbol, [t, cap], n, opts)
  }

  /**
   * Mark a symbol delisted: its market closed, its candles end at the stored last one,
   * which becomes its `date_to`. Refused for a symbol without candles.
   */
  markDelisted(symbol: string): void {
    const last = this.lastCandleMs(symbol)
    if (last === null) throw new StoreError(`${symbol}: no candles to end`)
    const meta = this.metaBySymbol.get(symbol) ?? defaultMeta(symbol, this.candles.get(symbol)!)
    this.upsertMeta([{ ...meta, status: 'delisted', delistedMs: last }])
  }

  /** Append derivatives samples of one kind (columns t = when known, value); the same rules as candles. */
  appendSamples(kind: SampleKind, symbol: string, t: ArrayLike<number>, value: ArrayLike<number>, n: number, opts: AppendOptions = {}): AppendResult {
    checkSymbol(symbol)
    for (let i = 0; i < n; i++) if (!Number.isFinite(value[i])) throw new StoreError(`${symbol} ${kind}: row ${i} has no valid value`)
    return this.append(join(this.root, kind), this.sampleCols.get(kind)!, symbol, [t, value], n, opts)
  }

  /** Append 1H mark-price candles (columns t,o,h,l,c); the same rules as candles. */
  appendMark(symbol: string, cols: ArrayLike<number>[], n: number, opts: AppendOptions = {}): AppendResult {
    checkSymbol(symbol)
    if (cols.length !== MARK_COLS) throw new StoreError('appendMark takes 5 columns: t,o,h,l,c')
    for (let i = 0; i < n; i++) {
      const o = cols[1][i], h = cols[2][i], l = cols[3][i], c = cols[4][i]
      if (!(l > 0) || !(h >= l) || !(o >= l && o <= h) || !(c >= l && c <= h)) throw new StoreError(`${symbol} mark: row ${i} is not a valid candle (o ${o}, h ${h}, l ${l}, c ${c})`)
    }
    return this.append(join(this.root, 'mark'), this.markCols, symbol, cols, n, opts)
  }

  /** Insert or update coin metadata (merged by symbol) and record the sources written. */
  upsertMeta(coins: CoinMeta[], source?: StoreSource): void {
    const next = new Map(this.metaBySymbol)
    for (const c of coins) next.set(c.symbol, { ...next.get(c.symbol), ...c })
    const sources = new Set(this.sourceSet)
    if (source) sources.add(source)
    this.writeMeta(next, sources)
  }

  /** The seed of a synthetic store, if it recorded one. */
  syntheticSeed(): number | undefined {
    return this.seed
  }

  setSyntheticSeed(seed: number): void {
    this.seed = seed
    this.writeMeta(this.metaBySymbol, this.sourceSet)
  }

  /** Record that a source wrote data (without metadata changes). */
  addSource(source: StoreSource): void {
    if (this.sourceSet.has(source)) return
    this.writeMeta(this.metaBySymbol, new Set([...this.sourceSet, source]))
  }

  private writeMeta(coins: Map<string, CoinMeta>, sources: Set<StoreSource>): void {
    const file: MetaFile = {
      version: 1,
      sources: [...sources],
      coins: [...coins.values()].sort((a, b) => a.symbol.localeCompare(b.symbol)),
      ...(this.seed !== undefined ? { syntheticSeed: this.seed } : {}),
    }
    writeFileAtomic(this.metaPath, JSON.stringify(file))
    this.metaBySymbol = coins
    this.sourceSet = sources
    this.changed()
  }

  private append(
    root: string,
    target: Map<string, Columns>,
    symbol: string,
    cols: ArrayLike<number>[],
    n: number,
    opts: AppendOptions,
  ): AppendResult {
    const cur = target.get(symbol)
    const lastT = cur && cur.n > 0 ? cur.cols[0][cur.n - 1] : -Infinity
    const t = cols[0]
    let start = 0
    while (start < n && t[start] <= lastT) start++
    for (let i = start; i < n; i++) {
      if (!Number.isFinite(t[i])) throw new StoreError(`${symbol}: row ${i} has no valid time`)
      if (i > start && t[i] <= t[i - 1])
        throw new StoreError(`${symbol}: times must increase (row ${i}: ${t[i]} after ${t[i - 1]})`)
    }
    const rows = n - start
    if (rows === 0) return { appended: 0, skipped: n }
    const slice = cols.map(c => sliceOf(c, start, n))
    const dir = join(root, symbol)
    ensureDir(dir)
    writeSegment(join(dir, segmentName(t[start])), slice, rows, opts.durable ?? true)
    target.set(symbol, appendInMemory(cur, slice, rows))
    if (listSegments(dir).length > COMPACT_AFTER) compactSymbol(dir, target.get(symbol)!)
    this.changed()
    return { appended: rows, skipped: start }
  }

  private changed(): void {
    this.versionCounter++
    this.versionHash = null
    for (const l of this.changeListeners) l()
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

function checkSymbol(symbol: string): void {
  if (!/^[A-Z0-9]{1,24}USDT$/.test(symbol)) throw new StoreError(`invalid symbol ${JSON.stringify(symbol)}: expected <BASE>USDT`)
}

function sliceOf(col: ArrayLike<number>, from: number, to: number): Float64Array {
  if (col instanceof Float64Array) return col.slice(from, to)
  const out = new Float64Array(to - from)
  for (let i = from; i < to; i++) out[i - from] = col[i]
  return out
}

function allocColumns(ncols: number, cap: number): Columns {
  const sab = new SharedArrayBuffer(ncols * cap * 8)
  const cols: Float64Array[] = []
  for (let k = 0; k < ncols; k++) cols.push(new Float64Array(sab, k * cap * 8, cap))
  return { sab, cap, n: 0, cols }
}

function appendInMemory(cur: Columns | undefined, add: Float64Array[], rows: number): Columns {
  const ncols = add.length
  let target = cur
  if (!target || target.n + rows > target.cap) {
    const next = allocColumns(ncols, (cur?.n ?? 0) + rows + HEADROOM_ROWS)
    if (cur) for (let k = 0; k < ncols; k++) next.cols[k].set(cur.cols[k].subarray(0, cur.n))
    next.n = cur?.n ?? 0
    target = next
  }
  for (let k = 0; k < ncols; k++) target.cols[k].set(add[k], target.n)
  // a new object, so Bars views handed out earlier keep their old length
  return { ...target, n: target.n + rows }
}

/** Read every segment of one symbol in time order, dropping overlapping rows. */
function loadSymbol(dir: string, ncols: number): Columns | null {
  const names = listSegments(dir)
  if (names.length === 0) return null
  const parts = names.map(n => readSegment(join(dir, n)))
  const total = parts.reduce((s, p) => s + (p[0]?.length ?? 0), 0)
  const out = allocColumns(ncols, total + HEADROOM_ROWS)
  let n = 0
  let lastT = -Infinity
  for (const p of parts) {
    if (p.length !== ncols) throw new StoreError(`${dir}: segment with ${p.length} columns, expected ${ncols}`)
    const t = p[0]
    let i = 0
    while (i < t.length && t[i] <= lastT) i++
    if (i >= t.length) continue
    for (let k = 0; k < ncols; k++) out.cols[k].set(p[k].subarray(i), n)
    n += t.length - i
    lastT = t[t.length - 1]
  }
  out.n = n
  return out
}

/** Merge all segments of a symbol into one file that replaces the first segment. */
function compactSymbol(dir: string, cols: Columns): void {
  const names = listSegments(dir)
  const merged = cols.cols.map(c => c.subarray(0, cols.n))
  writeSegment(join(dir, names[0]), merged, cols.n)
  for (const name of names.slice(1)) unlinkSync(join(dir, name))
}

function defaultMeta(symbol: string, cols: Columns): CoinMeta {
  return {
    symbol,
    name: symbol.replace(/USDT$/, ''),
    rank: null,
    stablecoin: false,
    assetClass: 'crypto',
    listingMs: cols.n > 0 ? cols.cols[0][0] : null,
  }
}
