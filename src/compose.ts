/**
 * The one place AppDeps are put together from their parts. The server (main.ts), the test
 * harness and the benchmarks each choose their own config, store, clock, database and
 * transport to the workers (src/runs/transport.ts), and get the same universe, series cache, run service and market context.
 */
import type { Clock } from './clock'
import type { Config } from './config'
import type { Db } from './db'
import type { AppDeps } from './deps'
import type { Logger } from './log'
import type { Mailer } from './mail/mailer'
import type { Pusher } from './push/pusher'
import type { StrategyStatsFn } from './market-context/coin-stats'
import { MarketContext } from './market-context/service'
import type { CandleStore } from './market/candle-store'
import { SeriesCache } from './market/series'
import { Universe } from './market/universe'
import { RunService } from './runs/service'
import type { Transport } from './runs/transport'

export interface DepsParts {
  config: Config
  clock: Clock
  store: CandleStore
  db: Db
  /** how the run service reaches the workers: the worker pool, the calling thread, or a queue */
  transport: Transport
  log?: Logger
  mailer?: Mailer
  pusher?: Pusher
  /** runs computing or waiting at once (default: config.queueMax) */
  maxRuns?: number
  /** finished results kept in memory (default: config.resultCacheSize) */
  cacheSize?: number
  /** /coins/stats' per-coin strategy figures, computed through the run service */
  strategyStats?: (runs: RunService) => StrategyStatsFn
}

export function composeDeps(p: DepsParts): AppDeps {
  const { config, clock, store, db, transport, log } = p
  const universe = new Universe(store)
  const runs = new RunService({
    store,
    universe,
    transport,
    db,
    clock,
    cacheSize: p.cacheSize ?? config.resultCacheSize,
    maxRuns: p.maxRuns ?? config.queueMax,
    resultIndexMax: config.resultIndexMax,
  })
  return {
    config,
    clock,
    store,
    universe,
    series: new SeriesCache(store),
    db,
    runs,
    marketContext: new MarketContext({ config, clock, db, store, universe, log, strategyStats: p.strategyStats?.(runs) }),
    mailer: p.mailer,
    pusher: p.pusher,
    startedAtMs: clock.now(),
    log,
  }
}
