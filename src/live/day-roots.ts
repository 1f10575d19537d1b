/**
 * Day roots (docs/trust.md): seal every UTC day that is over and whose leaves are final,
 * oldest first, from the day of the first recorded signal. A day waits while a record
 * could still become final inside it: a signal of that day not scored yet, an open row
 * not marked through the day's end, an open paper position likewise. Days with no leaves
 * are sealed too (root null, leaf_count 0: evidence of no trades).
 */
import type { Clock } from '../clock'
import type { Db } from '../db'
import { DAY_MS } from '../time'
import { firstSignalTimeMs, scoringPendingBefore } from '../records/signals'
import type { Pause } from './signal-scan'
import { collectLeaves, dayKey, latestSealedDay, sealDay, dayStartOf, type LeafSource } from '../records/merkle-leaves'

export interface DayRootDeps {
  db: Db
  clock: Clock
  /** further leaf kinds (closed paper trades) */
  leafSources?: LeafSource[]
}

export interface SealReport {
  sealed: string[]
  /** the first day that is over but still waits for its records, or null */
  waiting: string | null
}

export async function sealDays(deps: DayRootDeps, pause: Pause = async () => {}): Promise<SealReport> {
  const now = deps.clock.now()
  const sources = deps.leafSources ?? []
  const report: SealReport = { sealed: [], waiting: null }
  const last = await latestSealedDay(deps.db)
  let dayMs: number
  if (last !== null) dayMs = dayStartOf(last)! + DAY_MS
  else {
    const first = await firstSignalTimeMs(deps.db)
    if (first === null) return report
    dayMs = Math.floor(first / DAY_MS) * DAY_MS
  }
  for (; dayMs + DAY_MS <= now; dayMs += DAY_MS) {
    const end = dayMs + DAY_MS
    if ((await scoringPendingBefore(deps.db, end)) || (await pendingInSources(deps.db, sources, end))) {
      report.waiting = dayKey(dayMs)
      break
    }
    const day = dayKey(dayMs)
    await sealDay(deps.db, day, await collectLeaves(deps.db, dayMs, end, sources), now)
    report.sealed.push(day)
    await pause()
  }
  return report
}

/** Whether a leaf source still has work before `dayEndMs` (asked in order, the first yes stops). */
async function pendingInSources(db: DayRootDeps['db'], sources: LeafSource[], dayEndMs: number): Promise<boolean> {
  for (const s of sources) if (await s.pendingBefore(db, dayEndMs)) return true
  return false
}
