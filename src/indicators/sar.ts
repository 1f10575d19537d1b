import { fillNaN, rowsOf } from './util'

/**
 * Parabolic SAR as TA-Lib (Wilder's rules, TA-Lib's start): the first trend is short when
 * bar 1's down move (low0 − low1) beats its up move and is positive, long otherwise; bar 0's
 * low (long) or high (short) is bar 1's SAR and bar 1's high/low the first extreme point.
 * Each bar: if its low (long) / high (short) touches the SAR, the trend flips and the SAR
 * becomes the extreme point, clamped outside this and the previous bar's range; else the
 * extreme point and acceleration (+step, at most `maximum`) update and
 * SAR += af · (ep − SAR), clamped inside the last two bars' range.
 * out[i] is the SAR in force on bar i (after a flip on bar i, the new one). `outBullish`,
 * when given, receives 1 while long, 0 while short. Row 0 is NaN.
 */
export function sar(
  high: Float64Array,
  low: Float64Array,
  acceleration: number,
  maximum: number,
  out: Float64Array,
  n?: number,
  outBullish?: Float64Array,
): void {
  const rows = rowsOf(high, n)
  fillNaN(out, 0, Math.min(1, rows))
  if (outBullish) fillNaN(outBullish, 0, Math.min(1, rows))
  if (rows < 2) return
  const step = acceleration > maximum ? maximum : acceleration
  let af = step
  const downMove = low[0] - low[1]
  const upMove = high[1] - high[0]
  let isLong = !(downMove > 0 && upMove < downMove)
  let ep = isLong ? high[1] : low[1]
  let s = isLong ? low[0] : high[0]
  let newLow = low[1]
  let newHigh = high[1]
  for (let i = 1; i < rows; i++) {
    const prevLow = newLow
    const prevHigh = newHigh
    newLow = low[i]
    newHigh = high[i]
    if (isLong) {
      if (newLow <= s) {
        isLong = false
        s = ep
        if (s < prevHigh) s = prevHigh
        if (s < newHigh) s = newHigh
        out[i] = s
        af = step
        ep = newLow
        s = s + af * (ep - s)
        if (s < prevHigh) s = prevHigh
        if (s < newHigh) s = newHigh
      } else {
        out[i] = s
        if (newHigh > ep) {
          ep = newHigh
          af += step
          if (af > maximum) af = maximum
        }
        s = s + af * (ep - s)
        if (s > prevLow) s = prevLow
        if (s > newLow) s = newLow
      }
    } else if (newHigh >= s) {
      isLong = true
      s = ep
      if (s > prevLow) s = prevLow
      if (s > newLow) s = newLow
      out[i] = s
      af = step
      ep = newHigh
      s = s + af * (ep - s)
      if (s > prevLow) s = prevLow
      if (s > newLow) s = newLow
    } else {
      out[i] = s
      if (newLow < ep) {
        ep = newLow
        af += step
        if (af > maximum) af = maximum
      }
      s = s + af * (ep - s)
      if (s < prevHigh) s = prevHigh
      if (s < newHigh) s = newHigh
    }
    if (outBullish) outBullish[i] = isLong ? 1 : 0
  }
}
