import { REANCHOR_BARS } from './ma'
import { checkPeriod, fillNaN, floatScratch, rowsOf } from './util'
import { DAY_MS } from '../time'

const YEAR_MS = 365 * DAY_MS

/** Bars in a 365-day year for a bar length (crypto trades around the clock). */
export function barsPerYear(stepMs: number): number {
  return YEAR_MS / stepMs
}

/**
 * |u| below which logRatio uses the series: 2⁻⁵, a move of up to ~6.4 % between the two
 * prices. Hourly closes almost never move more, so the log1p fallback is rarely reached.
 */
const SERIES_MAX_U = 0.03125

/**
 * ln(a / b). With u = (a − b) / (a + b), ln(a/b) = 2·atanh(u) = 2·(u + u³/3 + u⁵/5 + …).
 * Stopping after u⁹/9 leaves 2·Σ_{k≥5} u^(2k+1)/(2k+1) ≤ 2|u|¹¹ / (11·(1 − u²)), which relative
 * to the result (≥ 2|u|) is at most u¹⁰ / (11·(1 − u²)) < 8e-17 for |u| < 2⁻⁵: below half an
 * ulp (1.1e-16), so the truncation is invisible next to the rounding of the ~10 operations
 * (a few ulps in all). Larger moves (and NaN) go to log1p((a − b) / b), which unlike
 * Math.log(a / b) does not lose digits to the rounding of a / b near 1.
 */
export function logRatio(a: number, b: number): number {
  const u = (a - b) / (a + b)
  if (!(Math.abs(u) < SERIES_MAX_U)) return Math.log1p((a - b) / b)
  const u2 = u * u
  return 2 * u + u * u2 * (2 / 3 + u2 * (2 / 5 + u2 * (2 / 7 + u2 * (2 / 9))))
}

/**
 * Historical volatility in percent: the sample standard deviation (÷ (period − 1)) of the
 * last `period` log returns ln(c[i] / c[i−1]), times sqrt(yearBars), times 100. For 1H bars
 * yearBars = barsPerYear(3_600_000) = 8760. First value at row `period` (period + 1 closes).
 *
 * The returns go to a scratch column first (no loop-carried work there, so the divisions and
 * series of neighbouring bars overlap); then the window sums of r and r² are carried four
 * bars per step (one add per four bars on the loop-carried chain), summed afresh every
 * REANCHOR_BARS bars so rounding does not pile up.
 */
export function historicalVolatility(
  close: Float64Array,
  period: number,
  yearBars: number,
  out: Float64Array,
  n?: number,
): void {
  checkPeriod('historicalVolatility', period, 2)
  const rows = rowsOf(close, n)
  fillNaN(out, 0, Math.min(period, rows))
  if (period >= rows) return
  const ret = floatScratch(0, rows)
  for (let j = 1; j < rows; j++) ret[j] = logRatio(close[j], close[j - 1])
  const scale = Math.sqrt(yearBars) * 100
  const inv = 1 / period
  const dof = 1 / (period - 1)
  let i = period
  while (i < rows) {
    // log returns have a mean near 0, so plain sums of r and r² lose little to cancellation
    let sum = 0
    let sq = 0
    for (let j = i - period + 1; j <= i; j++) {
      sum += ret[j]
      sq += ret[j] * ret[j]
    }
    out[i] = deviation(sum, sq, inv, dof, scale)
    i++
    if (sum !== sum || sq !== sq) continue // a NaN in the window: sum the next one afresh too
    const end = Math.min(rows, i + REANCHOR_BARS - 1)
    for (; i < end; i += 4) {
      // row i + k adds ret[i + k] and drops ret[i + k − period]; the partial sums start
      // from the step's first row, so a row's value never depends on where the series ends
      const x0 = ret[i]
      const o0 = ret[i - period]
      const s1 = sum + (x0 - o0)
      const q1 = sq + (x0 - o0) * (x0 + o0)
      out[i] = deviation(s1, q1, inv, dof, scale)
      if (i + 1 >= end) {
        i = end
        break
      }
      const x1 = ret[i + 1]
      const o1 = ret[i + 1 - period]
      const ds2 = x0 - o0 + (x1 - o1)
      const dq2 = (x0 - o0) * (x0 + o0) + (x1 - o1) * (x1 + o1)
      out[i + 1] = deviation(sum + ds2, sq + dq2, inv, dof, scale)
      if (i + 2 >= end) {
        i = end
        break
      }
      const x2 = ret[i + 2]
      const o2 = ret[i + 2 - period]
      const ds3 = ds2 + (x2 - o2)
      const dq3 = dq2 + (x2 - o2) * (x2 + o2)
      out[i + 2] = deviation(sum + ds3, sq + dq3, inv, dof, scale)
      if (i + 3 >= end) {
        i = end
        break
      }
      const x3 = ret[i + 3]
      const o3 = ret[i + 3 - period]
      sum += ds3 + (x3 - o3)
      sq += dq3 + (x3 - o3) * (x3 + o3)
      out[i + 3] = deviation(sum, sq, inv, dof, scale)
      if (sum !== sum || sq !== sq) {
        // a NaN entered: rows from it on hold NaN already; resume with fresh sums
        i += 4
        break
      }
    }
  }
}

/** sqrt(sample variance from Σr and Σr²) · scale; 0 when rounding makes the variance ≤ 0 */
function deviation(sum: number, sq: number, inv: number, dof: number, scale: number): number {
  const v = (sq - sum * sum * inv) * dof
  return v > 0 ? Math.sqrt(v) * scale : v === v ? 0 : NaN
}
