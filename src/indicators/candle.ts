import { fillNaN, rowsOf } from './util'

export interface CandleOut {
  bodyPct: Float64Array
  upperWickPct: Float64Array
  lowerWickPct: Float64Array
  rangePct: Float64Array
  isBullish: Float64Array
  isBearish: Float64Array
  bullishEngulfing: Float64Array
  bearishEngulfing: Float64Array
  hammer: Float64Array
  shootingStar: Float64Array
  doji: Float64Array
}

/** A doji's body is at most this share of its range. */
export const DOJI_BODY_FRAC = 0.1
/** A hammer's lower wick (a shooting star's upper wick) is at least this many bodies. */
export const WICK_BODY_MULT = 2

/**
 * Candle shape features. Sizes are in percent of the open: body |c − o|, upper wick
 * h − max(o, c), lower wick min(o, c) − l, range h − l (NaN where the open is 0).
 * Flags (1 / 0): bullish c > o; bearish c < o; doji: range > 0 and body ≤ 10 % of range;
 * hammer: range > 0, lower wick > 0, lower wick ≥ 2 · body and upper wick ≤ body;
 * shooting star: the mirror (upper wick > 0, upper ≥ 2 · body, lower ≤ body);
 * bullish engulfing: previous bar bearish, this one bullish, o ≤ previous close,
 * c ≥ previous open and a larger body; bearish engulfing mirrored. The engulfing flags need
 * the previous bar, so row 0 holds NaN there. Shapes only: no trend context is required.
 */
export function candleFeatures(
  open: Float64Array,
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  out: CandleOut,
  n?: number,
): void {
  const rows = rowsOf(close, n)
  const { bodyPct, upperWickPct, lowerWickPct, rangePct, isBullish, isBearish } = out
  const { bullishEngulfing, bearishEngulfing, hammer, shootingStar, doji } = out
  fillNaN(bullishEngulfing, 0, Math.min(1, rows))
  fillNaN(bearishEngulfing, 0, Math.min(1, rows))
  let prevOpen = NaN
  let prevClose = NaN
  // Flags combine 0/1 comparisons with `&` rather than && chains: bullish and bearish bars
  // alternate too randomly for branches to be predicted.
  for (let i = 0; i < rows; i++) {
    const o = open[i]
    const h = high[i]
    const l = low[i]
    const c = close[i]
    const bull = +(c > o)
    const bear = +(c < o)
    const top = c * bull + o * (1 - bull) // max(o, c), exactly
    const bottom = o * bull + c * (1 - bull)
    const body = top - bottom
    const upper = h - top
    const lower = bottom - l
    const range = h - l
    const pct = o !== 0 ? 100 / o : NaN
    bodyPct[i] = body * pct
    upperWickPct[i] = upper * pct
    lowerWickPct[i] = lower * pct
    rangePct[i] = range * pct
    isBullish[i] = bull
    isBearish[i] = bear
    const ranged = +(range > 0)
    doji[i] = ranged & +(body <= DOJI_BODY_FRAC * range)
    hammer[i] = ranged & +(lower > 0) & +(lower >= WICK_BODY_MULT * body) & +(upper <= body)
    shootingStar[i] = ranged & +(upper > 0) & +(upper >= WICK_BODY_MULT * body) & +(lower <= body)
    if (i > 0) {
      const bigger = +(body > Math.abs(prevClose - prevOpen))
      bullishEngulfing[i] = bull & +(prevClose < prevOpen) & +(o <= prevClose) & +(c >= prevOpen) & bigger
      bearishEngulfing[i] = bear & +(prevClose > prevOpen) & +(o >= prevClose) & +(c <= prevOpen) & bigger
    }
    prevOpen = o
    prevClose = c
  }
}
