/**
 * A pool of Bun Workers (one per core) that run simulation tasks off the request loop.
 * Workers read the candle store through SharedArrayBuffers (no copies); the pool sends a
 * fresh snapshot whenever the store changes, before any later task. Waiting tasks sit in
 * two lanes (task-queue.ts): a request's before a job's. A bounded queue: beyond `queueMax`
 * waiting tasks of its own lane, `run` throws Overloaded (the HTTP layer answers 503 with
 * Retry-After), so queued job tasks never make a request's task shed.
 */
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../paths'
import { Overloaded } from '../errors'
import type { Task } from './context'
import type { StoreSnapshot, TaskView } from './store-view'
import { TaskQueue, type Priority } from './task-queue'
import { payloadTransferablesOf, taskName, type TaskName } from './tasks'

/** the worker entry, beside the sources or inside the single binary (`npm run build` lists it) */
const WORKER_ENTRY = join(PROJECT_ROOT, 'workers', 'sim.worker.ts')

interface Pending {
  id: number
  task: TaskName
  payload: unknown
  /** run only on this worker (keeps a coin's cached signals where they were computed) */
  slot: number | null
  priority: Priority
  /** the rows of the store this task may see (a queued task on a worker whose store reaches further) */
  view: TaskView | undefined
  startedAt: number
  resolve(v: unknown): void
  reject(e: unknown): void
}

interface Slot {
  worker: Worker
  busy: Pending | null
}

export interface PoolStats {
  workers: number
  busy: number
  queued: number
  /** of `queued`, the scheduled jobs' tasks (background priority) */
  queuedBackground: number
  /** total ms workers spent on tasks (GET /metrics) */
  busyMs: number
  completed: number
}

export class WorkerPool {
  private readonly slots: Slot[] = []
  private readonly queue = new TaskQueue<Pending>()
  private nextId = 1
  private completed = 0
  private snapshot: StoreSnapshot | null = null
  private closed = false
  /** moving average of task duration, for Retry-After */
  private avgTaskMs = 100

  private busyMs = 0

  constructor(size: number, private readonly queueMax: number) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn())
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_ENTRY)
    const slot: Slot = { worker, busy: null }
    worker.onmessage = ev => this.onMessage(slot, ev.data)
    worker.onerror = ev => {
      // a task that crashed its worker fails; the worker is replaced
      const p = slot.busy
      slot.busy = null
      p?.reject(new Error(`simulation worker failed: ${(ev as ErrorEvent).message ?? ev}`))
      worker.terminate()
      if (this.closed) return
      const idx = this.slots.indexOf(slot)
      const fresh = this.spawn()
      if (this.snapshot) fresh.worker.postMessage({ type: 'store', snapshot: this.snapshot })
      this.slots[idx] = fresh
      this.pump()
    }
    return slot
  }

  /** Share a new store snapshot with every worker (message order puts it before later tasks). */
  setStore(snapshot: StoreSnapshot): void {
    this.snapshot = snapshot
    for (const s of this.slots) s.worker.postMessage({ type: 'store', snapshot })
  }

  /** `priority`: 'background' for scheduled jobs' work, taken only when no request's task waits */
  run<P, R>(task: Task<P, R>, payload: P, affinity?: number, priority: Priority = 'interactive', view?: TaskView): Promise<R> {
    let name: TaskName
    try {
      name = taskName(task)
    } catch (e) {
      return Promise.reject(e)
    }
    if (this.closed) return Promise.reject(new Error('worker pool is closed'))
    if (this.queue.waiting(priority) >= this.queueMax) {
      const perWorker = Math.ceil((this.queue.waiting(priority) + this.slots.length) / this.slots.length)
      throw new Overloaded(Math.max(1, Math.ceil((perWorker * this.avgTaskMs) / 1000)))
    }
    return new Promise((resolve, reject) => {
      const slot = affinity === undefined ? null : affinity % this.slots.length
      this.queue.push({ id: this.nextId++, task: name, payload, slot, priority, view, startedAt: 0, resolve: resolve as (v: unknown) => void, reject })
      this.pump()
    })
  }

  private pump(): void {
    this.slots.forEach((slot, idx) => {
      if (slot.busy || this.queue.length === 0) return
      const p = this.queue.take(idx)
      if (!p) return
      slot.busy = p
      p.startedAt = performance.now()
      slot.worker.postMessage({ type: 'task', id: p.id, task: p.task, payload: p.payload, view: p.view }, payloadTransferablesOf(p.task, p.payload))
    })
  }

  private onMessage(slot: Slot, msg: { type: 'result'; id: number; ok: boolean; result?: unknown; error?: string }): void {
    const p = slot.busy
    if (!p || p.id !== msg.id) return
    slot.busy = null
    this.completed++
    this.busyMs += performance.now() - p.startedAt
    this.avgTaskMs = this.avgTaskMs * 0.8 + (performance.now() - p.startedAt) * 0.2
    if (msg.ok) p.resolve(msg.result)
    else p.reject(new Error(msg.error))
    this.pump()
  }

  get size(): number {
    return this.slots.length
  }

  stats(): PoolStats {
    return { workers: this.slots.length, busy: this.slots.filter(s => s.busy).length, queued: this.queue.length, queuedBackground: this.queue.waiting('background'), completed: this.completed, busyMs: this.busyMs }
  }

  async close(): Promise<void> {
    this.closed = true
    for (const p of this.queue.drain()) p.reject(new Error('worker pool is closed'))
    for (const s of this.slots) {
      s.busy?.reject(new Error('worker pool is closed'))
      s.worker.terminate()
    }
  }
}
