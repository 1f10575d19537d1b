/**
 * Start-up: config -> stores -> worker pool -> jobs -> listen.
 * `startServer` is what `perpsim serve` (and `npm start`) runs; end-to-end tests start
 * the real process through the CLI.
 */
import { join } from 'node:path'
import { buildApp } from './app'
import { systemClock, type Clock } from './clock'
import type { Config } from './config'
import { openConfiguredDb } from './db'
import type { AppDeps } from './deps'
import { composeDeps } from './compose'
import { Scheduler } from './jobs/scheduler'
import { candleFeedFor } from './jobs/candles'
import { registerCandles, registerJobs } from './jobs/registry'
import { createLogger, type Logger } from './log'
import { REFRESH_TICK_MS } from './market-context/service'
import { CandleStore } from './market/candle-store'
import { generateStore, SYNTHETIC_DEFAULTS } from './market/generate-store'
import { addSyntheticBrackets } from './market/synthetic'
import { coinStrategyFigures } from './modules/simulate/service'
import { workerPoolTransport, type Transport } from './runs/transport'
import { DEFAULT_STATS_STRATEGY } from './market-context/coin-stats'
import { mailerFor } from './mail/mailer'
import { pusherFor } from './push/pusher'
import { registerPushDelivery } from './jobs/push-delivery'
import { pageAssets } from './web/assets'

/** how long a SIGTERM waits for in-flight requests */
export const SHUTDOWN_GRACE_MS = 10_000

export interface RunningServer {
  port: number
  deps: AppDeps
  scheduler: Scheduler
  stop(graceMs?: number): Promise<void>
}

