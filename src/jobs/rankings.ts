/**
 * The daily rankings job (00:30 UTC): publishes the ranking day file of the slot's date
 * through the step in src/live/ranking-day.ts. Missed days (and, on a fresh store, the last
 * 30) are caught up at start-up in the background; a day the store cannot rank yet (candles
 * still on their way) fails and is retried within the hour.
 */
import { CATCH_UP_DAYS } from '../records/rankings/configurations'
import { DayFiles } from '../records/rankings/day-files'
import { publishRankingDay, type RankingDeps } from '../live/ranking-day'
import type { JobDefinition } from './scheduler'
import { DAY_MS, HOUR_MS, isoDay } from '../time'

export const RANKINGS_JOB = 'rankings'
/** days a fresh store backfills, and how far back missed days are caught up */
export const RANKINGS_CATCH_UP_DAYS = CATCH_UP_DAYS

export function rankingsJob(deps: RankingDeps): JobDefinition {
  const files = new DayFiles(deps.db)
  return {
    name: RANKINGS_JOB,
    cron: '30 0 * * *',
    description: 'daily strategy rankings: every configuration × period × group, published as an append-only day file',
    slotOf: ms => `${RANKINGS_JOB}:${isoDay(ms)}`,
    catchUpMs: RANKINGS_CATCH_UP_DAYS * DAY_MS,
    // candles that arrive late (a sync behind 00:30) get the day published within the hour
    retryAfterMs: HOUR_MS,
    run: ctx => publishRankingDay(deps, isoDay(ctx.slotMs), ctx, files),
  }
}
