/**
 * The queue transport (REDIS_URL): an API process puts each chunk task on a BullMQ queue in
 * Redis, and `perpsim worker` processes on any host (src/runs/queue-worker.ts) run it on
 * their own worker pools and hand the result back. The payload and the result cross as
 * bytes (queue-wire.ts), so the run service books exactly what the in-process pool would
 * have given it (tests/queue-transport.test.ts compares the responses byte for byte).
 *
 * What it keeps of the pool's contract (transport.ts):
 * - priorities: a request's tasks (priority 1) are taken before any job's (priority 10);
 * - admission: beyond `queueMax` tasks of its lane waiting in the whole fleet's queue,
 *   Overloaded (503 with Retry-After);
 * - a task never hangs: with no live worker, or none on the task's store and engine
 *   versions, or past `deadlineMs`, the task fails with WorkersUnavailable (503 naming why);
 * - a worker killed mid-task loses its lock and BullMQ's stalled-job check gives the task
 *   to another worker (docs/operations.md "Locks and stalls"); a result is taken once.
 * Affinity is kept only within a worker: any worker takes any task, and runs it on the thread
 * of its pool the hint names (a strategy's signal masks stay cached on that thread).
 */
import { Queue, QueueEvents, type Job } from 'bullmq'
import type { Redis } from 'ioredis'
import type { CandleStore } from '../market/candle-store'
import { Overloaded, WorkersUnavailable } from './errors'
import type { Priority } from './compute/task-queue'
import { taskReads } from './compute/task-reads'
import {
  decode,
  encode,
  FLEET_STALE_MS,
  fleetKey,
  HEARTBEAT_MS,
  fleetMismatch,
  readsVersion,
  symbolRead,
  PRIORITY_OF,
  QUEUE_ENGINE_VERSION,
  QUEUE_NAME,
  redisClient,
  REFUSED,
  type FleetEntry,
  type TaskJobData,
} from './queue-wire'
import type { SubmitOptions, TaskName, TaskPayload, TaskResult, Transport, TransportStats } from './transport'

export interface QueueTransportOptions {
  /** redis://… (REDIS_URL) */
  url: string
  /** the key prefix of the queue and the fleet registry (REDIS_PREFIX); a fleet shares one */
  prefix: string
  /** chunks a run is cut into: the fleet's worker threads (WORKERS on the API node) */
  parallelism: number
  /** waiting tasks per lane in the whole queue beyond which a task is shed (Overloaded) */
  queueMax: number
  /** how long a task may take from enqueue to result before its run fails with 503 */
  deadlineMs: number
  /** where a refusal or a lost connection is reported */
  log?: (message: string) => void
}

/** refused tasks go back to the queue for another worker this many times (a stalled task's retries are BullMQ's maxStalledCount) */
const ATTEMPTS = 5
const RETRY_DELAY_MS = 100
/** how long the fleet registry read is reused (every task asks it) */
const FLEET_CACHE_MS = 500
/** how long a Redis command before the task is queued may take before the run fails with 503 (ioredis would otherwise hold it until Redis is back) */
const REDIS_REPLY_MS = 3_000
/** how long close() waits for BullMQ to close before it drops the connections */
const CLOSE_WAIT_MS = 2000

/** The queue's Redis as a reason names it: host and port, never the password. */
function whereOf(url: string): string {
  try {
    const u = new URL(url)
    return `${u.hostname}:${u.port || 6379}`
  } catch {
    return 'REDIS_URL'
  }
}

export class QueueTransport implements Transport {
  private readonly connection: Redis
  private readonly eventsConnection: Redis
  private readonly queue: Queue
  private readonly events: QueueEvents
  private readonly ready: Promise<unknown>
  private fleetRead: { atMs: number; entries: Promise<FleetEntry[]> } | null = null
  private lastFleet: FleetEntry[] = []
  /** the fleet has been read at least once (before that, no worker is not yet known) */
  private fleetKnown = false
  private closed = false
  private readonly fleetTimer: ReturnType<typeof setInterval>
  private nextId = 1
  private completed = 0
  private busyMs = 0
  private inFlight = 0
  private avgTaskMs = 100
  /** tasks waiting in the whole queue per lane, as last read (GET /metrics) */
  private readonly waiting: Record<Priority, number> = { interactive: 0, background: 0 }
  private readonly runId = `${process.pid}-${Date.now().toString(36)}`

