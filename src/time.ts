/**
 * Time units and the API's written forms of days and instants (docs/api.md "Dates and
 * instants"). Pure and import-free: it sits below the engine, so every layer may use it.
 */

export const MINUTE_MS = 60_000
export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000

/** The UTC day of an instant, `YYYY-MM-DD`. */
export const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

/** The UTC day of an instant, `YYYYMMDD` (the form of path and query dates). */
export const compactDay = (ms: number): string => isoDay(ms).replaceAll('-', '')

/**
 * An instant as the API writes it: ISO 8601 UTC with `Z`, whole seconds
 * (`2026-03-15T00:00:00Z`); a fraction of a second is dropped (floored), never rounded up.
 */
export const isoInstant = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19) + 'Z'

/**
 * The contract's "ISO 8601 timestamp without zone" (a signal's `signal_time`), meaning
 * UTC, whole seconds: `2026-03-15T00:00:00`.
 */
export const isoNoZone = (ms: number): string => isoInstant(ms).slice(0, 19)

/**
 * The instant form of records already sealed as Merkle leaves (scored signals, paper
 * trades): ISO 8601 UTC with `Z`, milliseconds written only when they are not zero. Those
 * records are served exactly as their leaves hold them, so this form stays theirs.
 */
export const isoRecordInstant = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z')

const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/
const COMPACT_DAY_RE = /^(\d{4})(\d{2})(\d{2})$/

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
const isLeap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)

function dayMs(m: RegExpExecArray | null): number | null {
  if (!m) return null
  const y = Number(m[1])
  const mo = Number(m[2])
  const d = Number(m[3])
  // checked by arithmetic, not by a round trip through Date (this also checks every `date`
  // of a response: thousands per run answer). Date.UTC rolls 2026-02-30 over to March and
  // reads years 0-99 as 1900-1999, so neither is a day here.
  if (y < 100 || mo < 1 || mo > 12 || d < 1 || d > (mo === 2 && isLeap(y) ? 29 : DAYS_IN_MONTH[mo - 1])) return null
  return Date.UTC(y, mo - 1, d)
}

/** `YYYY-MM-DD` of a real calendar day → its 00:00 UTC in ms; null for any other string. */
export const parseDay = (s: string): number | null => dayMs(DAY_RE.exec(s))

/** `YYYYMMDD` of a real calendar day → its 00:00 UTC in ms; null for any other string. */
export const parseCompactDay = (s: string): number | null => dayMs(COMPACT_DAY_RE.exec(s))
