/**
 * The job_runs table: a slot is claimed by inserting its row, and the row then records the
 * run's outcome. Several processes sharing one database claim each slot once: the claim
 * reads the slot's rows and inserts the next attempt in one transaction that holds the
 * slot's lock from the read to the commit (SQLite: an IMMEDIATE transaction, one writer at
 * a time; Postgres: `pg_advisory_xact_lock` on the slot's hash, so two claimers of one slot
 * take turns and the second reads the first's row), and (slot, attempt) is unique besides.
 * An unfinished row of a runner that died (src/jobs/run-owner.ts) is finished as failed in
 * the claim's transaction.
 */
import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import { lockUntilCommit, schema, type Db, type Queryable } from '../db'

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

async function markAbandoned(tx: Queryable, rows: JobRunRow[], nowMs: number): Promise<void> {
  const t = tx.t.jobRuns
  for (const r of rows) {
    const error = `${ABANDONED} (${describeOwner(r)}, last seen ${new Date(r.heartbeatMs ?? r.startedAtMs).toISOString()})`
    await tx.orm.update(t).set({ outcome: 'failed', error, finishedAtMs: nowMs }).where(and(eq(t.id, r.id), isNull(t.outcome)))
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
  ): Promise<Claim> {
    const t = this.db.t.jobRuns
    return this.db.tx(async (tx): Promise<Claim> => {
      await lockUntilCommit(tx, `job_runs:${v.slot}`)
      const rows = (await tx.orm.select().from(t).where(eq(t.slot, v.slot))).map(rowOf)
      if (!o.manual && rows.some(r => r.outcome === 'ok' || r.outcome === 'skipped')) return { kind: 'done' }
      const unfinished = rows.filter(r => r.outcome === null)
      const abandoned = unfinished.filter(r => o.isAbandoned(r))
      await markAbandoned(tx, abandoned, v.startedAtMs)
      const live = unfinished.find(r => !abandoned.includes(r))
      if (!o.manual && live) return { kind: 'held', by: live }
      const attempt = Math.max(0, ...rows.map(r => r.attempt)) + 1
      const { owner, ...rest } = v
      const row = (await tx.orm
        .insert(t)
        .values({ ...rest, attempt, ownerHost: owner.host, ownerPid: owner.pid, ownerInstance: owner.instance, heartbeatMs: v.startedAtMs })
        .returning())[0]!
      return { kind: 'claimed', row: rowOf(row), abandoned: abandoned.map(r => ({ ...r, outcome: 'failed' as const })) }
    })
  }

  /**
   * Finish every unfinished row of `job` whose runner is gone as abandoned (at start-up:
   * also slots outside the catch-up window, which no claim will look at again, then stop
   * showing as running). Returns the rows finished.
   */
  abandonDead(job: string, nowMs: number, isAbandoned: (row: JobRunRow) => boolean): Promise<JobRunRow[]> {
    const t = this.db.t.jobRuns
    return this.db.tx(async tx => {
      const rows = (await tx.orm.select().from(t).where(and(eq(t.job, job), isNull(t.outcome)))).map(rowOf).filter(isAbandoned)
      await markAbandoned(tx, rows, nowMs)
      return rows
    })
  }

  /** A sign of life of a run in progress; false when the row is no longer unfinished. */
  async heartbeat(id: number, nowMs: number): Promise<boolean> {
    const t = this.db.t.jobRuns
    return (await this.db.orm.update(t).set({ heartbeatMs: nowMs }).where(and(eq(t.id, id), isNull(t.outcome))).returning({ id: t.id })).length === 1
  }

  async finish(id: number, v: { finishedAtMs: number; outcome: JobOutcome; error: string | null; counts: Record<string, number> | null }): Promise<void> {
    const t = this.db.t.jobRuns
    await this.db.orm.update(t).set(v).where(eq(t.id, id))
  }

  /** Slots of a job (slot instant >= sinceMs) that a run finished ok or skipped. */
  async doneSlots(job: string, sinceMs: number): Promise<Set<string>> {
    const t = this.db.t.jobRuns
    const rows = await this.db.orm
      .select({ slot: t.slot })
      .from(t)
      .where(and(eq(t.job, job), sql`${t.slotMs} >= ${sinceMs}`, sql`${t.outcome} in ('ok', 'skipped')`))
    return new Set(rows.map(r => r.slot))
  }

  /** The newest runs of a job, newest first. */
  async recent(job: string, limit = 10): Promise<JobRunRow[]> {
    const t = this.db.t.jobRuns
    return (await this.db.orm.select().from(t).where(eq(t.job, job)).orderBy(desc(t.slotMs), desc(t.attempt)).limit(limit)).map(rowOf)
  }

  /**
   * Runs per job and outcome (null: in progress) with their summed duration, for /metrics.
   * (The table always exists: the database is migrated when it is opened.)
   */
  async summary(): Promise<{ job: string; outcome: string | null; n: number; ms: number }[]> {
    const rows = await this.db.rows<{ job: string; outcome: string | null; n: number | string; ms: number | string }>(
      sql`SELECT job, outcome, count(*) AS n, coalesce(sum(finished_at_ms - started_at_ms), 0) AS ms FROM job_runs GROUP BY job, outcome`,
    )
    // Postgres sends count(*) and a bigint sum as strings
    return rows.map(r => ({ job: r.job, outcome: r.outcome, n: Number(r.n), ms: Number(r.ms) }))
  }

  async bySlot(slot: string): Promise<JobRunRow[]> {
    const t = this.db.t.jobRuns
    return (await this.db.orm.select().from(t).where(eq(t.slot, slot)).orderBy(t.attempt)).map(rowOf)
  }
}
