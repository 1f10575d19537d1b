import { rollingMax, rollingMin } from './rolling-extremes'
import { checkPeriod, fillNaN, rowsOf } from './util'

/**
 * Point of control of the volume profile of the `period` bars before each bar (the bar
 * itself excluded). With lo and hi the lowest and highest close of those bars and
 * step = (hi − lo) / bins, a bar's volume goes to bin floor((close − lo) / step), the top
 * close into the last bin; the POC is the middle of the heaviest bin, lo + (b + 0.5) · step
 * (the lowest such bin on a tie). One grid counts and prices (the replaced service counted
 * on a 19-step grid and priced on a 20-bin one; docs/indicators.md). When every close of
 * the window is equal the POC is that close. Rows before `period` are NaN.
 * O(period) per bar: the bins move with lo and hi, so no running histogram survives a bar.
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
  const hiCol = new Float64Array(rows)
  rollingMax(close, period, hiCol, rows, 1)
  rollingMin(close, period, out, rows, 1)
  fillNaN(out, 0, Math.min(period, rows))
  const hist = new Float64Array(bins)
  for (let i = period; i < rows; i++) {
    const lo = out[i]
    const hi = hiCol[i]
    const step = (hi - lo) / bins
    if (!(step > 0)) {
      out[i] = step === 0 ? lo : NaN
      continue
    }
    hist.fill(0)
    for (let j = i - period; j < i; j++) {
      let b = Math.floor((close[j] - lo) / step)
      if (b >= bins) b = bins - 1
      hist[b] += volume[j]
    }
    let best = 0
    for (let b = 1; b < bins; b++) if (hist[b] > hist[best]) best = b
    out[i] = lo + (best + 0.5) * step
  }
}
