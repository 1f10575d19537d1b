/**
 * `perpsim worker`: one host's share of the queue (REDIS_URL). A BullMQ worker takes chunk
 * tasks from the queue and runs each on this process's own Bun worker pool (the same pool
 * and task functions as `perpsim serve`), never on its main thread: the main thread must stay
 * free to renew the task's lock, or a long task would lose it and run twice (SCALE-OUT.md,
 * "the stall pitfall"). It takes as many tasks at once as its pool has threads.
 *
 * A task carries the engine version and, for every coin it reads, the API store's last bar
 * and funding time of that coin and the digest of its rows up to them. A worker whose
 * release differs, or whose store lacks a coin or holds other rows of it up to there,
 * refuses it with a named reason (queue-wire.ts, acceptance): the task goes back to the
 * queue, delayed a moment, for another worker, and once every live worker has refused it
 * the API answers 503 with the reasons. A store that holds more (newer hours, other coins)
 * takes it, and the task sees only the rows it was cut for (a TaskView on the pool thread).
 * Before refusing, the worker re-reads its store from DATA_DIR once (a `data sync` run beside
 * it since it started).
 *
 * It announces itself in the fleet registry every HEARTBEAT_MS (its name, threads, release
 * and each coin's last times and digest): the API sends no task no live worker can take.
 */
import { hostname } from 'node:os'
import { DelayedError, UnrecoverableError, Worker } from 'bullmq'
import type { CandleFeed } from '../market/candle-feed'
import { CandleStore } from '../market/candle-store'
import { HOUR_MS } from '../time'
import { PoolExecutor } from './compute/executor'
import { snapshotOf } from './compute/store-view'
import { taskNamed } from './compute/tasks'
import { acceptance, decode, encode, FLEET_STALE_MS, fleetCoins, fleetKey, HEARTBEAT_MS, QUEUE_ENGINE_VERSION, QUEUE_NAME, redisClient, REFUSED, type FleetEntry, type TaskJobData } from './queue-wire'

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
  /**
   * What keeps this host's store current (SYNC on a synced store, DEMO on a synthetic one;
   * jobs/candles.ts candleFeedFor), run at start and 5 s past every hour as `serve` runs it;
   * null: a static store (update it with `data sync` and the worker re-reads it).
   */
  feed?: (store: CandleStore) => CandleFeed | null
}

export interface RunningQueueWorker {
  name: string
  /** its whole store's data version */
  dataVersion(): string
  /** stop taking tasks, let the running ones finish, leave the fleet */
  close(): Promise<void>
}

/** a store re-read at most this often when a task's data differs */
const REREAD_MS = 5_000
/** the hourly feed runs this long past the hour, as the server's candles job (cron 5 0 * * * *) */
const FEED_PAST_HOUR_MS = 5_000

/** a refused task waits this long before another worker (or this one, after a re-read) may take it */
const REFUSED_DELAY_MS = 100

