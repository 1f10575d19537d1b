import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { HistoryQuery, HistoryResponse, LiveQuery, RealtimeList, RealtimeQuery, ScoredQuery, ScoredResponse, SignalList } from './model'
import { JsonCache } from '../../ttl-cache'
import { SIGNAL_CACHE_MS, SignalsService } from './service'

/** GET /signals/live, /signals/history, /signals/scored: the recorded signals and their scores. */
export function signalsModule(deps: AppDeps) {
  const service = new SignalsService(deps)
  const cache = new JsonCache(deps.clock, SIGNAL_CACHE_MS)
  return new Elysia({ name: 'signals' })
    .get('/signals/live', ({ query }) => service.live(query.top_n), {
      query: LiveQuery,
      response: SignalList,
      detail: { tags: ['signals'], summary: 'Signals of verified strategies at the latest completed 1H candle (cached 5 minutes)' },
    })
    .get('/signals/history', ({ query }) => cache.response(`history|${query.hours}|${query.limit}|${query.cursor ?? ''}`, () => service.history(query)), {
      query: HistoryQuery,
      response: HistoryResponse,
      detail: { tags: ['signals'], summary: 'Recorded signals of the last N hours, every strategy status (cached 5 minutes)' },
    })
    .get('/signals/realtime', ({ query }) => service.realtime(query.min_pf, query.max_results), {
      query: RealtimeQuery,
      response: RealtimeList,
      detail: { tags: ['signals'], summary: 'Latest 1H signals whose strategy ranks with profit factor ≥ min_pf in the 30-day ranking (cached 5 minutes)' },
    })
    .get('/signals/scored', ({ query }) => cache.response(`scored|${query.days}|${query.limit}|${query.signal_ids ?? ''}`, () => service.scored(query)), {
      query: ScoredQuery,
      response: ScoredResponse,
      detail: { tags: ['signals'], summary: 'Scored signals (reference-engine-v4 from issue 25 §4: minute detail; each row keeps the engine it was first scored with; cached 5 minutes)' },
    })
}
