import { cci } from '../cci'
import { roc } from '../roc'
import { rsi, stochRsi } from '../rsi'
import { stoch, willr } from '../stoch'
import { define, int, num } from './spec'

export const rsiDef = define({
  id: 'rsi',
  name: 'Relative Strength Index',
  params: { period: int(14, 2, 500, 'Wilder smoothing period') },
  fields: [num('rsi', 'RSI (Wilder, TA-Lib), 0..100')],
  warmupBars: (p) => p.period,
  run(b, p, col) {
    rsi(b.c, p.period, col('rsi'), b.n)
  },
})

export const stochDef = define({
  id: 'stoch',
  name: 'Stochastic Oscillator',
  params: {
    k_period: int(14, 1, 500, 'bars in the high/low range of fast %K'),
    k_smooth: int(3, 1, 100, 'SMA period turning fast %K into stoch_k'),
    d_period: int(3, 1, 100, 'SMA period of stoch_d'),
  },
  fields: [
    num('stoch_k', 'slow %K: SMA(k_smooth) of 100 × (close − lowest low) / (highest high − lowest low), 0..100'),
    num('stoch_d', 'SMA(d_period) of stoch_k, 0..100'),
  ],
  warmupBars: (p) => p.k_period + p.k_smooth + p.d_period - 3,
  run(b, p, col) {
    stoch(b.h, b.l, b.c, p.k_period, p.k_smooth, p.d_period, col('stoch_k'), col('stoch_d'), b.n)
  },
})

export const stochRsiDef = define({
  id: 'stochrsi',
  name: 'Stochastic RSI',
  params: {
    rsi_period: int(14, 2, 500, 'RSI period'),
    stoch_period: int(14, 1, 500, 'bars in the RSI high/low range'),
    k_smooth: int(3, 1, 100, 'SMA period of stochrsi_k'),
    d_period: int(3, 1, 100, 'SMA period of stochrsi_d'),
  },
  fields: [
    num('stochrsi_k', 'SMA(k_smooth) of 100 × (RSI − lowest RSI) / (highest RSI − lowest RSI), 0..100'),
    num('stochrsi_d', 'SMA(d_period) of stochrsi_k'),
  ],
  warmupBars: (p) => p.rsi_period + p.stoch_period + p.k_smooth + p.d_period - 3,
  run(b, p, col) {
    stochRsi(b.c, p.rsi_period, p.stoch_period, p.k_smooth, p.d_period, col('stochrsi_k'), col('stochrsi_d'), b.n)
  },
})

export const willrDef = define({
  id: 'willr',
  name: 'Williams %R',
  params: { period: int(14, 2, 500, 'bars in the high/low range') },
  fields: [num('willr', '−100 × (highest high − close) / (highest high − lowest low), −100..0')],
  warmupBars: (p) => p.period - 1,
  run(b, p, col) {
    willr(b.h, b.l, b.c, p.period, col('willr'), b.n)
  },
})

export const cciDef = define({
  id: 'cci',
  name: 'Commodity Channel Index',
  params: { period: int(20, 2, 500, 'bars in the window') },
  fields: [num('cci', '(typical price − its mean) / (0.015 × mean absolute deviation)')],
  warmupBars: (p) => p.period - 1,
  run(b, p, col) {
    cci(b.h, b.l, b.c, p.period, col('cci'), b.n)
  },
})

export const rocDef = define({
  id: 'roc',
  name: 'Rate of Change',
  params: { period: int(10, 1, 500, 'bars back') },
  fields: [num('roc', 'percent change of the close over period bars')],
  warmupBars: (p) => p.period,
  run(b, p, col) {
    roc(b.c, p.period, col('roc'), b.n)
  },
})
