/**
 * Parsing Binance kline and funding CSVs into columns, validating every row first.
 *
 * Layouts (header optional for the numeric ones):
 *   kline12   Binance public data: open_time,open,high,low,close,volume,close_time,
 *             quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore
 *   kline6    its first six columns: open_time_ms,open,high,low,close,volume
 *   funding2  funding_time_ms,funding_rate
 *   funding3  Binance public data fundingRate: calc_time,funding_interval_hours,last_funding_rate
 *   universe  symbol,name,market_cap_rank,… (header required; see import-universe.ts)
 *   metrics   Binance public data metrics (open interest): create_time,symbol,
 *             sum_open_interest,sum_open_interest_value,… (header required; create_time
 *             "YYYY-MM-DD HH:MM:SS" UTC or a timestamp)
 *   premium index klines: the kline12 / kline6 layouts of a file whose path names
 *             premiumIndex (Binance's folder premiumIndexKlines, or a name such as
 *             BTCUSDT-premiumIndex-1h-2024-01.csv): its close is the premium index
 * Times may be seconds, milliseconds or microseconds (Binance moved spot files to µs in
 * 2025); each value is brought to ms by its magnitude.
 */
import { CsvLines, num } from './import-lines'
import { DAY_MS, HOUR_MS, MINUTE_MS, isoRecordInstant } from '../time'

/** `detail`: 1m klines, stored as a symbol's minute detail (detail-store.ts); `brackets`: a leverage-tiers JSON (import-tiers.ts) */
export type ImportKind = 'klines' | 'detail' | 'funding' | 'universe' | 'brackets' | 'premium_index' | 'open_interest'
export type Layout = 'kline12' | 'kline6' | 'funding2' | 'funding3' | 'universe' | 'metrics'

/** a row that stops the file's import; `line` is 1-based, counting the header */
export class RowError extends Error {
  constructor(readonly line: number | null, readonly reason: string) {
    super(line === null ? reason : `line ${line}: ${reason}`)
  }
}

/** A timestamp in s, ms or µs (by magnitude) as ms; NaN when it is none of them. */
export function toMs(raw: number): number {
  if (!Number.isFinite(raw) || raw <= 0) return NaN
  if (raw < 1e8) return NaN // before 1973 in seconds: not a timestamp of this data
  if (raw < 1e11) return raw * 1000
  if (raw < 1e14) return raw
  if (raw < 1e17) return raw / 1000
  return NaN
}

export interface LayoutGuess {
  layout: Layout
  hasHeader: boolean
  columns: number
  header: string[] | null
}

/**
 * The layout from the first line: header names when there is a header, otherwise the
 * column count (3 numeric columns are Binance's fundingRate layout).
 */
export function detectLayout(firstLine: string, fileName: string): LayoutGuess {
  const cells = firstLine.split(',').map(c => c.trim())
  const numeric = Number.isFinite(num(cells[0]))
  if (!numeric) {
    const names = cells.map(c => c.toLowerCase().replace(/^"|"$/g, ''))
    const has = (re: RegExp) => names.some(n => re.test(n))
    if (has(/^sum_open_interest$/) && has(/^create_time$/)) return { layout: 'metrics', hasHeader: true, columns: cells.length, header: names }
    if (has(/^symbol$/) && has(/market_cap_rank|rank/)) return { layout: 'universe', hasHeader: true, columns: cells.length, header: names }
    if (has(/funding_rate|fundingrate/)) {
      const layout = names.length === 3 ? 'funding3' : 'funding2'
      if (names.length !== 2 && names.length !== 3) throw new RowError(1, `funding header with ${names.length} columns; expected funding_time_ms,funding_rate or calc_time,funding_interval_hours,last_funding_rate`)
      return { layout, hasHeader: true, columns: names.length, header: names }
    }
    if (/open_?time/.test(names[0])) {
      if (names.length === 12) return { layout: 'kline12', hasHeader: true, columns: 12, header: names }
      if (names.length === 6) return { layout: 'kline6', hasHeader: true, columns: 6, header: names }
      throw new RowError(1, `kline header with ${names.length} columns; expected 6 or 12`)
    }
    throw new RowError(1, `unrecognised header "${firstLine.slice(0, 80)}"`)
  }
  switch (cells.length) {
    case 12: return { layout: 'kline12', hasHeader: false, columns: 12, header: null }
    case 6: return { layout: 'kline6', hasHeader: false, columns: 6, header: null }
    case 2: return { layout: 'funding2', hasHeader: false, columns: 2, header: null }
    case 3:
      if (/funding/i.test(fileName)) return { layout: 'funding3', hasHeader: false, columns: 3, header: null }
  }
  throw new RowError(1, `unrecognised layout: ${cells.length} columns without a header`)
}

