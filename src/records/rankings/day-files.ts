/**
 * The published day files: one canonical JSON document per ranking date, stored once with
 * its sha256 in ranking_day_files (triggers reject UPDATE and DELETE). Readers get the
 * exact stored bytes; parsed files are kept in memory (they never change).
 */
import { createHash } from 'node:crypto'
import { count, desc, eq, lte } from 'drizzle-orm'
import type { Db } from '../../db'
import { isoInstant } from '../../time'
import { canonicalJsonLikeStringify } from '../../engine/canonical-json'
import { appendEvents, type NewEvent } from '../events'
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
  return { kind: 'ranking', payload: { date: file.date, sha256, schema_version: file.schema_version, url, generated_at: isoInstant(generatedAtMs) } }
}

export const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex')

export class DayFiles {
  private readonly parsed = new Map<string, StoredDayFile>()

  constructor(private readonly db: Db) {}

  /**
   * Publish a day file: canonical JSON and its sha256 in one insert (atomic). Returns false
   * when that date is already published (the stored file is never replaced).
   */
  async publish(file: DayFile, generatedAtMs: number): Promise<{ published: boolean; sha256: string }> {
    // the form every published day file has been written in (docs/canonical-json.md), so
    // all files stay one form; a NaN figure is written null, as before, not a failed day
    const body = canonicalJsonLikeStringify(file)
    const sha256 = sha256Hex(body)
    const t = this.db.t.rankingDayFiles
    const res = await this.db.tx(async tx => {
      const rows = await tx.orm.insert(t).values({ date: file.date, sha256, body, schemaVersion: file.schema_version, generatedAtMs }).onConflictDoNothing().returning({ date: t.date })
      if (rows.length === 1) await appendEvents(tx, generatedAtMs, [rankingEvent(file, sha256, generatedAtMs)])
      return rows
    })
    return { published: res.length === 1, sha256 }
  }

  async get(date: string): Promise<StoredDayFile | null> {
    const hit = this.parsed.get(date)
    if (hit) {
      this.parsed.delete(date)
      this.parsed.set(date, hit)
      return hit
    }
    const t = this.db.t.rankingDayFiles
    const row = (await this.db.orm.select({ date: t.date, sha256: t.sha256, body: t.body }).from(t).where(eq(t.date, date)))[0]
    if (!row) return null
    const stored = { ...row, file: JSON.parse(row.body) as DayFile }
    this.parsed.set(date, stored)
    // a parsed file weighs a few MB: keep the week the job and the readers use most
    while (this.parsed.size > PARSED_FILES_KEPT) this.parsed.delete(this.parsed.keys().next().value!)
    return stored
  }

  /** The newest published date on or before `date` (null: none). */
  async latestOnOrBefore(date: string): Promise<string | null> {
    const t = this.db.t.rankingDayFiles
    return (await this.db.orm.select({ date: t.date }).from(t).where(lte(t.date, date)).orderBy(desc(t.date)).limit(1))[0]?.date ?? null
  }

  async latest(): Promise<string | null> {
    const t = this.db.t.rankingDayFiles
    return (await this.db.orm.select({ date: t.date }).from(t).orderBy(desc(t.date)).limit(1))[0]?.date ?? null
  }

  async count(): Promise<number> {
    return (await this.db.orm.select({ n: count() }).from(this.db.t.rankingDayFiles))[0]?.n ?? 0
  }
}
