/**
 * A window of one coin's 1m candles for GET /ohlcv?timeframe=1m: its stored minute detail
 * (detail-store.ts), or on a synthetic store the minutes derived from its hours
 * (synthetic-minutes.ts), the ones the trade model replays. Windows count from the newest
 * minute back, like the other timeframes; only the window's minutes (and the warm-up of its
 * overlays) are read or derived.
 */
import type { CandleStore } from './candle-store'
import { MINUTES_PER_HOUR, minuteLabel, syntheticMinutes } from './synthetic-minutes'
import type { Bars } from './types'
import { MINUTE_MS } from '../time'


/** minutes before a window that its overlays (EMA 50, Bollinger 20, volume ratio 20) are computed from */
export const OVERLAY_WARMUP = 250

export interface MinuteWindow {
  /** the window's minutes with the warm-up before them: rows [warmup, bars.n) are the window */
  bars: Bars
  warmup: number
  /** every minute the coin has */
  total: number
}

/**
 * The newest `limit` minutes of the coin after skipping `offset` from the newest end (the
 * /ohlcv window rule), with up to OVERLAY_WARMUP minutes before them; null: no minutes.
 */
export function minuteWindow(store: CandleStore, symbol: string, offset: number, limit: number): MinuteWindow | null {
  const source = store.detailSource(symbol)
  if (source === null) return null
  let from = 0
  const range = (total: number): [number, number] => {
    const to = Math.max(0, total - offset)
    from = Math.max(0, to - limit)
    return [Math.max(0, from - OVERLAY_WARMUP), to]
  }
  if (source === 'stored') {
    const w = store.detail.window(symbol, range)
    if (!w) return null
    const r = w.rows
    return { bars: { t: r.t, o: r.o, h: r.h, l: r.l, c: r.c, v: r.v, n: r.n, stepMs: MINUTE_MS }, warmup: from - w.from, total: w.total }
  }
  const hours = store.bars(symbol)!
  const total = hours.n * MINUTES_PER_HOUR
  const [lo, hi] = range(total)
  const h0 = Math.floor(lo / MINUTES_PER_HOUR), h1 = Math.ceil(hi / MINUTES_PER_HOUR)
  const cap = (h1 - h0) * MINUTES_PER_HOUR
  const cols = { t: new Float64Array(cap), o: new Float64Array(cap), h: new Float64Array(cap), l: new Float64Array(cap), c: new Float64Array(cap), v: new Float64Array(cap) }
  const label = minuteLabel(store.detailInfo().syntheticSeed!, symbol)
  for (let k = h0; k < h1; k++) syntheticMinutes(label, hours.t[k], hours.o[k], hours.h[k], hours.l[k], hours.c[k], hours.v[k], cols, (k - h0) * MINUTES_PER_HOUR)
  const off = lo - h0 * MINUTES_PER_HOUR
  const n = hi - lo
  const sub = (x: Float64Array) => x.subarray(off, off + n)
  return { bars: { t: sub(cols.t), o: sub(cols.o), h: sub(cols.h), l: sub(cols.l), c: sub(cols.c), v: sub(cols.v), n, stepMs: MINUTE_MS }, warmup: from - lo, total }
}