/** Generate the synthetic universe into an empty store, printing progress. */
export function ensureStore(config: Config, clock: Clock, log: Logger): CandleStore {
  let store = CandleStore.open(config.dataDir)
  if (store.coinCount === 0) {
    log.info(`empty store at ${store.root}: generating the synthetic universe (${SYNTHETIC_DEFAULTS.coins} coins x ${SYNTHETIC_DEFAULTS.days} days)`)
    const started = performance.now()
    let lastPct = -1
    const res = generateStore(config.dataDir, {
      ...SYNTHETIC_DEFAULTS,
      endMs: clock.now(),
      onProgress: (done, total) => {
        const pct = Math.floor((done / total) * 10) * 10
        if (pct !== lastPct) {
          lastPct = pct
          log.info(`generating synthetic data: ${done}/${total} coins`)
        }
      },
    }, true)
    store = res.store
    log.info(`generated ${res.coins} coins, ${res.rows} candles in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  } else if (store.isSynthetic() && store.bracketSymbols().length === 0) {
    // a synthetic store generated before margin brackets existed (issue 25): its coins get theirs, once
    const n = addSyntheticBrackets(store, store.symbols(), clock.now())
    log.info(`synthetic store without margin brackets: brackets of ${n} coins added (shaped like Binance's by liquidity)`)
  }
  return store
}

/**
 * The road to the workers this process takes: with REDIS_URL, the queue to the fleet's
 * `perpsim worker` processes (WORKERS: the chunks a run is cut into, the fleet's threads);
 * without it, the in-process worker pool.
 */
export async function transportFor(config: Config, store: CandleStore, log?: Logger): Promise<Transport> {
  // admission is per run (QUEUE_MAX); the task queue bound is only a backstop (a compare is ~100 tasks)
  if (!config.redis.url) return workerPoolTransport(store, config.workers, config.queueMax * 256)
  // BullMQ is loaded only by a queue node (about 120 ms of every start otherwise)
  const { QueueTransport } = await import('./runs/queue-transport')
  return new QueueTransport(store, {
    url: config.redis.url,
    prefix: config.redis.prefix,
    parallelism: config.workers,
    queueMax: config.queueMax * 256,
    deadlineMs: config.redis.taskDeadlineMs,
    log: message => log?.warn(message),
  })
}

export async function startServer(config: Config, clock: Clock = systemClock): Promise<RunningServer> {
  const log = createLogger(config.logLevel)
  const store = ensureStore(config, clock, log)
  const db = await openConfiguredDb(config)
  const transport = await transportFor(config, store, log)
  const mailer = mailerFor(config, db, clock, log)
  const pusher = pusherFor(config, db, clock, log)
  const deps = composeDeps({
    config,
    clock,
    store,
    db,
    transport,
    log,
    mailer,
    pusher,
    strategyStats: runs => symbols => coinStrategyFigures(runs, DEFAULT_STATS_STRATEGY, symbols.filter(s => store.bars(s))),
  })
  // aborted when stop() begins: the open event streams end instead of holding the stop up
  const shutdown = new AbortController()
  deps.shutdown = shutdown.signal
  const scheduler = new Scheduler({ clock, db, log })
  if (!config.offline) {
    // warm the upstream caches now, then refresh each when its interval has passed on the clock
    void scheduler.runOnce('market-context', () => deps.marketContext.refreshDue())
    scheduler.every('market-context', REFRESH_TICK_MS, () => deps.marketContext.refreshDue())
  }
  // mails queued before a restart (or waiting for a retry) go out now, then every minute
  mailer.kick()
  scheduler.every('mail-outbox', 60_000, () => mailer.deliverDue().then(() => undefined))
  // webhooks, Telegram and Discord: what a restart left in the outbox now, then as events come
  const stopPushWakeups = registerPushDelivery(scheduler, pusher)
  const feed = candleFeedFor(config, store, clock, log)
  if (feed?.source === 'demo') {
    // catch up on the hours the store missed while the service was down, and draw the forming hour
    const added = (await feed.candles(clock.now())).appended
    if (added > 0) log.info(`demo: appended ${added} candles`)
  }

  // the page is built (or found built) before listening, so the first visitor does not wait for the bundler
  await pageAssets().then(
    page => log.info(`page: ${page.dir}`),
    err => log.error(`page not available (the API still is): ${err instanceof Error ? err.message : err}`),
  )
  // Bun's own cap answers 413 with an empty body: it sits above ours, which answers in JSON
  const app = buildApp(deps)
  try {
    app.listen({ port: config.port, hostname: config.host, maxRequestBodySize: Math.max(config.bodyLimitBytes * 4, 64 << 20) })
  } catch (e) {
    await transport.close()
    await db.close()
    const why = (e as Error).message.includes('in use') ? 'the port is in use' : (e as Error).message
    throw new Error(`cannot listen on ${config.host}:${config.port} (HOST, PORT): ${why}`)
  }
  const port = app.server!.port!
  const shown = config.host.includes(':') ? `[${config.host}]` : config.host
  log.info(`perpsim listening on http://${shown}:${port} (${store.coinCount} coins, store ${store.sources().join('+') || 'empty'}${feed?.source === 'demo' ? ', demo mode' : feed ? `, hourly sync from ${feed.source}` : ''})`, { host: config.host, port })
  if (config.jobs) registerJobs(scheduler, { ...deps, feed: feed ?? undefined }, log)
  else {
    log.info('JOBS=0: the scheduled jobs (rankings, …) are not run')
    if (feed) registerCandles(scheduler, feed, clock, log)
  }
  scheduler.start() // missed slots (a fresh store: the last 30 ranking days) run in the background
  return {
    port,
    deps,
    scheduler,
    /**
     * Graceful stop (SIGTERM): stop accepting, let in-flight requests finish for up to
     * `graceMs` (then close what is left), stop the jobs, the workers, the database.
     */
    async stop(graceMs = SHUTDOWN_GRACE_MS) {
      // refuse new connections first, then stop the jobs while in-flight requests finish
      shutdown.abort()
      const drained = app.stop(false).then(() => false)
      stopPushWakeups()
      // the push attempts in flight end (at most WEBHOOK_TIMEOUT_MS); claimed rows not yet attempted are handed back
      const pushStopped = pusher.stop()
      const jobsStopped = Promise.resolve(scheduler.stop())
      let timer: ReturnType<typeof setTimeout> | undefined
      const late = await Promise.race([drained, new Promise<boolean>(r => (timer = setTimeout(() => r(true), graceMs)))])
      clearTimeout(timer)
      await jobsStopped
      await pushStopped
      if (late) {
        log.warn(`shutdown: requests still running after ${graceMs / 1000} s were closed`)
        await app.stop(true)
      }
      await transport.close()
      mailer.close()
      await db.close()
    },
  }
}
