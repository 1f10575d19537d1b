/**
 * The scheduler: cron jobs in UTC on the injected clock, each run recorded in job_runs.
 *
 * croner does the calendar arithmetic only (`paused: true`: it never sets a timer); the
 * scheduler keeps its own timers and asks `clock.now()` what time it is, so a test moves a
 * ManualClock and calls `tick()` to drive days of schedules in milliseconds.
 *
 * A job:
 *   scheduler.register({
 *     name: 'rankings',                         // unique; the slot prefix
 *     cron: '30 0 * * *',                       // UTC; 6 fields = with seconds
 *     description: 'daily strategy rankings',
 *     slotOf: ms => `rankings:${isoDate(ms)}`,  // optional; default `<name>:<ISO minute>`
 *     catchUpMs: 30 * DAY_MS,                   // optional; missed slots this far back run at start
 *     retryAfterMs: HOUR_MS,                    // optional; a failed slot is tried again this much later
 *     run: async ctx => ({ counts: { rows: 123 } }), // or { skipped: 'why' }; throw = failed
 *   })
 * A run claims its slot by inserting its job_runs row (unique key (slot, attempt)), so a
 * double timer or a second process finds the slot taken and skips. Runs of one job are
 * serial; different jobs run side by side. A failed run is recorded with its error; when
 * the next slot comes due, failed (and missed) slots still inside the job's catch-up window
 * are retried first, oldest first, as the next attempt; the job keeps its schedule.
 * A slot is done once a run finished `ok` or `skipped`. An unfinished row is a run in
 * progress until its runner is known dead (run-owner.ts: the row names its scheduler, and
 * a heartbeat refreshes it while it runs): then the next claim finishes it as failed
 * ('abandoned: ...') and runs the slot again, at start-up when the dead process was this
 * host's, else once the heartbeat is older than LEASE_MS. A slot held by a live run
 * elsewhere is looked at again when that lease would run out.
 */
import { Cron } from 'croner'
import type { Clock } from '../clock'
import type { Db } from '../db'
import type { Logger } from '../log'
import { yieldToLoop } from '../runs/yield'
import { describeOwner, JobRuns, type JobOutcome, type JobRunRow, type JobTrigger, type RunOwner } from '../records/job-runs'
import { startHeartbeat } from './heartbeat'
import { abandonedAfterMs, HEARTBEAT_MS, isAbandoned, newOwner, retireOwner } from './run-owner'

export { LEASE_MS, STALE_RUN_MS } from './run-owner'

export interface JobContext {
  job: string
  /** e.g. `rankings:2026-11-25` */
  slot: string
  /** the cron instant this run stands for (epoch ms, UTC) */
  slotMs: number
  trigger: JobTrigger
  attempt: number
  /** a progress line in the service log (and on stderr for `cli jobs run`) */
  progress(msg: string): void
  /**
   * Give the event loop a turn (call it between heavy steps so /health keeps answering);
   * throws JobStopped once the scheduler is stopping, so a long run ends at its next step
   * (recorded as failed, and retried after the restart within the catch-up window).
   */
  yield(): Promise<void>
}

export class JobStopped extends Error {
  constructor() {
    super('stopped: the service shut down during the run')
  }
}

/** What a run returns: counts to record, or a reason it had nothing to do. Throwing = failed. */
export type JobResult = void | { counts?: Record<string, number>; skipped?: string }

export interface JobDefinition {
  name: string
  /** croner pattern, evaluated in UTC (5 fields, or 6 with seconds first) */
  cron: string
  description: string
  /** the slot name of a cron instant; default `<name>:<YYYY-MM-DDTHH:MM>` (`:SS` added when not 0) */
  slotOf?(slotMs: number): string
  /**
   * Missed slots up to this far back are run at start-up (oldest first, in the
   * background), and after a clock jump. 0 (default): nothing is caught up at start-up,
   * and after a clock jump only the newest due slot runs.
   */
  catchUpMs?: number
  /**
   * A slot whose scheduled or catch-up run failed is tried again this long after the failure
   * (as its next attempt), until it succeeds or the next slot comes due. Default: no early
   * retry (the failed slot waits for the next slot, within the catch-up window).
   */
  retryAfterMs?: number
  run(ctx: JobContext): Promise<JobResult>
}

export interface JobListing {
  name: string
  cron: string
  description: string
  next_run: string | null
  last: JobRunRow | null
}

