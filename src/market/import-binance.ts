/**
 * `data import`: Binance kline / funding CSVs and the universe CSV into the candle store.
 *
 * Every file is parsed and validated whole before anything is written, so a bad row
 * stops that file with its line and reason and leaves nothing of it behind. The good
 * files of one symbol are then sorted by their first time and written with one append
 * per symbol and kind (rows at or before what the store holds are skipped, which makes
 * re-imports harmless). When one file of a symbol fails, its later files are held
 * back too: appending them would leave a gap that the store, which only appends, could
 * never fill once the bad file is fixed.
 */
import type { CandleStore } from './candle-store'
import { detectLayout, kindOf, parseFunding, parseKlines, parseOpenInterest, parsePremiumIndex, RowError, toMs, type ImportKind, type LayoutGuess } from './import-csv'
import { FileError, intervalFromFileName, listImportFiles, readCsvSources, symbolFromFileName, type CsvSource } from './import-files'
import { CsvLines } from './import-lines'
import { importTiersFile } from './import-tiers'
import { metaForCandles, metaFromUniverseRow, parseUniverse, type UniverseRow } from './import-universe'
import type { CoinMeta } from './types'
import { upperBound } from '../sorted-search'
import { HOUR_MS } from '../time'

export interface ImportFileError {
  /** 1-based line in the file (header included), null when the problem is the whole file */
  line: number | null
  reason: string
}

export interface ImportFileResult {
  /** path, or `archive.zip:member.csv` for a zip member */
  file: string
  kind: ImportKind | null
  symbol: string | null
  /** data rows read (universe: coins) */
  rows: number
  appended: number
  /** rows at or before what the store (or an earlier file) already held */
  skipped: number
  firstMs: number | null
  lastMs: number | null
  error: ImportFileError | null
}

export interface ImportReport {
  files: ImportFileResult[]
  candlesAppended: number
  fundingAppended: number
  /** 1m candles appended as minute detail */
  detailAppended: number
  /** premium-index and open-interest samples appended */
  samplesAppended: number
  /** coins whose metadata was written */
  coinsUpdated: number
  /** files with an error */
  failed: number
  warnings: string[]
  elapsedMs: number
}

interface ParsedFile {
  result: ImportFileResult
  /** t first, then the value columns (o,h,l,c,v or rate) */
  cols?: Float64Array[]
  universe?: UniverseRow[]
}

/** Import files or folders (recursively); see the module comment for what is accepted. */
export async function importPaths(store: CandleStore, paths: string[], log: (line: string) => void = () => {}): Promise<ImportReport> {
  const t0 = performance.now()
  const warnings: string[] = []
  if (store.isSynthetic())
    warnings.push('the store holds synthetic data: imported candles at or before its last candle of a symbol are skipped')
  const { results, parsed } = readAll(paths, log, store)

  let candlesAppended = 0, fundingAppended = 0, detailAppended = 0, samplesAppended = 0
  const pendingMeta = new Map<string, CoinMeta>()
  for (const group of groupBySymbol(parsed)) {
    // errors are reported once, in the summary (formatImportReport), not also as they happen
    const appended = appendGroup(store, group)
    log(`${group.symbol} ${group.kind}: ${appended} rows appended from ${group.files.length} file(s)`)
    if (group.kind === 'detail') detailAppended += appended
    else if (group.kind === 'klines') {
      candlesAppended += appended
      const bars = store.bars(group.symbol)
      if (bars?.n) pendingMeta.set(group.symbol, metaForCandles(group.symbol, store.meta(group.symbol), bars.t[0]))
    } else if (group.kind === 'funding') fundingAppended += appended
    else samplesAppended += appended
  }
  applyUniverse(store, parsed, pendingMeta, log)
  // the source is recorded only with real rows, so names alone never un-synthetic a store
  // minute detail alone does not change the store's source: a synthetic store keeps deriving the coins' minutes it has not stored
  const wroteRows = candlesAppended + fundingAppended + samplesAppended > 0
  if (pendingMeta.size > 0) store.upsertMeta([...pendingMeta.values()], wroteRows ? 'binance-csv' : undefined)
  else if (wroteRows) store.addSource('binance-csv')

  return {
    files: results,
    candlesAppended,
    fundingAppended,
    detailAppended,
    samplesAppended,
    coinsUpdated: pendingMeta.size,
    failed: results.filter(r => r.error).length,
    warnings,
    elapsedMs: performance.now() - t0,
  }
}

