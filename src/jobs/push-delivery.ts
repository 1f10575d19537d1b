/**
 * The push delivery on the scheduler: every PUSH_PERIOD_MS, and at once when events are
 * appended in this process (the records' wake-up), the pusher fans new events out into its
 * outbox and sends what is due (src/push/pusher.ts). Not a slot job: like the mail outbox,
 * it has no schedule of its own to record, only work that is due.
 */
import { eventWakeups } from '../records/events'
import type { Pusher } from '../push/pusher'
import type { Scheduler } from './scheduler'

/** the slow poll: events appended by another process, retries coming due, rate-limit pauses ending */
export const PUSH_PERIOD_MS = 5_000

export function registerPushDelivery(scheduler: Scheduler, pusher: Pusher): () => void {
  const run = () => pusher.deliverDue().then(() => undefined)
  void scheduler.runOnce('push-delivery', run) // deliveries left by a restart go out now
  scheduler.every('push-delivery', PUSH_PERIOD_MS, run)
  const wake = () => void scheduler.runOnce('push-delivery', run)
  eventWakeups.on('appended', wake)
  return () => eventWakeups.off('appended', wake)
}
