import { atr, trueRange } from '../atr'
import { bollinger } from '../bollinger'
import { donchian, donchianPrev, keltner } from '../channels'
import { barsPerYear, historicalVolatility } from '../hv'
import { ratioToMean, sma } from '../ma'
import { firstValid } from '../util'
import { bool, define, greater, int, num, real } from './spec'

/** bb fields computed from the bands in a second pass */
const BB_DERIVED = ['bb_width', 'bb_width_ma', 'bb_width_change', 'bb_pct_b', 'is_squeeze', 'recent_squeeze', 'bb_expanding']

/*
 * The bands' derived fields in kernels of their own rather than loops in the definition's
 * run: the JIT compiles each small function once, where the definition, entered with other
 * fields asked for, was compiled again whole (bench/_jit-first.ts).
 */

/** width = (upper − lower) / mid × 100 (NaN where mid is 0); with `pctB`, (close − lower) / (upper − lower) (NaN where the span is not positive) */
function bandWidth(close: Float64Array, up: Float64Array, lo: Float64Array, mid: Float64Array, width: Float64Array, pctB: Float64Array | null, n: number): void {
  if (pctB === null) {
    for (let i = 0; i < n; i++) width[i] = mid[i] !== 0 ? ((up[i] - lo[i]) / mid[i]) * 100 : NaN
    return
  }
  for (let i = 0; i < n; i++) {
    const span = up[i] - lo[i]
    width[i] = mid[i] !== 0 ? (span / mid[i]) * 100 : NaN
    pctB[i] = span > 0 ? (close[i] - lo[i]) / span : NaN
  }
}

/**
 * is_squeeze = width < its mean × threshold (NaN where either is unknown); with `history`,
 * the width's change in percent and whether it rose on the previous bar, and recent_squeeze
 * (a squeeze on one of the last `lookback` bars; from lookback − 1 bars after the mean's first value).
 */
function squeezes(
  width: Float64Array,
  widthMa: Float64Array,
  threshold: number,
  lookback: number,
  squeeze: Float64Array,
  history: { change: Float64Array; expanding: Float64Array; recent: Float64Array } | null,
  n: number,
): void {
  if (history === null) {
    for (let i = 0; i < n; i++) {
      const w = width[i]
      const limit = widthMa[i] * threshold
      squeeze[i] = w !== w || limit !== limit ? NaN : +(w < limit)
    }
    return
  }
  const { change, expanding, recent } = history
  // is_squeeze first has a value where bb_width_ma does; recent_squeeze lookback − 1 later
  const recentFirst = firstValid(widthMa, n) + lookback - 1
  change[0] = NaN
  expanding[0] = NaN
  let lastSqueeze = -Infinity
  for (let i = 0; i < n; i++) {
    const w = width[i]
    if (i > 0) {
      const prev = width[i - 1]
      change[i] = prev !== 0 ? (w / prev - 1) * 100 : NaN
      expanding[i] = w !== w || prev !== prev ? NaN : +(w > prev)
    }
    const limit = widthMa[i] * threshold
    const sq = w !== w || limit !== limit ? NaN : +(w < limit)
    squeeze[i] = sq
    if (sq === 1) lastSqueeze = i
    recent[i] = i < recentFirst ? NaN : +(i - lastSqueeze < lookback)
  }
}

export const bb = define({
  id: 'bb',
  name: 'Bollinger Bands',
  params: {
    period: int(20, 2, 500, 'bars in the window'),
    std: real(2, 0.1, 10, 'band half-width in population standard deviations'),
    squeeze_lookback: int(10, 1, 500, 'bars averaged by bb_width_ma and searched by recent_squeeze'),
    squeeze_threshold: real(0.8, 0.01, 2, 'a squeeze is bb_width below bb_width_ma times this'),
    ddof: int(0, 0, 1, '0: population standard deviation (TA-Lib); 1: sample standard deviation (÷ period − 1)'),
  },
  fields: [
    num('bb_upper', 'upper band: bb_mid + std × σ of the closes (population σ, or sample σ with ddof 1)'),
    num('bb_lower', 'lower band: bb_mid − std × σ'),
    num('bb_mid', 'simple moving average of the close over period bars'),
    num('bb_width', 'band width in percent of the mid: (upper − lower) / mid × 100'),
    num('bb_width_ma', 'mean of bb_width over the last squeeze_lookback bars'),
    num('bb_width_change', 'percent change of bb_width from the previous bar'),
    num('bb_pct_b', 'position of the close in the band: (close − lower) / (upper − lower); > 1 above the upper band'),
    bool('is_squeeze', 'bb_width < bb_width_ma × squeeze_threshold'),
    bool('recent_squeeze', 'is_squeeze held on at least one of the last squeeze_lookback bars'),
    bool('bb_expanding', 'bb_width is above the previous bar’s'),
  ],
  warmupBars: (p) => Math.max(p.period - 1 + 2 * (p.squeeze_lookback - 1), p.period),
  run(b, p, col, wants) {
    const n = b.n
    const up = col('bb_upper')
    const lo = col('bb_lower')
    const mid = col('bb_mid')
    bollinger(b.c, p.period, p.std, mid, up, lo, n, p.ddof === 1 ? 1 : 0)
    // the bands alone are what most trees read: the width and squeeze pass is skipped then
    if (BB_DERIVED.every(f => !wants(f))) return
    const width = col('bb_width')
    // %b only when asked: the squeeze rules read the width alone
    bandWidth(b.c, up, lo, mid, width, wants('bb_pct_b') ? col('bb_pct_b') : null, n)
    const widthMa = col('bb_width_ma')
    sma(width, p.squeeze_lookback, widthMa, n)
    const squeeze = col('is_squeeze')
    const history = wants('bb_width_change') || wants('bb_expanding') || wants('recent_squeeze')
    squeezes(width, widthMa, p.squeeze_threshold, p.squeeze_lookback, squeeze, history ? { change: col('bb_width_change'), expanding: col('bb_expanding'), recent: col('recent_squeeze') } : null, n)
  },
})