/** What a file holds: by its layout, and for klines by its path (premium-index klines look like candles). */
export function kindOf(layout: Layout, path = ''): ImportKind {
  if (layout === 'universe') return 'universe'
  if (layout === 'metrics') return 'open_interest'
  if (layout.startsWith('kline')) return /premiumindex/i.test(path) ? 'premium_index' : 'klines'
  return 'funding'
}

/** Derivatives samples of one file: when each value is known (ms) and the value. */
export interface ParsedSamples {
  t: Float64Array
  value: Float64Array
  n: number
}

/**
 * Binance's 1h premium-index klines: each close is the premium index of that hour, known
 * at its close, so it is kept at open + 1h (types.ts SampleSeries). Premiums are fractions
 * and may be negative; a value of 1 or more is not a premium.
 */
export function parsePremiumIndex(lines: CsvLines, guess: LayoutGuess, fileInterval: string | null): ParsedSamples {
  if (fileInterval !== null && fileInterval !== '1h')
    throw new RowError(null, `interval ${fileInterval} in the file name; only 1h premium-index klines are imported`)
  const cap = lines.remainingLines()
  const T = new Float64Array(cap), V = new Float64Array(cap)
  const ncols = guess.columns
  let n = 0
  while (lines.next()) {
    const lineNo = lines.lineNo
    if (lines.cells !== ncols) throw new RowError(lineNo, `${lines.cells} columns, expected ${ncols}`)
    const open = toMs(lines.number(0))
    if (!Number.isFinite(open)) throw new RowError(lineNo, `open time ${lines.cell(0)} is not a timestamp in s, ms or µs`)
    if (open % HOUR_MS !== 0) throw new RowError(lineNo, `open time ${isoOf(open)} is not on a whole hour; only 1h premium-index klines are imported`)
    if (open > Date.now()) throw new RowError(lineNo, `open time ${isoOf(open)} is in the future`)
    if (ncols === 12 && n === 0 && checkCloseTime(lineNo, open, lines.cell(6), HOUR_MS) !== HOUR_MS) throw new RowError(lineNo, 'only 1h premium-index klines are imported')
    const close = lines.number(4)
    if (!Number.isFinite(close) || Math.abs(close) >= 1) throw new RowError(lineNo, `premium index "${lines.cell(4)}" is not a fraction (|x| < 1)`)
    const t = open + HOUR_MS
    if (n > 0 && t <= T[n - 1]) throw new RowError(lineNo, `open time ${isoOf(open)} is not after the previous row's ${isoOf(T[n - 1] - HOUR_MS)}`)
    T[n] = t
    V[n] = close
    n++
  }
  return { t: T.subarray(0, n), value: V.subarray(0, n), n }
}

/** A cell's time: a timestamp in s, ms or µs, or "YYYY-MM-DD HH:MM:SS" (UTC, as Binance's metrics write it). */
function timeCell(cell: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?Z?$/.exec(cell.trim().replace(/^"|"$/g, ''))
  if (!m) return toMs(num(cell))
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number)
  const t = Date.UTC(y, mo - 1, d, h, mi, se)
  const back = new Date(t)
  // a date that does not exist (2024-02-30) would roll over: refused
  return back.getUTCDate() === d && back.getUTCMonth() === mo - 1 && h < 24 && mi < 60 && se < 60 ? t : NaN
}

/**
 * Binance's metrics files: open interest (sum_open_interest, in contracts = base coin) at
 * each create_time. A row repeating the previous time with the same value is dropped (the
 * files hold such repeats); a repeat with another value is an error.
 */
