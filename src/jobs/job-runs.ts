/**
 * The job_runs table: a slot is claimed by inserting its row, and the row then records the
 * run's outcome. Several processes sharing one database claim each slot once: the second
 * insert of (slot, attempt) hits the unique key and changes nothing.
 */
import { and, desc, eq, sql } from 'drizzle-orm'
import { schema, type Db } from '../db'

export type JobTrigger = 'schedule' | 'catch-up' | 'retry' | 'manual'
export type JobOutcome = 'ok' | 'failed' | 'skipped'

export interface JobRunRow {
  id: number
  job: string
  slot: string
  attempt: number
  trigger: JobTrigger
  slotMs: number
  startedAtMs: number
  finishedAtMs: number | null
  /** null while the run is in progress */
  outcome: JobOutcome | null
  error: string | null
  counts: Record<string, number> | null
}

const rowOf = (r: typeof schema.jobRuns.$inferSelect): JobRunRow => ({
  ...r,
  trigger: r.trigger as JobTrigger,
  outcome: r.outcome as JobOutcome | null,
})

export class JobRuns {
  constructor(private readonly db: Db) {}

  /**
   * Claim `slot` at `attempt`: true when this caller inserted the row (and so owns the
   * run), false when another claimer got there first.
   */
  claim(v: { job: string; slot: string; attempt: number; trigger: JobTrigger; slotMs: number; startedAtMs: number }): number | null {
    const res = this.db.insert(schema.jobRuns).values(v).onConflictDoNothing().returning({ id: schema.jobRuns.id }).all()
    return res.length === 1 ? res[0].id : null
  }

  finish(id: number, v: { finishedAtMs: number; outcome: JobOutcome; error: string | null; counts: Record<string, number> | null }): void {
    this.db.update(schema.jobRuns).set(v).where(eq(schema.jobRuns.id, id)).run()
  }

  /** Highest attempt recorded for a slot (0 when none). */
  lastAttempt(slot: string): number {
    const r = this.db.select({ a: sql<number | null>`max(${schema.jobRuns.attempt})` }).from(schema.jobRuns).where(eq(schema.jobRuns.slot, slot)).get()
    return r?.a ?? 0
  }

  /**
   * Slots of a job (slot instant >= sinceMs) that need no further run: finished ok or
   * skipped, or still running and started after `staleBeforeMs` (an older unfinished row
   * belongs to a process that died mid-run, and its slot is run again).
   */
  doneSlots(job: string, sinceMs: number, staleBeforeMs: number): Set<string> {
    const rows = this.db
      .select({ slot: schema.jobRuns.slot })
      .from(schema.jobRuns)
      .where(
        and(
          eq(schema.jobRuns.job, job),
          sql`${schema.jobRuns.slotMs} >= ${sinceMs}`,
          sql`(${schema.jobRuns.outcome} in ('ok', 'skipped') or (${schema.jobRuns.outcome} is null and ${schema.jobRuns.startedAtMs} >= ${staleBeforeMs}))`,
        ),
      )
      .all()
    return new Set(rows.map(r => r.slot))
  }

  /** The newest runs of a job, newest first. */
  recent(job: string, limit = 10): JobRunRow[] {
    return this.db.select().from(schema.jobRuns).where(eq(schema.jobRuns.job, job)).orderBy(desc(schema.jobRuns.slotMs), desc(schema.jobRuns.attempt)).limit(limit).all().map(rowOf)
  }

  bySlot(slot: string): JobRunRow[] {
    return this.db.select().from(schema.jobRuns).where(eq(schema.jobRuns.slot, slot)).orderBy(schema.jobRuns.attempt).all().map(rowOf)
  }
}
