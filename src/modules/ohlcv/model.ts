import { t } from 'elysia'
import { TIMEFRAMES } from '../../market/timeframe'

export const TimeframeSchema = t.UnionEnum([...TIMEFRAMES, '1m'], {
  default: '1H',
  description: "candle timeframe, resampled from 1H in UTC buckets; '1m' serves the coin's minute detail (stored 1m candles, or a synthetic store's derived minutes: the ones the trade model replays), 404 where it has none",
})

export const OhlcvParams = t.Object({ symbol: t.String({ minLength: 1, maxLength: 30 }) })

export const OhlcvQuery = t.Object({
  limit: t.Integer({ default: 1000, maximum: 5000, description: 'bars to return; zero or negative means 1000; at most 5000' }),
  offset: t.Integer({ default: 0, minimum: 0, description: 'bars skipped from the most recent end' }),
  timeframe: TimeframeSchema,
})

const Nullable = t.Union([t.Number(), t.Null()])

export const OhlcvBar = t.Object({
  t: t.Integer({ description: 'candle open time, Unix seconds' }),
  o: t.Number(),
  h: t.Number(),
  l: t.Number(),
  c: t.Number(),
  v: t.Number(),
  bb_upper: Nullable,
  bb_lower: Nullable,
  bb_mid: Nullable,
  ema20: Nullable,
  ema50: Nullable,
  vol_ratio: Nullable,
})

export const OhlcvResponse = t.Object({
  symbol: t.String(),
  timeframe: t.String(),
  total_bars: t.Integer({ description: 'bars available on this timeframe (1m: the minutes the coin has)' }),
  data: t.Array(OhlcvBar),
})