  constructor(private readonly store: CandleStore, private readonly opts: QueueTransportOptions) {
    const log = opts.log ?? (() => {})
    this.connection = redisClient(opts.url, log)
    this.queue = new Queue(QUEUE_NAME, {
      connection: this.connection,
      prefix: opts.prefix,
      defaultJobOptions: { attempts: ATTEMPTS, backoff: { type: 'fixed', delay: RETRY_DELAY_MS }, removeOnComplete: { age: 600, count: 10_000 }, removeOnFail: { count: 1000 } },
    })
    this.eventsConnection = redisClient(opts.url, log)
    this.events = new QueueEvents(QUEUE_NAME, { connection: this.eventsConnection, prefix: opts.prefix })
    // every task in flight waits on the one event stream (and listens for the queue closing)
    this.events.setMaxListeners(0)
    this.queue.setMaxListeners(0)
    this.queue.on('error', e => log(`queue: ${e.message}`))
    this.events.on('error', e => log(`queue events: ${e.message}`))
    this.ready = this.events.waitUntilReady()
    // the fleet is read now and then even without runs, so /health knows whether any worker is there;
    // never while the connection is down (ioredis would queue the reads until Redis is back)
    const refresh = () => {
      if (this.connection.status === 'ready') this.fleet(true).catch(() => {})
    }
    this.connection.once('ready', refresh)
    void this.warmDigests()
    this.fleetTimer = setInterval(refresh, HEARTBEAT_MS)
    this.fleetTimer.unref?.()
  }

  /**
   * Every coin's digest once, a coin per turn of the event loop, so the first run after the
   * start does not hash the whole store at once (a 535-coin, 2-year store: about 2 s on a
   * busy machine); later runs find them kept (symbol-digest.ts).
   */
  private async warmDigests(): Promise<void> {
    for (const s of this.store.symbols()) {
      if (this.closed) return
      this.store.symbolRows(s)
      await new Promise(resolve => setImmediate(resolve))
    }
  }

  /** Why runs cannot reach a worker now, from what this process last saw (GET /health). */
  trouble(): string | null {
    const status = this.connection.status
    if (status !== 'ready' && status !== 'connecting' && status !== 'connect' && status !== 'wait')
      return `the queue's Redis at ${whereOf(this.opts.url)} does not answer (connection ${status}): runs are answered 503 until it is back`
    if (this.fleetKnown && this.lastFleet.length === 0) return 'no perpsim worker is connected to the queue: runs are answered 503 until one is'
    return null
  }

  get parallelism(): number {
    return this.opts.parallelism
  }

  /** The live workers (heartbeat within FLEET_STALE_MS), read at most every FLEET_CACHE_MS. */
  private fleet(fresh = false): Promise<FleetEntry[]> {
    const now = Date.now()
    if (!fresh && this.fleetRead && now - this.fleetRead.atMs < FLEET_CACHE_MS) return this.fleetRead.entries
    const entries = this.connection.hgetall(fleetKey(this.opts.prefix)).then(all => {
      const live = Object.values(all)
        .map(v => JSON.parse(v) as FleetEntry)
        .filter(e => Date.now() - e.seenMs < FLEET_STALE_MS)
      this.lastFleet = live
      this.fleetKnown = true
      return live
    })
    this.fleetRead = { atMs: now, entries }
    entries.catch(() => (this.fleetRead = null))
    return entries
  }

