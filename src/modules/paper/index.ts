import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { Detail } from '../../model/shared'
import { PaperQuery, PaperState, PerformancePublic } from './model'
import { PaperService } from './service'

/** GET /paper-trading and /performance/public. */
export function paperModule(deps: AppDeps) {
  const service = new PaperService(deps)
  return new Elysia({ name: 'paper' })
    .get('/paper-trading', ({ query }) => service.cycle(query.cycle), {
      query: PaperQuery,
      response: { 200: PaperState, 404: Detail },
      detail: { tags: ['paper'], summary: 'Paper-trading cycle state, read from the stored cycle' },
    })
    .get(
      '/performance/public',
      () => service.publicPerformance(),
      { response: PerformancePublic, detail: { tags: ['paper'], summary: 'Current regime, the paper strategy pick and the live position summary' } },
    )
}