export function parseOpenInterest(lines: CsvLines, guess: LayoutGuess): ParsedSamples {
  const header = guess.header!
  const tCol = header.indexOf('create_time')
  const vCol = header.indexOf('sum_open_interest')
  const cap = lines.remainingLines()
  const T = new Float64Array(cap), V = new Float64Array(cap)
  const ncols = guess.columns
  let n = 0
  while (lines.next()) {
    const lineNo = lines.lineNo
    if (lines.cells !== ncols) throw new RowError(lineNo, `${lines.cells} columns, expected ${ncols}`)
    const t = timeCell(lines.cell(tCol))
    if (!Number.isFinite(t)) throw new RowError(lineNo, `create_time "${lines.cell(tCol)}" is neither "YYYY-MM-DD HH:MM:SS" nor a timestamp`)
    if (t > Date.now() + HOUR_MS) throw new RowError(lineNo, `create_time ${isoOf(t)} is in the future`)
    const v = lines.number(vCol)
    if (!Number.isFinite(v) || v < 0) throw new RowError(lineNo, `sum_open_interest "${lines.cell(vCol)}" is not a number ≥ 0`)
    if (n > 0 && t === T[n - 1]) {
      if (v === V[n - 1]) continue
      throw new RowError(lineNo, `create_time ${isoOf(t)} repeats the previous row with another open interest (${V[n - 1]} then ${v})`)
    }
    if (n > 0 && t < T[n - 1]) throw new RowError(lineNo, `create_time ${isoOf(t)} is not after the previous row's ${isoOf(T[n - 1])}`)
    T[n] = t
    V[n] = v
    n++
  }
  return { t: T.subarray(0, n), value: V.subarray(0, n), n }
}

/** Why a candle is impossible, or null when it is fine. Shared with the exchange sync. */
/** No traded instrument is priced above this (USD) or trades more per hour (units): such a row is corrupt. */
export const MAX_PRICE = 1e9
export const MAX_VOLUME = 1e18

export function candleProblem(o: number, h: number, l: number, c: number, v: number): string | null {
  if (!(o > 0 && h > 0 && l > 0 && c > 0)) return 'prices must be positive numbers'
  if (h > MAX_PRICE) return `price ${h} is above ${MAX_PRICE}: not a real price`
  if (v > MAX_VOLUME) return `volume ${v} is above ${MAX_VOLUME}: not a real volume`
  if (h < l) return `high ${h} is below low ${l}`
  if (o > h || o < l) return `open ${o} is outside low..high ${l}..${h}`
  if (c > h || c < l) return `close ${c} is outside low..high ${l}..${h}`
  if (!(v >= 0)) return 'volume must be a number >= 0'
  return null
}

const FIELD_NAMES = ['open time', 'open', 'high', 'low', 'close', 'volume']

export interface ParsedKlines {
  /** t (open, ms), o, h, l, c, v */
  cols: Float64Array[]
  n: number
  /** the candles' interval: HOUR_MS (the store's candles) or 60 000 (minute detail) */
  stepMs: number
}

/** Every row of a kline CSV, validated; throws RowError at the first bad row. */
export function parseKlines(lines: CsvLines, guess: LayoutGuess, fileInterval: string | null): ParsedKlines {
  if (fileInterval !== null && fileInterval !== '1h' && fileInterval !== '1m')
    throw new RowError(null, `interval ${fileInterval} in the file name; only 1h candles and 1m detail are imported`)
  // the interval: the file name's, else the first row's close − open time (12 columns), else the rows' spacing
  let step: number | null = fileInterval === '1m' ? MINUTE_MS : fileInterval === '1h' ? HOUR_MS : null
  const cap = lines.remainingLines()
  const cols = Array.from({ length: 6 }, () => new Float64Array(cap))
  const [T, O, H, L, C, V] = cols
  const ncols = guess.columns
  const vals = new Float64Array(6)
  let n = 0
  while (lines.next()) {
    const lineNo = lines.lineNo
    if (lines.cells !== ncols) throw new RowError(lineNo, `${lines.cells} columns, expected ${ncols}`)
    for (let k = 0; k < 6; k++) {
      const x = lines.number(k)
      if (!Number.isFinite(x)) throw new RowError(lineNo, `${FIELD_NAMES[k]} "${lines.cell(k)}" is not a number`)
      vals[k] = x
    }
    const t = toMs(vals[0])
    if (!Number.isFinite(t)) throw new RowError(lineNo, `open time ${lines.cell(0)} is not a timestamp in s, ms or µs`)
    if (t > Date.now() + HOUR_MS) throw new RowError(lineNo, `open time ${isoOf(t)} is in the future`)
    const problem = candleProblem(vals[1], vals[2], vals[3], vals[4], vals[5])
    if (problem) throw new RowError(lineNo, problem)
    if (n > 0 && t <= T[n - 1]) throw new RowError(lineNo, `open time ${isoOf(t)} is not after the previous row's ${isoOf(T[n - 1])}`)
    if (ncols === 12 && n === 0) step = checkCloseTime(lineNo, t, lines.cell(6), step)
    T[n] = t; O[n] = vals[1]; H[n] = vals[2]; L[n] = vals[3]; C[n] = vals[4]; V[n] = vals[5]
    n++
  }
  step ??= n >= 3 && minGapOf(T, n) === MINUTE_MS ? MINUTE_MS : HOUR_MS
  checkSpacing(T, n, step)
  return { cols: cols.map(c => c.subarray(0, n)), n, stepMs: step }
}

