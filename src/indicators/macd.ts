import { emaSeededAt } from './ma'
import { checkPeriod, fillNaN, firstValid, rowsOf } from './util'

/**
 * MACD as TA-Lib: macd = EMA(fast) − EMA(slow), signal = EMA(signalPeriod) of macd,
 * hist = macd − signal. TA-Lib seeds both EMAs on the same row (slow − 1): the slow one with
 * the SMA of the first `slow` values, the fast one with the SMA of the `fast` values ending
 * there; the signal EMA is seeded with the SMA of the first `signalPeriod` macd values.
 * All three outputs start on row (slow − 1) + (signalPeriod − 1) (after leading NaNs).
 * A fast period above the slow one is swapped, as TA-Lib does.
 */
export function macd(
  src: Float64Array,
  fast: number,
  slow: number,
  signalPeriod: number,
  outMacd: Float64Array,
  outSignal: Float64Array,
  outHist: Float64Array,
  n?: number,
): void {
  checkPeriod('macd', fast)
  checkPeriod('macd', slow)
  checkPeriod('macd', signalPeriod)
  if (slow < fast) [fast, slow] = [slow, fast]
  const rows = rowsOf(src, n)
  const seedEnd = firstValid(src, rows) + slow - 1
  const fastEma = outSignal // parked there until the signal line is computed
  emaSeededAt(src, fast, seedEnd, fastEma, rows)
  emaSeededAt(src, slow, seedEnd, outMacd, rows)
  for (let i = seedEnd; i < rows; i++) outMacd[i] = fastEma[i] - outMacd[i]
  const first = seedEnd + signalPeriod - 1
  emaSeededAt(outMacd, signalPeriod, first, outSignal, rows)
  const warm = Math.min(first, rows)
  fillNaN(outMacd, 0, warm)
  fillNaN(outHist, 0, warm)
  for (let i = first; i < rows; i++) outHist[i] = outMacd[i] - outSignal[i]
}
