import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { Detail } from '../../model/shared'
import { OhlcvParams, OhlcvQuery, OhlcvResponse } from './model'
import { ohlcvWindow } from './service'

/** GET /ohlcv/:symbol: candles of one coin on a timeframe, newest last, with overlays. */
export function ohlcvModule(deps: AppDeps) {
  return new Elysia({ name: 'ohlcv' }).get('/ohlcv/:symbol', ({ params, query }) => ohlcvWindow(deps, params, query), {
    params: OhlcvParams,
    query: OhlcvQuery,
    response: { 200: OhlcvResponse, 404: Detail },
    detail: { tags: ['market'], summary: 'Candles with Bollinger bands, EMA 20/50 and volume ratio' },
  })
}
