/**
 * What buildApp receives: stores, clock and (later) the worker pool and upstream
 * clients. No module reaches these through a global import, so tests pass their own.
 */
import type { Clock } from './clock'
import type { Config } from './config'
import type { Db } from './db'
import type { LagMonitor } from './http/load-shedding'
import type { Logger } from './log'
import type { MarketContext } from './market-context/service'
import type { CandleStore } from './market/candle-store'
import type { SeriesCache } from './market/series'
import type { Universe } from './market/universe'
import type { RunService } from './runs/service'
import type { Mailer } from './mail/mailer'
import type { Pusher } from './push/pusher'

export interface AppDeps {
  config: Config
  clock: Clock
  store: CandleStore
  universe: Universe
  series: SeriesCache
  db: Db
  /** the run pipeline every compute path goes through */
  runs: RunService
  /** market overview, live prices, news, macro, regime, coin stats (upstreams + fallbacks) */
  marketContext: MarketContext
  /**
   * subscriptions' and alerts' mail: outbox, signed links, transport (SMTP or .eml files);
   * when absent, buildApp sets the one the configuration describes
   */
  mailer?: Mailer
  /** webhooks, Telegram and Discord: the push outbox and its senders; when absent, buildApp sets the one the configuration describes */
  pusher?: Pusher
  /** clock time when the service started (for uptime) */
  startedAtMs: number
  /** the service log (access lines, errors); absent in most tests */
  log?: Logger
  /** event-loop lag source for load shedding; default: the process's own (http/load-shedding.ts) */
  eventLoopLag?: LagMonitor
  /** aborted when the server begins to stop: open event streams end so the stop need not wait for them */
  shutdown?: AbortSignal
}
