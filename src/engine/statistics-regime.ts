/**
 * Market regime at entry: BTC's trend (daily close above or below its 200-day mean) and
 * volatility (30-day realised volatility above or below its median), and the results of
 * a strategy split by those labels.
 */
import { upperBound } from '../sorted-search'
import { DAY_MS } from '../time'
import { profitFactorOf } from './metrics-breakdown'

export const TREND_SMA_DAYS = 200
export const VOL_WINDOW_DAYS = 30

export type TrendRegime = 'up' | 'down'
export type VolRegime = 'high' | 'low'

/** Labels of one UTC day, using that day's close; null while the history is too short. */
export interface DayRegime {
  trend: TrendRegime | null
  vol: VolRegime | null
}

/** Rolling mean of the last `window` values ending at each index; NaN until full or across a bad value. */
function rollingMean(values: ArrayLike<number>, window: number): Float64Array {
  const out = new Float64Array(values.length).fill(NaN)
  for (let i = window - 1; i < values.length; i++) {
    let sum = 0
    for (let j = i - window + 1; j <= i; j++) sum += values[j]
    out[i] = sum / window
  }
  return out
}

/** Sample sd of the last `window` log returns ending at each index; NaN until full. */
function rollingLogVol(closes: ArrayLike<number>, window: number): Float64Array {
  const n = closes.length
  const logRet = new Float64Array(n).fill(NaN)
  for (let i = 1; i < n; i++) if (closes[i] > 0 && closes[i - 1] > 0) logRet[i] = Math.log(closes[i] / closes[i - 1])
  const out = new Float64Array(n).fill(NaN)
  for (let i = window; i < n; i++) {
    let sum = 0
    for (let j = i - window + 1; j <= i; j++) sum += logRet[j]
    const mean = sum / window
    let ss = 0
    for (let j = i - window + 1; j <= i; j++) ss += (logRet[j] - mean) ** 2
    out[i] = Math.sqrt(ss / (window - 1))
  }
  return out
}

/**
 * Per-day labels from BTC daily closes (ascending days):
 * trend 'up' when close > mean of the last 200 closes (today's included), else 'down';
 * vol 'high' when the sample sd of the last 30 daily log returns exceeds the median of that
 * figure over all days given, else 'low'. The median spans the whole series, so the labels
 * describe the period studied; they are for splitting results, not for trading decisions.
 * A day whose window holds a missing (NaN or non-positive) close gets null.
 */
export function btcRegimeLabels(dayTimesMs: ArrayLike<number>, dayCloses: ArrayLike<number>): DayRegime[] {
  if (dayTimesMs.length !== dayCloses.length) {
    throw new RangeError(`days and closes differ in length: ${dayTimesMs.length} vs ${dayCloses.length}`)
  }
  const sma = rollingMean(dayCloses, TREND_SMA_DAYS)
  const vol = rollingLogVol(dayCloses, VOL_WINDOW_DAYS)
  const defined = Float64Array.from(vol.filter((v) => !Number.isNaN(v))).sort()
  const k = defined.length
  const median = k === 0 ? NaN : k % 2 === 1 ? defined[(k - 1) / 2] : 0.5 * (defined[k / 2 - 1] + defined[k / 2])
  const labels: DayRegime[] = []
  for (let i = 0; i < dayCloses.length; i++) {
    const close = dayCloses[i]
    labels.push({
      trend: Number.isNaN(sma[i]) || !(close > 0) ? null : close > sma[i] ? 'up' : 'down',
      vol: Number.isNaN(vol[i]) ? null : vol[i] > median ? 'high' : 'low',
    })
  }
  return labels
}

/**
 * The regime a trade entering at entryTimeMs saw: the labels of the last day whose close
 * (day open + 24 h) is at or before the entry, so no entry is labelled with a close that
 * had not happened yet. Both nulls before the first such day.
 */
export function regimeAt(labels: readonly DayRegime[], dayTimesMs: ArrayLike<number>, entryTimeMs: number): DayRegime {
  // the last day open at or before entry − 24 h
  const found = upperBound(dayTimesMs, entryTimeMs - DAY_MS) - 1
  return found < 0 ? { trend: null, vol: null } : labels[found]
}

export interface RegimeTrade {
  pnlPct: number
  trend: TrendRegime | null
  vol: VolRegime | null
}

