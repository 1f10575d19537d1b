/**
 * Time units and the API's written forms of days and instants (docs/api.md "Dates and
 * instants"). Pure and import-free: it sits below the engine, so every layer may use it.
 */

export const MINUTE_MS = 60_000
export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000

/**
 * Each day's `YYYY-MM-DD` once written, by day number: a run answer writes the same few
 * hundred days thousands of times (its curves and trades), and Date's formatting was about
 * 1.4 ms of a warm answer's main thread. Bounded: cleared past 65,536 days (179 years).
 */
const DAY_NAMES = new Map<number, string>()

/** 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z in seconds: outside, Date writes six-digit signed years (or throws, outside its range) */
const FIRST_YEAR_0000_S = -62_167_219_200
const FIRST_YEAR_10000_S = 253_402_300_800

/** The UTC day of an instant, `YYYY-MM-DD`. */
export const isoDay = (ms: number): string => {
  // a Date drops a fraction of a millisecond toward zero (TimeClip), then its day is floored
  const t = Math.trunc(ms)
  if (!(t >= FIRST_YEAR_0000_S * 1000 && t < FIRST_YEAR_10000_S * 1000)) return new Date(ms).toISOString().slice(0, 10)
  const d = Math.floor(t / DAY_MS)
  let name = DAY_NAMES.get(d)
  if (name === undefined) {
    name = new Date(d * DAY_MS).toISOString().slice(0, 10)
    if (DAY_NAMES.size >= 65_536) DAY_NAMES.clear()
    DAY_NAMES.set(d, name)
  }
  return name
}

/** `n` (0-99) in two digits */
const two = (n: number): string => (n < 10 ? '0' : '') + n

/** The UTC day of an instant, `YYYYMMDD` (the form of path and query dates). */
export const compactDay = (ms: number): string => isoDay(ms).replaceAll('-', '')

/**
 * Each instant's name once written, by second: a run answer's thousand trades write their
 * entry and exit instants, which fall on the same hours run after run; a name made anew is
 * a string of eight pieces that its first reader (the response check) then copies into one.
 * Bounded: cleared past 65,536 instants (7.5 years of hours).
 */
const INSTANT_NAMES = new Map<number, string>()

/**
 * An instant as the API writes it: ISO 8601 UTC with `Z`, whole seconds
 * (`2026-03-15T00:00:00Z`); a fraction of a second is dropped (floored), never rounded up.
 */
export const isoInstant = (ms: number): string => {
  const s = Math.floor(ms / 1000)
  if (!(s >= FIRST_YEAR_0000_S && s < FIRST_YEAR_10000_S)) return new Date(s * 1000).toISOString().slice(0, 19) + 'Z'
  let name = INSTANT_NAMES.get(s)
  if (name === undefined) {
    // its day's name, then the time of day by arithmetic (floored, so an instant before 1970 counts from its own midnight)
    const ofDay = s - Math.floor(s / 86_400) * 86_400
    name = `${isoDay(s * 1000)}T${two(Math.floor(ofDay / 3600))}:${two(Math.floor(ofDay / 60) % 60)}:${two(ofDay % 60)}Z`
    if (INSTANT_NAMES.size >= 65_536) INSTANT_NAMES.clear()
    INSTANT_NAMES.set(s, name)
  }
  return name
}

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

/**
 * Year, month and day name a real calendar day: checked by arithmetic, not by a round trip
 * through Date (this also checks every `date` of a response: thousands per run answer).
 * Date.UTC rolls 2026-02-30 over to March and reads years 0-99 as 1900-1999, so neither is
 * a day here.
 */
const isCalendarDay = (y: number, mo: number, d: number): boolean =>
  y >= 100 && mo >= 1 && mo <= 12 && d >= 1 && d <= (mo === 2 && isLeap(y) ? 29 : DAYS_IN_MONTH[mo - 1])

function dayMs(m: RegExpExecArray | null): number | null {
  if (!m) return null
  const y = Number(m[1])
  const mo = Number(m[2])
  const d = Number(m[3])
  return isCalendarDay(y, mo, d) ? Date.UTC(y, mo - 1, d) : null
}

/** The number written by the ASCII digits of `s` from `from` to `to`; -1 if any is not one. */
function digitsAt(s: string, from: number, to: number): number {
  let n = 0
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48
    if (c < 0 || c > 9) return -1
    n = n * 10 + c
  }
  return n
}

/** `YYYY-MM-DD` of a real calendar day at the start of `s`, read by char code (no match object, no Date). */
const dayAtStart = (s: string): boolean =>
  s.charCodeAt(4) === 45 && s.charCodeAt(7) === 45 && isCalendarDay(digitsAt(s, 0, 4), digitsAt(s, 5, 7), digitsAt(s, 8, 10))

/**
 * `parseDay(s) !== null` without the instant: the check of the `date` format, which a run
 * answer's three daily curves call about 2,000 times.
 */
export const isDay = (s: string): boolean => s.length === 10 && dayAtStart(s)

/**
 * `s` is an instant exactly as `isoInstant` writes it (`2026-03-15T00:00:00Z`: a real
 * calendar day, hours 00-23, minutes and seconds 00-59): the fast acceptance of the
 * `date-time` format, which a run answer's trades call about 2,000 times.
 */
export const isIsoInstant = (s: string): boolean =>
  s.length === 20 &&
  dayAtStart(s) &&
  s.charCodeAt(10) === 84 && // T
  s.charCodeAt(13) === 58 && // :
  s.charCodeAt(16) === 58 &&
  s.charCodeAt(19) === 90 && // Z
  digitsAt(s, 11, 13) >= 0 &&
  digitsAt(s, 11, 13) <= 23 &&
  digitsAt(s, 14, 16) >= 0 &&
  digitsAt(s, 14, 16) <= 59 &&
  digitsAt(s, 17, 19) >= 0 &&
  digitsAt(s, 17, 19) <= 59

/** `YYYY-MM-DD` of a real calendar day → its 00:00 UTC in ms; null for any other string. */
export const parseDay = (s: string): number | null => dayMs(DAY_RE.exec(s))

/** `YYYYMMDD` of a real calendar day → its 00:00 UTC in ms; null for any other string. */
export const parseCompactDay = (s: string): number | null => dayMs(COMPACT_DAY_RE.exec(s))