export async function startQueueWorker(opts: QueueWorkerOptions): Promise<RunningQueueWorker> {
  let store = CandleStore.open(opts.dataDir)
  const executor = new PoolExecutor(store, opts.threads, Number.MAX_SAFE_INTEGER)
  const name = `${hostname()}:${process.pid}`
  const mine = () => ({ name, engineVersion: QUEUE_ENGINE_VERSION, rowsWithin: (s: string, bar: number, funding: number, samples: readonly number[]) => store.symbolRowsWithin(s, bar, funding, samples) })
  let rereadAtMs = 0

  const connection = redisClient(opts.url, opts.log)
  const registry = redisClient(opts.url, opts.log)
  const announce = () => {
    const entry: FleetEntry = { name, dataVersion: store.dataVersion(), engineVersion: QUEUE_ENGINE_VERSION, coins: fleetCoins(store), slots: opts.threads, seenMs: Date.now() }
    return registry.hset(fleetKey(opts.prefix), name, JSON.stringify(entry)).catch(() => 0)
  }
  /** the names of the workers whose heartbeat is fresh */
  const liveWorkers = async (): Promise<string[]> => {
    const all = await registry.hgetall(fleetKey(opts.prefix))
    return Object.values(all)
      .map(v => JSON.parse(v) as FleetEntry)
      .filter(e => Date.now() - e.seenMs < FLEET_STALE_MS)
      .map(e => e.name)
  }

  const worker = new Worker(
    QUEUE_NAME,
    async (job, token) => {
      const data = job.data as TaskJobData
      let verdict = acceptance(data, mine())
      if ('refusal' in verdict && Date.now() - rereadAtMs > REREAD_MS) {
        rereadAtMs = Date.now()
        const fresh = CandleStore.open(opts.dataDir)
        if (fresh.dataVersion() !== store.dataVersion()) {
          store = fresh
          executor.pool.setStore(snapshotOf(store))
          opts.log(`store re-read from ${opts.dataDir}: data version ${store.dataVersion()}`)
          void announce()
        }
        verdict = acceptance(data, mine())
      }
      if ('refusal' in verdict) {
        // another worker may hold the data: the task goes back (delayed, which spends none of its
        // attempts) until every live worker has refused it, and then fails with their reasons
        const refusals = { ...data.refusals, [name]: verdict.refusal }
        const live = await liveWorkers().catch(() => [name])
        if (live.every(w => w in refusals)) throw new UnrecoverableError(Object.values(refusals).join('; '))
        await job.updateData({ ...data, refusals })
        await job.moveToDelayed(Date.now() + REFUSED_DELAY_MS, token)
        throw new DelayedError()
      }
      const task = taskNamed(job.name)
      if (!task) throw new UnrecoverableError(`unknown task '${job.name}' (a worker of another release?)`)
      // the pool thread shows the task only the rows it was cut for, where its store reaches further
      const view = { bounds: verdict.rows, version: data.dataVersion }
      try {
        return encode(await executor.run(task, decode(data.payload), data.affinity, data.priority, view))
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
    if (job && e.message.startsWith(REFUSED)) opts.log(e.message)
  })
  await worker.waitUntilReady()

  // the hour's candles into this host's store, then announced, so the API sees the new last bars
  let feedTimer: ReturnType<typeof setTimeout> | undefined
  let feeding: Promise<void> = Promise.resolve()
  const feedStore = async () => {
    const feed = opts.feed?.(store)
    if (!feed) return
    try {
      const candles = await feed.candles(Date.now())
      const funding = await feed.funding(Date.now())
      if (candles.appended + funding.appended > 0) opts.log(`${feed.source}: appended ${candles.appended} candles and ${funding.appended} funding events (data version ${store.dataVersion()})`)
      if (candles.failed + funding.failed > 0) opts.log(`${feed.source}: ${candles.failed + funding.failed} symbols failed (the next hour catches them up)`)
    } catch (e) {
      opts.log(`${feed.source}: ${(e as Error).message}`)
    }
    // the pool's threads get the new rows now (a re-read store is not the one the pool listens to)
    executor.pool.setStore(snapshotOf(store))
    await announce()
  }
  const nextFeed = () => {
    const now = Date.now()
    const wait = Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS + FEED_PAST_HOUR_MS - now
    feedTimer = setTimeout(() => {
      feeding = feedStore().finally(nextFeed)
    }, wait)
  }
  if (opts.feed) {
    feeding = feedStore()
    await feeding
    nextFeed()
  }

  await announce()
  const beat = setInterval(announce, HEARTBEAT_MS)

  return {
    name,
    dataVersion: () => store.dataVersion(),
    async close() {
      clearInterval(beat)
      clearTimeout(feedTimer)
      await feeding
      await registry.hdel(fleetKey(opts.prefix), name).catch(() => 0)
      await worker.close()
      await executor.close()
      connection.disconnect()
      registry.disconnect()
    },
  }
}
