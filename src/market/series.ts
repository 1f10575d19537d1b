/**
 * Resampled candle series on demand, cached per (symbol, timeframe) until the store
 * changes; 1H series are the store's own views and cost nothing.
 */
import type { CandleStore } from './candle-store'
import { resample } from './resample'
import type { Timeframe } from './timeframe'
import type { Bars } from './types'

export class SeriesCache {
  private readonly cache = new Map<string, Bars>()
  private version = -1

  constructor(private readonly store: CandleStore, private readonly maxEntries = 256) {}

  get(symbol: string, tf: Timeframe): Bars | undefined {
    if (tf === '1H') return this.store.bars(symbol)
    if (this.version !== this.store.version) {
      this.cache.clear()
      this.version = this.store.version
    }
    const key = `${symbol}|${tf}`
    const hit = this.cache.get(key)
    if (hit) {
      // refresh recency (Map keeps insertion order)
      this.cache.delete(key)
      this.cache.set(key, hit)
      return hit
    }
    const base = this.store.bars(symbol)
    if (!base) return undefined
    const out = resample(base, tf)
    this.cache.set(key, out)
    if (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value!)
    return out
  }
}
