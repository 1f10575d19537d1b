/**
 * The hour's candles, 5 s past every hour: demo mode draws them, a store synced from the
 * exchange syncs them (market/candle-feed.ts). The live-records job at 10 s asks the same
 * feed again and waits for this run if it is still going, so the signal scan always sees
 * the hour. Both halves catch up by themselves (every hour the store is missing), so a
 * missed run needs no replay; `catchUpMs` only makes the latest one happen at start-up.
 */
import type { Clock } from '../clock'
import type { Logger } from '../log'
import type { CandleFeed } from '../market/candle-feed'
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
