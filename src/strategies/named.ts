/**
 * The named strategies, as condition trees. Every family but two is the rule of the
 * service we replace, as ../shared/spec/named-strategies.md writes it down from that
 * service's code (ids, rules, SL/TP, max bars 48, avoid_hours); `momentum-breakout` and
 * `rsi-reversal` are ours and have no counterpart there. Our former rules under the
 * colliding ids are builder presets now (presets.ts). The status of each strategy is set
 * in registry.ts from the measurement in docs/strategies.md.
 */
import type { Direction } from '../engine/types'
import type { ConditionNode, IndicatorParams } from './conditions'
import { all, any, anyPrior, cmp, is, ref } from './tree'

export interface Family {
  /** id prefix: the id is `<slug>-<direction>` */
  slug: string
  /** display name; the direction is appended in capitals (`BB Squeeze SHORT`) */
  name: string
  description: (d: Direction) => string
  /** the directions the family trades (default both) */
  directions?: readonly Direction[]
  indicators: IndicatorParams
  /** the rule on the signal bar; avoid_hours is added to it by the registry */
  entry: (d: Direction) => ConditionNode
  exit?: (d: Direction) => ConditionNode
  sl_pct: (d: Direction) => number
  tp_pct: (d: Direction) => number
  max_bars: number
  /** UTC hours of the entry bar (the bar after the signal) at which the strategy does not enter */
  avoid_hours: readonly number[]
  /** where the rule comes from: the replaced service's page, or our own */
  origin: 'reference' | 'ours'
}

const long = (d: Direction) => d === 'long'
/** the side-specific word: pick(d, forLong, forShort) */
const pick = <T>(d: Direction, a: T, b: T): T => (long(d) ? a : b)
const both = (x: number) => () => x
const sided = (forLong: number, forShort: number) => (d: Direction) => pick(d, forLong, forShort)

/** Bollinger (20, 2) with the sample standard deviation, as the page's pandas rolling std */
const BB_SAMPLE = { period: 20, std: 2, ddof: 1 }
const EMA = { fast: 20, slow: 50 }
const MAX_BARS = 48

