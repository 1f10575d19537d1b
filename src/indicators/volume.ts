import { ratioToMean } from './ma'
import { checkPeriod, fillNaN, rowsOf } from './util'

/**
 * Volume ratio: v[i] / mean(v[i-period+1 .. i]) (the current bar is in the mean).
 * NaN during warm-up (rows < period − 1) and where the mean is 0.
 */
export function volRatio(v: Float64Array, period: number, out: Float64Array, n?: number): void {
  ratioToMean(v, period, out, n)
}

/**
 * On-balance volume as TA-Lib: starts at the first bar's volume, then adds the volume of a
 * bar that closes higher than the previous one and subtracts it when lower.
 */
export function obv(close: Float64Array, volume: Float64Array, out: Float64Array, n?: number): void {
  const rows = rowsOf(close, n)
  if (rows === 0) return
  let acc = volume[0]
  let prev = close[0]
  out[0] = acc
  for (let i = 1; i < rows; i++) {
    const c = close[i]
    // ±1 / 0 without a branch: up and down closes alternate too randomly to predict
    acc += volume[i] * (+(c > prev) - +(c < prev))
    out[i] = acc
    prev = c
  }
}

/**
 * Money flow index as TA-Lib: typical price tp = (h + l + c) / 3, raw flow = tp · volume,
 * counted as positive when tp rose from the previous bar and negative when it fell;
 * MFI = 100 · positive / (positive + negative) over the last `period` bars, 0 when the total
 * flow is below 1 (TA-Lib's guard). First value at row `period`.
 */
export function mfi(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  volume: Float64Array,
  period: number,
  out: Float64Array,
  n?: number,
): void {
  checkPeriod('mfi', period, 2)
  const rows = rowsOf(close, n)
  fillNaN(out, 0, Math.min(period, rows))
  if (period >= rows) return
  // ring of the last `period` flows; TA-Lib keeps running sums, and so do we (same rounding)
  const pos = new Float64Array(period)
  const neg = new Float64Array(period)
  let slot = 0
  let posSum = 0
  let negSum = 0
  let prevTp = (high[0] + low[0] + close[0]) / 3
  for (let i = 1; i < rows; i++) {
    if (i > period) {
      posSum -= pos[slot]
      negSum -= neg[slot]
    }
    const tp = (high[i] + low[i] + close[i]) / 3
    const change = tp - prevTp
    prevTp = tp
    const flow = tp * volume[i]
    // the flow goes to one side by a 0/1 factor rather than a branch (adding 0 changes nothing)
    const up = flow * +(change > 0)
    const down = flow * +(change < 0)
    pos[slot] = up
    neg[slot] = down
    posSum += up
    negSum += down
    if (i >= period) {
      const total = posSum + negSum
      out[i] = total < 1 ? 0 : 100 * (posSum / total)
    }
    if (++slot === period) slot = 0
  }
}
