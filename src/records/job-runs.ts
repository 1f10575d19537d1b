/**
 * The job_runs table: a slot is claimed by inserting its row, and the row then records the
 * run's outcome. Several processes sharing one database claim each slot once: the claim
 * reads the slot's rows and inserts the next attempt in one IMMEDIATE transaction (one
 * writer at a time), and (slot, attempt) is unique besides. An unfinished row of a runner
 * that died (src/jobs/run-owner.ts) is finished as failed in the claim's transaction.
 */
import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import { schema, type Db } from '../db'

/** Who runs a claimed slot: the scheduler's identity written into its rows (src/jobs/run-owner.ts). */
export interface RunOwner {
  host: string
  pid: number
  instance: string
}

export const describeOwner = (row: Pick<JobRunRow, 'ownerHost' | 'ownerPid'>): string =>
  row.ownerHost === null ? 'an unknown process' : `pid ${row.ownerPid} on ${row.ownerHost}`

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
  /** the claiming scheduler (null on rows before migration 0009) */
  ownerHost: string | null
  ownerPid: number | null
  ownerInstance: string | null
  /** last sign of life of the run while in progress (clock ms; null before migration 0009) */
  heartbeatMs: number | null
}

export type Claim =
  | { kind: 'claimed'; row: JobRunRow; abandoned: JobRunRow[] }
  /** a run finished the slot ok or skipped */
  | { kind: 'done' }
  /** a live run holds the slot */
  | { kind: 'held'; by: JobRunRow }

export const ABANDONED = 'abandoned: the process that ran it died'

const rowOf = (r: typeof schema.jobRuns.$inferSelect): JobRunRow => ({
  ...r,
  trigger: r.trigger as JobTrigger,
  outcome: r.outcome as JobOutcome | null,
})

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]

function markAbandoned(tx: Tx, rows: JobRunRow[], nowMs: number): void {
  for (const r of rows) {
    const error = `${ABANDONED} (${describeOwner(r)}, last seen ${new Date(r.heartbeatMs ?? r.startedAtMs).toISOString()})`
    tx.update(schema.jobRuns).set({ outcome: 'failed', error, finishedAtMs: nowMs }).where(and(eq(schema.jobRuns.id, r.id), isNull(schema.jobRuns.outcome))).run()
  }
}

export class JobRuns {
  constructor(private readonly db: Db) {}

  /**
   * Claim `slot` as its next attempt. Unless `manual`, nothing is claimed when a run
   * finished the slot ok or skipped ('done') or a live run holds it ('held'). Unfinished rows
   * that `isAbandoned` are finished as failed in the same transaction, so job_runs never
   * shows a dead run as running and the slot's new attempt is the only one in progress.
   */
  claim(
    v: { job: string; slot: string; trigger: JobTrigger; slotMs: number; startedAtMs: number; owner: RunOwner },
    o: { manual: boolean; isAbandoned(row: JobRunRow): boolean },
  ): Claim {
    return this.db.transaction(
      tx => {
        const rows = tx.select().from(schema.jobRuns).where(eq(schema.jobRuns.slot, v.slot)).all().map(rowOf)
        if (!o.manual && rows.some(r => r.outcome === 'ok' || r.outcome === 'skipped')) return { kind: 'done' } as const
        const unfinished = rows.filter(r => r.outcome === null)
        const abandoned = unfinished.filter(r => o.isAbandoned(r))
        markAbandoned(tx, abandoned, v.startedAtMs)
        const live = unfinished.find(r => !abandoned.includes(r))
        if (!o.manual && live) return { kind: 'held', by: live } as const
        const attempt = Math.max(0, ...rows.map(r => r.attempt)) + 1
        const { owner, ...rest } = v
        const row = tx
          .insert(schema.jobRuns)
          .values({ ...rest, attempt, ownerHost: owner.host, ownerPid: owner.pid, ownerInstance: owner.instance, heartbeatMs: v.startedAtMs })
          .returning()
          .get()
        return { kind: 'claimed', row: rowOf(row), abandoned: abandoned.map(r => ({ ...r, outcome: 'failed' as const })) } as const
      },
      { behavior: 'immediate' },
    )
  }

  /**
   * Finish every unfinished row of `job` whose runner is gone as abandoned (at start-up:
   * also slots outside the catch-up window, which no claim will look at again, then stop
   * showing as running). Returns the rows finished.
   */
  abandonDead(job: string, nowMs: number, isAbandoned: (row: JobRunRow) => boolean): JobRunRow[] {
    return this.db.transaction(
      tx => {
        const rows = tx.select().from(schema.jobRuns).where(and(eq(schema.jobRuns.job, job), isNull(schema.jobRuns.outcome))).all().map(rowOf).filter(isAbandoned)
        markAbandoned(tx, rows, nowMs)
        return rows
      },
      { behavior: 'immediate' },
    )
  }

  /** A sign of life of a run in progress; false when the row is no longer unfinished. */
  heartbeat(id: number, nowMs: number): boolean {
    return this.db.update(schema.jobRuns).set({ heartbeatMs: nowMs }).where(and(eq(schema.jobRuns.id, id), isNull(schema.jobRuns.outcome))).returning({ id: schema.jobRuns.id }).all().length === 1
  }

  finish(id: number, v: { finishedAtMs: number; outcome: JobOutcome; error: string | null; counts: Record<string, number> | null }): void {
    this.db.update(schema.jobRuns).set(v).where(eq(schema.jobRuns.id, id)).run()
  }

  /** Slots of a job (slot instant >= sinceMs) that a run finished ok or skipped. */
  doneSlots(job: string, sinceMs: number): Set<string> {
    const rows = this.db
      .select({ slot: schema.jobRuns.slot })
      .from(schema.jobRuns)
      .where(and(eq(schema.jobRuns.job, job), sql`${schema.jobRuns.slotMs} >= ${sinceMs}`, sql`${schema.jobRuns.outcome} in ('ok', 'skipped')`))
      .all()
    return new Set(rows.map(r => r.slot))
  }

  /** The newest runs of a job, newest first. */
  recent(job: string, limit = 10): JobRunRow[] {
    return this.db.select().from(schema.jobRuns).where(eq(schema.jobRuns.job, job)).orderBy(desc(schema.jobRuns.slotMs), desc(schema.jobRuns.attempt)).limit(limit).all().map(rowOf)
  }

  /**
   * Runs per job and outcome (null: in progress) with their summed duration, for /metrics;
   * empty when the table does not exist (a database the scheduler never opened).
   */
  summary(): { job: string; outcome: string | null; n: number; ms: number }[] {
    const client = this.db.$client
    const has = client.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'job_runs'").get()
    if (!has) return []
    return client
      .query('SELECT job, outcome, count(*) AS n, coalesce(sum(finished_at_ms - started_at_ms), 0) AS ms FROM job_runs GROUP BY job, outcome')
      .all() as { job: string; outcome: string | null; n: number; ms: number }[]
  }

  bySlot(slot: string): JobRunRow[] {
    return this.db.select().from(schema.jobRuns).where(eq(schema.jobRuns.slot, slot)).orderBy(schema.jobRuns.attempt).all().map(rowOf)
  }
}
