import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { HistoryQuery, HistoryResponse, LiveQuery, RealtimeList, RealtimeQuery, ScoredQuery, ScoredResponse, SignalList } from './model'
import { SignalsService } from './service'

/** GET /signals/live, /signals/history, /signals/scored: the recorded signals and their scores. */
export function signalsModule(deps: AppDeps) {
  const service = new SignalsService(deps)
  return new Elysia({ name: 'signals' })
    .get('/signals/live', ({ query }) => service.live(query.top_n), {
      query: LiveQuery,
      response: SignalList,
      detail: { tags: ['signals'], summary: 'Signals of verified strategies at the latest completed 1H candle (cached 5 minutes)' },
    })
    .get('/signals/history', ({ query }) => service.history(query.hours), {
      query: HistoryQuery,
      response: HistoryResponse,
      detail: { tags: ['signals'], summary: 'Recorded signals of the last N hours, every strategy status' },
    })
    .get('/signals/realtime', ({ query }) => service.realtime(query.min_pf, query.max_results), {
      query: RealtimeQuery,
      response: RealtimeList,
      detail: { tags: ['signals'], summary: 'Latest 1H signals whose strategy ranks with profit factor ≥ min_pf in the 30-day ranking (cached 5 minutes)' },
    })
    .get('/signals/scored', ({ query }) => service.scored(query), {
      query: ScoredQuery,
      response: ScoredResponse,
      detail: { tags: ['signals'], summary: 'Scored signals (reference-engine-v2)' },
    })
}
