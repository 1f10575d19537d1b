/** UTC calendar arithmetic without Date objects (hot loops over bars and trades). */
import { DAY_MS } from '../market/types'

/**
 * year × 100 + month (1–12) of a day number (days since 1970-01-01), by Howard Hinnant's
 * civil_from_days, valid for any proleptic Gregorian date.
 */
export function yearMonthOfDay(day: number): number {
  const z = day + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const month = mp < 10 ? mp + 3 : mp - 9
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0)
  return year * 100 + month
}

/** Month 1–12 (UTC) of a day number. */
export function monthOfDay(day: number): number {
  return yearMonthOfDay(day) % 100
}

/** year × 100 + month (UTC) of an instant in ms. */
export function yearMonthOfMs(tMs: number): number {
  return yearMonthOfDay(Math.floor(tMs / DAY_MS))
}