  /** `p`, or WorkersUnavailable naming the silent Redis when it has not answered within REDIS_REPLY_MS. */
  private answered<T>(p: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const silent = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new WorkersUnavailable(`the queue's Redis at ${whereOf(this.opts.url)} does not answer within ${REDIS_REPLY_MS} ms`, 5)), REDIS_REPLY_MS)
    })
    return Promise.race([p, silent]).finally(() => clearTimeout(timer))
  }

  /** The reason no live worker can take a task reading these coins, or null when one can (or may: see fleetMismatch). */
  private async unavailable(task: Pick<TaskJobData, 'reads' | 'engineVersion' | 'dataVersion'>): Promise<string | null> {
    // a connection that is down answers at once, instead of queueing the command until Redis is back
    if (this.connection.status === 'reconnecting' || this.connection.status === 'end' || this.connection.status === 'close')
      return `the queue's Redis at ${whereOf(this.opts.url)} does not answer (connection ${this.connection.status})`
    let live: FleetEntry[]
    try {
      live = await this.answered(this.fleet())
      // a refusal is never taken from the cache: a worker may have joined (or synced) since
      if (!live.some(w => fleetMismatch(w, task) === null)) live = await this.answered(this.fleet(true))
    } catch (e) {
      return e instanceof WorkersUnavailable ? e.reason : `the queue's Redis at ${whereOf(this.opts.url)} failed: ${(e as Error).message}`
    }
    if (live.length === 0) return 'no perpsim worker is connected to the queue (start one with `perpsim worker` and the same REDIS_URL)'
    const mismatches = live.map(w => ({ name: w.name, why: fleetMismatch(w, task) }))
    if (mismatches.some(m => m.why === null)) return null
    const seen = mismatches.map(m => `${m.name} has ${m.why}`).join('; ')
    return `no worker holds the data this run reads (data version ${task.dataVersion} of ${task.reads.length} coins, engine ${QUEUE_ENGINE_VERSION}); connected: ${seen}`
  }

  private retryAfter(waiting: number): number {
    const slots = Math.max(1, this.lastFleet.reduce((n, w) => n + w.slots, 0))
    return Math.max(1, Math.ceil(((waiting / slots + 1) * this.avgTaskMs) / 1000))
  }

  async submit<N extends TaskName>(task: N, payload: TaskPayload<N>, opts: SubmitOptions): Promise<TaskResult<N>> {
    // the coins the task reads, as this store holds them (cheap: symbol-digest.ts keeps the digests)
    const reads = taskReads(task, payload).map(s => symbolRead(s, this.store.symbolRows(s)))
    const versions = { reads, dataVersion: readsVersion(reads), engineVersion: QUEUE_ENGINE_VERSION }
    const why = await this.unavailable(versions)
    if (why) throw new WorkersUnavailable(why, 5)
    const priority = PRIORITY_OF[opts.priority]
    const waiting = (await this.answered(this.queue.getCountsPerPriority([priority])))[String(priority)] ?? 0
    this.waiting[opts.priority] = waiting
    if (waiting >= this.opts.queueMax) throw new Overloaded(this.retryAfter(waiting))
    await this.answered(this.ready)
    const data: TaskJobData = { payload: encode(payload), ...versions, priority: opts.priority, ...(opts.affinity !== undefined ? { affinity: opts.affinity } : {}) }
    const started = performance.now()
    this.inFlight++
    try {
      // the job id names the API process, so two API nodes never collide
      const job = await this.answered(this.queue.add(task, data, { jobId: `${this.runId}-${this.nextId++}`, priority }))
      const packed = await this.finished(job, opts.priority)
      // kept until read (a result that came before the wait began is still there); then dropped
      job.remove().catch(() => {})
      const ms = performance.now() - started
      this.completed++
      this.busyMs += ms
      this.avgTaskMs = this.avgTaskMs * 0.8 + ms * 0.2
      return decode(packed) as TaskResult<N>
    } finally {
      this.inFlight--
    }
  }

  /** The job's packed result; its failure as the domain's error; WorkersUnavailable past the deadline. */
  private async finished(job: Job, priority: Priority): Promise<string> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // a task still waiting is withdrawn; one running is left to finish and be dropped
        job.remove().catch(() => {})
        reject(new WorkersUnavailable(`${priority === 'interactive' ? 'a request' : 'a job'}'s task (${job.name}) did not finish within ${this.opts.deadlineMs} ms (QUEUE_TASK_DEADLINE_MS); the workers are busy or gone`, this.retryAfter(0)))
      }, this.opts.deadlineMs)
    })
    try {
      return (await Promise.race([job.waitUntilFinished(this.events), deadline])) as string
    } catch (e) {
      if (e instanceof WorkersUnavailable) throw e
      const message = (e as Error).message ?? String(e)
      // every attempt was refused: the versions did not match on any worker that took it
      if (message.startsWith(REFUSED)) throw new WorkersUnavailable(message, 5)
      throw new Error(message)
    } finally {
      clearTimeout(timer)
    }
  }

  /** the fleet's threads (workers), this process's tasks in flight (busy) and the queue's waiting tasks as last read */
  stats(): TransportStats | null {
    return {
      workers: this.lastFleet.reduce((n, w) => n + w.slots, 0),
      busy: this.inFlight,
      queued: this.waiting.interactive + this.waiting.background,
      queuedBackground: this.waiting.background,
      busyMs: this.busyMs,
      completed: this.completed,
    }
  }

  async close(): Promise<void> {
    this.closed = true
    clearInterval(this.fleetTimer)
    // a Redis that no longer answers must not hold the close (BullMQ's close waits for it):
    // after CLOSE_WAIT_MS the connections are dropped, which also ends their reconnecting
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([Promise.allSettled([this.queue.close(), this.events.close()]), new Promise(r => (timer = setTimeout(r, CLOSE_WAIT_MS)))])
    clearTimeout(timer)
    this.connection.disconnect()
    this.eventsConnection.disconnect()
  }
}