/** Read and parse every CSV under `paths`; failures are results with an error. */
function readAll(paths: string[], log: (line: string) => void, store: CandleStore): { results: ImportFileResult[]; parsed: ParsedFile[] } {
  const { files, missing } = listImportFiles(paths)
  const results: ImportFileResult[] = missing.map(m => emptyResult(m.path, { line: null, reason: m.reason }))
  const parsed: ParsedFile[] = []
  for (let i = 0; i < files.length; i++) {
    if (/\.json$/i.test(files[i])) {
      // leverage tiers: stored as a snapshot of their own (import-tiers.ts), nothing to parse as CSV
      const result: ImportFileResult = { ...emptyResult(files[i]), kind: 'brackets' }
      try {
        const r = importTiersFile(store, files[i])
        result.rows = r.symbols + r.skipped + r.errors.length
        result.appended = r.symbols
        result.skipped = r.skipped
        if (r.errors.length) result.error = { line: null, reason: `tiers refused for ${r.errors.length} symbol(s): ${r.errors.slice(0, 3).map(e => `${e.key} (${e.reason})`).join('; ')}` }
        log(`${files[i]}: brackets of ${r.symbols} USDT perpetuals stored${r.snapshot ? ` (brackets/${r.snapshot})` : ''}, ${r.skipped} other contracts skipped`)
      } catch (e) {
        result.error = { line: null, reason: (e as Error).message }
      }
      results.push(result)
      continue
    }
    let sources: CsvSource[]
    try {
      sources = readCsvSources(files[i])
    } catch (e) {
      results.push(emptyResult(files[i], { line: null, reason: e instanceof FileError ? e.message : String(e) }))
      continue
    }
    for (const src of sources) {
      const p = parseSource(src)
      results.push(p.result)
      parsed.push(p)
    }
    if (files.length >= 100 && (i + 1) % 100 === 0) log(`read ${i + 1} of ${files.length} files`)
  }
  return { results, parsed }
}

/** Names and ranks of the universe files, merged into the metadata about to be written. */
function applyUniverse(store: CandleStore, parsed: ParsedFile[], pendingMeta: Map<string, CoinMeta>, log: (line: string) => void): void {
  for (const p of parsed) {
    if (!p.universe || p.result.error) continue
    for (const row of p.universe) {
      const existing = pendingMeta.get(row.symbol) ?? store.meta(row.symbol)
      pendingMeta.set(row.symbol, metaFromUniverseRow(row, existing, store.bars(row.symbol)?.t[0] ?? null))
    }
    p.result.appended = p.universe.length
    log(`${p.result.file}: names and ranks of ${p.universe.length} coins`)
  }
}

function emptyResult(file: string, error: ImportFileError | null = null): ImportFileResult {
  return { file, kind: null, symbol: null, rows: 0, appended: 0, skipped: 0, firstMs: null, lastMs: null, error }
}

