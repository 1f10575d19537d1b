import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { CoinsQuery, CoinsResponse } from './model'
import { listCoins } from './service'

/** GET /coins: the store's coins in market-cap order. */
export function coinsModule(deps: AppDeps) {
  return new Elysia({ name: 'coins' }).get('/coins', ({ query }) => listCoins(deps, query), {
    query: CoinsQuery,
    response: CoinsResponse,
    detail: { tags: ['market'], summary: 'Coins in market-cap order' },
  })
}
