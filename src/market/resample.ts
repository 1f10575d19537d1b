/**
 * Higher timeframes from 1H candles, in UTC buckets: open of the first hour, highest
 * high, lowest low, close of the last hour, summed volume; `t` is the bucket start.
 * The last bucket is dropped unless its final hour is in the data (unfinished). A first
 * 1W bucket that starts before the data (a listing mid-week) is dropped too: a weekly bar
 * claims a week's open, range and volume, and a stub of a few days would state them for
 * days the data does not hold, under a Monday that precedes the first candle. Below a week
 * the first bucket keeps the hours that exist, as the published rankings and signals
 * (4H, 1D) were computed; changing that would be a new version of their rules.
 * Indicators are recomputed on the result, never resampled.
 */
import type { Bars } from './types'
import { bucketStart, TIMEFRAME_MS, type Timeframe } from './timeframe'

export function resample(src: Bars, tf: Timeframe): Bars {
  const size = TIMEFRAME_MS[tf]
  if (size === src.stepMs) return src
  if (size < src.stepMs || size % src.stepMs !== 0) throw new Error(`cannot resample ${src.stepMs} ms bars to ${tf}`)
  const n = src.n
  // upper bound on buckets: one per source bar
  const cap = Math.min(n, Math.ceil(n / (size / src.stepMs)) + 2 + countGaps(src, size))
  const t = new Float64Array(cap), o = new Float64Array(cap), h = new Float64Array(cap)
  const l = new Float64Array(cap), c = new Float64Array(cap), v = new Float64Array(cap)
  let k = -1
  let curBucket = NaN
  for (let i = 0; i < n; i++) {
    const b = bucketStart(src.t[i], tf)
    if (b !== curBucket) {
      k++
      curBucket = b
      t[k] = b
      o[k] = src.o[i]
      h[k] = src.h[i]
      l[k] = src.l[i]
      v[k] = 0
    } else {
      if (src.h[i] > h[k]) h[k] = src.h[i]
      if (src.l[i] < l[k]) l[k] = src.l[i]
    }
    c[k] = src.c[i]
    v[k] += src.v[i]
  }
  let m = k + 1
  if (m > 0 && src.t[n - 1] + src.stepMs < t[m - 1] + size) m-- // unfinished last bucket
  const first = tf === '1W' && m > 0 && src.t[0] > t[0] ? 1 : 0 // a week that began before the data
  return { t: t.subarray(first, m), o: o.subarray(first, m), h: h.subarray(first, m), l: l.subarray(first, m), c: c.subarray(first, m), v: v.subarray(first, m), n: Math.max(0, m - first), stepMs: size }
}

/** extra buckets caused by holes in the data (each hole can start a bucket of its own) */
function countGaps(src: Bars, size: number): number {
  let gaps = 0
  for (let i = 1; i < src.n; i++) if (src.t[i] - src.t[i - 1] > src.stepMs) gaps++
  return gaps
}
