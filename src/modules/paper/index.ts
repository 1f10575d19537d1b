import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { paperWaitingReason } from '../../records/paper'
import { isoInstant } from '../../time'
import { NotInitialized, PaperQuery, PaperState, PerformancePublic } from './model'
import { PaperService } from './service'

/** GET /paper-trading and /performance/public. */
export function paperModule(deps: AppDeps) {
  const service = new PaperService(deps)
  return new Elysia({ name: 'paper' })
    .get(
      '/paper-trading',
      ({ query, status }) =>
        service.state(query.cycle) ??
        status(404, {
          detail:
            query.cycle === undefined
              ? `paper trading is not initialized yet: ${paperWaitingReason(deps.store, deps.clock.now()) ?? 'the first cycle starts at the first hourly run of the live-records job'}`
              : `no paper-trading cycle ${query.cycle}`,
        }),
      { query: PaperQuery, response: { 200: PaperState, 404: NotInitialized }, detail: { tags: ['paper'], summary: 'Paper-trading cycle state, read from the stored cycle' } },
    )
    .get(
      '/performance/public',
      async () => ({ as_of: isoInstant(deps.clock.now()), regime: await deps.marketContext.regime(), paper: service.summary() }),
      { response: PerformancePublic, detail: { tags: ['paper'], summary: 'Current regime, the paper strategy pick and the live position summary' } },
    )
}