/** Detect, parse and validate one CSV; never throws (failures land in result.error). */
function parseSource(src: CsvSource): ParsedFile {
  const result = emptyResult(src.label)
  const reader = new CsvLines(src.bytes)
  let guess: LayoutGuess | undefined
  try {
    if (!reader.next()) throw new RowError(null, 'the file is empty')
    guess = detectLayout(reader.line(), src.name)
    result.kind = kindOf(guess.layout, src.label)
    if (!guess.hasHeader) reader.reset()
    if (result.kind === 'universe') {
      const universe = parseUniverse(reader, guess)
      result.rows = universe.length
      return { result, universe }
    }
    result.symbol = symbolFromFileName(src.name) ?? symbolFromFileName(src.outerName)
    if (!result.symbol) throw new RowError(null, 'cannot tell the symbol from the file name (expected e.g. BTCUSDT.csv.gz or BTCUSDT-1h-2024-01.zip)')
    let cols: Float64Array[]
    if (result.kind === 'klines') {
      const interval = intervalFromFileName(src.name) ?? intervalFromFileName(src.outerName)
      const k = parseKlines(reader, guess, interval)
      cols = k.cols
      // 1m klines are the symbol's minute detail (detail-store.ts), not its candles
      if (k.stepMs !== HOUR_MS) result.kind = 'detail'
    } else if (result.kind === 'premium_index') {
      const p = parsePremiumIndex(reader, guess, intervalFromFileName(src.name) ?? intervalFromFileName(src.outerName))
      cols = [p.t, p.value]
    } else if (result.kind === 'open_interest') {
      const p = parseOpenInterest(reader, guess)
      cols = [p.t, p.value]
    } else {
      const f = parseFunding(reader, guess)
      cols = [f.t, f.rate]
    }
    const t = cols[0]
    result.rows = t.length
    result.firstMs = t.length ? t[0] : null
    result.lastMs = t.length ? t[t.length - 1] : null
    return { result, cols }
  } catch (e) {
    if (!(e instanceof RowError)) throw e
    result.error = { line: e.line, reason: e.reason }
    if (result.kind !== 'universe' && guess) result.firstMs = firstDataTimeMs(src.bytes, guess)
    return { result }
  }
}

/** the first data row's time, if readable: where a failed file would have started */
function firstDataTimeMs(bytes: Uint8Array, guess: LayoutGuess): number | null {
  const r = new CsvLines(bytes)
  if (guess.hasHeader) r.next()
  if (!r.next()) return null
  const t = toMs(r.number(0))
  return Number.isFinite(t) ? t : null
}

type SeriesKind = 'klines' | 'detail' | 'funding' | 'premium_index' | 'open_interest'

interface Group {
  kind: SeriesKind
  symbol: string
  files: ParsedFile[]
}

function groupBySymbol(parsed: ParsedFile[]): Group[] {
  const groups = new Map<string, Group>()
  for (const p of parsed) {
    const { kind, symbol } = p.result
    // brackets are stored as they are read (import-tiers.ts); the universe is applied apart
    if (kind === null || kind === 'universe' || kind === 'brackets' || !symbol) continue
    const key = `${kind}:${symbol}`
    let g = groups.get(key)
    if (!g) groups.set(key, (g = { kind, symbol, files: [] }))
    g.files.push(p)
  }
  return [...groups.values()]
}

/** Append a symbol's good files in time order, in one store append; returns rows appended. */
function appendGroup(store: CandleStore, group: Group): number {
  const { kind, symbol } = group
  const failed = group.files.filter(f => f.result.error)
  // files from the first failed one on are held back; unknown start = hold back all
  const startOf = (f: ParsedFile) => f.result.firstMs ?? -Infinity
  const culprit = failed.reduce<ParsedFile | null>((a, f) => (a === null || startOf(f) < startOf(a) ? f : a), null)
  const cutoffMs = culprit ? startOf(culprit) : Infinity
  const good = group.files
    .filter(f => !f.result.error)
    .sort((a, b) => a.result.firstMs! - b.result.firstMs! || a.result.file.localeCompare(b.result.file))
  let lastMs = storedLastMs(store, kind, symbol)
  const parts: { cols: Float64Array[]; from: number }[] = []
  const writing: ImportFileResult[] = []
  for (const f of good) {
    const r = f.result
    if (r.rows > 0 && r.lastMs! >= cutoffMs) {
      r.error = { line: null, reason: `held back: ${culprit!.result.file} of ${symbol} failed and this file would leave a gap; fix it and import both again` }
      continue
    }
    const t = f.cols![0]
    const from = firstAfter(t, lastMs)
    r.skipped = from
    r.appended = t.length - from
    if (r.appended > 0) {
      parts.push({ cols: f.cols!, from })
      writing.push(r)
      lastMs = t[t.length - 1]
    }
  }
  if (parts.length === 0) return 0
  const cols = concatColumns(parts)
  const n = cols[0].length
  try {
    if (kind === 'klines') store.appendCandles(symbol, cols, n)
    else if (kind === 'detail') store.appendDetail(symbol, cols, n)
    else if (kind === 'funding') store.appendFunding(symbol, cols[0], cols[1], n)
    else store.appendSamples(kind, symbol, cols[0], cols[1], n)
  } catch (e) {
    for (const r of writing) {
      r.error = { line: null, reason: `not stored: ${(e as Error).message}` }
      r.appended = 0
    }
    return 0
  }
  return n
}

