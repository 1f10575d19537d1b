import { t } from 'elysia'
import { nullable, SourceLabel } from '../../model/shared'

export const Mover = t.Object({
  symbol: t.String(),
  price: t.Number(),
  change_24h: t.Number({ description: '% over 24 h' }),
  volume_24h: nullable(t.Number({ description: 'USDT' })),
})

export const FundingItem = t.Object({
  symbol: t.String(),
  funding_rate: t.Number({ description: 'fraction per funding event (0.0001 = 0.01 %)' }),
  funding_rate_pct: t.Number(),
  mark_price: nullable(t.Number()),
  next_funding_time: nullable(t.String()),
  as_of: t.String(),
})

export const MarketResponse = t.Object({
  btc_price: nullable(t.Number()),
  btc_change_24h: nullable(t.Number({ description: '% over 24 h' })),
  eth_price: nullable(t.Number()),
  eth_change_24h: nullable(t.Number()),
  fear_greed_index: nullable(t.Number({ description: '0..100; a local proxy when sources.fear_greed.proxy is true' })),
  fear_greed_label: nullable(t.String()),
  total_market_cap_b: nullable(t.Number({ description: 'USD billions' })),
  btc_dominance: nullable(t.Number({ description: '% of total market cap' })),
  total_volume_24h_b: nullable(t.Number({ description: 'USD billions' })),
  top_gainers: t.Array(Mover),
  top_losers: t.Array(Mover),
  extreme_funding: t.Array(FundingItem),
  as_of: nullable(t.String({ description: 'oldest as_of among the parts' })),
  stale: t.Boolean(),
  sources: t.Object({ prices: SourceLabel, fear_greed: SourceLabel, global: SourceLabel, funding: SourceLabel }),
  missing_sources: t.Array(t.String(), { description: 'upstreams whose figures are null because nothing could stand in' }),
})

export const LivePrice = t.Object({
  symbol: t.String(),
  price: t.Number(),
  change_24h: nullable(t.Number()),
  volume_24h: nullable(t.Number()),
  market: t.Union([t.Literal('spot'), t.Literal('futures'), t.Literal('local')], { description: 'spot first, futures for coins missing on spot, local candles last' }),
  as_of: t.String(),
})

export const LiveResponse = t.Object({
  prices: t.Array(LivePrice),
  as_of: nullable(t.String()),
  stale: t.Boolean(),
  sources: t.Object({ spot: SourceLabel, futures: SourceLabel, local: nullable(SourceLabel) }),
  missing_sources: t.Array(t.String()),
  unpriced: t.Array(t.String()),
})