export const atrDef = define({
  id: 'atr',
  name: 'Average True Range',
  params: {
    period: int(14, 1, 500, 'Wilder smoothing period of the true range'),
    ratio_period: int(14, 1, 500, 'bars in the ATR mean that atr_ratio divides by'),
  },
  fields: [
    num('atr', 'average true range (Wilder), in price units'),
    num('natr', 'ATR in percent of the close'),
    num('tr', 'true range of the bar: max(high − low, |high − prev close|, |low − prev close|)'),
    num('atr_ratio', 'ATR divided by its mean over the last ratio_period bars (the min_vol_regime filter)'),
    num('atr_sma_prev', 'simple mean of the true range over the period bars before this one (atr-breakout’s shifted-mean ATR)'),
  ],
  // atr_sma_prev: TR from row 1, its mean from row period, one row later
  warmupBars: (p) => Math.max(p.period + p.ratio_period - 1, p.period + 1),
  run(b, p, col, wants) {
    const range = col('atr')
    const tr = col('tr')
    // atr-breakout reads the mean of the true range alone: no Wilder smoothing, no NATR then
    if (wants('atr') || wants('natr') || wants('atr_ratio')) atr(b.h, b.l, b.c, p.period, range, b.n, wants('natr') ? col('natr') : undefined, tr)
    else trueRange(b.h, b.l, b.c, tr, b.n)
    if (wants('atr_ratio')) ratioToMean(range, p.ratio_period, col('atr_ratio'), b.n)
    if (wants('atr_sma_prev')) {
      const prev = col('atr_sma_prev')
      sma(tr, p.period, prev, b.n)
      // the mean ending at the previous bar: shift one row down (backwards, so in place)
      for (let i = b.n - 1; i > 0; i--) prev[i] = prev[i - 1]
      if (b.n > 0) prev[0] = NaN
    }
  },
})

export const donchianDef = define({
  id: 'donchian',
  name: 'Donchian Channel',
  params: { period: int(20, 1, 500, 'bars in the channel') },
  fields: [
    num('dc_upper', 'highest high of the last period bars, this one included'),
    num('dc_lower', 'lowest low of the last period bars, this one included'),
    num('dc_mid', '(dc_upper + dc_lower) / 2'),
    num('dc_upper_prev', 'highest high of the period bars before this one (the breakout level)'),
    num('dc_lower_prev', 'lowest low of the period bars before this one'),
    bool('dc_breakout_up', 'close > dc_upper_prev'),
    bool('dc_breakout_down', 'close < dc_lower_prev'),
  ],
  warmupBars: (p) => p.period,
  run(b, p, col, wants) {
    // each side is one rolling pass, made only when a field reads it: a breakout tree
    // reads one prior level, one pass instead of four
    const upper = wants('dc_upper') || wants('dc_mid')
    const lower = wants('dc_lower') || wants('dc_mid')
    const upPrev = wants('dc_upper_prev') || wants('dc_breakout_up')
    const loPrev = wants('dc_lower_prev') || wants('dc_breakout_down')
    if (upper || lower) donchian(b.h, b.l, p.period, col('dc_upper'), col('dc_lower'), col('dc_mid'), b.n, upper, lower)
    if (upPrev || loPrev) donchianPrev(b.h, b.l, p.period, col('dc_upper_prev'), col('dc_lower_prev'), b.n, upPrev, loPrev)
    if (wants('dc_breakout_up')) greater(b.c, col('dc_upper_prev'), col('dc_breakout_up'), b.n)
    if (wants('dc_breakout_down')) greater(col('dc_lower_prev'), b.c, col('dc_breakout_down'), b.n)
  },
})

export const keltnerDef = define({
  id: 'keltner',
  name: 'Keltner Channel',
  params: {
    period: int(20, 1, 500, 'EMA period of the mid line'),
    atr_period: int(10, 1, 500, 'ATR period of the band width'),
    mult: real(2, 0.1, 10, 'band half-width in ATRs'),
  },
  fields: [
    num('kc_upper', 'kc_mid + mult × ATR(atr_period)'),
    num('kc_lower', 'kc_mid − mult × ATR(atr_period)'),
    num('kc_mid', 'EMA(period) of the close'),
  ],
  warmupBars: (p) => Math.max(p.period - 1, p.atr_period),
  run(b, p, col) {
    keltner(b.h, b.l, b.c, p.period, p.atr_period, p.mult, col('kc_upper'), col('kc_lower'), col('kc_mid'), b.n)
  },
})

export const hvDef = define({
  id: 'hv',
  name: 'Historical Volatility',
  params: { period: int(20, 2, 500, 'log returns in the window') },
  fields: [num('hv', 'annualised standard deviation of log returns, percent (365-day year of bars)')],
  warmupBars: (p) => p.period,
  run(b, p, col) {
    historicalVolatility(b.c, p.period, barsPerYear(b.stepMs), col('hv'), b.n)
  },
})
