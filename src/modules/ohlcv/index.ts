import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { chartBars } from '../../market/chart-series'
import { NotFound, OhlcvParams, OhlcvQuery, OhlcvResponse } from './model'

const DEFAULT_LIMIT = 1000

/** GET /ohlcv/:symbol: candles of one coin on a timeframe, newest last, with overlays. */
export function ohlcvModule(deps: AppDeps) {
  return new Elysia({ name: 'ohlcv' }).get(
    '/ohlcv/:symbol',
    ({ params, query, status }) => {
      const symbol = params.symbol.toUpperCase()
      const bars = deps.series.get(symbol, query.timeframe)
      if (!bars) return status(404, { detail: `Unknown symbol '${params.symbol}': see GET /coins for the symbols in the store` })
      const limit = query.limit <= 0 ? DEFAULT_LIMIT : query.limit
      const to = Math.max(0, bars.n - query.offset)
      const from = Math.max(0, to - limit)
      return { symbol, timeframe: query.timeframe, total_bars: bars.n, data: chartBars(bars, from, to) }
    },
    {
      params: OhlcvParams,
      query: OhlcvQuery,
      response: { 200: OhlcvResponse, 404: NotFound },
      detail: { tags: ['market'], summary: 'Candles with Bollinger bands, EMA 20/50 and volume ratio' },
    },
  )
}
