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
 * While lo and hi stay the same the grid stays the same, so the histogram is carried: the
 * bar entering the window is added and the one leaving it subtracted (two bins touched
 * instead of `period` bars summed). It is summed afresh whenever the grid moves, and at
 * least every `period` bars, so rounding never piles up; the heaviest bin only differs from
 * a fresh sum's when two bins tie within a few ulps of volume.
 */
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
  let gridLo = Number.NaN
  let gridHi = Number.NaN
  let carried = 0
  for (let i = period; i < rows; i++) {
    const lo = out[i]
    const hi = hiCol[i]
    const step = (hi - lo) / bins
    if (!(step > 0)) {
      out[i] = step === 0 ? lo : NaN
      gridLo = Number.NaN
      continue
    }
    if (lo === gridLo && hi === gridHi && carried < period) {
      // the window moved one bar on the same grid: bar i − 1 entered, bar i − 1 − period left
      hist[binOf(close[i - 1], lo, step, bins)] += volume[i - 1]
      hist[binOf(close[i - 1 - period], lo, step, bins)] -= volume[i - 1 - period]
      carried++
    } else {
      hist.fill(0)
      for (let j = i - period; j < i; j++) hist[binOf(close[j], lo, step, bins)] += volume[j]
      gridLo = lo
      gridHi = hi
      carried = 0
    }
    let best = 0
    for (let b = 1; b < bins; b++) if (hist[b] > hist[best]) best = b
    out[i] = lo + (best + 0.5) * step
  }
}

/** the bin of a close on the grid lo + k · step (the top close into the last bin) */
function binOf(c: number, lo: number, step: number, bins: number): number {
  const b = Math.floor((c - lo) / step)
  return b < bins ? b : bins - 1
}
