import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { criteriaPage } from './criteria'
import { HotStrategiesService } from './hot-strategies'
import { Detail } from '../../model/shared'
import { DailyRankingQuery, DailyRankingResponse, DayFileParams, HotStrategiesResponse } from './model'
import { RankingsService } from './service'

/** GET /rankings/daily, /rankings/files/{YYYYMMDD}, /rankings/criteria and /hot-strategies. */
export function rankingsModule(deps: AppDeps) {
  const rankings = new RankingsService(deps.db, deps)
  const hot = new HotStrategiesService({ clock: deps.clock, runs: deps.runs })
  const criteria = criteriaPage()
  return new Elysia({ name: 'rankings' })
    .get('/rankings/daily', ({ query }) => rankings.daily(query), {
      query: DailyRankingQuery,
      response: { 200: DailyRankingResponse, 404: Detail },
      detail: { tags: ['rankings'], summary: 'Daily strategy ranking of one period × group (recomputed daily at 00:30 UTC)' },
    })
    .get(
      '/rankings/files/:date',
      async ({ params }) => {
        const f = await rankings.dayFile(params.date)
        // the stored bytes as they are: the sha256 in citation is of exactly this body
        return new Response(f.body, { headers: { 'content-type': 'application/json', etag: `"${f.sha256}"`, 'x-content-sha256': f.sha256 } })
      },
      {
        params: DayFileParams,
        response: { 404: Detail },
        detail: { tags: ['rankings'], summary: 'The published day file of a ranking date, byte for byte (canonical JSON)' },
      },
    )
    .get('/rankings/criteria', () => new Response(criteria, { headers: { 'content-type': 'text/html; charset=utf-8' } }), {
      detail: { tags: ['rankings'], summary: 'The ranking rules: population, presets, periods, groups, order, caps, minimum trades, costs' },
    })
    .get('/hot-strategies', () => hot.get(), {
      response: { 200: HotStrategiesResponse },
      detail: { tags: ['rankings'], summary: 'Registry strategies, 30 days on the top 50 at their defaults (cached 1 hour)' },
    })
}