export const FAMILIES: Family[] = [
  {
    slug: 'bb-squeeze',
    name: 'BB Squeeze',
    origin: 'reference',
    description: d =>
      `After a Bollinger squeeze (band width below 0.8× its 10-bar mean on one of the prior 10 bars), enters ${d} when the width rises at least 10 % over the previous bar and is above 0.9× its mean, the previous bar's volume was at least twice its 10-bar mean, the close is ${pick(d, 'above', 'below')} the middle band and EMA 20 was ${pick(d, 'above', 'below')} EMA 50 on the previous bar. Bollinger (20, 2), width in percent of the middle band.`,
    indicators: { bb: { ...BB_SAMPLE, squeeze_lookback: 10, squeeze_threshold: 0.8 }, ema: EMA },
    entry: d =>
      all(
        anyPrior(10, is('is_squeeze')),
        cmp('bb_width', '>', ref('bb_width', 1)),
        cmp('bb_width', '>', { field: 'bb_width_ma', mult: 0.9 }),
        cmp('bb_width', '>=', { field: 'bb_width', shift: 1, mult: 1.1 }),
        cmp('volume', '>=', { field: 'volume', stat: 'mean', bars: 10, shift: 1, mult: 2 }, 1),
        cmp('close', pick(d, '>', '<'), ref('bb_mid')),
        is(pick(d, 'uptrend', 'downtrend'), true, 1),
      ),
    sl_pct: sided(7, 10),
    tp_pct: sided(6, 8),
    max_bars: MAX_BARS,
    avoid_hours: [2, 3, 10, 20, 21, 22, 23],
  },
  {
    slug: 'momentum',
    name: 'Momentum',
    origin: 'reference',
    directions: ['long'],
    description: () =>
      'Enters long when the close breaks above the highest close of the prior 20 bars on at least twice the 10-bar mean volume while EMA 20 is above EMA 50.',
    indicators: { ema: EMA },
    entry: () =>
      all(
        cmp('close', '>', { field: 'close', stat: 'max', bars: 20, shift: 1 }),
        cmp('volume', '>=', { field: 'volume', stat: 'mean', bars: 10, mult: 2 }),
        is('uptrend'),
      ),
    sl_pct: both(5),
    tp_pct: both(10),
    max_bars: MAX_BARS,
    avoid_hours: [1, 2, 3, 8, 9, 13, 15, 16, 17, 18, 19, 20, 21, 22, 23],
  },
  {
    slug: 'atr-breakout',
    name: 'ATR Breakout',
    origin: 'reference',
    description: d =>
      `Enters ${d} when the previous close ${pick(d, 'rose', 'fell')} more than twice the mean true range of the prior 14 bars ${pick(d, 'above', 'below')} the close before it, while EMA 20 was ${pick(d, 'above', 'below')} EMA 50 on the previous bar.`,
    indicators: { atr: { period: 14 }, ema: EMA },
    entry: d =>
      all(
        cmp('close', pick(d, '>', '<'), { field: 'close', shift: 2, offset: { field: 'atr_sma_prev', mult: pick(d, 2, -2) } }, 1),
        is(pick(d, 'uptrend', 'downtrend'), true, 1),
      ),
    sl_pct: both(3),
    tp_pct: both(7),
    max_bars: MAX_BARS,
    avoid_hours: [],
  },
  {
    slug: 'hv-squeeze',
    name: 'HV Squeeze',
    origin: 'reference',
    description: d =>
      `After a Bollinger-width squeeze (width below 0.8× its 20-bar mean on one of the prior 10 bars), enters ${d} when the width rises, the previous bar's volume was at least 1.5× its 20-bar mean, the close is ${pick(d, 'above', 'below')} the middle band and the previous bar was ${pick(d, 'bullish', 'bearish')}. Despite the name it measures band width, not historical volatility.`,
    indicators: { bb: BB_SAMPLE, candle: {} },
    entry: d =>
      all(
        anyPrior(10, cmp('bb_width', '<', { field: 'bb_width', stat: 'mean', bars: 20, mult: 0.8 })),
        cmp('bb_width', '>', ref('bb_width', 1)),
        cmp('volume', '>=', { field: 'volume', stat: 'mean', bars: 20, shift: 1, mult: 1.5 }, 1),
        cmp('close', pick(d, '>', '<'), ref('bb_mid')),
        is(pick(d, 'is_bullish', 'is_bearish'), true, 1),
      ),
    sl_pct: both(10),
    tp_pct: both(6),
    max_bars: MAX_BARS,
    avoid_hours: [],
  },
  {
    slug: 'rsi-divergence',
    name: 'RSI Divergence',
    origin: 'reference',
    description: d =>
      `Enters ${d} on a ${pick(d, 'bullish', 'bearish')} divergence: RSI(14) ${pick(d, 'below 30', 'above 70')}, the close ${pick(d, 'below the lowest', 'above the highest')} close of the prior 10 bars, but RSI ${pick(d, 'above the lowest', 'below the highest')} RSI of those bars.`,
    indicators: { rsi: { period: 14 } },
    entry: d =>
      all(
        cmp('rsi', pick(d, '<', '>'), pick(d, 30, 70)),
        cmp('close', pick(d, '<', '>'), { field: 'close', stat: pick(d, 'min', 'max'), bars: 10, shift: 1 }),
        cmp('rsi', pick(d, '>', '<'), { field: 'rsi', stat: pick(d, 'min', 'max'), bars: 10, shift: 1 }),
      ),
    sl_pct: both(7),
    tp_pct: both(5),
    max_bars: MAX_BARS,
    avoid_hours: [],
  },
  {
    slug: 'macd-cross',
    name: 'MACD Cross',
    origin: 'reference',
    description: d =>
      `Enters ${d} when the MACD (12/26/9) histogram turns ${pick(d, 'positive', 'negative')} (${pick(d, 'below', 'above')} zero on the previous bar) while the MACD line is still ${pick(d, 'below', 'above')} zero.`,
    indicators: { macd: { fast: 12, slow: 26, signal: 9 } },
    entry: d =>
      all(
        cmp('macd_hist', pick(d, '<', '>'), 0, 1),
        cmp('macd_hist', pick(d, '>', '<'), 0),
        cmp('macd', pick(d, '<', '>'), 0),
      ),
    sl_pct: both(8),
    tp_pct: both(6),
    max_bars: MAX_BARS,
    avoid_hours: [],
  },
  {
    slug: 'donchian-breakout',
    name: 'Donchian Breakout',
    origin: 'reference',
    description: d =>
      `Enters ${d} when the close ${pick(d, 'rises above the highest high', 'falls below the lowest low')} of the prior 20 bars.`,
    indicators: { donchian: { period: 20 } },
    entry: d => cmp('close', pick(d, '>', '<'), ref(pick(d, 'dc_upper_prev', 'dc_lower_prev'))),
    sl_pct: both(8),
    tp_pct: both(10),
    max_bars: MAX_BARS,
    avoid_hours: [],
  },
  {
    slug: 'mean-reversion',
    name: 'Mean Reversion',
    origin: 'reference',
    description: d =>
      `Bets on a snap-back: enters ${d} when the close is ${pick(d, 'below the lower', 'above the upper')} band (SMA 20 ± 2 sample σ) and RSI(14) is ${pick(d, 'below 30', 'above 70')}.`,
    indicators: { bb: BB_SAMPLE, rsi: { period: 14 } },
    entry: d => all(cmp('close', pick(d, '<', '>'), ref(pick(d, 'bb_lower', 'bb_upper'))), cmp('rsi', pick(d, '<', '>'), pick(d, 30, 70))),
    sl_pct: both(5),
    tp_pct: both(4),
    max_bars: MAX_BARS,
    avoid_hours: [],
  },
  {
    slug: 'supertrend',
    name: 'Supertrend',
    origin: 'reference',
    description: d => `Enters ${d} on the bar where Supertrend (ATR 10, × 3) flips ${pick(d, 'up', 'down')}.`,
    indicators: { supertrend: { period: 10, multiplier: 3 } },
    entry: d => all(is('st_bullish', long(d)), is('st_bullish', !long(d), 1)),
    sl_pct: both(8),
    tp_pct: both(8),
    max_bars: MAX_BARS,
    avoid_hours: [],
  },
  {
    slug: 'keltner-squeeze',
    name: 'Keltner Squeeze',
    origin: 'reference',
    description: d =>
      `Enters ${d} on the release of a squeeze: the Bollinger bands (20, 2) were inside the Keltner channel (EMA 20 ± 1.5 × ATR 10) on the previous bar and are not on this one, and the close is ${pick(d, 'above the upper', 'below the lower')} Keltner band.`,
    indicators: { bb: BB_SAMPLE, keltner: { period: 20, atr_period: 10, mult: 1.5 } },
    entry: d =>
      all(
        cmp('bb_upper', '<', ref('kc_upper', 1), 1),
        cmp('bb_lower', '>', ref('kc_lower', 1), 1),
        any(cmp('bb_upper', '>=', ref('kc_upper')), cmp('bb_lower', '<=', ref('kc_lower'))),
        cmp('close', pick(d, '>', '<'), ref(pick(d, 'kc_upper', 'kc_lower'))),
      ),
    sl_pct: sided(15, 7),
    tp_pct: sided(30, 6),
    max_bars: MAX_BARS,
    avoid_hours: [],
  },
  {
    slug: 'stochastic-rsi',
    name: 'Stochastic RSI',
    origin: 'reference',
    description: d =>
      `Enters ${d} when Stoch RSI %K (14/14/3/3) crosses ${pick(d, 'above', 'below')} %D while %K is ${pick(d, 'below 20', 'above 80')}.`,
    indicators: { stochrsi: { rsi_period: 14, stoch_period: 14, k_smooth: 3, d_period: 3 } },
    entry: d =>
      all(
        cmp('stochrsi_k', pick(d, '<', '>'), pick(d, 20, 80)),
        cmp('stochrsi_k', pick(d, '<', '>'), ref('stochrsi_d', 1), 1),
        cmp('stochrsi_k', pick(d, '>', '<'), ref('stochrsi_d')),
      ),
    sl_pct: both(15),
    tp_pct: both(15),
    max_bars: MAX_BARS,
    avoid_hours: [],
  },
  {
    slug: 'ma-cross',
    name: 'MA Cross',
    origin: 'reference',
    description: d =>
      `Enters ${d} when EMA 50 crosses ${pick(d, 'above', 'below')} EMA 200 (bias-corrected exponential means).`,
    indicators: { ema: { fast: 50, slow: 200, adjust: 1 } },
    entry: d =>
      all(cmp('ema_fast', pick(d, '<', '>'), ref('ema_slow', 1), 1), cmp('ema_fast', pick(d, '>', '<'), ref('ema_slow'))),
    sl_pct: both(5),
    tp_pct: both(10),
    max_bars: MAX_BARS,
    avoid_hours: [],
  },
  {
    slug: 'adx-trend',
    name: 'ADX Trend',
    origin: 'reference',
    description: d =>
      `Enters ${d} when ${pick(d, '+DI crosses above −DI', '−DI crosses above +DI')} while ADX(14) is above 25.`,
    indicators: { adx: { period: 14 } },
    entry: d => {
      const [a, b] = pick(d, ['plus_di', 'minus_di'], ['minus_di', 'plus_di'])
      return all(cmp('adx', '>', 25), cmp(a, '<', ref(b, 1), 1), cmp(a, '>', ref(b)))
    },
    sl_pct: both(15),
    tp_pct: both(5),
    max_bars: MAX_BARS,
    avoid_hours: [],
  },
  {
    slug: 'ichimoku',
    name: 'Ichimoku Cloud',
    origin: 'reference',
    description: d =>
      `Enters ${d} when the conversion line (tenkan 9) crosses ${pick(d, 'above', 'below')} the base line (kijun 26) with the close ${pick(d, 'above the top', 'below the bottom')} of the cloud (spans of 26 and 52 bars, displaced 26).`,
    indicators: { ichimoku: { tenkan: 9, kijun: 26, senkou_b: 52, displacement: 26 } },
    entry: d =>
      all(
        is(pick(d, 'above_cloud', 'below_cloud')),
        cmp('tenkan', pick(d, '<', '>'), ref('kijun', 1), 1),
        cmp('tenkan', pick(d, '>', '<'), ref('kijun')),
      ),
    sl_pct: both(3),
    tp_pct: both(15),
    max_bars: MAX_BARS,
    avoid_hours: [],
  },
  {
    slug: 'heikin-ashi',
    name: 'Heikin-Ashi',
    origin: 'reference',
    description: d =>
      `Enters ${d} after three ${pick(d, 'bullish', 'bearish')} Heikin-Ashi candles in a row, the last with no ${pick(d, 'lower', 'upper')} wick (within 0.1 % of its body).`,
    indicators: { heikin_ashi: {} },
    entry: d => {
      const side = pick(d, 'ha_bullish', 'ha_bearish')
      return all(
        is(side),
        is(side, true, 1),
        is(side, true, 2),
        long(d)
          ? cmp('ha_low', '>=', { field: 'ha_body_bottom', offset: { field: 'ha_body', mult: -0.001 } })
          : cmp('ha_high', '<=', { field: 'ha_body_top', offset: { field: 'ha_body', mult: 0.001 } }),
      )
    },
    sl_pct: both(7),
    tp_pct: both(8),
    max_bars: MAX_BARS,
    avoid_hours: [],
  },
  {
    slug: 'volume-profile',
    name: 'Volume Profile',
    origin: 'reference',
    description: d =>
      `Fades a stretch from the volume point of control (20 bins over the prior 168 bars): when the previous close was at least 3 % away from it, enters ${d} if the close is ${pick(d, 'below', 'above')} it.`,
    indicators: { volume_profile: { period: 168, bins: 20 } },
    entry: d => all(any(cmp('vp_dev', '>=', 3, 1), cmp('vp_dev', '<=', -3, 1)), cmp('vp_dev', pick(d, '<', '>'), 0)),
    sl_pct: both(2),
    tp_pct: both(5),
    max_bars: MAX_BARS,
    avoid_hours: [],
  },
  {
    slug: 'momentum-breakout',
    name: 'Momentum Breakout',
    origin: 'ours',
    description: d =>
      `Enters ${d} when price has moved more than 4% ${pick(d, 'up', 'down')} over 10 bars (ROC), the bar is ${pick(d, 'bullish', 'bearish')}, the close is ${pick(d, 'above', 'below')} EMA 20 and volume is at least twice its 20-bar average.`,
    indicators: { roc: { period: 10 }, candle: {}, ema: EMA, volume: { period: 20 } },
    entry: d =>
      all(
        cmp('roc', pick(d, '>', '<'), pick(d, 4, -4)),
        is(pick(d, 'is_bullish', 'is_bearish')),
        cmp('close', pick(d, '>', '<'), ref('ema_fast')),
        cmp('vol_ratio', '>', 2),
      ),
    sl_pct: both(5),
    tp_pct: both(8),
    max_bars: 48,
    avoid_hours: [],
  },
  {
    slug: 'rsi-reversal',
    name: 'RSI Reversal',
    origin: 'ours',
    description: d =>
      `Fades an exhausted move: enters ${d} when RSI(14) crosses back ${pick(d, 'above 30 from oversold', 'below 70 from overbought')} on a ${pick(d, 'bullish', 'bearish')} candle.`,
    indicators: { rsi: { period: 14 }, candle: {} },
    entry: d =>
      all(cmp('rsi', pick(d, 'crosses_above', 'crosses_below'), pick(d, 30, 70)), is(pick(d, 'is_bullish', 'is_bearish'))),
    sl_pct: both(5),
    tp_pct: both(6),
    max_bars: 24,
    avoid_hours: [],
  },
]
