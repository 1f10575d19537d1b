/** ISO 8601 weeks (Monday first; week 1 holds the year's first Thursday), in UTC. */
import { DAY_MS } from '../time'

/** `2026-W48` for any instant of that week */
export function isoWeek(tMs: number): string {
  const day = Math.floor(tMs / DAY_MS)
  const weekday = (new Date(day * DAY_MS).getUTCDay() + 6) % 7 // Monday 0
  const thursday = day - weekday + 3
  const year = new Date(thursday * DAY_MS).getUTCFullYear()
  const jan1 = Date.UTC(year, 0, 1) / DAY_MS
  return `${year}-W${String(Math.floor((thursday - jan1) / 7) + 1).padStart(2, '0')}`
}

/** Monday 00:00 UTC of the week holding tMs */
export function weekStartMs(tMs: number): number {
  const day = Math.floor(tMs / DAY_MS)
  return (day - ((new Date(day * DAY_MS).getUTCDay() + 6) % 7)) * DAY_MS
}
