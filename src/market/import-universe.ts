/**
 * The universe CSV (`symbol,name,market_cap_rank,market_cap_usd,price_usd,volume_24h_usd,
 * change_7d_pct`, as in a CoinGecko-style snapshot): names and market-cap ranks.
 * Only symbol, name and market_cap_rank are read; the other columns may be absent.
 * Names may be quoted (RFC 4180), since they can hold commas.
 */
import { classifySymbol, baseOf } from './import-classify'
import { RowError, type LayoutGuess } from './import-csv'
import type { CsvLines } from './import-lines'
import type { CoinMeta } from './types'

export interface UniverseRow {
  symbol: string
  name: string
  rank: number | null
}

/** Split one CSV line, honouring double quotes ("" inside quotes is a quote). */
export function splitCsvLine(line: string): string[] {
  if (!line.includes('"')) return line.split(',')
  const out: string[] = []
  let cur = ''
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') { cur += '"'; i++ }
      else if (ch === '"') quoted = false
      else cur += ch
    } else if (ch === '"') quoted = true
    else if (ch === ',') { out.push(cur); cur = '' }
    else cur += ch
  }
  if (quoted) throw new Error('unterminated quoted field')
  out.push(cur)
  return out
}

export function parseUniverse(lines: CsvLines, guess: LayoutGuess): UniverseRow[] {
  const header = guess.header!
  const iSymbol = header.indexOf('symbol')
  const iName = header.indexOf('name')
  const iRank = header.includes('market_cap_rank') ? header.indexOf('market_cap_rank') : header.findIndex(h => /rank/.test(h))
  const rows: UniverseRow[] = []
  const seen = new Set<string>()
  while (lines.next()) {
    const line = lines.line()
    const lineNo = lines.lineNo
    let cells: string[]
    try {
      cells = splitCsvLine(line)
    } catch (e) {
      throw new RowError(lineNo, (e as Error).message)
    }
    if (cells.length !== header.length) throw new RowError(lineNo, `${cells.length} columns, expected ${header.length}`)
    const symbol = cells[iSymbol].trim().toUpperCase()
    if (!/^[A-Z0-9]+USDT$/.test(symbol) || symbol.length <= 4) throw new RowError(lineNo, `symbol "${cells[iSymbol]}" is not a USDT perpetual like BTCUSDT`)
    if (seen.has(symbol)) throw new RowError(lineNo, `${symbol} appears twice`)
    seen.add(symbol)
    const rankCell = cells[iRank].trim()
    let rank: number | null = null
    if (rankCell !== '') {
      rank = Number(rankCell)
      if (!Number.isInteger(rank) || rank < 1) throw new RowError(lineNo, `market_cap_rank "${rankCell}" is not a whole number >= 1`)
    }
    const name = iName >= 0 ? cells[iName].trim() : ''
    rows.push({ symbol, name, rank })
  }
  return rows
}

/**
 * Metadata for a universe row, merged over what the store already knows: the file
 * gives name and rank; stablecoin / asset class come from the known lists, and a flag
 * already set (e.g. by the synthetic generator) is kept.
 */
export function metaFromUniverseRow(row: UniverseRow, existing: CoinMeta | undefined, firstCandleMs: number | null): CoinMeta {
  const cls = classifySymbol(row.symbol)
  return {
    symbol: row.symbol,
    name: row.name || existing?.name || baseOf(row.symbol),
    rank: row.rank,
    stablecoin: cls.stablecoin || (existing?.stablecoin ?? false),
    assetClass: cls.assetClass !== 'crypto' ? cls.assetClass : (existing?.assetClass ?? 'crypto'),
    listingMs: existing?.listingMs ?? firstCandleMs,
  }
}

/** Metadata for a symbol that gained candles: keeps what is known, else classifies it. */
export function metaForCandles(symbol: string, existing: CoinMeta | undefined, firstCandleMs: number | null): CoinMeta {
  if (existing) return { ...existing, listingMs: existing.listingMs ?? firstCandleMs }
  const cls = classifySymbol(symbol)
  return { symbol, name: baseOf(symbol), rank: null, stablecoin: cls.stablecoin, assetClass: cls.assetClass, listingMs: firstCandleMs }
}
