import { sma } from './ma'
import { checkPeriod, fillNaN, firstValid, floatScratch, rowsOf } from './util'
import { coverWindows, EXACT_SPREAD, scanRange } from './rolling-extremes'

/**
 * 100 · (close − ref) / (highest high − lowest low) over the last `period` bars, 0 when the
 * range is 0, where ref is the lowest low (`fromHigh` false: fast %K) or the highest high
 * (true: Williams %R, as (close − highest) · 100 / range). Leading NaNs are skipped.
 *
 * Exact: the extremes come from coverWindows, and a window whose computed highest is not
 * below EXACT_SPREAD × its lowest, where coverWindows may be an ulp off, is scanned afresh.
 * That keeps a %K of exactly 0 or 100 where the close is the window's extreme (so, smoothed by
 * 3 and 3, three such bars give a K of exactly 0 or 100, never an ulp outside). Price windows almost never span 2×; a series that
 * often does would spend its time in the scans (stochRsi shifts the RSI into a range within 2×
 * and has its own loop without the check).
 */
function rangePosition(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  period: number,
  fromHigh: boolean,
  out: Float64Array,
  rows: number,
): void {
  const start = Math.max(firstValid(high, rows), firstValid(low, rows), firstValid(close, rows))
  const first = start + period - 1
  fillNaN(out, 0, Math.min(first, rows))
  if (first >= rows) return
  // views of exactly `rows` rows: loops bounded by their length carry no bounds checks
  const hi = floatScratch(0, rows).subarray(0, rows)
  const lo = floatScratch(1, rows).subarray(0, rows)
  const back = coverWindows(high.subarray(0, rows), low.subarray(0, rows), period, start, rows, hi, lo)
  const c = close.subarray(0, rows)
  const o = out.subarray(0, rows)
  for (let i = first; i < o.length; i++) {
    // the covering windows' extremes, by maxOf / minOf written out (see coverWindows)
    const a = hi[i]
    const b = hi[i - back]
    const d = a - b
    let highest = b + (d + Math.abs(d)) * 0.5
    const x = lo[i]
    const y = lo[i - back]
    const e = x - y
    let lowest = y + (e - Math.abs(e)) * 0.5
    if (!(highest < lowest * EXACT_SPREAD)) {
      const exact = scanRange(high, low, i - period + 1, i)
      highest = exact[0]
      lowest = exact[1]
    }
    const range = highest - lowest
    // one division per bar: TA-Lib divides by range / ±100; (x / range) · 100 differs by an ulp
    o[i] = range !== 0 ? ((c[i] - (fromHigh ? highest : lowest)) / range) * 100 : 0
  }
}

/**
 * Slow stochastic as TA-Lib STOCH with SMA smoothing: outK = SMA(kSmooth) of fast %K(kPeriod),
 * outD = SMA(dPeriod) of outK. Both start on the same row, (kPeriod−1)+(kSmooth−1)+(dPeriod−1),
 * as TA-Lib aligns them.
 */
export function stoch(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  kPeriod: number,
  kSmooth: number,
  dPeriod: number,
  outK: Float64Array,
  outD: Float64Array,
  n?: number,
): void {
  const rows = rowsOf(close, n)
  checkPeriod('stoch', kPeriod)
  rangePosition(high, low, close, kPeriod, false, outD, rows) // fast %K, parked in outD
  smoothStochastic(outD, kSmooth, dPeriod, outK, outD, rows)
  fillNaN(outK, 0, Math.min(firstValid(outD, rows), rows))
}

const THIRD = 1 / 3
/** x + GRID − GRID rounds x ∈ [−128, 128] to a multiple of 2⁻⁴⁴: x + 384 lies in [256, 512), whose ulp is 2⁻⁴⁴ */
const GRID = 384

/**
 * The two smoothings of a stochastic: outK = SMA(kSmooth) of raw, outD = SMA(dPeriod) of outK.
 * raw may be outD itself: each row of raw is read before that row of outD is written.
 *
 * The usual 3 and 3 (raw a stochastic, in 0..100) take one pass, with the last two values of
 * each series in registers. Raw values and K are rounded to multiples of 2⁻⁴⁴ (≈ 5.7e-14)
 * before three are summed, so the sums are exact (below 512: 53 bits): a window's mean depends
 * on its values only, not on their order. And three equal values v on that grid give v back:
 * 3v is exact, and 3v · ⅓ = v · (1 − 2⁻⁵⁴) is within half an ulp of v, so it rounds to v. So
 * wherever exact arithmetic gives equal means (windows holding the same values: a raw %K of 0,
 * 100 or a repeated value moving through them) the floats are equal too, and D = K where the
 * last three K are equal: a strict K > D is false at those ties as in real numbers (the plain
 * (a + b + c) · ⅓ it replaced put D an ulp off K there; docs/strategies.md, stochastic-rsi).
 * K and D are the means to 3e-14 and stay in 0..100; 0 and 100 are on the grid. Other periods
 * take sma. A NaN in raw makes NaN every K and D whose window holds it, as sma does.
 */
export function smoothStochastic(
  raw: Float64Array,
  kSmooth: number,
  dPeriod: number,
  outK: Float64Array,
  outD: Float64Array,
  rows: number,
): void {
  if (kSmooth !== 3 || dPeriod !== 3) {
    sma(raw, kSmooth, outK, rows)
    sma(outK, dPeriod, outD, rows)
    return
  }
  const first = firstValid(raw, rows)
  fillNaN(outK, 0, Math.min(first, rows))
  fillNaN(outD, 0, Math.min(first, rows))
  // NaN until a window is full: the first two K and the first four D come out NaN
  let r1 = NaN
  let r2 = NaN
  let k1 = NaN
  let k2 = NaN
  for (let i = first; i < rows; i++) {
    const x = raw[i] + GRID - GRID
    const k = (r2 + r1 + x) * THIRD + GRID - GRID
    outK[i] = k
    outD[i] = (k2 + k1 + k) * THIRD
    r2 = r1
    r1 = x
    k2 = k1
    k1 = k
  }
}

/**
 * Williams %R: −100 · (highest high − close) / (highest high − lowest low) over `period` bars,
 * 0 when the range is 0 (TA-Lib). First value at row period − 1.
 */
export function willr(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  period: number,
  out: Float64Array,
  n?: number,
): void {
  checkPeriod('willr', period, 2)
  rangePosition(high, low, close, period, true, out, rowsOf(close, n))
}
