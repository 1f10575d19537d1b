import { candleFeatures } from '../candle'
import { heikinAshi, heikinAshiBody } from '../heikin-ashi'
import { bool, define, greater, num } from './spec'

/** candle fields beyond the bullish/bearish flags */
const CANDLE_SHAPES = ['body_pct', 'upper_wick_pct', 'lower_wick_pct', 'range_pct', 'bullish_engulfing', 'bearish_engulfing', 'hammer', 'shooting_star', 'doji']

/**
 * out[i] = 1 where x[i] > y[i], else 0 (a bar's direction: close against open, or open
 * against close). A kernel of its own, not a loop in the definition: the JIT compiles it
 * once, where the definition, entered with the other direction asked for, was compiled again.
 */
function closedAbove(x: Float64Array, y: Float64Array, out: Float64Array, n: number): void {
  for (let i = 0; i < n; i++) out[i] = +(x[i] > y[i])
}

export const candleDef = define({
  id: 'candle',
  name: 'Candle Features',
  params: {},
  fields: [
    num('body_pct', '|close − open| in percent of the open'),
    num('upper_wick_pct', 'high − max(open, close), percent of the open'),
    num('lower_wick_pct', 'min(open, close) − low, percent of the open'),
    num('range_pct', 'high − low, percent of the open'),
    bool('is_bullish', 'close > open'),
    bool('is_bearish', 'close < open'),
    bool('bullish_engulfing', 'bearish bar then a bullish bar whose larger body covers it'),
    bool('bearish_engulfing', 'bullish bar then a bearish bar whose larger body covers it'),
    bool('hammer', 'lower wick ≥ 2 bodies, upper wick ≤ 1 body'),
    bool('shooting_star', 'upper wick ≥ 2 bodies, lower wick ≤ 1 body'),
    bool('doji', 'body ≤ 10 % of the range'),
  ],
  warmupBars: () => 1,
  run(b, _p, col, wants) {
    // direction alone (the common case in strategies) needs one comparison per bar
    if (CANDLE_SHAPES.every(f => !wants(f))) {
      // a strategy reads one direction: one column written, not two
      if (wants('is_bullish')) closedAbove(b.c, b.o, col('is_bullish'), b.n)
      if (wants('is_bearish')) closedAbove(b.o, b.c, col('is_bearish'), b.n)
      return
    }
    candleFeatures(
      b.o,
      b.h,
      b.l,
      b.c,
      {
        bodyPct: col('body_pct'),
        upperWickPct: col('upper_wick_pct'),
        lowerWickPct: col('lower_wick_pct'),
        rangePct: col('range_pct'),
        isBullish: col('is_bullish'),
        isBearish: col('is_bearish'),
        bullishEngulfing: col('bullish_engulfing'),
        bearishEngulfing: col('bearish_engulfing'),
        hammer: col('hammer'),
        shootingStar: col('shooting_star'),
        doji: col('doji'),
      },
      b.n,
    )
  },
})

/** Heikin-Ashi fields computed from the candles in a second pass */
const HA_BODY = ['ha_body', 'ha_body_top', 'ha_body_bottom', 'ha_upper_wick', 'ha_lower_wick']

export const heikinAshiDef = define({
  id: 'heikin_ashi',
  name: 'Heikin-Ashi',
  params: {},
  fields: [
    num('ha_open', '(previous ha_open + previous ha_close) / 2'),
    num('ha_close', '(open + high + low + close) / 4'),
    num('ha_high', 'max(high, ha_open, ha_close)'),
    num('ha_low', 'min(low, ha_open, ha_close)'),
    bool('ha_bullish', 'ha_close > ha_open'),
    bool('ha_bearish', 'ha_close < ha_open'),
    num('ha_body', 'size of the body: abs(ha_close − ha_open)'),
    num('ha_body_top', 'max(ha_open, ha_close)'),
    num('ha_body_bottom', 'min(ha_open, ha_close)'),
    num('ha_upper_wick', 'ha_high − ha_body_top (0: no upper wick)'),
    num('ha_lower_wick', 'ha_body_bottom − ha_low (0: no lower wick)'),
  ],
  warmupBars: () => 0,
  run(b, _p, col, wants) {
    const open = col('ha_open')
    const close = col('ha_close')
    const high = col('ha_high')
    const low = col('ha_low')
    heikinAshi(b.o, b.h, b.l, b.c, { open, close, high, low }, b.n)
    // each flag, and the wicks, are passes or columns of their own, made only when read
    if (wants('ha_bullish')) greater(close, open, col('ha_bullish'), b.n)
    if (wants('ha_bearish')) greater(open, close, col('ha_bearish'), b.n)
    if (HA_BODY.every(f => !wants(f))) return
    const wicks = wants('ha_upper_wick') || wants('ha_lower_wick')
    heikinAshiBody(open, close, high, low, col('ha_body'), col('ha_body_top'), col('ha_body_bottom'), wicks ? { upper: col('ha_upper_wick'), lower: col('ha_lower_wick') } : null, b.n)
  },
})
