/**
 * The published day files: one canonical JSON document per ranking date, stored once with
 * its sha256 in ranking_day_files (triggers reject UPDATE and DELETE). Readers get the
 * exact stored bytes; parsed files are kept in memory (they never change).
 */
import { createHash } from 'node:crypto'
import { desc, eq, lte, sql } from 'drizzle-orm'
import { schema, type Db } from '../../db'
import { canonicalJsonLikeStringify } from '../../engine/canonical-json'
import { appendEvents, type NewEvent } from '../events'
import { isoZ } from '../iso-time'
import type { Group, Period } from './configurations'
import type { RankedRow, WeeklyRow } from './rank'

export interface GroupRanking {
  /** the coins the rows ran on, in universe order */
  symbols: string[]
  top_n_requested: number | null
  eligible_universe: number | null
  /**
   * the first day of the period the group's candles cover: the period's start_date, or the
   * day of the coins' first candle when the store's history begins inside the period (a
   * "365d" ranking over six months of data says so here); null without coins. Absent
   * from files written before it existed.
   */
  data_start_date?: string | null
  rows: RankedRow[]
  weekly_best3: WeeklyRow[]
}

export interface DayFile {
  schema_version: string
  rules_version: string
  /** ranking date, YYYY-MM-DD */
  date: string
  generated_at: string
  /** what wrote it: the 00:30 schedule, a catch-up/backfill at start-up, or `cli jobs run` */
  written_by: 'schedule' | 'catch-up' | 'retry' | 'manual'
  engine_version: string
  data_version: string
  /** the day whose file supplied rank_change and streak (the previous calendar day), or null */
  previous_date: string | null
  rules: Record<string, unknown>
  periods: Record<Period, { start_date: string; end_date: string; groups: Record<Group, GroupRanking> }>
}

export interface StoredDayFile {
  date: string
  sha256: string
  body: string
  file: DayFile
}

/** parsed day files kept in memory per reader (least recently used dropped first) */
const PARSED_FILES_KEPT = 10

/**
 * The push feed's `ranking` event (docs/events.md): a day file as published, with the path
 * that serves its exact bytes (whose sha256 is `sha256`).
 */
function rankingEvent(file: DayFile, sha256: string, generatedAtMs: number): NewEvent {
  const url = `/rankings/files/${file.date.replaceAll('-', '')}`
  return { kind: 'ranking', payload: { date: file.date, sha256, schema_version: file.schema_version, url, generated_at: isoZ(generatedAtMs) } }
}

export const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex')

export class DayFiles {
  private readonly parsed = new Map<string, StoredDayFile>()

  constructor(private readonly db: Db) {}

  /**
   * Publish a day file: canonical JSON and its sha256 in one insert (atomic). Returns false
   * when that date is already published (the stored file is never replaced).
   */
  publish(file: DayFile, generatedAtMs: number): { published: boolean; sha256: string } {
    // the form every published day file has been written in (docs/canonical-json.md), so
    // all files stay one form; a NaN figure is written null, as before, not a failed day
    const body = canonicalJsonLikeStringify(file)
    const sha256 = sha256Hex(body)
    const res = this.db.transaction(tx => {
      const rows = tx
        .insert(schema.rankingDayFiles)
        .values({ date: file.date, sha256, body, schemaVersion: file.schema_version, generatedAtMs })
        .onConflictDoNothing()
        .returning({ date: schema.rankingDayFiles.date })
        .all()
      if (rows.length === 1) appendEvents(tx, generatedAtMs, [rankingEvent(file, sha256, generatedAtMs)])
      return rows
    })
    return { published: res.length === 1, sha256 }
  }

  get(date: string): StoredDayFile | null {
    const hit = this.parsed.get(date)
    if (hit) {
      this.parsed.delete(date)
      this.parsed.set(date, hit)
      return hit
    }
    const row = this.db.select({ date: schema.rankingDayFiles.date, sha256: schema.rankingDayFiles.sha256, body: schema.rankingDayFiles.body }).from(schema.rankingDayFiles).where(eq(schema.rankingDayFiles.date, date)).get()
    if (!row) return null
    const stored = { ...row, file: JSON.parse(row.body) as DayFile }
    this.parsed.set(date, stored)
    // a parsed file weighs a few MB: keep the week the job and the readers use most
    while (this.parsed.size > PARSED_FILES_KEPT) this.parsed.delete(this.parsed.keys().next().value!)
    return stored
  }

  /** The newest published date on or before `date` (null: none). */
  latestOnOrBefore(date: string): string | null {
    return this.db.select({ date: schema.rankingDayFiles.date }).from(schema.rankingDayFiles).where(lte(schema.rankingDayFiles.date, date)).orderBy(desc(schema.rankingDayFiles.date)).limit(1).get()?.date ?? null
  }

  latest(): string | null {
    return this.db.select({ date: schema.rankingDayFiles.date }).from(schema.rankingDayFiles).orderBy(desc(schema.rankingDayFiles.date)).limit(1).get()?.date ?? null
  }

  count(): number {
    return this.db.select({ n: sql<number>`count(*)` }).from(schema.rankingDayFiles).get()?.n ?? 0
  }
}
