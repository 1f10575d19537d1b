/**
 * The entry mask a run trades on: the strategy's entry signals after the request's entry
 * filters (avoid_hours, avoid_months, min_vol_regime; engine/filters.ts). The one place
 * the volatility regime of min_vol_regime is defined, for every task that simulates.
 */
import { atrRatio } from '../indicators/atr'
import type { Bars } from '../market/types'
import { applyEntryFilters } from './filters'

/** ATR period and mean length of the min_vol_regime filter (docs/indicators.md, `atr_ratio`) */
const VOL_REGIME_ATR = 14
const VOL_REGIME_MEAN = 14

/** A run's entry filters (UTC hours and months to skip, minimum volatility regime). */
export interface EntryFilterSpec {
  avoidHours: number[]
  avoidMonths: number[] | null
  minVolRegime: number | null
}

/** Whether a run's entry filters clear any entry (else entryMaskOf hands back the strategy's own mask). */
export function filtersEntries(spec: EntryFilterSpec): boolean {
  return !(spec.avoidHours.length === 0 && (spec.avoidMonths === null || spec.avoidMonths.length === 0) && spec.minVolRegime === null)
}

/**
 * `entry` (the strategy's signals, not changed) with the filtered entries cleared: a new
 * mask, or `entry` itself when the run has no entry filter (most runs: a copy of every
 * coin's mask per run for nothing). Callers read it and never write it.
 */
export function entryMaskOf(entry: Uint8Array, bars: Bars, spec: EntryFilterSpec): Uint8Array {
  if (!filtersEntries(spec)) return entry
  let ratio: Float64Array | null = null
  if (spec.minVolRegime !== null) {
    ratio = new Float64Array(bars.n)
    atrRatio(bars.h, bars.l, bars.c, VOL_REGIME_ATR, VOL_REGIME_MEAN, ratio, bars.n)
  }
  return applyEntryFilters(entry, bars, { avoidHours: spec.avoidHours, avoidMonths: spec.avoidMonths, minVolRegime: spec.minVolRegime, atrRatio: ratio })
}
