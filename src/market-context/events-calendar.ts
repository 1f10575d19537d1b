/**
 * The scheduled macro events of assets/macro-events.json (FOMC decisions, CPI releases),
 * converted from US Eastern time to UTC. The file names its sources; CPI dates stay
 * `confirmed: false` until someone has checked them against the BLS schedule.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ASSETS_DIR } from '../paths'
import { HOUR_MS, parseDay } from '../time'

export const EVENTS_FILE = join(ASSETS_DIR, 'macro-events.json')

export interface MacroEvent {
  kind: string
  name: string
  /** release / decision time, epoch ms UTC */
  atMs: number
  /** whether the date was checked against the publisher's own schedule */
  confirmed: boolean
  /** who publishes the schedule */
  source: string
}

interface EventsFile {
  sources: Record<string, { name: string; confirmed: boolean }>
  events: { kind: string; name: string; date: string; time_et: string }[]
}

export class EventsCalendarError extends Error {}

/** Read and check the events file; a bad entry stops start-up with the entry named. */
export function loadEventsCalendar(path = EVENTS_FILE): MacroEvent[] {
  const file = JSON.parse(readFileSync(path, 'utf8')) as EventsFile
  if (!Array.isArray(file.events) || typeof file.sources !== 'object') throw new EventsCalendarError(`${path}: expected {sources, events[]}`)
  return file.events
    .map((e, i) => {
      const src = file.sources[e.kind]
      if (!src) throw new EventsCalendarError(`${path}: events[${i}] has kind "${e.kind}" with no entry in sources`)
      if (parseDay(e.date) === null || !/^\d{2}:\d{2}$/.test(e.time_et)) throw new EventsCalendarError(`${path}: events[${i}] needs date YYYY-MM-DD and time_et HH:MM`)
      return { kind: e.kind, name: e.name, atMs: easternToUtcMs(e.date, e.time_et), confirmed: src.confirmed === true, source: src.name }
    })
    .sort((a, b) => a.atMs - b.atMs)
}

/** Events at or after `nowMs`, soonest first, at most `limit`. */
export function upcomingEvents(events: readonly MacroEvent[], nowMs: number, limit = 10): MacroEvent[] {
  return events.filter(e => e.atMs >= nowMs).slice(0, limit)
}

const EASTERN = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', timeZoneName: 'shortOffset' })

/** Wall-clock time in America/New_York -> epoch ms (DST by the tz database). */
export function easternToUtcMs(date: string, hhmm: string): number {
  const [y, m, d] = date.split('-').map(Number)
  const [hh, mm] = hhmm.split(':').map(Number)
  const wallAsUtc = Date.UTC(y, m - 1, d, hh, mm)
  // the offset at the standard-time guess; a release at 08:30 or 14:00 never falls in the 02:00 switch hour
  const offsetH = offsetHours(wallAsUtc + 5 * HOUR_MS)
  return wallAsUtc - offsetH * HOUR_MS
}

function offsetHours(tMs: number): number {
  const name = EASTERN.formatToParts(new Date(tMs)).find(p => p.type === 'timeZoneName')?.value ?? 'GMT-5'
  const m = /GMT([+-]\d+)/.exec(name)
  return m ? Number(m[1]) : 0
}
