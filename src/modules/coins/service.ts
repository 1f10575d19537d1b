/** GET /coins: the store's coins in market-cap order, with their span and last week's move. */
import type { CandleStore } from '../../market/candle-store'
import { change7d, sparkline7d } from '../../market/coin-summary'
import type { Universe } from '../../market/universe'
import { statusOf } from '../../market/types'
import { isoDay } from '../../time'
import type { CoinsQuery, CoinsResponse } from './model'

export function listCoins(deps: { universe: Universe; store: CandleStore }, query: typeof CoinsQuery.static): typeof CoinsResponse.static {
  return deps.universe
    .all()
    .filter(c => (query.include_stablecoins || !c.meta.stablecoin) && (query.include_non_crypto || c.meta.assetClass === 'crypto') && (query.include_delisted || statusOf(c.meta) === 'trading'))
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
        status: statusOf(meta),
        change_7d: change7d(bars),
        sparkline_7d: sparkline7d(bars),
      }
    })
}
