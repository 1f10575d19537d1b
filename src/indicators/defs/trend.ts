import { adx } from '../adx'
import { aroon } from '../aroon'
import { ichimoku } from '../ichimoku'
import { ema, emaAdjusted, sma } from '../ma'
import { macd } from '../macd'
import { sar } from '../sar'
import { supertrend } from '../supertrend'
import { fillNaN } from '../util'
import { bool, define, greater, int, num, real } from './spec'

export const emaDef = define({
  id: 'ema',
  name: 'Exponential Moving Averages',
  params: {
    fast: int(20, 1, 1000, 'period of ema_fast'),
    slow: int(50, 1, 1000, 'period of ema_slow'),
    adjust: int(0, 0, 1, '0: TA-Lib EMA seeded with the SMA of the first closes; 1: the bias-corrected mean from the first bar (pandas adjust=True)'),
  },
  fields: [
    num('ema_fast', 'EMA(fast) of the close (adjust 0: TA-Lib, seeded with the SMA of the first fast closes; 1: bias-corrected)'),
    num('ema_slow', 'EMA(slow) of the close'),
    bool('uptrend', 'ema_fast > ema_slow'),
    bool('downtrend', 'ema_fast < ema_slow'),
  ],
  warmupBars: (p) => Math.max(p.fast, p.slow) - 1,
  run(b, p, col, wants) {
    const fast = col('ema_fast')
    const slow = col('ema_slow')
    const mean = p.adjust === 1 ? emaAdjusted : ema
    const trend = wants('uptrend') || wants('downtrend')
    // a tree reading one line gets one EMA pass; a trend flag needs both lines
    if (trend || wants('ema_fast')) mean(b.c, p.fast, fast, b.n)
    if (trend || wants('ema_slow')) mean(b.c, p.slow, slow, b.n)
    if (wants('uptrend')) greater(fast, slow, col('uptrend'), b.n)
    if (wants('downtrend')) greater(slow, fast, col('downtrend'), b.n)
  },
})

export const smaDef = define({
  id: 'sma',
  name: 'Simple Moving Averages',
  params: {
    fast: int(20, 1, 1000, 'period of sma_fast'),
    slow: int(50, 1, 1000, 'period of sma_slow'),
  },
  fields: [
    num('sma_fast', 'mean close of the last fast bars'),
    num('sma_slow', 'mean close of the last slow bars'),
    bool('sma_uptrend', 'sma_fast > sma_slow'),
    bool('sma_downtrend', 'sma_fast < sma_slow'),
  ],
  warmupBars: (p) => Math.max(p.fast, p.slow) - 1,
  run(b, p, col) {
    const fast = col('sma_fast')
    const slow = col('sma_slow')
    sma(b.c, p.fast, fast, b.n)
    sma(b.c, p.slow, slow, b.n)
    greater(fast, slow, col('sma_uptrend'), b.n)
    greater(slow, fast, col('sma_downtrend'), b.n)
  },
})

export const macdDef = define({
  id: 'macd',
  name: 'MACD',
  params: {
    fast: int(12, 2, 500, 'fast EMA period'),
    slow: int(26, 3, 500, 'slow EMA period (above fast)'),
    signal: int(9, 1, 500, 'EMA period of the signal line'),
  },
  fields: [
    num('macd', 'EMA(fast) − EMA(slow) of the close, TA-Lib seeding'),
    num('macd_signal', 'EMA(signal) of macd'),
    num('macd_hist', 'macd − macd_signal'),
    bool('macd_above_signal', 'macd > macd_signal'),
    bool('macd_cross_up', 'macd crossed above the signal on this bar (hist ≤ 0 before, > 0 now)'),
    bool('macd_cross_down', 'macd crossed below the signal on this bar (hist ≥ 0 before, < 0 now)'),
  ],
  warmupBars: (p) => p.slow + p.signal - 1,
  crossCheck: (p) => (p.fast < p.slow ? [] : [`macd: fast (${p.fast}) must be below slow (${p.slow})`]),
  run(b, p, col, wants) {
    const n = b.n
    const line = col('macd')
    const signal = col('macd_signal')
    const hist = col('macd_hist')
    macd(b.c, p.fast, p.slow, p.signal, line, signal, hist, n)
    // the flags are passes of their own, made only when a tree reads them
    if (wants('macd_above_signal')) greater(line, signal, col('macd_above_signal'), n)
    if (!wants('macd_cross_up') && !wants('macd_cross_down')) return
    const up = col('macd_cross_up')
    const down = col('macd_cross_down')
    fillNaN(up, 0, Math.min(1, n))
    fillNaN(down, 0, Math.min(1, n))
    for (let i = 1; i < n; i++) {
      const prev = hist[i - 1]
      const h = hist[i]
      const known = prev === prev && h === h
      up[i] = known ? (prev <= 0 && h > 0 ? 1 : 0) : NaN
      down[i] = known ? (prev >= 0 && h < 0 ? 1 : 0) : NaN
    }
  },
})

export const adxDef = define({
  id: 'adx',
  name: 'Average Directional Index',
  params: { period: int(14, 2, 500, 'Wilder smoothing period') },
  fields: [
    num('adx', 'ADX (Wilder, TA-Lib), 0..100: trend strength'),
    num('plus_di', '+DI, 0..100'),
    num('minus_di', '−DI, 0..100'),
    bool('di_bullish', 'plus_di > minus_di'),
  ],
  warmupBars: (p) => 2 * p.period - 1,
  run(b, p, col, wants) {
    const plus = col('plus_di')
    const minus = col('minus_di')
    adx(b.h, b.l, b.c, p.period, col('adx'), plus, minus, b.n)
    if (wants('di_bullish')) greater(plus, minus, col('di_bullish'), b.n)
  },
})

