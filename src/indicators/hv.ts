import { REANCHOR_BARS } from './ma'
import { checkPeriod, fillNaN, rowsOf } from './util'

const YEAR_MS = 365 * 86_400_000

/** Bars in a 365-day year for a bar length (crypto trades around the clock). */
export function barsPerYear(stepMs: number): number {
  return YEAR_MS / stepMs
}

/**
 * ln(a / b). For the small moves of consecutive closes it uses
 * ln(a/b) = 2·atanh(u) = 2·(u + u³/3 + u⁵/5 + …) with u = (a − b) / (a + b): the series is
 * accurate to an ulp or two for |u| < 0.05 (moves under ~10 %) and is several times cheaper
 * than Math.log; larger moves go to Math.log.
 */
export function logRatio(a: number, b: number): number {
  const u = (a - b) / (a + b)
  if (!(Math.abs(u) < 0.05)) return Math.log(a / b)
  const u2 = u * u
  return 2 * u * (1 + u2 * (1 / 3 + u2 * (1 / 5 + u2 * (1 / 7 + u2 * (1 / 9 + u2 * (1 / 11))))))
}

/**
 * Historical volatility in percent: the sample standard deviation (÷ (period − 1)) of the
 * last `period` log returns ln(c[i] / c[i−1]), times sqrt(yearBars), times 100. For 1H bars
 * yearBars = barsPerYear(3_600_000) = 8760. First value at row `period` (period + 1 closes).
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
  const scale = Math.sqrt(yearBars) * 100
  const inv = 1 / period
  const ring = new Float64Array(period) // the window's returns; row j sits in slot j % period
  for (let j = 1; j < period; j++) ring[j] = logRatio(close[j], close[j - 1])
  let sum = 0
  let sq = 0
  let builtAt = -Infinity
  let slot = 0 // period % period
  for (let i = period; i < rows; i++) {
    const r = logRatio(close[i], close[i - 1])
    const old = ring[slot]
    ring[slot] = r
    if (++slot === period) slot = 0
    // log returns have a mean near 0, so plain sums of r and r² lose little to cancellation;
    // rebuilding them now and then keeps rounding from piling up over long series
    if (i - builtAt >= REANCHOR_BARS || sq !== sq) {
      sum = 0
      sq = 0
      for (let j = 0; j < period; j++) {
        sum += ring[j]
        sq += ring[j] * ring[j]
      }
      builtAt = i
    } else {
      sum += r - old
      sq += (r - old) * (r + old)
    }
    const v = (sq - sum * sum * inv) / (period - 1)
    out[i] = v > 0 ? Math.sqrt(v) * scale : v === v ? 0 : NaN
  }
}
