import { fillNaN, rowsOf } from './util'

/** [ep, candidate ep, af, af + step]: the branch-free choice of the trend loops */
const pick = new Float64Array(4)

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
 *
 * The update keeps TA-Lib's own arithmetic, sar + af · (ep − sar) with af summed one step at a
 * time, although shorter forms exist (sar · (1 − af) + af · ep, or two bars composed into
 * one): on tick-grid prices the SAR now and then lands exactly on a high or low, and an ulp
 * then decides whether the trend flips (the two-bar form flipped 2 of 900k bars of the 28-coin
 * set differently from TA-Lib). Its speed is set by the flips and clamps, unpredictable
 * branches that resolve only once the new SAR is known: fed ep and af from a table, the same
 * loop still takes ~5.5 of its ~6.3 ns per bar.
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
  const downMove = low[0] - low[1]
  const upMove = high[1] - high[0]
  let isLong = !(downMove > 0 && upMove < downMove)
  let ep = isLong ? high[1] : low[1]
  let s = isLong ? low[0] : high[0]
  let af = step
  let prevLow = low[1]
  let prevHigh = high[1]
  let i = 1
  // One loop per trend, left when the trend flips. A new extreme (about one bar in four, at
  // random) moves ep and af by picking from `pick` with the comparison as index: no branch to
  // mispredict, and cheaper here than an arithmetic select (x·m + y·(1 − m))
  while (i < rows) {
    if (isLong) {
      for (; i < rows; i++) {
        const newLow = low[i]
        const newHigh = high[i]
        if (newLow <= s) break
        out[i] = s
        if (outBullish) outBullish[i] = 1
        const grew = +(newHigh > ep)
        pick[0] = ep
        pick[1] = newHigh
        pick[2] = af
        pick[3] = af + step
        ep = pick[grew]
        af = pick[grew + 2]
        if (af > maximum) af = maximum
        s = s + af * (ep - s)
        if (s > prevLow) s = prevLow
        if (s > newLow) s = newLow
        prevLow = newLow
        prevHigh = newHigh
      }
      if (i >= rows) return
      // bar i touched the SAR: short from here
      const newLow = low[i]
      const newHigh = high[i]
      s = ep
      if (s < prevHigh) s = prevHigh
      if (s < newHigh) s = newHigh
      out[i] = s
      if (outBullish) outBullish[i] = 0
      af = step
      ep = newLow
      s = s + af * (ep - s)
      if (s < prevHigh) s = prevHigh
      if (s < newHigh) s = newHigh
      prevLow = newLow
      prevHigh = newHigh
      isLong = false
      i++
    } else {
      for (; i < rows; i++) {
        const newLow = low[i]
        const newHigh = high[i]
        if (newHigh >= s) break
        out[i] = s
        if (outBullish) outBullish[i] = 0
        const grew = +(newLow < ep)
        pick[0] = ep
        pick[1] = newLow
        pick[2] = af
        pick[3] = af + step
        ep = pick[grew]
        af = pick[grew + 2]
        if (af > maximum) af = maximum
        s = s + af * (ep - s)
        if (s < prevHigh) s = prevHigh
        if (s < newHigh) s = newHigh
        prevLow = newLow
        prevHigh = newHigh
      }
      if (i >= rows) return
      // bar i touched the SAR: long from here
      const newLow = low[i]
      const newHigh = high[i]
      s = ep
      if (s > prevLow) s = prevLow
      if (s > newLow) s = newLow
      out[i] = s
      if (outBullish) outBullish[i] = 1
      af = step
      ep = newHigh
      s = s + af * (ep - s)
      if (s > prevLow) s = prevLow
      if (s > newLow) s = newLow
      prevLow = newLow
      prevHigh = newHigh
      isLong = true
      i++
    }
  }
}
