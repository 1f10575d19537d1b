/** UTC calendar arithmetic without Date objects (hot loops over bars and trades). */
import { DAY_MS } from '../time'

/** Days per year for annualising daily figures: crypto trades every calendar day (docs/metrics.md). */
export const DAYS_PER_YEAR = 365

/** Day number (days since 1970-01-01) of a proleptic Gregorian date (Hinnant's days_from_civil). */
export function dayOfCivil(year: number, month: number, dayOfMonth: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + dayOfMonth - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

// the month of the last lookup, as a day range: trades and bars come roughly in time
// order, so most lookups fall in the same month and skip the arithmetic
let cachedFromDay = 1
let cachedToDay = 0
let cachedYearMonth = 0

/** year × 100 + month (1–12) of a day number (days since 1970-01-01). */
export function yearMonthOfDay(day: number): number {
  if (day >= cachedFromDay && day < cachedToDay) return cachedYearMonth
  const ym = civilYearMonth(day)
  const year = Math.floor(ym / 100)
  const month = ym % 100
  cachedFromDay = dayOfCivil(year, month, 1)
  cachedToDay = month === 12 ? dayOfCivil(year + 1, 1, 1) : dayOfCivil(year, month + 1, 1)
  cachedYearMonth = ym
  return ym
}

/** year × 100 + month by Howard Hinnant's civil_from_days (any proleptic Gregorian date). */
function civilYearMonth(day: number): number {
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
