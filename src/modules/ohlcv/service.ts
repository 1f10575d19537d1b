/** GET /ohlcv/{symbol}: a window of one coin's bars on a timeframe, with the chart overlays. */
import type { AppDeps } from '../../deps'
import { chartBars } from '../../market/chart-series'
import { minuteWindow } from '../../market/minute-series'
import { NotFound, UnknownSymbols } from '../../runs/errors'
import type { OhlcvParams, OhlcvQuery, OhlcvResponse } from './model'

const DEFAULT_LIMIT = 1000

export function ohlcvWindow(deps: Pick<AppDeps, 'series' | 'store'>, params: typeof OhlcvParams.static, query: typeof OhlcvQuery.static): typeof OhlcvResponse.static {
  const symbol = params.symbol.toUpperCase()
  const tf = query.timeframe
  if (tf === '1m') return minutesWindow(deps.store, params.symbol, symbol, query)
  const bars = deps.series.get(symbol, tf)
  // the 404 of every route that takes a symbol, named as the path spelled it
  if (!bars) throw new UnknownSymbols([params.symbol])
  const limit = query.limit <= 0 ? DEFAULT_LIMIT : query.limit
  const to = Math.max(0, bars.n - query.offset)
  const from = Math.max(0, to - limit)
  return { symbol, timeframe: tf, total_bars: bars.n, data: chartBars(bars, from, to) }
}

/**
 * The 1m window: the same limit and offset rule, the overlays computed from
 * OVERLAY_WARMUP minutes before the window (a minute series is never read whole).
 */
function minutesWindow(store: AppDeps['store'], asked: string, symbol: string, query: typeof OhlcvQuery.static): typeof OhlcvResponse.static {
  if (!store.bars(symbol)) throw new UnknownSymbols([asked])
  const limit = query.limit <= 0 ? DEFAULT_LIMIT : query.limit
  const w = minuteWindow(store, symbol, query.offset, limit)
  if (!w) throw new NotFound(`${symbol} has no 1m detail in this store: import Binance's 1m klines (data import) or sync them (data sync --detail 1m); its candles are on the other timeframes`)
  return { symbol, timeframe: '1m', total_bars: w.total, data: chartBars(w.bars, w.warmup, w.bars.n) }
}
