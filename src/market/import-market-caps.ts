/**
 * Market-cap history for the rank history (docs/data.md, "Rank history"): a CSV of daily
 * market caps, `date,symbol,market_cap` (a header line, then one row per coin and day;
 * `symbol` as the store names it, BTCUSDT, or its base, BTC; `market_cap` in USD), and the
 * same series from CoinGecko's `market_chart` (src/upstream/coingecko.ts).
 *
 * A file is checked whole before anything is written: a malformed row, a duplicate day of
 * a coin, or a gap (a missing day between a coin's first and last, or between what the
 * store holds and the file's first day) refuses the import with the line number, and
 * nothing is stored. A day at or before what the store already holds is skipped (a
 * re-import is harmless).
 */
import { readFileSync } from 'node:fs'
import type { CandleStore } from './candle-store'
import { DAY_MS, isoDay, parseDay } from '../time'

export class MarketCapImportError extends Error {
  constructor(
    readonly lineNo: number | null,
    message: string,
  ) {
    super(lineNo === null ? message : `line ${lineNo}: ${message}`)
  }
}

export interface MarketCapRows {
  /** per symbol: days (UTC midnights, ascending, consecutive) and caps */
  bySymbol: Map<string, { t: number[]; cap: number[] }>
  rows: number
}

export interface MarketCapImportReport {
  symbols: number
  rows: number
  appended: number
  skipped: number
  firstDay: string | null
  lastDay: string | null
}

const SYMBOL_RE = /^[A-Z0-9]{1,24}$/

/** The store's name of a CSV symbol: BTCUSDT as is, a base (BTC) with USDT. */
function storeSymbol(raw: string): string | null {
  const s = raw.trim().toUpperCase()
  if (!SYMBOL_RE.test(s)) return null
  return s.endsWith('USDT') && s.length > 4 ? s : `${s}USDT`
}

/** Parse and check a market-cap CSV (MarketCapImportError naming the line). */
export function parseMarketCaps(text: string): MarketCapRows {
  const lines = text.split(/\r?\n/)
  const header = (lines[0] ?? '').split(',').map(h => h.trim().toLowerCase())
  const iDate = header.indexOf('date')
  const iSymbol = header.indexOf('symbol')
  const iCap = header.indexOf('market_cap')
  if (iDate < 0 || iSymbol < 0 || iCap < 0) throw new MarketCapImportError(1, `the header must name date, symbol and market_cap; got "${lines[0] ?? ''}"`)
  const rows = new Map<string, { t: number[]; cap: number[]; line: number[] }>()
  let count = 0
  for (let k = 1; k < lines.length; k++) {
    const line = lines[k]
    if (line.trim() === '') continue
    const lineNo = k + 1
    const cells = line.split(',')
    if (cells.length !== header.length) throw new MarketCapImportError(lineNo, `${cells.length} columns, expected ${header.length}`)
    const day = parseDay(cells[iDate].trim())
    if (day === null) throw new MarketCapImportError(lineNo, `date "${cells[iDate]}" is not a calendar date (YYYY-MM-DD)`)
    const symbol = storeSymbol(cells[iSymbol])
    if (symbol === null) throw new MarketCapImportError(lineNo, `symbol "${cells[iSymbol]}" is not a coin like BTC or BTCUSDT`)
    const capCell = cells[iCap].trim()
    const cap = Number(capCell)
    if (capCell === '' || !Number.isFinite(cap) || cap <= 0) throw new MarketCapImportError(lineNo, `market_cap "${capCell}" is not a positive number of USD`)
    let r = rows.get(symbol)
    if (!r) rows.set(symbol, (r = { t: [], cap: [], line: [] }))
    r.t.push(day)
    r.cap.push(cap)
    r.line.push(lineNo)
    count++
  }
  const bySymbol = new Map<string, { t: number[]; cap: number[] }>()
  for (const [symbol, r] of rows) {
    const order = r.t.map((_, i) => i).sort((a, b) => r.t[a] - r.t[b] || r.line[a] - r.line[b])
    for (let j = 1; j < order.length; j++) {
      const prev = order[j - 1], cur = order[j]
      if (r.t[cur] === r.t[prev]) throw new MarketCapImportError(r.line[cur], `${symbol} ${isoDay(r.t[cur])} appears twice (also line ${r.line[prev]})`)
      if (r.t[cur] !== r.t[prev] + DAY_MS)
        throw new MarketCapImportError(r.line[cur], `${symbol} has a gap: no row for ${isoDay(r.t[prev] + DAY_MS)} between ${isoDay(r.t[prev])} (line ${r.line[prev]}) and ${isoDay(r.t[cur])}`)
    }
    bySymbol.set(symbol, { t: order.map(i => r.t[i]), cap: order.map(i => r.cap[i]) })
  }
  return { bySymbol, rows: count }
}

/**
 * Store checked market-cap rows: refused whole (MarketCapImportError) when a coin's first
 * new day does not follow the store's last stored day (a gap), else appended coin by coin.
 */
export function storeMarketCaps(store: CandleStore, parsed: MarketCapRows): MarketCapImportReport {
  for (const [symbol, r] of parsed.bySymbol) {
    const have = store.marketCaps(symbol)
    if (!have || have.n === 0) continue
    const last = have.t[have.n - 1]
    const firstNew = r.t.find(t => t > last)
    if (firstNew !== undefined && firstNew !== last + DAY_MS)
      throw new MarketCapImportError(null, `${symbol} has a gap: the store's market caps end on ${isoDay(last)} and the file's next day is ${isoDay(firstNew)}`)
  }
  let appended = 0, skipped = 0
  let first = Infinity, last = -Infinity
  for (const [symbol, r] of parsed.bySymbol) {
    const res = store.appendMarketCaps(symbol, r.t, r.cap, r.t.length)
    appended += res.appended
    skipped += res.skipped
    first = Math.min(first, r.t[0])
    last = Math.max(last, r.t[r.t.length - 1])
  }
  return {
    symbols: parsed.bySymbol.size,
    rows: parsed.rows,
    appended,
    skipped,
    firstDay: Number.isFinite(first) ? isoDay(first) : null,
    lastDay: Number.isFinite(last) ? isoDay(last) : null,
  }
}

/** `data market-caps <file.csv>`: parse, check and store a market-cap CSV. */
export function importMarketCapFile(store: CandleStore, path: string): MarketCapImportReport {
  return storeMarketCaps(store, parseMarketCaps(readFileSync(path, 'utf8')))
}
