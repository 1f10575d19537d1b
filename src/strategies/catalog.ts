/**
 * The field names a condition may use: the base candle fields, always available, and
 * every field of every registered indicator. Validation and the compiler both resolve
 * names through this one table, so they can never disagree about what a name means.
 */
import type { IndicatorDef } from '../indicators/types'

export type FieldType = 'number' | 'boolean'

/** The indicators the strategies layer can use, and how their params are checked. */
export interface IndicatorCatalog {
  defs: Readonly<Record<string, IndicatorDef>>
  /** readable problems with `params` for indicator `id` (unknown key, out of range, …) */
  validateParams(id: string, params: Record<string, unknown>): string[]
}

export type BaseField = 'close' | 'open' | 'high' | 'low' | 'volume' | 'hour' | 'weekday' | 'next_hour'

/** Fields of the candle itself; `hour` and `weekday` are of the bar's open time, UTC; `next_hour` of the next bar's. */
export const BASE_FIELDS: Readonly<Record<BaseField, { type: FieldType; description: string }>> = {
  close: { type: 'number', description: 'close price of the bar' },
  open: { type: 'number', description: 'open price of the bar' },
  high: { type: 'number', description: 'highest price of the bar' },
  low: { type: 'number', description: 'lowest price of the bar' },
  volume: { type: 'number', description: 'traded volume of the bar, in base coin' },
  hour: { type: 'number', description: "hour of the bar's open time, UTC (0-23)" },
  weekday: { type: 'number', description: "weekday of the bar's open time, UTC (0 = Monday … 6 = Sunday)" },
  next_hour: { type: 'number', description: "hour of the next bar's open time (this bar's open + one bar), UTC (0-23): the hour a signal at this bar's close enters" },
}

export function isBaseField(name: string): name is BaseField {
  return Object.hasOwn(BASE_FIELDS, name)
}

export type MarketField = 'funding_rate' | 'funding_rate_mean' | 'basis' | 'open_interest'

/**
 * Derivatives data of the coin at the bar's close, from the store beside its candles
 * (docs/conditions.md "Funding, basis and open interest"): always available to a tree, NaN
 * (so the leaf is false, and the run counts the bar) where the store has no such data.
 */
export const MARKET_FIELDS: Readonly<Record<MarketField, { type: FieldType; description: string }>> = {
  funding_rate: { type: 'number', description: "the last settled funding rate known at the bar's close, a fraction per settlement (0.0001 = 0.01 %)" },
  funding_rate_mean: { type: 'number', description: 'the mean of the last `events` settled funding rates (default 3) known at the bar\'s close' },
  basis: { type: 'number', description: "Binance's premium index (perpetual over index price − 1, a fraction) of the last 1H premium-index kline closed at the bar's close" },
  open_interest: { type: 'number', description: "open interest in contracts (base coin) of the last sample at or before the bar's close" },
}

export function isMarketField(name: string): name is MarketField {
  return Object.hasOwn(MARKET_FIELDS, name)
}

export interface IndicatorField {
  indicatorId: string
  type: FieldType
}

/** field name -> every indicator that produces it (normally exactly one) */
export type FieldIndex = ReadonlyMap<string, readonly IndicatorField[]>

const indexCache = new WeakMap<object, FieldIndex>()

export function fieldIndex(catalog: IndicatorCatalog): FieldIndex {
  const cached = indexCache.get(catalog.defs)
  if (cached) return cached
  const index = new Map<string, IndicatorField[]>()
  for (const [id, def] of Object.entries(catalog.defs)) {
    for (const f of def.fields) {
      if (isBaseField(f.name)) continue // the candle's own field wins; see docs/conditions.md
      const list = index.get(f.name) ?? []
      list.push({ indicatorId: id, type: f.type })
      index.set(f.name, list)
    }
  }
  indexCache.set(catalog.defs, index)
  return index
}

/** The closest names to a misspelt one (edit distance ≤ 2, or ≤ 1 for short names). */
export function suggest(name: string, candidates: Iterable<string>): string | null {
  const limit = name.length <= 4 ? 1 : 2
  let best: string | null = null
  let bestD = limit + 1
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase(), bestD)
    if (d < bestD) {
      best = c
      bestD = d
    }
  }
  return best
}

/** Damerau-free Levenshtein distance, giving up early once it exceeds `cap`. */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
      cur.push(v)
      if (v < rowMin) rowMin = v
    }
    if (rowMin > cap) return cap + 1
    prev = cur
  }
  return prev[b.length]
}
