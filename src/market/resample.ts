/**
 * Higher timeframes from 1H candles, in UTC buckets: open of the first hour, highest
 * high, lowest low, close of the last hour, summed volume; `t` is the bucket start.
 * The last bucket is dropped unless its final hour is in the data (unfinished), while a
 * first bucket that starts before the data (a listing mid-bucket) is kept as it is.
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
  return { t: t.subarray(0, m), o: o.subarray(0, m), h: h.subarray(0, m), l: l.subarray(0, m), c: c.subarray(0, m), v: v.subarray(0, m), n: m, stepMs: size }
}

/** extra buckets caused by holes in the data (each hole can start a bucket of its own) */
function countGaps(src: Bars, size: number): number {
  let gaps = 0
  for (let i = 1; i < src.n; i++) if (src.t[i] - src.t[i - 1] > src.stepMs) gaps++
  return gaps
}