export const aroonDef = define({
  id: 'aroon',
  name: 'Aroon',
  params: { period: int(14, 2, 500, 'bars looked back (the window holds period + 1 bars)') },
  fields: [
    num('aroon_up', '100 × (period − bars since the highest high) / period'),
    num('aroon_down', '100 × (period − bars since the lowest low) / period'),
    num('aroon_osc', 'aroon_up − aroon_down'),
  ],
  warmupBars: (p) => p.period,
  run(b, p, col) {
    const up = col('aroon_up')
    const down = col('aroon_down')
    aroon(b.h, b.l, p.period, up, down, b.n)
    const osc = col('aroon_osc')
    for (let i = 0; i < b.n; i++) osc[i] = up[i] - down[i]
  },
})

export const sarDef = define({
  id: 'sar',
  name: 'Parabolic SAR',
  params: {
    acceleration: real(0.02, 0.001, 0.5, 'acceleration factor step (and start)'),
    maximum: real(0.2, 0.01, 1, 'acceleration factor cap'),
  },
  fields: [
    num('sar', 'stop-and-reverse level in force on this bar (TA-Lib)'),
    bool('sar_bullish', 'the SAR is in a long trend (below price)'),
  ],
  warmupBars: () => 1,
  crossCheck: (p) =>
    p.acceleration <= p.maximum ? [] : [`sar: acceleration (${p.acceleration}) must not exceed maximum (${p.maximum})`],
  run(b, p, col) {
    sar(b.h, b.l, p.acceleration, p.maximum, col('sar'), b.n, col('sar_bullish'))
  },
})

export const supertrendDef = define({
  id: 'supertrend',
  name: 'Supertrend',
  params: {
    period: int(10, 1, 500, 'ATR period'),
    multiplier: real(3, 0.1, 20, 'band distance from (high + low) / 2 in ATRs'),
  },
  fields: [
    num('supertrend', 'trailing band: the lower band in an uptrend, the upper band in a downtrend'),
    bool('st_bullish', 'the supertrend is in an uptrend'),
  ],
  warmupBars: (p) => p.period,
  run(b, p, col) {
    supertrend(b.h, b.l, b.c, p.period, p.multiplier, col('supertrend'), col('st_bullish'), b.n)
  },
})

/**
 * out[i] = 1 where the close is above both leading spans (`side` 1) or below both (−1), 0
 * where it is not, NaN where a span is unknown. `+(x) & +(y)`, not `x && y ? 1 : 0`: which
 * side of a span a close is on is a coin toss bar to bar, and the JIT makes && a branch.
 */
function cloudSide(close: Float64Array, spanA: Float64Array, spanB: Float64Array, out: Float64Array, n: number, side: 1 | -1): void {
  if (side === 1) {
    for (let i = 0; i < n; i++) {
      const a = spanA[i]
      const s = spanB[i]
      const c = close[i]
      out[i] = a === a && s === s ? +(c > a) & +(c > s) : NaN
    }
    return
  }
  for (let i = 0; i < n; i++) {
    const a = spanA[i]
    const s = spanB[i]
    const c = close[i]
    out[i] = a === a && s === s ? +(c < a) & +(c < s) : NaN
  }
}

export const ichimokuDef = define({
  id: 'ichimoku',
  name: 'Ichimoku Cloud',
  params: {
    tenkan: int(9, 1, 200, 'conversion line period'),
    kijun: int(26, 1, 300, 'base line period'),
    senkou_b: int(52, 1, 500, 'leading span B period'),
    displacement: int(26, 0, 300, 'bars the leading spans are projected forward'),
  },
  fields: [
    num('tenkan', 'midpoint of the highest high and lowest low of the last tenkan bars'),
    num('kijun', 'midpoint of the highest high and lowest low of the last kijun bars'),
    num('senkou_a', 'leading span A under this bar: (tenkan + kijun) / 2 of displacement bars ago'),
    num('senkou_b', 'leading span B under this bar: senkou_b-bar midpoint of displacement bars ago'),
    bool('above_cloud', 'close above both leading spans'),
    bool('below_cloud', 'close below both leading spans'),
    bool('tk_bullish', 'tenkan > kijun'),
    bool('chikou_bullish', 'lagging span above the price it is drawn against: close > close displacement bars ago'),
  ],
  warmupBars: (p) => Math.max(Math.max(p.tenkan, p.kijun) - 1 + p.displacement, p.senkou_b - 1 + p.displacement),
  run(b, p, col, wants) {
    const n = b.n
    const spanA = col('senkou_a')
    const spanB = col('senkou_b')
    const tenkan = col('tenkan')
    const kijun = col('kijun')
    // the lines and spans: only chikou_bullish reads none of them
    const lines = ['tenkan', 'kijun', 'senkou_a', 'senkou_b', 'above_cloud', 'below_cloud', 'tk_bullish'].some(wants)
    if (lines) ichimoku(b.h, b.l, p.tenkan, p.kijun, p.senkou_b, p.displacement, { tenkan, kijun, senkouA: spanA, senkouB: spanB }, n)
    // each flag is a pass of its own, made only when a tree reads it
    if (wants('above_cloud')) cloudSide(b.c, spanA, spanB, col('above_cloud'), n, 1)
    if (wants('below_cloud')) cloudSide(b.c, spanA, spanB, col('below_cloud'), n, -1)
    if (wants('tk_bullish')) greater(tenkan, kijun, col('tk_bullish'), n)
    if (!wants('chikou_bullish')) return
    const chikou = col('chikou_bullish')
    const d = p.displacement
    fillNaN(chikou, 0, Math.min(d, n))
    const close = b.c
    for (let i = d; i < n; i++) chikou[i] = +(close[i] > close[i - d])
  },
})
