import { atr } from './atr'
import { checkPeriod, fillNaN, PICK_PAIR, rowsOf } from './util'

/**
 * Supertrend (the common TradingView form). With hl2 = (high + low) / 2 and ATR(period) as
 * atr() computes it, the basic bands are hl2 ± mult · ATR. The final upper band only moves
 * down (it resets to the basic band when the previous close broke above it); the final lower
 * band only moves up (reset when the previous close broke below it). The trend turns bullish
 * when a close ends above the final upper band and bearish when one ends below the final lower
 * band; supertrend is the lower band in a bullish trend and the upper band in a bearish one.
 * The first row (row `period`, the first ATR) starts bearish. `outBullish` gets 1 / 0.
 */
export function supertrend(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  period: number,
  mult: number,
  out: Float64Array,
  outBullish: Float64Array,
  n?: number,
): void {
  checkPeriod('supertrend', period)
  const rows = rowsOf(close, n)
  const range = out // the ATR waits in `out`; row i is read before it is overwritten
  atr(high, low, close, period, range, rows)
  fillNaN(out, 0, Math.min(period, rows))
  fillNaN(outBullish, 0, Math.min(period, rows))
  let upper = 0
  let lower = 0
  let bullish = false
  const pick = PICK_PAIR
  for (let i = period; i < rows; i++) {
    const mid = (high[i] + low[i]) / 2
    const band = mult * range[i]
    const basicUpper = mid + band
    const basicLower = mid - band
    if (i === period) {
      upper = basicUpper
      lower = basicLower
    } else {
      const prevClose = close[i - 1]
      // each band's next value read from a pair by its condition (0 or 1): whether the basic
      // band moves in is a coin toss bar to bar, which a branch would mispredict
      pick[0] = upper
      pick[1] = basicUpper
      upper = pick[+(basicUpper < upper) | +(prevClose > upper)]
      pick[0] = lower
      pick[1] = basicLower
      lower = pick[+(basicLower > lower) | +(prevClose < lower)]
      const c = close[i]
      bullish = bullish ? !(c < lower) : c > upper
    }
    out[i] = bullish ? lower : upper
    outBullish[i] = bullish ? 1 : 0
  }
}
