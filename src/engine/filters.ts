/**
 * Entry filters of a backtest request: avoid_hours, avoid_months, min_vol_regime.
 *
 * They filter the ENTRY: a signal at bar i's close enters at bar i+1's open, so the hour
 * and the month tested are those of bar i+1's open time (UTC). The volatility-regime
 * test uses the ATR ratio at bar i, the last value known when the decision is made; a
 * NaN ratio (warm-up) blocks the entry, because the regime is not known yet.
 * For the window's last bar, which has no next bar in the array, the next open is taken
 * as t[i] + stepMs (such a signal cannot enter anyway).
 */
import type { Bars } from '../market/types'
import { DAY_MS, HOUR_MS } from '../time'
import { monthOfDay } from './calendar'

export interface EntryFilters {
  /** UTC hours 0–23 at which no trade may be entered */
  avoidHours: readonly number[]
  /** months 1–12 in which no trade may be entered; null = no filter */
  avoidMonths: readonly number[] | null
  /** minimum ATR ratio at the signal bar; null = no filter */
  minVolRegime: number | null
  /** ATR / its moving average per bar (required when minVolRegime is set) */
  atrRatio: Float64Array | null
}

/** A new mask: `entryMask` with the filtered entries cleared. The input is not changed. */
export function applyEntryFilters(entryMask: Uint8Array, bars: Bars, f: EntryFilters): Uint8Array {
  const out = new Uint8Array(entryMask)
  const n = Math.min(bars.n, out.length)
  const hourBlocked = new Uint8Array(24)
  for (const hr of f.avoidHours) if (hr >= 0 && hr < 24) hourBlocked[hr] = 1
  const monthBlocked = new Uint8Array(13)
  if (f.avoidMonths !== null) for (const m of f.avoidMonths) if (m >= 1 && m <= 12) monthBlocked[m] = 1
  const useHours = f.avoidHours.length > 0
  const useMonths = f.avoidMonths !== null && f.avoidMonths.length > 0
  const minRatio = f.minVolRegime
  if (minRatio !== null && f.atrRatio === null) throw new Error('applyEntryFilters: minVolRegime needs atrRatio')
  if (!useHours && !useMonths && minRatio === null) return out

  const t = bars.t
  let cachedDay = Number.NaN
  let cachedMonth = 0
  for (let i = 0; i < n; i++) {
    if (out[i] === 0) continue
    if (minRatio !== null) {
      const r = f.atrRatio![i]
      if (!(r >= minRatio)) {
        out[i] = 0
        continue
      }
    }
    const nextOpenMs = i + 1 < bars.n ? t[i + 1] : t[i] + bars.stepMs
    if (useHours && hourBlocked[Math.floor(nextOpenMs / HOUR_MS) % 24] === 1) {
      out[i] = 0
      continue
    }
    if (useMonths) {
      const day = Math.floor(nextOpenMs / DAY_MS)
      if (day !== cachedDay) {
        cachedDay = day
        cachedMonth = monthOfDay(day)
      }
      if (monthBlocked[cachedMonth] === 1) out[i] = 0
    }
  }
  return out
}