function minGapOf(T: Float64Array, n: number): number {
  let minGap = Infinity
  for (let i = 1; i < n; i++) minGap = Math.min(minGap, T[i] - T[i - 1])
  return minGap
}

/** close_time − open_time tells the interval of a 12-column file from its first row (1h or 1m; the file name's when it gave one) */
function checkCloseTime(lineNo: number, openMs: number, closeCell: string, named: number | null): number {
  const closeMs = toMs(num(closeCell))
  if (!Number.isFinite(closeMs)) throw new RowError(lineNo, `close time "${closeCell}" is not a timestamp`)
  const spanMs = closeMs - openMs + 1
  const step = Math.abs(spanMs - HOUR_MS) <= 1 ? HOUR_MS : Math.abs(spanMs - MINUTE_MS) <= 1 ? MINUTE_MS : null
  if (step === null) throw new RowError(lineNo, `candles span ${describeMs(spanMs)} (close − open time); only 1h candles and 1m detail are imported`)
  if (named !== null && step !== named) throw new RowError(lineNo, `candles span ${describeMs(spanMs)} (close − open time) but the file name says ${describeMs(named)}`)
  return step
}

/** 1h candles open on whole hours, one hour (or whole hours, across gaps) apart; 1m candles the same in minutes */
function checkSpacing(T: Float64Array, n: number, step: number): void {
  const what = step === HOUR_MS ? '1h candles' : '1m candles'
  const minGap = minGapOf(T, n)
  if (n >= 3 && minGap !== step)
    throw new RowError(null, `rows are at least ${describeMs(minGap)} apart; ${what} are one ${step === HOUR_MS ? 'hour' : 'minute'} apart (only 1h candles and 1m detail are imported)`)
  for (let i = 0; i < n; i++)
    if (T[i] % step !== 0) throw new RowError(null, `open time ${isoOf(T[i])} (data row ${i + 1}) is not on a whole ${step === HOUR_MS ? 'hour' : 'minute'}; ${what} open on one`)
}

export interface ParsedFunding {
  t: Float64Array
  rate: Float64Array
  n: number
}

/** Every row of a funding CSV, validated; throws RowError at the first bad row. */
export function parseFunding(lines: CsvLines, guess: LayoutGuess): ParsedFunding {
  const cap = lines.remainingLines()
  const T = new Float64Array(cap), R = new Float64Array(cap)
  const ncols = guess.columns
  const rateCol = guess.layout === 'funding3' ? 2 : 1
  let n = 0
  while (lines.next()) {
    const lineNo = lines.lineNo
    if (lines.cells !== ncols) throw new RowError(lineNo, `${lines.cells} columns, expected ${ncols}`)
    const t = toMs(lines.number(0))
    if (!Number.isFinite(t)) throw new RowError(lineNo, `funding time "${lines.cell(0)}" is not a timestamp in s, ms or µs`)
    if (t > Date.now() + HOUR_MS) throw new RowError(lineNo, `funding time ${isoOf(t)} is in the future`)
    const rate = lines.number(rateCol)
    if (!Number.isFinite(rate)) throw new RowError(lineNo, `funding rate "${lines.cell(rateCol)}" is not a number`)
    // a rate is a fraction per interval (0.0001 = 0.01 %); Binance caps it far below 1
    if (Math.abs(rate) >= 1) throw new RowError(lineNo, `funding rate ${rate} is not a fraction per interval`)
    if (n > 0 && t <= T[n - 1]) throw new RowError(lineNo, `funding time ${isoOf(t)} is not after the previous row's ${isoOf(T[n - 1])}`)
    T[n] = t
    R[n] = rate
    n++
  }
  return { t: T.subarray(0, n), rate: R.subarray(0, n), n }
}

export function isoOf(tMs: number): string {
  return Number.isFinite(tMs) ? isoRecordInstant(tMs) : String(tMs)
}

function describeMs(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms)
  if (ms % DAY_MS === 0) return `${ms / DAY_MS}d`
  if (ms % HOUR_MS === 0) return `${ms / HOUR_MS}h`
  if (ms % 60_000 === 0) return `${ms / 60_000}m`
  return `${ms} ms`
}
