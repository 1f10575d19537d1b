/**
 * The folds of a walk-forward optimisation over whole UTC days: each fold's in-sample part,
 * the purge gap after it, and its out-of-sample part, the out-of-sample parts following one
 * another without overlap from the first possible day. Anchored: every in-sample part starts
 * on the first day; rolling: it is the `inSampleDays` days before the purge gap.
 * docs/statistics.md, "Walk-forward optimisation".
 */
import { DAY_MS } from '../time'

export interface FoldPlan {
  mode: 'anchored' | 'rolling'
  inSampleDays: number
  outOfSampleDays: number
  folds: number
  purgeDays: number
}

/** Day starts (UTC midnight, ms); `to` days are inclusive. */
export interface FoldWindow {
  inSampleFromMs: number
  inSampleToMs: number
  outOfSampleFromMs: number
  outOfSampleToMs: number
}

/** Days the plan needs: in-sample + purge + folds × out-of-sample. */
export const daysNeeded = (p: FoldPlan): number => p.inSampleDays + p.purgeDays + p.folds * p.outOfSampleDays

/** The folds over the days firstDayMs … lastDayMs (inclusive); null when they do not fit. */
export function foldWindows(p: FoldPlan, firstDayMs: number, lastDayMs: number): FoldWindow[] | null {
  const days = Math.round((lastDayMs - firstDayMs) / DAY_MS) + 1
  if (daysNeeded(p) > days) return null
  const out: FoldWindow[] = []
  for (let k = 0; k < p.folds; k++) {
    const oosFrom = firstDayMs + (p.inSampleDays + p.purgeDays + k * p.outOfSampleDays) * DAY_MS
    const isTo = oosFrom - (p.purgeDays + 1) * DAY_MS
    const isFrom = p.mode === 'anchored' ? firstDayMs : isTo - (p.inSampleDays - 1) * DAY_MS
    out.push({ inSampleFromMs: isFrom, inSampleToMs: isTo, outOfSampleFromMs: oosFrom, outOfSampleToMs: oosFrom + (p.outOfSampleDays - 1) * DAY_MS })
  }
  return out
}
