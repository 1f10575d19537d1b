import { Elysia } from 'elysia'
import type { MarketContext } from '../../market-context/service'
import { labelHeaders } from '../../http/label-headers'
import { RegimeResponse } from './model'

/** GET /regime: the band of the fear & greed value and the strategies recommended in it. */
export function regimeModule(deps: { marketContext: MarketContext }) {
  return new Elysia({ name: 'regime' }).get(
    '/regime',
    async ({ set }) => {
      const body = await deps.marketContext.regime()
      labelHeaders(set, body)
      return body
    },
    { response: RegimeResponse, detail: { tags: ['market'], summary: 'Current regime from the fear-and-greed index, with recommended strategies' } },
  )
}
