import { Elysia } from 'elysia'
import type { MarketContext } from '../../market-context/service'
import { labelHeaders } from '../../http/label-headers'
import { LiveResponse, MarketResponse } from './model'

/** GET /market (overview) and GET /market/live (prices). */
export function marketModule(deps: { marketContext: MarketContext }) {
  return new Elysia({ name: 'market' })
    .get(
      '/market',
      async ({ set }) => {
        const body = await deps.marketContext.market()
        labelHeaders(set, body)
        return body
      },
      { response: MarketResponse, detail: { tags: ['market'], summary: 'Market overview: prices, fear & greed, market cap, movers, extreme funding' } },
    )
    .get(
      '/market/live',
      async ({ set }) => {
        const body = await deps.marketContext.live()
        labelHeaders(set, body)
        return body
      },
      { response: LiveResponse, detail: { tags: ['market'], summary: 'Live prices (spot first, futures for coins missing on spot)' } },
    )
}
