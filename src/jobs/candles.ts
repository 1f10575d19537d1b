/**
 * The hour's candles, 5 s past every hour: demo mode draws them, a store synced from the
 * exchange syncs them (market/candle-feed.ts). The live-records job at 10 s asks the same
 * feed again and waits for this run if it is still going, so the signal scan always sees
 * the hour. Both halves catch up by themselves (every hour the store is missing), so a
 * missed run needs no replay; `catchUpMs` only makes the latest one happen at start-up.
 */
import type { Clock } from '../clock'
import type { Config } from '../config'
import type { Logger } from '../log'
import { demoFeed, exchangeFeed, type CandleFeed } from '../market/candle-feed'
import type { CandleStore } from '../market/candle-store'
import { SYNTHETIC_DEFAULTS } from '../market/generate-store'
import type { JobDefinition } from './scheduler'

export const CANDLES_JOB = 'candles'

export function candlesJob(deps: { feed: CandleFeed; clock: Clock; log: Logger; catchUpMs?: number }): JobDefinition {
  const { feed, clock, log } = deps
  return {
    name: CANDLES_JOB,
    cron: '5 0 * * * *',
    description: feed.source === 'demo' ? 'demo mode: append the synthetic candles of the hour that just closed, draw the forming one' : `sync the hour's candles and funding from ${feed.source}`,
    catchUpMs: deps.catchUpMs ?? 0,
    run: async ctx => {
      const candles = await feed.candles(clock.now())
      const funding = await feed.funding(clock.now())
      if (candles.appended > 0) log.info(`${feed.source}: appended ${candles.appended} candles (${candles.forming} forming opens known)`)
      if (candles.failed + funding.failed > 0) throw new Error(`${feed.source}: ${candles.failed + funding.failed} symbols failed (the next run catches them up)`)
      return { counts: { candles: candles.appended, funding: funding.appended, forming: candles.forming } }
    },
  }
}

/**
 * What brings the hourly candles: demo mode on a synthetic store (DEMO), the exchange sync
 * on a store synced from Binance (SYNC), or nothing (a static store).
 */
export function candleFeedFor(config: Config, store: CandleStore, clock: Clock, log: Logger): CandleFeed | null {
  const demo = config.demo ?? store.isSynthetic()
  if (store.isSynthetic()) {
    if (config.sync) log.warn('SYNC=1 ignored: the store holds synthetic data, and real candles cannot continue generated ones')
    return demo ? demoFeed(store, store.syntheticSeed() ?? SYNTHETIC_DEFAULTS.seed) : null
  }
  if (demo) log.warn('DEMO=1 ignored: the store holds imported or synced data, and synthetic candles are never added to it')
  const sync = config.sync ?? store.sources().includes('ccxt')
  if (!sync || store.coinCount === 0) return null
  if (config.offline) {
    if (config.sync) log.warn('SYNC=1 ignored: OFFLINE=1 allows no outbound calls')
    return null
  }
  return exchangeFeed(store, clock, { baseUrl: config.upstream.binanceFuturesUrl, log: line => log.debug(`sync: ${line}`) })
}
