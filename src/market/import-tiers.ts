/**
 * `data import` of a leverage-tiers document (ccxt's `fetchLeverageTiers()` shape;
 * leverage-tiers.ts), recognised by its content: a JSON file whose every value is a list
 * of tiers. Its USDT perpetuals' brackets become a new snapshot in the store
 * (bracket-book.ts), dated by the file's modification time; a symbol whose tiers break a
 * rule is refused alone and named.
 */
import { readFileSync, statSync } from 'node:fs'
import type { CandleStore } from './candle-store'
import { isLeverageTiers, parseLeverageTiers } from './leverage-tiers'

export interface TiersImportResult {
  /** symbols whose brackets were stored */
  symbols: number
  skipped: number
  errors: { key: string; reason: string }[]
  /** the snapshot's file name under brackets/, null when nothing was stored */
  snapshot: string | null
}

/** The file is JSON: try it as leverage tiers. Throws an Error naming why it is not. */
export function importTiersFile(store: CandleStore, path: string): TiersImportResult {
  let doc: unknown
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'))
  } catch (e) {
    throw new Error(`not valid JSON: ${(e as Error).message}`)
  }
  if (!isLeverageTiers(doc)) throw new Error('a JSON file must be leverage tiers in the shape of ccxt fetchLeverageTiers (symbol → [{minNotional, maxNotional, maintenanceMarginRate, maxLeverage, info}])')
  const parsed = parseLeverageTiers(doc)
  const n = Object.keys(parsed.brackets).length
  const snapshot = n > 0 ? store.addBrackets({ asOfMs: statSync(path).mtimeMs, source: 'import', brackets: parsed.brackets }) : null
  return { symbols: n, skipped: parsed.skipped, errors: parsed.errors, snapshot }
}
