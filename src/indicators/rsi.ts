import { smoothStochastic } from './stoch'
import { checkPeriod, fillNaN, firstValid, floatScratch, isTaZero, rowsOf } from './util'
import { coverWindows } from './rolling-extremes'

/**
 * Relative strength index with Wilder smoothing, as TA-Lib: average gain and loss start as
 * plain means of the first `period` changes (rows 1..period), then
 * avg = (avg · (period − 1) + x) / period; RSI = 100 · gain / (gain + loss), 0 when both are ~0.
 * First value at row `period`.
 */
export function rsi(src: Float64Array, period: number, out: Float64Array, n?: number): void {
  checkPeriod('rsi', period, 2)
  wilderRsi(src, period, out, rowsOf(src, n), 0)
}

/** The RSI plus `offset` into out[0 .. rows) (0 for the RSI itself; RSI_OFFSET for stochRsi). */
function wilderRsi(src: Float64Array, period: number, out: Float64Array, rows: number, offset: number): void {
  fillNaN(out, 0, Math.min(period, rows))
  if (period >= rows) return
  let gain = 0
  let loss = 0
  for (let i = 1; i <= period; i++) {
    const d = src[i] - src[i - 1]
    if (d < 0) loss -= d
    else gain += d
  }
  loss /= period
  gain /= period
  out[period] = strength(gain, loss) + offset
  // (avg · (p − 1) + x) / p as avg · keep + x · share; the gain/loss split as (|d| ± d) / 2,
  // which is exact and has no data-dependent branch. Two bars per step: the averages two bars
  // on are avg · keep² + (x₁ · keep + x₂), so the loop-carried chain is one multiply-add per
  // two bars (it bounded the kernel); the first bar of a step is avg · keep + x₁ as before.
  // Steps start at row period + 1 whatever the length, so a row's value never depends on
  // where the series ends; rounding differs from the one-bar form by a few ulps.
  // A bar whose close equals the previous one keeps the previous row's value: both averages
  // shrink by the same factor, so in real numbers the RSI is unchanged, while the two rounded
  // products would move it by an ulp or two (which a stochastic of the RSI would then read as
  // a new high or low: docs/strategies.md, stochastic-rsi). TA-Lib's zero rule still wins.
  const keep = (period - 1) / period
  const keep2 = keep * keep
  const share = 0.5 / period
  let i = period + 1
  for (; i + 1 < rows; i += 2) {
    const d1 = src[i] - src[i - 1]
    const d2 = src[i + 1] - src[i]
    const s1 = Math.abs(d1)
    const s2 = Math.abs(d2)
    const g1 = (s1 + d1) * share
    const l1 = (s1 - d1) * share
    const g2 = (s2 + d2) * share
    const l2 = (s2 - d2) * share
    const gainAt1 = gain * keep + g1
    const lossAt1 = loss * keep + l1
    gain = gain * keep2 + (g1 * keep + g2)
    loss = loss * keep2 + (l1 * keep + l2)
    const t1 = gainAt1 + lossAt1
    out[i] = (t1 >= 1e-8 ? (100 * gainAt1) / t1 : 0) + offset // TA_IS_ZERO, the total being >= 0
    const t2 = gain + loss
    out[i + 1] = (t2 >= 1e-8 ? (100 * gain) / t2 : 0) + offset
    // flat closes are about 1 % of bars: one rarely taken branch (choosing by selects on every
    // bar made the loop-carried value a chain and cost 0.7 ns per bar)
    if (d1 === 0 || d2 === 0) {
      if (d1 === 0 && t1 >= 1e-8) out[i] = out[i - 1]
      if (d2 === 0 && t2 >= 1e-8) out[i + 1] = out[i]
    }
  }
  if (i < rows) {
    const d1 = src[i] - src[i - 1]
    const s1 = Math.abs(d1)
    const gainAt1 = gain * keep + (s1 + d1) * share
    const lossAt1 = loss * keep + (s1 - d1) * share
    const t1 = gainAt1 + lossAt1
    out[i] = t1 >= 1e-8 ? (d1 === 0 ? out[i - 1] : (100 * gainAt1) / t1 + offset) : offset
  }
}

