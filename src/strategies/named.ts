/**
 * The named strategies, as condition trees. Rules and default settings were written
 * down from the textbook form of each idea before any measurement; the status of each
 * side is set in registry.ts from the measurement in docs/strategies.md.
 */
import type { Direction } from '../engine/types'
import type { ConditionNode, IndicatorParams } from './conditions'
import { all, cmp, is, ref } from './tree'

export interface Family {
  /** id prefix: the id is `<slug>-<direction>` */
  slug: string
  /** display name; the direction is appended in capitals (`BB Squeeze SHORT`) */
  name: string
  description: (d: Direction) => string
  indicators: IndicatorParams
  entry: (d: Direction) => ConditionNode
  exit?: (d: Direction) => ConditionNode
  sl_pct: number
  tp_pct: number
  max_bars: number
}

const long = (d: Direction) => d === 'long'
/** the side-specific word: pick(d, forLong, forShort) */
const pick = <T>(d: Direction, a: T, b: T): T => (long(d) ? a : b)

const BB = { period: 20, std: 2, squeeze_lookback: 10, squeeze_threshold: 0.8 }
const EMA = { fast: 20, slow: 50 }
const VOLUME = { period: 20 }

export const FAMILIES: Family[] = [
  {
    slug: 'bb-squeeze',
    name: 'BB Squeeze',
    description: d =>
      `After the Bollinger bands have been unusually narrow (a squeeze within the last 10 bars), enters ${d} when a ${pick(d, 'bullish', 'bearish')} candle closes ${pick(d, 'above the upper', 'below the lower')} band while the bands widen and volume is at least 1.5× its 20-bar average.`,
    indicators: { bb: BB, volume: VOLUME, candle: {} },
    entry: d =>
      all(
        is('recent_squeeze'),
        cmp('close', pick(d, '>', '<'), ref(pick(d, 'bb_upper', 'bb_lower'))),
        is('bb_expanding'),
        cmp('vol_ratio', '>', 1.5),
        is(pick(d, 'is_bullish', 'is_bearish')),
      ),
    sl_pct: 10,
    tp_pct: 8,
    max_bars: 48,
  },
  {
    slug: 'atr-breakout',
    name: 'ATR Breakout',
    description: d =>
      `Enters ${d} on a ${pick(d, 'bullish', 'bearish')} candle whose body is larger than one ATR(14) while volatility is expanding (ATR at least 1.2× its 14-bar mean) and volume is at least 1.5× its 20-bar average.`,
    indicators: { atr: { period: 14 }, candle: {}, volume: VOLUME },
    entry: d =>
      all(
        is(pick(d, 'is_bullish', 'is_bearish')),
        cmp('body_pct', '>', ref('natr')),
        cmp('atr_ratio', '>', 1.2),
        cmp('vol_ratio', '>', 1.5),
      ),
    sl_pct: 6,
    tp_pct: 9,
    max_bars: 48,
  },
  {
    slug: 'adx-trend',
    name: 'ADX Trend',
    description: d =>
      `Follows a strong ${pick(d, 'up', 'down')}trend: ADX(14) above 25 with ${pick(d, '+DI above −DI', '−DI above +DI')} and EMA 20 ${pick(d, 'above', 'below')} EMA 50; enters ${d} when the close crosses back ${pick(d, 'above', 'below')} EMA 20 after a pullback.`,
    indicators: { adx: { period: 14 }, ema: EMA },
    entry: d =>
      all(
        cmp('adx', '>', 25),
        cmp(pick(d, 'plus_di', 'minus_di'), '>', ref(pick(d, 'minus_di', 'plus_di'))),
        is(pick(d, 'uptrend', 'downtrend')),
        cmp('close', pick(d, 'crosses_above', 'crosses_below'), ref('ema_fast')),
      ),
    sl_pct: 5,
    tp_pct: 10,
    max_bars: 72,
  },
  {
    slug: 'momentum-breakout',
    name: 'Momentum Breakout',
    description: d =>
      `Enters ${d} when price has moved more than 4% ${pick(d, 'up', 'down')} over 10 bars (ROC), the bar is ${pick(d, 'bullish', 'bearish')}, the close is ${pick(d, 'above', 'below')} EMA 20 and volume is at least twice its 20-bar average.`,
    indicators: { roc: { period: 10 }, candle: {}, ema: EMA, volume: VOLUME },
    entry: d =>
      all(
        cmp('roc', pick(d, '>', '<'), pick(d, 4, -4)),
        is(pick(d, 'is_bullish', 'is_bearish')),
        cmp('close', pick(d, '>', '<'), ref('ema_fast')),
        cmp('vol_ratio', '>', 2),
      ),
    sl_pct: 5,
    tp_pct: 8,
    max_bars: 48,
  },
  {
    slug: 'rsi-reversal',
    name: 'RSI Reversal',
    description: d =>
      `Fades an exhausted move: enters ${d} when RSI(14) crosses back ${pick(d, 'above 30 from oversold', 'below 70 from overbought')} on a ${pick(d, 'bullish', 'bearish')} candle.`,
    indicators: { rsi: { period: 14 }, candle: {} },
    entry: d =>
      all(cmp('rsi', pick(d, 'crosses_above', 'crosses_below'), pick(d, 30, 70)), is(pick(d, 'is_bullish', 'is_bearish'))),
    sl_pct: 5,
    tp_pct: 6,
    max_bars: 24,
  },
  {
    slug: 'macd-cross',
    name: 'MACD Cross',
    description: d =>
      `Trades the pullback in a trend: enters ${d} when the MACD line (12/26/9) crosses ${pick(d, 'above', 'below')} its signal line while still ${pick(d, 'below', 'above')} zero and EMA 20 is ${pick(d, 'above', 'below')} EMA 50.`,
    indicators: { macd: { fast: 12, slow: 26, signal: 9 }, ema: EMA },
    entry: d =>
      all(
        cmp('macd', pick(d, 'crosses_above', 'crosses_below'), ref('macd_signal')),
        cmp('macd', pick(d, '<', '>'), 0),
        is(pick(d, 'uptrend', 'downtrend')),
      ),
    sl_pct: 5,
    tp_pct: 8,
    max_bars: 48,
  },
  {
    slug: 'mean-reversion',
    name: 'Mean Reversion',
    description: d =>
      `Bets on a snap-back to the mean: enters ${d} when the close is ${pick(d, 'below the lower', 'above the upper')} Bollinger band and RSI(14) is ${pick(d, 'below 25', 'above 75')}; exits when the close gets back ${pick(d, 'above', 'below')} the middle band.`,
    indicators: { bb: BB, rsi: { period: 14 } },
    entry: d => all(cmp('close', pick(d, '<', '>'), ref(pick(d, 'bb_lower', 'bb_upper'))), cmp('rsi', pick(d, '<', '>'), pick(d, 25, 75))),
    exit: d => cmp('close', pick(d, '>', '<'), ref('bb_mid')),
    sl_pct: 6,
    tp_pct: 8,
    max_bars: 48,
  },
  {
    slug: 'supertrend',
    name: 'Supertrend',
    description: d =>
      `Enters ${d} on the bar where Supertrend (10, 3) flips ${pick(d, 'bullish', 'bearish')} while ADX(14) is above 20; exits when it flips back.`,
    indicators: { supertrend: { period: 10, multiplier: 3 }, adx: { period: 14 } },
    entry: d => all(is('st_bullish', long(d)), is('st_bullish', !long(d), 1), cmp('adx', '>', 20)),
    exit: d => is('st_bullish', !long(d)),
    sl_pct: 6,
    tp_pct: 12,
    max_bars: 96,
  },
  {
    slug: 'donchian-breakout',
    name: 'Donchian Breakout',
    description: d =>
      `The turtle breakout: enters ${d} when the close ${pick(d, 'rises above the highest high', 'falls below the lowest low')} of the previous 20 bars; exits when the close crosses back ${pick(d, 'below', 'above')} the channel middle.`,
    indicators: { donchian: { period: 20 } },
    entry: d => cmp('close', pick(d, '>', '<'), ref(pick(d, 'dc_upper_prev', 'dc_lower_prev'))),
    exit: d => cmp('close', pick(d, 'crosses_below', 'crosses_above'), ref('dc_mid')),
    sl_pct: 5,
    tp_pct: 10,
    max_bars: 72,
  },
  {
    slug: 'keltner-squeeze',
    name: 'Keltner Squeeze',
    description: d =>
      `The TTM-style squeeze: on the previous bar the Bollinger bands (20, 2) sat inside the Keltner channel (EMA 20 ± 1.5 × ATR 20); enters ${d} when a ${pick(d, 'bullish', 'bearish')} candle closes ${pick(d, 'above the upper', 'below the lower')} Keltner band.`,
    indicators: { bb: BB, keltner: { period: 20, atr_period: 20, mult: 1.5 }, candle: {} },
    entry: d =>
      all(
        cmp('bb_upper', '<', ref('kc_upper', 1), 1),
        cmp('bb_lower', '>', ref('kc_lower', 1), 1),
        cmp('close', pick(d, '>', '<'), ref(pick(d, 'kc_upper', 'kc_lower'))),
        is(pick(d, 'is_bullish', 'is_bearish')),
      ),
    sl_pct: 5,
    tp_pct: 8,
    max_bars: 48,
  },
  {
    slug: 'ma-cross',
    name: 'MA Cross',
    description: d =>
      `The classic moving-average cross: enters ${d} when EMA 20 crosses ${pick(d, 'above', 'below')} EMA 50; exits on the opposite cross.`,
    indicators: { ema: EMA },
    entry: d => cmp('ema_fast', pick(d, 'crosses_above', 'crosses_below'), ref('ema_slow')),
    exit: d => cmp('ema_fast', pick(d, 'crosses_below', 'crosses_above'), ref('ema_slow')),
    sl_pct: 6,
    tp_pct: 12,
    max_bars: 120,
  },
  {
    slug: 'ichimoku',
    name: 'Ichimoku Cloud',
    description: d =>
      `Enters ${d} when the conversion line (tenkan 9) crosses ${pick(d, 'above', 'below')} the base line (kijun 26) with the close ${pick(d, 'above', 'below')} both cloud spans (52, displaced 26).`,
    indicators: { ichimoku: { tenkan: 9, kijun: 26, senkou_b: 52, displacement: 26 } },
    entry: d =>
      all(
        cmp('tenkan', pick(d, 'crosses_above', 'crosses_below'), ref('kijun')),
        cmp('close', pick(d, '>', '<'), ref('senkou_a')),
        cmp('close', pick(d, '>', '<'), ref('senkou_b')),
      ),
    sl_pct: 6,
    tp_pct: 10,
    max_bars: 96,
  },
  {
    slug: 'heikin-ashi',
    name: 'Heikin-Ashi Reversal',
    description: d =>
      `Enters ${d} when the Heikin-Ashi candle turns ${pick(d, 'bullish after two bearish', 'bearish after two bullish')} ones while EMA 20 is ${pick(d, 'above', 'below')} EMA 50.`,
    indicators: { heikin_ashi: {}, ema: EMA },
    entry: d =>
      all(
        is('ha_bullish', long(d)),
        is('ha_bullish', !long(d), 1),
        is('ha_bullish', !long(d), 2),
        is(pick(d, 'uptrend', 'downtrend')),
      ),
    sl_pct: 5,
    tp_pct: 8,
    max_bars: 48,
  },
  {
    slug: 'stoch-rsi',
    name: 'Stoch RSI',
    description: d =>
      `Enters ${d} when Stoch RSI %K crosses ${pick(d, 'above', 'below')} %D in the ${pick(d, 'oversold zone (below 20)', 'overbought zone (above 80)')} while EMA 20 is ${pick(d, 'above', 'below')} EMA 50.`,
    indicators: { stochrsi: {}, ema: EMA },
    entry: d =>
      all(
        cmp('stochrsi_k', pick(d, 'crosses_above', 'crosses_below'), ref('stochrsi_d')),
        cmp('stochrsi_k', pick(d, '<', '>'), pick(d, 20, 80)),
        is(pick(d, 'uptrend', 'downtrend')),
      ),
    sl_pct: 5,
    tp_pct: 6,
    max_bars: 24,
  },
]
