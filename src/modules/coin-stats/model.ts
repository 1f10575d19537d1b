import { t } from 'elysia'
import { nullable, SourceLabel } from '../../model/shared'

export const CoinStats = t.Object({
  symbol: t.String(),
  name: nullable(t.String()),
  image: nullable(t.String()),
  price: t.Number(),
  change_1h: nullable(t.Number()),
  change_24h: t.Number(),
  change_7d: nullable(t.Number()),
  volume_24h: t.Number({ description: 'USDT' }),
  market_cap: nullable(t.Number()),
  market_cap_rank: nullable(t.Integer()),
  sparkline_7d: nullable(t.Array(t.Number())),
  trades: t.Integer({ default: 0 }),
  win_rate: t.Number({ default: 0 }),
  profit_factor: t.Number({ default: 0 }),
  total_return_pct: t.Number({ default: 0 }),
  change_7d_carried: nullable(t.Boolean()),
  cg_carried: nullable(t.Boolean()),
  cg_as_of: nullable(t.String()),
  price_market: t.Union([t.Literal('spot'), t.Literal('futures'), t.Literal('local')]),
})

export const CoinStatsResponse = t.Object({
  generated: t.String(),
  strategy: t.String(),
  params: t.Record(t.String(), t.Unknown()),
  coins: t.Array(CoinStats),
  as_of: nullable(t.String()),
  stale: t.Boolean(),
  sources: t.Object({ prices: SourceLabel, coingecko: SourceLabel, strategy: SourceLabel }),
  missing_sources: t.Array(t.String()),
  notes: t.Array(t.String()),
})