interface Registered {
  def: JobDefinition
  cron: Cron
  /** next cron instant not yet enqueued */
  nextMs: number | null
  /** failed slots to try again, by slot instant -> clock time of the retry */
  retries: Map<number, number>
  queue: Promise<unknown>
  pending: number
  /** slots enqueued and not yet run (a slot is never queued twice) */
  queued: Set<string>
}

const iso = (ms: number) => new Date(ms).toISOString()
/** longest a timer sleeps before re-reading the clock (a suspended machine wakes to a jump) */
const MAX_SLEEP_MS = 60_000

export class Scheduler {
  private readonly jobs = new Map<string, Registered>()
  private readonly runs: JobRuns
  private timer: ReturnType<typeof setTimeout> | null = null
  private readonly intervals = new Set<ReturnType<typeof setTimeout>>()
  private started = false
  private stopped = false
  /** written into the rows this scheduler claims */
  readonly owner: RunOwner = newOwner()

  constructor(
    private readonly deps: {
      clock: Clock
      db: Db
      log: Logger
      /**
       * false: no scheduling timers; the caller drives time with tick() (tests, the CLI). A
       * run in progress still beats its heartbeat on a timer (and at each ctx.yield()).
       */
      timers?: boolean
    },
  ) {
    this.runs = new JobRuns(deps.db)
  }

  register(def: JobDefinition): void {
    if (this.jobs.has(def.name)) throw new Error(`job '${def.name}' is registered twice`)
    const cron = new Cron(def.cron, { timezone: 'UTC', paused: true })
    this.jobs.set(def.name, { def, cron, nextMs: null, retries: new Map(), queue: Promise.resolve(), pending: 0, queued: new Set() })
    if (this.started) {
      this.startJob(this.jobs.get(def.name)!)
      this.arm()
    }
  }

  names(): string[] {
    return [...this.jobs.keys()]
  }

  slotOf(name: string, slotMs: number): string {
    const j = this.get(name)
    return j.def.slotOf ? j.def.slotOf(slotMs) : `${name}:${iso(slotMs).slice(0, slotMs % 60_000 === 0 ? 16 : 19)}`
  }

  /** The next cron instant strictly after `afterMs`. */
  nextSlot(name: string, afterMs: number): number | null {
    return this.get(name).cron.nextRun(new Date(afterMs))?.getTime() ?? null
  }

  /** Cron instants in (fromMs, toMs], oldest first. */
  slotsBetween(name: string, fromMs: number, toMs: number): number[] {
    const out: number[] = []
    for (let t = this.nextSlot(name, fromMs); t !== null && t <= toMs; t = this.nextSlot(name, t)) out.push(t)
    return out
  }

  /**
   * Start: enqueue the missed slots within each job's catch-up window (oldest first, in the
   * background: this returns at once) and arm the timer.
   */
  start(): void {
    if (this.started) return
    this.started = true
    for (const j of this.jobs.values()) this.startJob(j)
    this.arm()
  }

  private startJob(j: Registered): void {
    const now = this.deps.clock.now()
    j.nextMs = this.nextSlot(j.def.name, now)
    // read in the job's queue: idle() waits for it, and the catch-up runs queue behind it
    this.inQueue(j, async () => {
      for (const r of await this.runs.abandonDead(j.def.name, now, r => isAbandoned(r, now, this.owner)))
        this.deps.log.warn(`job ${r.slot}: attempt ${r.attempt} was abandoned by ${describeOwner(r)} (it died mid-run)`)
      const missed = await this.unfinished(j, now)
      if (missed.length > 0) this.deps.log.info(`job ${j.def.name}: catching up ${missed.length} missed slot(s) from ${this.slotOf(j.def.name, missed[0])}`)
      for (const ms of missed) this.enqueue(j, ms, 'catch-up')
    })
  }

  /** Run `step` next in the job's queue (counted by idle()); an error is logged. */
  private inQueue(j: Registered, step: () => Promise<unknown>): void {
    j.pending++
    j.queue = j.queue
      .then(step)
      .catch(e => this.deps.log.error(`job ${j.def.name}: ${(e as Error)?.stack ?? e}`))
      .finally(() => j.pending--)
  }

