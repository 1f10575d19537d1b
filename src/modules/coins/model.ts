import { t } from 'elysia'

export const CoinsQuery = t.Object({
  include_stablecoins: t.Boolean({ default: false }),
  include_non_crypto: t.Boolean({ default: false }),
  include_delisted: t.Boolean({ default: false, description: 'also list coins whose market closed (status delisted; date_to is their last candle)' }),
})

export const CoinInfo = t.Object({
  symbol: t.String(),
  name: t.Optional(t.String()),
  market_cap_rank: t.Optional(t.Union([t.Integer(), t.Null()])),
  rows: t.Integer({ description: 'number of 1H candle rows' }),
  date_from: t.String({ format: 'date' }),
  date_to: t.String({ format: 'date' }),
  stablecoin: t.Boolean({ default: false }),
  asset_class: t.String({ default: 'crypto' }),
  status: t.Union([t.Literal('trading'), t.Literal('delisted')], { description: "'delisted': the market closed; its candles end at date_to (docs/data.md, \"Delisted coins\")" }),
  change_7d: t.Union([t.Number(), t.Null()], { description: '% change of the close over the last 168 hours' }),
  sparkline_7d: t.Union([t.Array(t.Number()), t.Null()], { description: 'closes of the last 7 days, every 4 hours, oldest first' }),
})

export const CoinsResponse = t.Array(CoinInfo)
