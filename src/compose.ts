/**
 * The one place AppDeps are put together from their parts. The server (main.ts), the test
 * harness and the benchmarks each choose their own config, store, clock, database and
 * executor, and get the same universe, series cache, run service and market context.
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
import type { Executor } from './runs/compute/executor'
import { RunService } from './runs/service'

export interface DepsParts {
  config: Config
  clock: Clock
  store: CandleStore
  db: Db
  executor: Executor
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
  const { config, clock, store, db, executor, log } = p
  const universe = new Universe(store)
  const runs = new RunService({
    store,
    universe,
    executor,
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
