import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { change7d, sparkline7d } from '../../market/coin-summary'
import { isoDay } from '../../time'
import { CoinsQuery, CoinsResponse } from './model'

/** GET /coins: the store's coins in market-cap order. */
export function coinsModule(deps: AppDeps) {
  return new Elysia({ name: 'coins' }).get(
    '/coins',
    ({ query }) =>
      deps.universe
        .all()
        .filter(c => (query.include_stablecoins || !c.meta.stablecoin) && (query.include_non_crypto || c.meta.assetClass === 'crypto'))
        .map(({ meta }) => {
          const bars = deps.store.bars(meta.symbol)!
          return {
            symbol: meta.symbol,
            name: meta.name,
            market_cap_rank: meta.rank,
            rows: bars.n,
            date_from: isoDay(bars.t[0]),
            date_to: isoDay(bars.t[bars.n - 1]),
            stablecoin: meta.stablecoin,
            asset_class: meta.assetClass,
            change_7d: change7d(bars),
            sparkline_7d: sparkline7d(bars),
          }
        }),
    { query: CoinsQuery, response: CoinsResponse, detail: { tags: ['market'], summary: 'Coins in market-cap order' } },
  )
}
