/**
 * Where tasks run: the worker pool in the service, or the calling thread (tests, tools).
 * Both run the same task functions, so results are identical. A task is passed as its
 * function (`run(runCoinTrades, payload)`), typed by it end to end; a scheduled job's tasks
 * go in at 'background' priority and wait behind every request's on the pool. The run
 * pipeline reaches an executor only through its transport (../transport.ts,
 * `ExecutorTransport`): nothing outside src/runs/ imports this file.
 */
import type { CandleStore } from '../../market/candle-store'
import { TaskContext, type Task } from './context'
import { WorkerPool, type PoolStats } from './pool'
import { snapshotOf, type TaskView } from './store-view'
import type { Priority } from './task-queue'
import { taskName, transferablesOf } from './tasks'

export interface Executor {
  /** how many tasks can run at once (chunks per run) */
  readonly parallelism: number
  /** chunks of a run's coins per task that can run at once (absent: 2): Transport.chunksPerWorker says why */
  readonly chunksPerWorker?: number
  /**
   * `affinity`: tasks with the same number run on the same worker (its caches stay warm);
   * `priority`: 'background' (scheduled jobs) waits behind every 'interactive' task (the default)
   */
  run<P, R>(task: Task<P, R>, payload: P, affinity?: number, priority?: Priority): Promise<R>
  close(): Promise<void>
  /** workers, busy, queued tasks and busy time (pools only; GET /metrics) */
  stats?(): PoolStats
}

export class InProcessExecutor implements Executor {
  readonly parallelism = 1
  readonly chunksPerWorker = 1
  private readonly ctx: TaskContext

  constructor(private readonly store: CandleStore) {
    this.ctx = new TaskContext(store)
  }

  async run<P, R>(task: Task<P, R>, payload: P): Promise<R> {
    // as the pool would: a task missing from the registry fails here too, not first in production
    taskName(task)
    this.ctx.setView(this.store)
    // a structured clone, as a worker's answer would be (its trade tables moved, not copied): callers may not share memory with it
    const result = task(this.ctx, payload)
    return structuredClone(result, { transfer: transferablesOf(taskName(task), result) })
  }

  async close(): Promise<void> {}
}

/** The worker pool, kept in step with the store: every change sends a new snapshot. */
export class PoolExecutor implements Executor {
  readonly pool: WorkerPool
  /** a task with an affinity waits for its one worker (pool.ts) */
  readonly chunksPerWorker = 1

  constructor(store: CandleStore, size: number, queueMax: number) {
    this.pool = new WorkerPool(size, queueMax)
    this.pool.setStore(snapshotOf(store))
    // a burst of appends (one per coin) sends one snapshot, before any later task
    let pending = false
    store.onChange(() => {
      if (pending) return
      pending = true
      queueMicrotask(() => {
        pending = false
        this.pool.setStore(snapshotOf(store))
      })
    })
  }

  get parallelism(): number {
    return this.pool.size
  }

  stats(): PoolStats {
    return this.pool.stats()
  }

  /** `view`: the task sees only these rows of the store (a queued task cut where this host's store reached less far) */
  run<P, R>(task: Task<P, R>, payload: P, affinity?: number, priority?: Priority, view?: TaskView): Promise<R> {
    return this.pool.run(task, payload, affinity, priority, view)
  }

  close(): Promise<void> {
    return this.pool.close()
  }
}