export interface RegimeStats {
  trades: number
  /** percent */
  win_rate: number
  /** capped at PROFIT_FACTOR_CAP */
  profit_factor: number
  /** summed net % */
  total_return_pct: number
}

export interface RegimePerformance {
  btc_up: RegimeStats
  btc_down: RegimeStats
  high_vol: RegimeStats
  low_vol: RegimeStats
  up_high_vol: RegimeStats
  up_low_vol: RegimeStats
  down_high_vol: RegimeStats
  down_low_vol: RegimeStats
  /** trades without a trend or volatility label (entered before enough BTC history) */
  unlabelled_trades: number
  definition: string
}

export const REGIME_DEFINITION =
  `BTC trend: daily close above (up) or at/below (down) its ${TREND_SMA_DAYS}-day simple mean; ` +
  `volatility: standard deviation of the last ${VOL_WINDOW_DAYS} daily log returns above (high) or ` +
  'at/below (low) its median over the period; each trade takes the labels of the last UTC day ' +
  'that closed before its entry.'

/** Regime codes of the columnar form: 0 no label; trend 1 up, 2 down; volatility 1 high, 2 low. */
export const TREND_CODE = { up: 1, down: 2 } as const
export const VOL_CODE = { high: 1, low: 2 } as const

/**
 * Results split by the regime at entry. A trade enters the trend groups when it has a trend
 * label, the volatility groups when it has a volatility label, and the crossed groups when
 * it has both. Null when no trade has any label.
 */
export function regimePerformance(trades: readonly RegimeTrade[]): RegimePerformance | null {
  return regimePerformanceOf(
    Float64Array.from(trades, t => t.pnlPct),
    Uint8Array.from(trades, t => (t.trend === null ? 0 : TREND_CODE[t.trend])),
    Uint8Array.from(trades, t => (t.vol === null ? 0 : VOL_CODE[t.vol])),
  )
}

// groups in the order of RegimePerformance: btc_up, btc_down, high_vol, low_vol, up_high, up_low, down_high, down_low
const GROUPS = 8

/**
 * regimePerformance over columns, in one pass: each group sums its trades in trade order,
 * as summarizeTrades would over the group's list (the same figures to the last bit).
 */
export function regimePerformanceOf(pnl: ArrayLike<number>, trend: Uint8Array, vol: Uint8Array): RegimePerformance | null {
  const count = new Float64Array(GROUPS)
  const wins = new Float64Array(GROUPS)
  const gain = new Float64Array(GROUPS)
  const loss = new Float64Array(GROUPS)
  let unlabelled = 0
  let labelled = 0
  // each trade adds to up to three groups (trend, volatility, both), in trade order; the
  // three adds are written out: a closure called per trade and group cost several times more
  for (let i = 0; i < pnl.length; i++) {
    const t = trend[i]
    const v = vol[i]
    const p = pnl[i]
    if (t === 0 || v === 0) unlabelled++
    if (t === 0 && v === 0) continue
    labelled++
    const win = p > 0
    if (t !== 0) {
      const g = t - 1
      count[g]++
      if (win) {
        wins[g]++
        gain[g] += p
      } else loss[g] += p
    }
    if (v !== 0) {
      const g = 1 + v
      count[g]++
      if (win) {
        wins[g]++
        gain[g] += p
      } else loss[g] += p
    }
    if (t !== 0 && v !== 0) {
      const g = 2 + 2 * t + v - 1
      count[g]++
      if (win) {
        wins[g]++
        gain[g] += p
      } else loss[g] += p
    }
  }
  if (labelled === 0) return null
  const group = (g: number): RegimeStats => ({
    trades: count[g],
    win_rate: count[g] > 0 ? (100 * wins[g]) / count[g] : 0,
    // grossLoss = −loss exactly: negation commutes with rounding
    profit_factor: profitFactorOf(gain[g], -loss[g]).value,
    total_return_pct: gain[g] + loss[g],
  })
  return {
    btc_up: group(0),
    btc_down: group(1),
    high_vol: group(2),
    low_vol: group(3),
    up_high_vol: group(4),
    up_low_vol: group(5),
    down_high_vol: group(6),
    down_low_vol: group(7),
    unlabelled_trades: unlabelled,
    definition: REGIME_DEFINITION,
  }
}
