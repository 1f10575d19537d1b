import { candleFeatures } from '../candle'
import { heikinAshi } from '../heikin-ashi'
import { bool, define, greater, num } from './spec'

/** candle fields beyond the bullish/bearish flags */
const CANDLE_SHAPES = ['body_pct', 'upper_wick_pct', 'lower_wick_pct', 'range_pct', 'bullish_engulfing', 'bearish_engulfing', 'hammer', 'shooting_star', 'doji']

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
      const bull = col('is_bullish')
      const bear = col('is_bearish')
      for (let i = 0; i < b.n; i++) {
        bull[i] = +(b.c[i] > b.o[i])
        bear[i] = +(b.c[i] < b.o[i])
      }
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
  ],
  warmupBars: () => 0,
  run(b, _p, col) {
    const open = col('ha_open')
    const close = col('ha_close')
    heikinAshi(b.o, b.h, b.l, b.c, { open, close, high: col('ha_high'), low: col('ha_low') }, b.n)
    greater(close, open, col('ha_bullish'), b.n)
  },
})