  /** Slots in the job's catch-up window up to `now` that no run finished (oldest first). */
  private async unfinished(j: Registered, now: number): Promise<number[]> {
    const window = j.def.catchUpMs ?? 0
    if (window <= 0) return []
    const due = this.slotsBetween(j.def.name, now - window - 1, now)
    // a slot held by an unfinished run is listed too: its claim finds the runner dead and
    // takes it over, or alive and looks again when its lease would run out
    const done = await this.runs.doneSlots(j.def.name, now - window - 1)
    return due.filter(ms => !done.has(this.slotOf(j.def.name, ms)))
  }

  /**
   * Enqueue every slot that has come due on the clock since the last tick (with the failed
   * or missed slots of the catch-up window before it). With timers on this runs by itself;
   * tests call it after moving their clock. Returns at once; idle() waits for the runs.
   */
  tick(): void {
    if (this.stopped) return
    const now = this.deps.clock.now()
    for (const j of this.jobs.values()) {
      if (j.nextMs !== null && j.nextMs <= now) {
        const window = j.def.catchUpMs ?? 0
        const due = this.slotsBetween(j.def.name, j.nextMs - 1, now)
        j.retries.clear() // the catch-up below retries every unfinished slot of the window
        const kept = due.filter(ms => ms >= now - window)
        const run = kept.length > 0 ? kept : due.slice(-1)
        if (run.length < due.length) this.deps.log.warn(`job ${j.def.name}: ${due.length - run.length} slot(s) older than its catch-up window dropped (clock jump)`)
        this.inQueue(j, async () => {
          const retry = (await this.unfinished(j, now)).filter(ms => ms < due[0])
          for (const ms of retry) this.enqueue(j, ms, 'catch-up')
          for (const ms of run) this.enqueue(j, ms, 'schedule')
        })
        j.nextMs = this.nextSlot(j.def.name, now)
      }
      for (const [slotMs, atMs] of [...j.retries]) {
        if (atMs > now) continue
        j.retries.delete(slotMs)
        this.enqueue(j, slotMs, 'retry')
      }
    }
    this.arm()
  }

  private arm(): void {
    if (this.stopped || this.deps.timers === false || !this.started) return
    if (this.timer) clearTimeout(this.timer)
    const now = this.deps.clock.now()
    let next = Infinity
    for (const j of this.jobs.values()) {
      if (j.nextMs !== null) next = Math.min(next, j.nextMs)
      for (const atMs of j.retries.values()) next = Math.min(next, atMs)
    }
    const wait = Math.max(0, Math.min(next - now, MAX_SLEEP_MS))
    this.timer = setTimeout(() => {
      this.timer = null
      this.tick()
    }, wait)
  }

  private enqueue(j: Registered, slotMs: number, trigger: JobTrigger): void {
    const slot = this.slotOf(j.def.name, slotMs)
    if (j.queued.has(slot)) return
    j.queued.add(slot)
    j.pending++
    j.queue = j.queue
      .then(() => {
        j.queued.delete(slot)
        return this.stopped ? null : this.runSlot(j.def.name, slotMs, trigger)
      })
      .catch(e => this.deps.log.error(`job ${j.def.name}: ${(e as Error)?.stack ?? e}`))
      .finally(() => j.pending--)
  }

