/**
 * The transport under the run pipeline: how a task reaches a worker and its result comes
 * back. A task is addressed by its registered name (compute/tasks.ts) with a payload and a
 * priority lane, and answers with its typed result. The run service (service.ts) is its one
 * caller: module services, jobs and live steps reach the workers through the service's named
 * operations, and only the process roots that put a RunService together (src/main.ts,
 * src/compose.ts, src/jobs/cli.ts, tests, benchmarks) build a transport and hand it over
 * (tests/import-graph.test.ts, "one road to the workers").
 *
 * The default implementation is the in-process Bun worker pool (or, in tests and tools, the
 * calling thread) behind `ExecutorTransport`. A queue can implement the same interface:
 * payloads and results are structured-cloneable data (plain objects, arrays, numbers,
 * strings, typed arrays; no functions or class instances), and tasks whose results carry
 * trades pack them with the trade codec (compute/trade-codec.ts), so a transport that
 * crosses a process boundary encodes them (e.g. typed arrays as base64) and decodes them to
 * the same values before it resolves.
 */
import type { CandleStore } from '../market/candle-store'
import type { Task } from './compute/context'
import { InProcessExecutor, PoolExecutor, type Executor } from './compute/executor'
import type { PoolStats } from './compute/pool'
import type { Priority } from './compute/task-queue'
import { TASKS, taskName, type TaskName } from './compute/tasks'

export type { Priority, TaskName }

/** The payload task `N` takes. */
export type TaskPayload<N extends TaskName> = Parameters<(typeof TASKS)[N]>[1]
/** The result task `N` answers. */
export type TaskResult<N extends TaskName> = ReturnType<(typeof TASKS)[N]>

export interface SubmitOptions {
  /** 'interactive' (a request's work) is taken before any 'background' task (a scheduled job's) */
  priority: Priority
  /** tasks with the same number run on the same worker, where its caches stay warm (a hint: a transport may ignore it) */
  affinity?: number
}

/** What the workers are doing (GET /metrics): the pool's figures, or null where there is no pool. */
export type TransportStats = PoolStats

export interface Transport {
  /** tasks that can run at once: a run's coins are cut into chunks by it */
  readonly parallelism: number
  /**
   * Chunks of a run's coins per task that can run at once (absent: 2). A task with an affinity
   * runs on that one worker, after the worker's earlier tasks: more chunks than workers would
   * only add messages, and a round trip through this thread between a worker's chunks
   * (1). A transport whose workers take any task gives each two, so a faster one takes more.
   */
  readonly chunksPerWorker?: number
  /**
   * Run task `task` with `payload` on a worker. Beyond the transport's bound on waiting
   * tasks of that lane it throws Overloaded (503 with Retry-After), as the pool does.
   */
  submit<N extends TaskName>(task: N, payload: TaskPayload<N>, opts: SubmitOptions): Promise<TaskResult<N>>
  stats(): TransportStats | null
  /**
   * Why runs cannot reach a worker right now (GET /health reports it as `degraded`), from
   * memory only; null when nothing is known to be wrong. The pool has no such state.
   */
  trouble?(): string | null
  close(): Promise<void>
}

/** The default transport: the tasks on an executor (the worker pool, or the calling thread). */
export class ExecutorTransport implements Transport {
  constructor(private readonly executor: Executor) {}

  get parallelism(): number {
    return this.executor.parallelism
  }

  get chunksPerWorker(): number | undefined {
    return this.executor.chunksPerWorker
  }

  submit<N extends TaskName>(task: N, payload: TaskPayload<N>, opts: SubmitOptions): Promise<TaskResult<N>> {
    // the registry binds the name to its function; its types are the name's (TaskPayload, TaskResult)
    const fn = TASKS[task] as unknown as Task<TaskPayload<N>, TaskResult<N>>
    return this.executor.run(fn, payload, opts.affinity, opts.priority)
  }

  stats(): TransportStats | null {
    return this.executor.stats?.() ?? null
  }

  close(): Promise<void> {
    return this.executor.close()
  }
}

/** The server's transport: a pool of `size` Bun Workers kept in step with the store, at most `queueMax` waiting tasks per lane. */
export function workerPoolTransport(store: CandleStore, size: number, queueMax: number): Transport {
  return new ExecutorTransport(new PoolExecutor(store, size, queueMax))
}

/** Tasks on the calling thread (tests, tools): the same task functions, so the same results. */
export function inProcessTransport(store: CandleStore): Transport {
  return new ExecutorTransport(new InProcessExecutor(store))
}

/**
 * A transport at one priority, as the run pipeline's steps use it: a task is passed as its
 * function (so "go to definition" lands on it) and sent by its registered name.
 */
export interface Lane {
  readonly parallelism: number
  /** Transport.chunksPerWorker for a request's work; a scheduled job's lane keeps the default */
  readonly chunksPerWorker?: number
  run<P, R>(task: Task<P, R>, payload: P, affinity?: number): Promise<R>
}

export function laneOf(transport: Transport, priority: Priority): Lane {
  return {
    get parallelism() {
      return transport.parallelism
    },
    // a scheduled job's runs keep two chunks a worker: a request's task that arrives while
    // one runs waits behind half as many coins (a coin lands on the same worker either way:
    // chunk i mod 2k goes to worker (i mod 2k) mod k = i mod k)
    get chunksPerWorker() {
      return priority === 'background' ? undefined : transport.chunksPerWorker
    },
    run<P, R>(task: Task<P, R>, payload: P, affinity?: number): Promise<R> {
      let name: TaskName
      try {
        name = taskName(task)
      } catch (e) {
        // a function missing from the registry fails as the executors fail it: a rejected promise
        return Promise.reject(e)
      }
      return transport.submit(name, payload as TaskPayload<typeof name>, { priority, affinity }) as Promise<R>
    },
  }
}
