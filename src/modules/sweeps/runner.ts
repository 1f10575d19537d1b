/**
 * The research runs in flight in this API process: each a stored run (records/research-runs.ts)
 * whose work goes on in the background after its 202, through the run service's named
 * operations (background lane: requests' tasks go first on the workers). The runner keeps
 * what only a live run has (its cancel switch and its listeners, for the event streams) and
 * writes the rest to the database as it goes, so a restart reads "failed: interrupted"
 * rather than losing it: at start the runner fails every run a gone process left running.
 */
import { randomUUID } from 'node:crypto'
import type { Clock } from '../../clock'
import type { Db } from '../../db'
import { failInterrupted, insertResearchRun, liveRuns, liveRunsOf, markRunning, researchRun, stopRun, type ResearchKind } from '../../records/research-runs'
import { TooManyResearchRuns } from '../../runs/errors'
import { isoInstant } from '../../time'
import { SWEEP_LIMITS } from './plan'

/** What a run's event stream sends (docs/api-research.md, "Events"). */
export type RunEvent =
  | { type: 'progress'; done: number; total: number }
  | { type: 'trial'; trial: number; item: unknown }
  | { type: 'state'; state: 'running' | 'done' | 'cancelled' | 'failed'; reason: string | null }

export interface RunContext {
  id: string
  /** aborted by DELETE: stop sending work, record what finished, stop as cancelled */
  signal: AbortSignal
  emit(e: RunEvent): void
}

/** A run's work: its answer's computed parts (stored with the final state). */
export type RunWork = (ctx: RunContext) => Promise<unknown>

/** why a run stopped with the service (and why the next start fails the runs a gone process left) */
export const INTERRUPTED = 'failed: interrupted (the service stopped while it ran)'

/** what a refused start is told to wait: a sweep takes seconds to a minute */
const RETRY_AFTER_S = 30

interface Live {
  client: string
  abort: AbortController
  listeners: Set<(e: RunEvent) => void>
  done: Promise<void>
}

export class ResearchRunner {
  /** this process, as the runs' owner */
  readonly owner = randomUUID()
  private readonly live = new Map<string, Live>()
  /** runs being stored, per client (not yet in `live`) */
  private readonly starting = new Map<string, number>()
  private readonly ready: Promise<void>

  constructor(private readonly deps: { db: Db; clock: Clock; shutdown?: AbortSignal }) {
    this.ready = failInterrupted(deps.db, this.owner, deps.clock.now(), INTERRUPTED).then(
      () => {},
      () => {},
    )
    // a server that stops stops its runs as the next start would find them: failed, interrupted
    deps.shutdown?.addEventListener('abort', () => {
      for (const entry of this.live.values()) if (!entry.abort.signal.aborted) entry.abort.abort(INTERRUPTED)
    })
  }

  /** Store the run (queued) and start its work; the per-client and service limits are checked first. */
  async start(kind: ResearchKind, client: string, request: unknown, planned: number, work: RunWork): Promise<string> {
    // the per-client count is taken and a place held before any await, so that requests
    // arriving together cannot all pass the check (the database count adds other processes')
    const mine = [...this.live.values()].filter(l => l.client === client).length + (this.starting.get(client) ?? 0)
    if (mine >= SWEEP_LIMITS.maxRunningPerClient) throw new TooManyResearchRuns('client', SWEEP_LIMITS.maxRunningPerClient, RETRY_AFTER_S)
    this.starting.set(client, (this.starting.get(client) ?? 0) + 1)
    try {
      await this.ready
      const { db, clock } = this.deps
      const starting = this.starting.get(client) ?? 1
      if ((await liveRunsOf(db, client)) + starting > SWEEP_LIMITS.maxRunningPerClient) throw new TooManyResearchRuns('client', SWEEP_LIMITS.maxRunningPerClient, RETRY_AFTER_S)
      if ((await liveRuns(db)) + this.startingTotal() > SWEEP_LIMITS.maxRunning) throw new TooManyResearchRuns('service', SWEEP_LIMITS.maxRunning, RETRY_AFTER_S)
      const id = `${kind === 'sweep' ? 'sw' : 'wf'}-${randomUUID()}`
      await insertResearchRun(db, { id, kind, client, request, planned, owner: this.owner, nowMs: clock.now() })
      const abort = new AbortController()
      const entry: Live = { client, abort, listeners: new Set(), done: Promise.resolve() }
      this.live.set(id, entry)
      // a run whose database goes away under it (the process closing it while the run still
      // writes) cannot record its end: its row stays unfinished under this owner, and the next
      // start marks it failed, interrupted (failInterrupted above); nothing else to do here
      entry.done = this.go(id, entry, work).catch(() => {
        this.live.delete(id)
      })
      return id
    } finally {
      const n = (this.starting.get(client) ?? 1) - 1
      if (n > 0) this.starting.set(client, n)
      else this.starting.delete(client)
    }
  }

  private startingTotal(): number {
    let n = 0
    for (const k of this.starting.values()) n += k
    return n
  }

  private async go(id: string, entry: Live, work: RunWork): Promise<void> {
    const { db, clock } = this.deps
    const emit = (e: RunEvent) => {
      for (const l of entry.listeners) l(e)
    }
    // the 202 goes out first: the work starts on a later turn
    await new Promise(r => setTimeout(r, 0))
    await markRunning(db, id, clock.now())
    emit({ type: 'state', state: 'running', reason: null })
    let state: 'done' | 'cancelled' | 'failed' = 'done'
    let reason: string | null = null
    let result: unknown = null
    try {
      result = await work({ id, signal: entry.abort.signal, emit })
      if (entry.abort.signal.aborted) {
        state = entry.abort.signal.reason === INTERRUPTED ? 'failed' : 'cancelled'
        reason = String(entry.abort.signal.reason)
      }
    } catch (e) {
      if (entry.abort.signal.aborted) {
        state = entry.abort.signal.reason === INTERRUPTED ? 'failed' : 'cancelled'
        reason = String(entry.abort.signal.reason)
      } else {
        state = 'failed'
        reason = `failed: ${e instanceof Error ? e.message : String(e)}`
      }
    }
    try {
      await stopRun(db, id, { state, reason, result, nowMs: clock.now() })
    } finally {
      this.live.delete(id)
      emit({ type: 'state', state, reason })
    }
  }

  /** Cancel a run in flight: false when it is not running in this process (already stopped, or unknown). */
  async cancel(id: string): Promise<boolean> {
    const entry = this.live.get(id)
    if (!entry) return false
    if (!entry.abort.signal.aborted) entry.abort.abort(`cancelled: DELETE at ${isoInstant(this.deps.clock.now())}; the trials finished before it are kept`)
    await entry.done
    return true
  }

  /** Follow a run's events while it is in flight; null when it is not. */
  subscribe(id: string, fn: (e: RunEvent) => void): (() => void) | null {
    const entry = this.live.get(id)
    if (!entry) return null
    entry.listeners.add(fn)
    return () => entry.listeners.delete(fn)
  }

  /** Wait for a run in flight to stop (tests, and the server's stop). */
  async settled(id: string): Promise<void> {
    await this.live.get(id)?.done
  }

  /** The stored run (null: no such id). */
  row(id: string) {
    return researchRun(this.deps.db, id)
  }
}