  /**
   * Claim one slot and run it now, as the slot's next attempt. A scheduled, catch-up or
   * retry run claims nothing when a run finished the slot or a live run holds it (returns
   * null; a held slot is looked at again when its holder's lease would run out); a
   * 'manual' run (cli jobs run) runs it regardless. Unfinished rows of dead runners are
   * finished as abandoned in the claim. Returns the recorded row, or null.
   */
  async runSlot(name: string, slotMs: number, trigger: JobTrigger, onProgress?: (msg: string) => void): Promise<JobRunRow | null> {
    const j = this.get(name)
    const slot = this.slotOf(name, slotMs)
    const startedAtMs = this.deps.clock.now()
    const claim = await this.runs.claim(
      { job: name, slot, trigger, slotMs, startedAtMs, owner: this.owner },
      { manual: trigger === 'manual', isAbandoned: r => isAbandoned(r, startedAtMs, this.owner) },
    )
    if (claim.kind === 'done') return null
    if (claim.kind === 'held') {
      this.deps.log.debug(`job ${name}: slot ${slot} is being run by ${describeOwner(claim.by)}, skipped`)
      if (!this.stopped) {
        // not sooner than a beat from now: a holder known alive in this process may have an old heartbeat
        j.retries.set(slotMs, Math.max(abandonedAfterMs(claim.by), startedAtMs + HEARTBEAT_MS))
        this.arm()
      }
      return null
    }
    for (const r of claim.abandoned) this.deps.log.warn(`job ${slot}: attempt ${r.attempt} was abandoned by ${describeOwner(r)} (it died mid-run); running attempt ${claim.row.attempt}`)
    const id = claim.row.id
    const beat = startHeartbeat({ clock: this.deps.clock, runs: this.runs, log: this.deps.log }, id, slot)
    const progress = (msg: string) => {
      this.deps.log.info(`job ${slot}: ${msg}`)
      beat.maybe()
      onProgress?.(msg)
    }
    let outcome: JobOutcome = 'ok'
    let error: string | null = null
    let counts: Record<string, number> | null = null
    try {
      const pause = async () => {
        beat.maybe()
        await yieldToLoop()
        if (this.stopped) throw new JobStopped()
      }
      const res = await j.def.run({ job: name, slot, slotMs, trigger, attempt: claim.row.attempt, progress, yield: pause })
      if (res && res.counts) counts = res.counts
      if (res && res.skipped !== undefined) {
        outcome = 'skipped'
        error = res.skipped
      }
    } catch (e) {
      outcome = 'failed'
      // a database's refusal (a trigger's message, a constraint) is the cause drizzle wraps
      const cause = (e as { cause?: unknown })?.cause
      error = ((e as Error)?.stack ?? String(e)) + (cause instanceof Error ? `\ncaused by: ${cause.message}` : '')
      this.deps.log.error(`job ${slot} failed: ${error}`)
    } finally {
      beat.stop()
    }
    const finishedAtMs = this.deps.clock.now()
    await this.runs.finish(id, { finishedAtMs, outcome, error, counts })
    if (outcome === 'failed' && trigger !== 'manual' && j.def.retryAfterMs !== undefined && !this.stopped) {
      j.retries.set(slotMs, finishedAtMs + j.def.retryAfterMs)
      this.arm()
    }
    return (await this.runs.bySlot(slot)).find(r => r.id === id)!
  }

  /** Resolves when every enqueued run has finished (tests, shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      const busy = [...this.jobs.values()].filter(j => j.pending > 0)
      if (busy.length === 0) return
      await Promise.all(busy.map(j => j.queue))
    }
  }

  async list(): Promise<JobListing[]> {
    const now = this.deps.clock.now()
    const out: JobListing[] = []
    for (const j of this.jobs.values()) {
      const next = this.nextSlot(j.def.name, now)
      out.push({
        name: j.def.name,
        cron: j.def.cron,
        description: j.def.description,
        next_run: next === null ? null : iso(next),
        last: (await this.runs.recent(j.def.name, 1))[0] ?? null,
      })
    }
    return out
  }

  recent(name: string, limit = 10): Promise<JobRunRow[]> {
    this.get(name)
    return this.runs.recent(name, limit)
  }

  /**
   * A plain repeating task (no slot, no record), e.g. a cache refresh every few seconds:
   * `fn` runs every `periodMs` of timer time, at most once at a time; an error is logged.
   */
  every(name: string, periodMs: number, fn: () => Promise<void> | void): void {
    const loop = () => {
      if (this.stopped || this.deps.timers === false) return
      const t = setTimeout(async () => {
        this.intervals.delete(t)
        await this.runOnce(name, fn)
        loop()
      }, periodMs)
      this.intervals.add(t)
    }
    loop()
  }

  /** Run `fn` now, logging (not throwing) its error. */
  async runOnce(name: string, fn: () => Promise<void> | void): Promise<void> {
    try {
      await fn()
    } catch (e) {
      this.deps.log.error(`task ${name} failed: ${(e as Error)?.stack ?? e}`)
    }
  }

  /** Stop the timers; runs in progress finish, queued ones are dropped. */
  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    for (const t of this.intervals) clearTimeout(t)
    this.intervals.clear()
    for (const j of this.jobs.values()) j.cron.stop()
    await this.idle()
    retireOwner(this.owner)
  }

  private get(name: string): Registered {
    const j = this.jobs.get(name)
    if (!j) throw new UnknownJob(name, this.names())
    return j
  }
}

export class UnknownJob extends Error {
  constructor(readonly job: string, readonly known: string[]) {
    super(`unknown job '${job}'; known jobs: ${known.join(', ') || 'none'}`)
  }
}
