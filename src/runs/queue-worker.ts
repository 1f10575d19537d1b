/**
 * `perpsim worker`: one host's share of the queue (REDIS_URL). A BullMQ worker takes chunk
 * tasks from the queue and runs each on this process's own Bun worker pool (the same pool
 * and task functions as `perpsim serve`), never on its main thread: the main thread must stay
 * free to renew the task's lock, or a long task would lose it and run twice (SCALE-OUT.md,
 * "the stall pitfall"). It takes as many tasks at once as its pool has threads.
 *
 * A task carries the data version of the store it was cut from and the engine version; a
 * worker whose store or release differs refuses it with a named reason (queue-wire.ts,
 * refusalOf): the task goes back to the queue for another worker, and once every attempt
 * was refused the API answers 503 with that reason. Before refusing, the worker re-reads its
 * store from DATA_DIR once (a `data sync` run beside it since it started).
 *
 * It announces itself in the fleet registry every HEARTBEAT_MS (its name, threads and
 * versions): the API sends no task when no live worker holds the task's versions.
 */
import { hostname } from 'node:os'
import { UnrecoverableError, Worker } from 'bullmq'
import { CandleStore } from '../market/candle-store'
import { PoolExecutor } from './compute/executor'
import { snapshotOf } from './compute/store-view'
import { taskNamed } from './compute/tasks'
import { decode, encode, fleetKey, HEARTBEAT_MS, QUEUE_ENGINE_VERSION, QUEUE_NAME, redisClient, refusalOf, type FleetEntry, type TaskJobData } from './queue-wire'

export interface QueueWorkerOptions {
  url: string
  prefix: string
  /** DATA_DIR: this host's candle store */
  dataDir: string
  /** the pool's threads, and so the tasks taken at once (WORKERS) */
  threads: number
  /** BullMQ lockDuration: a task whose worker stops renewing its lock for this long is stalled (QUEUE_LOCK_MS) */
  lockMs: number
  /** BullMQ stalledInterval: how often stalled tasks are looked for and handed back (QUEUE_STALLED_MS) */
  stalledMs: number
  log: (message: string) => void
}

export interface RunningQueueWorker {
  name: string
  dataVersion(): string
  /** stop taking tasks, let the running ones finish, leave the fleet */
  close(): Promise<void>
}

/** a store re-read at most this often when a task's data version differs */
const REREAD_MS = 5_000

export async function startQueueWorker(opts: QueueWorkerOptions): Promise<RunningQueueWorker> {
  let store = CandleStore.open(opts.dataDir)
  const executor = new PoolExecutor(store, opts.threads, Number.MAX_SAFE_INTEGER)
  const name = `${hostname()}:${process.pid}`
  const mine = () => ({ name, dataVersion: store.dataVersion(), engineVersion: QUEUE_ENGINE_VERSION })
  let rereadAtMs = 0

  const connection = redisClient(opts.url, opts.log)
  const registry = redisClient(opts.url, opts.log)
  const announce = () => {
    const entry: FleetEntry = { ...mine(), slots: opts.threads, seenMs: Date.now() }
    return registry.hset(fleetKey(opts.prefix), name, JSON.stringify(entry)).catch(() => 0)
  }

  const worker = new Worker(
    QUEUE_NAME,
    async job => {
      const data = job.data as TaskJobData
      let refusal = refusalOf(data, mine())
      if (refusal && Date.now() - rereadAtMs > REREAD_MS) {
        rereadAtMs = Date.now()
        const fresh = CandleStore.open(opts.dataDir)
        if (fresh.dataVersion() !== store.dataVersion()) {
          store = fresh
          executor.pool.setStore(snapshotOf(store))
          opts.log(`store re-read from ${opts.dataDir}: data version ${store.dataVersion()}`)
          void announce()
        }
        refusal = refusalOf(data, mine())
      }
      // a refusal is retried (another worker may hold the store); a task's own failure is not (it would fail alike anywhere)
      if (refusal) throw new Error(refusal)
      const task = taskNamed(job.name)
      if (!task) throw new UnrecoverableError(`unknown task '${job.name}' (a worker of another release?)`)
      try {
        return encode(await executor.run(task, decode(data.payload), undefined, data.priority))
      } catch (e) {
        throw new UnrecoverableError((e as Error)?.message ?? String(e))
      }
    },
    { connection, prefix: opts.prefix, name, concurrency: opts.threads, lockDuration: opts.lockMs, stalledInterval: opts.stalledMs, maxStalledCount: 2 },
  )
  let lastError = ''
  worker.on('error', e => {
    // once per kind of error, not once per reconnection attempt
    if (e.message !== lastError) opts.log(`queue worker: ${e.message}`)
    lastError = e.message
  })
  worker.on('failed', (job, e) => {
    if (job && e.message.startsWith('refused')) opts.log(e.message)
  })
  await worker.waitUntilReady()
  await announce()
  const beat = setInterval(announce, HEARTBEAT_MS)

  return {
    name,
    dataVersion: () => store.dataVersion(),
    async close() {
      clearInterval(beat)
      await registry.hdel(fleetKey(opts.prefix), name).catch(() => 0)
      await worker.close()
      await executor.close()
      connection.disconnect()
      registry.disconnect()
    },
  }
}
