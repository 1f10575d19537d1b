import { rollingMax, rollingMin } from './rolling-extremes'
import { checkPeriod, fillNaN, floatScratch, rowsOf } from './util'

/**
 * Point of control of the volume profile of the `period` bars before each bar (the bar
 * itself excluded). With lo and hi the lowest and highest close of those bars and
 * step = (hi − lo) / bins, a bar's volume goes to bin floor((close − lo) / step), the top
 * close into the last bin; the POC is the middle of the heaviest bin, lo + (b + 0.5) · step
 * (the lowest such bin on a tie). One grid counts and prices (the replaced service counted
 * on a 19-step grid and priced on a 20-bin one; docs/indicators.md). When every close of
 * the window is equal the POC is that close. Rows before `period` are NaN.
 *
 * While lo and hi stay the same the grid stays the same, so the histogram is carried: the
 * bar entering the window is added and the one leaving it subtracted (two bins touched
 * instead of `period` bars summed). It is summed afresh whenever the grid moves, and at
 * least every `period` bars, so rounding never piles up; the heaviest bin only differs from
 * a fresh sum's when two bins tie within a few ulps of volume.
 *
 * Speed (docs/benchmarks.md, volume_profile), with the values of the plain form above to the
 * bit (tests/indicators-named.test.ts keeps that form and compares): a bar's bin is found by
 * multiplying by 1 / step, and only a quotient within a few ulps of a bin edge is divided
 * afresh (binOf); the heaviest bin is carried too, and the bins rescanned only when the
 * heaviest one lost volume or the grid moved.
 */
/** times bins: 8 · 2⁻⁵² per bin is over 5 × the 3.3e-16 per bin that (c − lo) · inv can be off the rounded quotient */
const EDGE = 8 * Number.EPSILON

export function volumeProfilePoc(
  close: Float64Array,
  volume: Float64Array,
  period: number,
  bins: number,
  out: Float64Array,
  n?: number,
): void {
  checkPeriod('volumeProfilePoc', period)
  checkPeriod('volumeProfilePoc bins', bins)
  const rows = rowsOf(close, n)
  // lo / hi of the prior window land in out and a scratch array, one row late (lag 1)
  const hiCol = floatScratch(0, rows)
  rollingMax(close, period, hiCol, rows, 1)
  rollingMin(close, period, out, rows, 1)
  fillNaN(out, 0, Math.min(period, rows))
  const hist = new Float64Array(bins)
  const c = close.subarray(0, rows)
  const v = volume.subarray(0, rows)
  const edge = EDGE * bins
  let gridLo = Number.NaN
  let gridHi = Number.NaN
  let step = Number.NaN
  let inv = Number.NaN
  let carried = 0
  let best = 0
  for (let i = period; i < rows; i++) {
    const lo = out[i]
    const hi = hiCol[i]
    if (lo === gridLo && hi === gridHi && carried < period) {
      // the window moved one bar on the same grid: bar i − 1 entered, bar i − 1 − period left
      const enter = binOf(c[i - 1], lo, step, inv, bins, edge)
      const leave = binOf(c[i - 1 - period], lo, step, inv, bins, edge)
      const top = hist[best]
      hist[enter] += v[i - 1]
      hist[leave] -= v[i - 1 - period]
      if (leave === best && hist[best] < top) best = heaviest(hist, bins)
      else if (hist[enter] > hist[best] || (hist[enter] === hist[best] && enter < best)) best = enter
      carried++
    } else {
      step = (hi - lo) / bins
      if (!(step > 0)) {
        out[i] = step === 0 ? lo : NaN
        gridLo = Number.NaN
        continue
      }
      inv = 1 / step
      hist.fill(0)
      for (let j = i - period; j < i; j++) {
        // binOf written out (called here it measured ~10 % slower)
        const q = (c[j] - lo) * inv
        let b = q | 0
        const f = q - b
        if (!(f >= edge && f <= 1 - edge) && q !== 0 && !(q > bins - 0.5 && q < bins + 0.5)) b = Math.floor((c[j] - lo) / step)
        hist[b < bins ? b : bins - 1] += v[j]
      }
      best = heaviest(hist, bins)
      gridLo = lo
      gridHi = hi
      carried = 0
    }
    out[i] = lo + (best + 0.5) * step
  }
}

/** the lowest bin of the largest count */
function heaviest(hist: Float64Array, bins: number): number {
  let best = 0
  for (let b = 1; b < bins; b++) if (hist[b] > hist[best]) best = b
  return best
}

/**
 * floor((c − lo) / step), the top close into the last bin, for c in [lo, hi]. (c − lo) · inv
 * with inv = 1 / step rounded is within 3 ulps of bins of the rounded quotient, so its integer
 * part is the quotient's unless it lies within a few ulps of an integer: there the quotient is
 * computed as written, except at 0 (the lowest close, exactly 0 both ways) and near `bins`
 * (the highest close, which the last bin takes either way). A product that is not finite (a
 * step so small that 1 / step overflows) is divided as written too.
 */
function binOf(c: number, lo: number, step: number, inv: number, bins: number, edge: number): number {
  const q = (c - lo) * inv
  let b = q | 0
  const f = q - b
  if (!(f >= edge && f <= 1 - edge) && q !== 0 && !(q > bins - 0.5 && q < bins + 0.5)) b = Math.floor((c - lo) / step)
  return b < bins ? b : bins - 1
}
