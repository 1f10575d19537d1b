/** GET /ohlcv/{symbol}: a window of one coin's bars on a timeframe, with the chart overlays. */
import type { AppDeps } from '../../deps'
import { chartBars } from '../../market/chart-series'
import { UnknownSymbols } from '../../runs/errors'
import type { OhlcvParams, OhlcvQuery, OhlcvResponse } from './model'

const DEFAULT_LIMIT = 1000

export function ohlcvWindow(series: AppDeps['series'], params: typeof OhlcvParams.static, query: typeof OhlcvQuery.static): typeof OhlcvResponse.static {
  const symbol = params.symbol.toUpperCase()
  const bars = series.get(symbol, query.timeframe)
  // the 404 of every route that takes a symbol, named as the path spelled it
  if (!bars) throw new UnknownSymbols([params.symbol])
  const limit = query.limit <= 0 ? DEFAULT_LIMIT : query.limit
  const to = Math.max(0, bars.n - query.offset)
  const from = Math.max(0, to - limit)
  return { symbol, timeframe: query.timeframe, total_bars: bars.n, data: chartBars(bars, from, to) }
}
