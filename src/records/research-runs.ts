/**
 * The research runs (sweeps and walk-forward runs) and their ledger of trials
 * (db/schema.ts `research_runs`, `research_trials`; docs/api-research.md, "Sweeps").
 * Written by the sweeps' runner while a run goes, read by its routes. A trial, once written,
 * is never changed; a run is changed only while it runs (triggers, migration
 * 0016_research_sweeps_triggers). Every query awaits (SQLite today, Postgres too).
 */
import { and, asc, count, desc, eq, inArray, isNull, ne, or, sql } from 'drizzle-orm'
import { researchRuns, researchTrials } from '../../db/schema'
import type { Db } from '../db'

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
  await db.insert(researchRuns).values({
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
  const rows = await db.select().from(researchRuns).where(eq(researchRuns.id, id)).limit(1)
  return rows[0] ?? null
}

/** Runs of a client not yet stopped (the per-client limit). */
export async function liveRunsOf(db: Db, client: string): Promise<number> {
  const rows = await db.select({ n: count() }).from(researchRuns).where(and(eq(researchRuns.client, client), inArray(researchRuns.state, LIVE_STATES)))
  return rows[0]?.n ?? 0
}

/** Runs not yet stopped, over every client (the service's limit). */
export async function liveRuns(db: Db): Promise<number> {
  const rows = await db.select({ n: count() }).from(researchRuns).where(inArray(researchRuns.state, LIVE_STATES))
  return rows[0]?.n ?? 0
}

export async function markRunning(db: Db, id: string, nowMs: number): Promise<void> {
  await db.update(researchRuns).set({ state: 'running', startedAt: nowMs }).where(and(eq(researchRuns.id, id), eq(researchRuns.state, 'queued')))
}

/**
 * Stop a run once: its final state, why, and its answer's computed parts. A run already
 * stopped is left as it is (false).
 */
export async function stopRun(db: Db, id: string, s: { state: 'done' | 'cancelled' | 'failed'; reason: string | null; result: unknown; nowMs: number }): Promise<boolean> {
  const rows = await db
    .update(researchRuns)
    .set({ state: s.state, reason: s.reason, result: s.result === null ? null : JSON.stringify(s.result), finishedAt: s.nowMs })
    .where(and(eq(researchRuns.id, id), inArray(researchRuns.state, LIVE_STATES)))
    .returning({ id: researchRuns.id })
  return rows.length > 0
}

/** The answer so far of a run still running (a walk-forward's finished folds): replaced by the final one when it stops. */
export async function saveInterim(db: Db, id: string, result: unknown): Promise<void> {
  await db.update(researchRuns).set({ result: JSON.stringify(result) }).where(and(eq(researchRuns.id, id), inArray(researchRuns.state, LIVE_STATES)))
}

/**
 * Runs left queued or running by a process that is gone (not `owner`): failed, "interrupted".
 * The server calls it once at start; with one API process per database nothing else runs them.
 */
export async function failInterrupted(db: Db, owner: string, nowMs: number, reason = 'failed: interrupted (the service stopped while it ran)'): Promise<number> {
  const rows = await db
    .update(researchRuns)
    .set({ state: 'failed', reason, finishedAt: nowMs })
    .where(and(inArray(researchRuns.state, LIVE_STATES), or(ne(researchRuns.owner, owner), isNull(researchRuns.owner))))
    .returning({ id: researchRuns.id })
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
 * Append finished trials to the ledger (one multi-row INSERT: all or none) and count
 * `progress` steps in the run's progress. Two statements, not one transaction (bun:sqlite's
 * transactions take a synchronous callback; the Postgres records an async one): the ledger
 * is the count that matters (n_trials is read from it), and a process that stops between
 * the two leaves a run that the next start fails as interrupted anyway.
 */
export async function appendTrials(db: Db, runId: string, trials: readonly NewTrial[], progress: number, nowMs: number): Promise<void> {
  if (trials.length)
    await db.insert(researchTrials).values(
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
  if (progress) await db.update(researchRuns).set({ finished: sql`${researchRuns.finished} + ${progress}` }).where(eq(researchRuns.id, runId))
}

export async function trialCount(db: Db, runId: string): Promise<number> {
  const rows = await db.select({ n: count() }).from(researchTrials).where(eq(researchTrials.runId, runId))
  return rows[0]?.n ?? 0
}

/** A page of the ledger: in trial order, or best objective first (trials without a value last, then by trial). */
export async function trialPage(db: Db, runId: string, p: { offset: number; limit: number; sort: 'trial' | 'objective' }): Promise<TrialRow[]> {
  const order =
    p.sort === 'objective'
      ? [sql`${researchTrials.objectiveValue} IS NULL`, desc(researchTrials.objectiveValue), asc(researchTrials.trial)]
      : [asc(researchTrials.trial)]
  return db.select().from(researchTrials).where(eq(researchTrials.runId, runId)).orderBy(...order).limit(p.limit).offset(p.offset)
}

/** Trials after `afterTrial` in trial order (a stream's replay). */
export async function trialsAfter(db: Db, runId: string, afterTrial: number, limit: number): Promise<TrialRow[]> {
  return db
    .select()
    .from(researchTrials)
    .where(and(eq(researchTrials.runId, runId), sql`${researchTrials.trial} > ${afterTrial}`))
    .orderBy(asc(researchTrials.trial))
    .limit(limit)
}

/** The trial with the highest objective (the earliest of equals); null when none has a value. */
export async function bestTrial(db: Db, runId: string, fold: number | null = null): Promise<TrialRow | null> {
  const rows = await db
    .select()
    .from(researchTrials)
    .where(and(eq(researchTrials.runId, runId), sql`${researchTrials.objectiveValue} IS NOT NULL`, fold === null ? undefined : eq(researchTrials.fold, fold)))
    .orderBy(desc(researchTrials.objectiveValue), asc(researchTrials.trial))
    .limit(1)
  return rows[0] ?? null
}
