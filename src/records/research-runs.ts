/**
 * The research runs (sweeps and walk-forward runs) and their ledger of trials
 * (db/schema.ts `research_runs`, `research_trials`; docs/api-research.md, "Sweeps").
 * Written by the sweeps' runner while a run goes, read by its routes. A trial, once written,
 * is never changed; a run is changed only while it runs (triggers, migration
 * 0016_research_sweeps_triggers). Every query goes through the records' Db (src/db.ts): the
 * dialect's tables, awaited, on SQLite or Postgres.
 */
import { and, asc, count, desc, eq, inArray, isNull, ne, or, sql } from 'drizzle-orm'
import type { researchRuns, researchTrials } from '../../db/schema'
import type { Db, Queryable } from '../db'

export type ResearchKind = 'sweep' | 'walk_forward'
export type ResearchState = 'queued' | 'running' | 'done' | 'cancelled' | 'failed'
export const STOPPED_STATES: readonly ResearchState[] = ['done', 'cancelled', 'failed']
const LIVE_STATES: ResearchState[] = ['queued', 'running']

export type ResearchRunRow = typeof researchRuns.$inferSelect
export type TrialRow = typeof researchTrials.$inferSelect

export interface NewResearchRun {
  id: string
  kind: ResearchKind
  client: string
  request: unknown
  planned: number
  owner: string
  nowMs: number
}

export async function insertResearchRun(db: Db, r: NewResearchRun): Promise<void> {
  await db.orm.insert(db.t.researchRuns).values({
    id: r.id,
    kind: r.kind,
    client: r.client,
    request: JSON.stringify(r.request),
    state: 'queued',
    reason: null,
    planned: r.planned,
    finished: 0,
    createdAt: r.nowMs,
    owner: r.owner,
  })
}

export async function researchRun(db: Db, id: string): Promise<ResearchRunRow | null> {
  const rows = await db.orm.select().from(db.t.researchRuns).where(eq(db.t.researchRuns.id, id)).limit(1)
  return rows[0] ?? null
}

/** Runs of a client not yet stopped (the per-client limit). */
export async function liveRunsOf(db: Db, client: string): Promise<number> {
  const rows = await db.orm.select({ n: count() }).from(db.t.researchRuns).where(and(eq(db.t.researchRuns.client, client), inArray(db.t.researchRuns.state, LIVE_STATES)))
  return rows[0]?.n ?? 0
}

/** Runs not yet stopped, over every client (the service's limit). */
export async function liveRuns(db: Db): Promise<number> {
  const rows = await db.orm.select({ n: count() }).from(db.t.researchRuns).where(inArray(db.t.researchRuns.state, LIVE_STATES))
  return rows[0]?.n ?? 0
}

export async function markRunning(db: Db, id: string, nowMs: number): Promise<void> {
  await db.orm.update(db.t.researchRuns).set({ state: 'running', startedAt: nowMs }).where(and(eq(db.t.researchRuns.id, id), eq(db.t.researchRuns.state, 'queued')))
}

/**
 * Stop a run once: its final state, why, and its answer's computed parts. A run already
 * stopped is left as it is (false).
 */
export async function stopRun(db: Db, id: string, s: { state: 'done' | 'cancelled' | 'failed'; reason: string | null; result: unknown; nowMs: number }): Promise<boolean> {
  const rows = await db.orm
    .update(db.t.researchRuns)
    .set({ state: s.state, reason: s.reason, result: s.result === null ? null : JSON.stringify(s.result), finishedAt: s.nowMs })
    .where(and(eq(db.t.researchRuns.id, id), inArray(db.t.researchRuns.state, LIVE_STATES)))
    .returning({ id: db.t.researchRuns.id })
  return rows.length > 0
}

/** The answer so far of a run still running (a walk-forward's finished folds): replaced by the final one when it stops. */
export async function saveInterim(db: Db, id: string, result: unknown): Promise<void> {
  await db.orm.update(db.t.researchRuns).set({ result: JSON.stringify(result) }).where(and(eq(db.t.researchRuns.id, id), inArray(db.t.researchRuns.state, LIVE_STATES)))
}

