/**
 * The weekly alert on the scheduler: Monday 01:00 UTC (after the 00:30 rankings), one slot
 * per ISO week; a slot missed by up to three days (the service was down) still runs, and a
 * failed run is retried an hour later.
 */
import { isoWeek } from '../mail/iso-week'
import { runWeeklyMail, type WeeklyMailDeps } from '../mail/weekly'
import type { JobDefinition } from './scheduler'
import { DAY_MS, HOUR_MS } from '../time'

export const WEEKLY_MAIL_JOB = 'weekly-mail'

export function weeklyMailJob(deps: WeeklyMailDeps): JobDefinition {
  return {
    name: WEEKLY_MAIL_JOB,
    cron: '0 1 * * 1',
    description: 'weekly alert: the best configurations and the verified strategies\' signals, to every active subscriber',
    slotOf: ms => `${WEEKLY_MAIL_JOB}:${isoWeek(ms)}`,
    catchUpMs: 3 * DAY_MS,
    // a failed run (the database busy, say) is tried again an hour later; mails already queued are not queued twice
    retryAfterMs: HOUR_MS,
    run: async ctx => {
      const r = await runWeeklyMail(deps, ctx.slotMs)
      if (r.subscribers === 0) return { skipped: `no active subscribers in ${r.week}` }
      ctx.progress(`weekly mail ${r.week}: ${r.subscribers} active subscribers, ${r.queued} queued, ${r.delivery?.sent ?? 0} sent`)
      return { counts: { subscribers: r.subscribers, queued: r.queued, sent: r.delivery?.sent ?? 0, retrying: r.delivery?.retrying ?? 0, failed: r.delivery?.failed ?? 0 } }
    },
  }
}