function strength(gain: number, loss: number): number {
  const total = gain + loss
  return isTaZero(total) ? 0 : 100 * (gain / total)
}

/**
 * What stochRsi adds to the RSI before taking its stochastic: RSI + 128 lies in [128, 228],
 * where any two values are within 2× of each other, so every difference the stochastic takes
 * is exact (Sterbenz) and the fast value kernel (coverWindows) gives the exact window extremes.
 * On the RSI itself a window spans more than 2× on about 8 % of bars (1H, 28 coins) and would
 * need the slow exact scan there. The sum rounds the RSI to a multiple of 2⁻⁴⁵ ≈ 2.8e-14, a few
 * of its own ulps: %K is the formula's on that RSI to the bit (exactly 0 and 100 where the RSI
 * is the window's lowest and highest), and within ~1e-12 of the unrounded one on the 28 coins.
 */
const RSI_OFFSET = 128

/**
 * Stochastic RSI: the stochastic oscillator applied to RSI(rsiPeriod):
 * raw = 100 · (RSI − min RSI) / (max RSI − min RSI) over `stochPeriod` bars (0 when flat),
 * outK = SMA(kSmooth) of raw, outD = SMA(dPeriod) of outK.
 * First values: K at rsiPeriod + stochPeriod + kSmooth − 2, D dPeriod − 1 later.
 */
export function stochRsi(
  src: Float64Array,
  rsiPeriod: number,
  stochPeriod: number,
  kSmooth: number,
  dPeriod: number,
  outK: Float64Array,
  outD: Float64Array,
  n?: number,
): void {
  checkPeriod('stochRsi', rsiPeriod, 2)
  checkPeriod('stochRsi', stochPeriod)
  checkPeriod('stochRsi', kSmooth)
  checkPeriod('stochRsi', dPeriod)
  const rows = rowsOf(src, n)
  // the outputs double as scratch: RSI + RSI_OFFSET in outK, raw %K in outD, then each is
  // overwritten once its content has been used
  wilderRsi(src, rsiPeriod, outK, rows, RSI_OFFSET)
  offsetStochastic(outK, stochPeriod, outD, rows)
  smoothStochastic(outD, kSmooth, dPeriod, outK, outD, rows)
}

/**
 * Fast %K of z = RSI + RSI_OFFSET: 100 · (z − lowest) / (highest − lowest) over `period` rows,
 * 0 when flat; leading NaNs skipped. The loop of stoch.ts's rangePosition without its
 * exactness check and scan, which z never needs (every window lies within 2×, so coverWindows
 * is exact): 6 % faster, the written-out maxOf/minOf as there.
 */
function offsetStochastic(z: Float64Array, period: number, out: Float64Array, rows: number): void {
  const start = firstValid(z, rows)
  const first = start + period - 1
  fillNaN(out, 0, Math.min(first, rows))
  if (first >= rows) return
  // views of exactly `rows` rows: loops bounded by their length carry no bounds checks
  const hi = floatScratch(0, rows).subarray(0, rows)
  const lo = floatScratch(1, rows).subarray(0, rows)
  const back = coverWindows(z, z, period, start, rows, hi, lo)
  const x = z.subarray(0, rows)
  const o = out.subarray(0, rows)
  for (let i = first; i < o.length; i++) {
    const a = hi[i]
    const b = hi[i - back]
    const d = a - b
    const highest = b + (d + Math.abs(d)) * 0.5
    const c = lo[i]
    const y = lo[i - back]
    const e = c - y
    const lowest = y + (e - Math.abs(e)) * 0.5
    const range = highest - lowest
    o[i] = range !== 0 ? ((x[i] - lowest) / range) * 100 : 0
  }
}
