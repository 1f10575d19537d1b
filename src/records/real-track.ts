/**
 * The anonymized real-money NAV track (real_track): imported from a CSV by `cli realtrack
 * import` (src/cli-trust.ts), read by /trust/real-track. A time already stored keeps its value.
 */
import { asc } from 'drizzle-orm'
import type { realTrack } from '../../db/schema'
import type { Db, Queryable } from '../db'

/** Every NAV point, oldest first. */
export async function realTrackRows(db: Queryable): Promise<(typeof realTrack.$inferSelect)[]> {
  const { realTrack } = db.t
  return db.orm.select().from(realTrack).orderBy(asc(realTrack.tMs))
}

/** Parse a NAV CSV: header with a time column (t, time, timestamp or date) and `nav`; other columns (bot or session ids) are dropped. */
export function parseNavCsv(text: string): { rows: { tMs: number; nav: number }[]; errors: string[] } {
  const lines = text.split(/\r?\n/).filter(l => l.trim() !== '')
  const errors: string[] = []
  if (lines.length === 0) return { rows: [], errors: ['empty file'] }
  const header = lines[0]!.split(',').map(h => h.trim().toLowerCase())
  const ti = header.findIndex(h => ['t', 'time', 'timestamp', 'date'].includes(h))
  const ni = header.indexOf('nav')
  if (ti < 0 || ni < 0) return { rows: [], errors: [`header needs a time column (t, time, timestamp or date) and nav; got: ${lines[0]}`] }
  const rows: { tMs: number; nav: number }[] = []
  lines.slice(1).forEach((line, k) => {
    const cells = line.split(',').map(c => c.trim())
    const rawT = cells[ti] ?? ''
    const tMs = /^\d+(\.\d+)?$/.test(rawT) ? (Number(rawT) < 1e11 ? Number(rawT) * 1000 : Number(rawT)) : Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(rawT) || rawT.length <= 10 ? rawT : `${rawT}Z`)
    const nav = Number(cells[ni])
    if (!Number.isFinite(tMs) || !Number.isFinite(nav) || cells[ni] === '') errors.push(`line ${k + 2}: ${line}`)
    else rows.push({ tMs, nav })
  })
  return { rows, errors }
}

/** Insert NAV points; a time already present keeps its stored value. Returns how many were new. */
export async function importNav(db: Db, rows: { tMs: number; nav: number }[], nowMs: number): Promise<number> {
  const { realTrack } = db.t
  let added = 0
  await db.tx(async tx => {
    for (const r of rows) added += (await tx.orm.insert(realTrack).values({ ...r, importedAtMs: nowMs }).onConflictDoNothing().returning({ t: realTrack.tMs })).length
  })
  return added
}
