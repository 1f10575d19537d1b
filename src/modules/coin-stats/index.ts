import { Elysia } from 'elysia'
import type { MarketContext } from '../../market-context/service'
import { labelHeaders } from '../../http/label-headers'
import { CoinStatsResponse } from './model'

/** GET /coins/stats (contract: CoinStatsResponse). */
export function coinStatsModule(deps: { marketContext: MarketContext }) {
  return new Elysia({ name: 'coin-stats' }).get(
    '/coins/stats',
    async ({ set }) => {
      const body = await deps.marketContext.coinStats()
      labelHeaders(set, body)
      return body
    },
    { response: CoinStatsResponse, detail: { tags: ['market'], summary: 'Per-coin statistics with the default strategy figures' } },
  )
}
