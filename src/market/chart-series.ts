/**
 * The candles of /ohlcv with their overlay indicators (Bollinger 20/2σ population,
 * EMA 20 and 50, volume ratio 20), computed over the whole series so that a window
 * in the middle has no warm-up gap; warm-up values are null.
 */
import { bollinger } from '../indicators/bollinger'
import { ema } from '../indicators/ma'
import { volRatio } from '../indicators/volume'
import type { Bars } from './types'

export interface ChartBar {
  t: number
  o: number
  h: number
  l: number
  c: number
  v: number
  bb_upper: number | null
  bb_lower: number | null
  bb_mid: number | null
  ema20: number | null
  ema50: number | null
  vol_ratio: number | null
}

const orNull = (x: number): number | null => (Number.isFinite(x) ? x : null)

/** Bars [from, to) of `bars` with overlays. */
export function chartBars(bars: Bars, from: number, to: number): ChartBar[] {
  const n = bars.n
  const mid = new Float64Array(n), up = new Float64Array(n), lo = new Float64Array(n)
  const e20 = new Float64Array(n), e50 = new Float64Array(n), vr = new Float64Array(n)
  bollinger(bars.c, 20, 2, mid, up, lo, n)
  ema(bars.c, 20, e20, n)
  ema(bars.c, 50, e50, n)
  volRatio(bars.v, 20, vr, n)
  const out: ChartBar[] = []
  for (let i = from; i < to; i++)
    out.push({
      t: Math.floor(bars.t[i] / 1000),
      o: bars.o[i],
      h: bars.h[i],
      l: bars.l[i],
      c: bars.c[i],
      v: bars.v[i],
      bb_upper: orNull(up[i]),
      bb_lower: orNull(lo[i]),
      bb_mid: orNull(mid[i]),
      ema20: orNull(e20[i]),
      ema50: orNull(e50[i]),
      vol_ratio: orNull(vr[i]),
    })
  return out
}
