import { Elysia } from 'elysia'
import type { MarketContext } from '../../market-context/service'
import { labelHeaders } from '../../http/label-headers'
import { NewsResponse } from './model'

/** GET /news: an array (contract); the envelope labels travel in x-data-* headers. */
export function newsModule(deps: { marketContext: MarketContext }) {
  return new Elysia({ name: 'news' }).get(
    '/news',
    async ({ set }) => {
      const digest = await deps.marketContext.news()
      labelHeaders(set, digest)
      return digest.items
    },
    { response: NewsResponse, detail: { tags: ['market'], summary: 'News from the configured RSS/Atom feeds, newest first' } },
  )
}