/**
 * Runs left queued or running by a process that is gone (not `owner`): failed, "interrupted".
 * The server calls it once at start; with one API process per database nothing else runs them.
 */
export async function failInterrupted(db: Db, owner: string, nowMs: number, reason = 'failed: interrupted (the service stopped while it ran)'): Promise<number> {
  const rows = await db.orm
    .update(db.t.researchRuns)
    .set({ state: 'failed', reason, finishedAt: nowMs })
    .where(and(inArray(db.t.researchRuns.state, LIVE_STATES), or(ne(db.t.researchRuns.owner, owner), isNull(db.t.researchRuns.owner))))
    .returning({ id: db.t.researchRuns.id })
  return rows.length
}

export interface NewTrial {
  trial: number
  fold: number | null
  params: Record<string, number | string>
  metrics: Record<string, number | boolean | null>
  totalTrades: number
  objectiveValue: number | null
  requestHash: string
}

/**
 * Append finished trials to the ledger and count `progress` steps in the run's progress, in
 * one transaction: the ledger (n_trials is read from it) and the progress never disagree.
 */
export async function appendTrials(db: Db, runId: string, trials: readonly NewTrial[], progress: number, nowMs: number): Promise<void> {
  await db.tx(tx => appendTrialsIn(tx, runId, trials, progress, nowMs))
}

async function appendTrialsIn(db: Queryable, runId: string, trials: readonly NewTrial[], progress: number, nowMs: number): Promise<void> {
  if (trials.length)
    await db.orm.insert(db.t.researchTrials).values(
      trials.map(t => ({
        runId,
        trial: t.trial,
        fold: t.fold,
        params: JSON.stringify(t.params),
        metrics: JSON.stringify(t.metrics),
        totalTrades: t.totalTrades,
        objectiveValue: t.objectiveValue,
        requestHash: t.requestHash,
        createdAt: nowMs,
      })),
    )
  if (progress) await db.orm.update(db.t.researchRuns).set({ finished: sql`${db.t.researchRuns.finished} + ${progress}` }).where(eq(db.t.researchRuns.id, runId))
}

export async function trialCount(db: Db, runId: string): Promise<number> {
  const rows = await db.orm.select({ n: count() }).from(db.t.researchTrials).where(eq(db.t.researchTrials.runId, runId))
  return rows[0]?.n ?? 0
}

/** A page of the ledger: in trial order, or best objective first (trials without a value last, then by trial). */
export async function trialPage(db: Db, runId: string, p: { offset: number; limit: number; sort: 'trial' | 'objective' }): Promise<TrialRow[]> {
  const order =
    p.sort === 'objective'
      ? [sql`${db.t.researchTrials.objectiveValue} IS NULL`, desc(db.t.researchTrials.objectiveValue), asc(db.t.researchTrials.trial)]
      : [asc(db.t.researchTrials.trial)]
  return db.orm.select().from(db.t.researchTrials).where(eq(db.t.researchTrials.runId, runId)).orderBy(...order).limit(p.limit).offset(p.offset)
}

/** Trials after `afterTrial` in trial order (a stream's replay). */
export async function trialsAfter(db: Db, runId: string, afterTrial: number, limit: number): Promise<TrialRow[]> {
  return db.orm
    .select()
    .from(db.t.researchTrials)
    .where(and(eq(db.t.researchTrials.runId, runId), sql`${db.t.researchTrials.trial} > ${afterTrial}`))
    .orderBy(asc(db.t.researchTrials.trial))
    .limit(limit)
}

/** The trial with the highest objective (the earliest of equals); null when none has a value. */
export async function bestTrial(db: Db, runId: string, fold: number | null = null): Promise<TrialRow | null> {
  const rows = await db.orm
    .select()
    .from(db.t.researchTrials)
    .where(and(eq(db.t.researchTrials.runId, runId), sql`${db.t.researchTrials.objectiveValue} IS NOT NULL`, fold === null ? undefined : eq(db.t.researchTrials.fold, fold)))
    .orderBy(desc(db.t.researchTrials.objectiveValue), asc(db.t.researchTrials.trial))
    .limit(1)
  return rows[0] ?? null
}
