import { REANCHOR_BARS } from './ma'
import { checkPeriod, fillNaN, rowsOf } from './util'

/**
 * Commodity channel index as TA-Lib: tp = (h + l + c) / 3,
 * CCI = (tp − mean tp) / (0.015 · mean |tp − mean tp|) over the last `period` bars,
 * 0 when either factor is 0. The mean is carried like sma's (anchored, rebuilt every
 * REANCHOR_BARS bars); the mean absolute deviation has no running form, so it is summed over
 * a ring of the window's typical prices on every bar. First value at row period − 1.
 */
export function cci(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  period: number,
  out: Float64Array,
  n?: number,
): void {
  checkPeriod('cci', period, 2)
  const rows = rowsOf(close, n)
  fillNaN(out, 0, Math.min(period - 1, rows))
  if (period > rows) return
  const inv = 1 / period
  const ring = new Float64Array(period) // typical price of row j in slot j % period
  for (let j = 0; j < period - 1; j++) ring[j] = (high[j] + low[j] + close[j]) / 3
  let slot = period - 1
  let anchor = 0
  let dev = 0
  let builtAt = -Infinity
  for (let i = period - 1; i < rows; i++) {
    const tp = (high[i] + low[i] + close[i]) / 3
    const old = ring[slot]
    ring[slot] = tp
    if (++slot === period) slot = 0
    if (i - builtAt >= REANCHOR_BARS || dev !== dev) {
      let sum = 0
      for (let j = 0; j < period; j++) sum += ring[j]
      anchor = sum * inv
      dev = 0
      for (let j = 0; j < period; j++) dev += ring[j] - anchor
      builtAt = i
    } else {
      dev += tp - old
    }
    const mean = anchor + dev * inv
    // four partial sums so the adds do not wait on each other
    let a0 = 0
    let a1 = 0
    let a2 = 0
    let a3 = 0
    let j = 0
    for (; j + 3 < period; j += 4) {
      a0 += Math.abs(ring[j] - mean)
      a1 += Math.abs(ring[j + 1] - mean)
      a2 += Math.abs(ring[j + 2] - mean)
      a3 += Math.abs(ring[j + 3] - mean)
    }
    for (; j < period; j++) a0 += Math.abs(ring[j] - mean)
    const spread = tp - mean
    const mad = a0 + a1 + (a2 + a3)
    out[i] = spread !== 0 && mad !== 0 ? spread / (0.015 * (mad * inv)) : 0
  }
}