function storedLastMs(store: CandleStore, kind: SeriesKind, symbol: string): number {
  if (kind === 'klines') return store.lastCandleMs(symbol) ?? -Infinity
  if (kind === 'detail') return store.detail.lastMinuteMs(symbol) ?? -Infinity
  if (kind === 'premium_index' || kind === 'open_interest') {
    const x = store.samples(kind, symbol)
    return x && x.n > 0 ? x.t[x.n - 1] : -Infinity
  }
  const f = store.funding(symbol)
  return f && f.n > 0 ? f.t[f.n - 1] : -Infinity
}

/** index of the first time after `afterMs` (t ascending) */
function firstAfter(t: Float64Array, afterMs: number): number {
  return upperBound(t, afterMs)
}

function concatColumns(parts: { cols: Float64Array[]; from: number }[]): Float64Array[] {
  if (parts.length === 1 && parts[0].from === 0) return parts[0].cols
  const ncols = parts[0].cols.length
  const n = parts.reduce((s, p) => s + p.cols[0].length - p.from, 0)
  const out = Array.from({ length: ncols }, () => new Float64Array(n))
  let at = 0
  for (const p of parts) {
    for (let k = 0; k < ncols; k++) out[k].set(p.cols[k].subarray(p.from), at)
    at += p.cols[0].length - p.from
  }
  return out
}

/** Control characters from a file (its name or cells) are shown escaped, never sent to the terminal. */
export function escapeControl(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f]/g, c => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
}

/** A human summary: one line per file, the errors again with file and line, totals. */
export function formatImportReport(report: ImportReport): string {
  const lines: string[] = []
  const w = Math.min(70, Math.max(4, ...report.files.map(f => f.file.length)))
  lines.push(`${'file'.padEnd(w)}  ${'kind'.padEnd(8)} ${'symbol'.padEnd(14)} ${'rows'.padStart(8)} ${'appended'.padStart(9)} ${'skipped'.padStart(8)}`)
  for (const f of report.files) {
    const name = f.file.length > w ? `…${f.file.slice(-(w - 1))}` : f.file.padEnd(w)
    const status = f.error ? '  FAILED' : ''
    lines.push(`${escapeControl(name)}  ${(f.kind ?? '-').padEnd(8)} ${(f.symbol ?? '-').padEnd(14)} ${String(f.rows).padStart(8)} ${String(f.appended).padStart(9)} ${String(f.skipped).padStart(8)}${status}`)
  }
  const errors = report.files.filter(f => f.error)
  if (errors.length) {
    lines.push('', 'errors (nothing of these files was stored):')
    for (const f of errors) lines.push(`  ${escapeControl(f.file)}${f.error!.line === null ? '' : `:${f.error!.line}`}: ${escapeControl(f.error!.reason)}`)
  }
  for (const w of report.warnings) lines.push(`warning: ${w}`)
  lines.push(
    '',
    `${report.files.length} files: ${report.candlesAppended} candles${report.detailAppended > 0 ? `, ${report.detailAppended} minutes of detail` : ''} and ${report.fundingAppended} funding events appended, ` +
      (report.samplesAppended ? `${report.samplesAppended} premium-index / open-interest samples appended, ` : '') +
      `metadata of ${report.coinsUpdated} coins written, ${report.failed} failed (${(report.elapsedMs / 1000).toFixed(2)} s)`,
  )
  return lines.join('\n')
}
