import { smoothRun } from './ma'
import { checkPeriod, fillNaN, firstValid, rowsOf } from './util'

/** SMA of src[end-period+1 .. end], the TA-Lib EMA seed */
function seedOf(src: Float64Array, period: number, end: number): number {
  let sum = 0
  for (let j = end - period + 1; j <= end; j++) sum += src[j]
  return sum / period
}

/**
 * Both EMAs in one pass, writing fast − slow from row `from` on: each EMA is smoothRun's
 * four-rows-per-step recursion (same expressions, so the same values as two smoothRun calls).
 */
function emaSpread(src: Float64Array, fastAlpha: number, fast: number, slowAlpha: number, slow: number, from: number, to: number, out: Float64Array): void {
  const fa = 1 - fastAlpha
  const sa = 1 - slowAlpha
  const fa2 = fa * fa
  const fa3 = fa2 * fa
  const fa4 = fa2 * fa2
  const sa2 = sa * sa
  const sa3 = sa2 * sa
  const sa4 = sa2 * sa2
  let i = from
  for (; i < to; i += 4) {
    const x1 = src[i]
    const x2 = i + 1 < to ? src[i + 1] : 0
    const x3 = i + 2 < to ? src[i + 2] : 0
    const x4 = i + 3 < to ? src[i + 3] : 0
    const f1 = fastAlpha * x1
    const f2 = fa * f1 + fastAlpha * x2
    const f3 = fa * f2 + fastAlpha * x3
    const f4 = fa * f3 + fastAlpha * x4
    const s1 = slowAlpha * x1
    const s2 = sa * s1 + slowAlpha * x2
    const s3 = sa * s2 + slowAlpha * x3
    const s4 = sa * s3 + slowAlpha * x4
    out[i] = fa * fast + f1 - (sa * slow + s1)
    if (i + 1 < to) out[i + 1] = fa2 * fast + f2 - (sa2 * slow + s2)
    if (i + 2 < to) out[i + 2] = fa3 * fast + f3 - (sa3 * slow + s3)
    if (i + 3 < to) out[i + 3] = fa4 * fast + f4 - (sa4 * slow + s4)
    fast = fa4 * fast + f4
    slow = sa4 * slow + s4
  }
}

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
  const first = seedEnd + signalPeriod - 1
  const warm = Math.min(first, rows)
  if (seedEnd < rows) {
    const fastSeed = seedOf(src, fast, seedEnd)
    const slowSeed = seedOf(src, slow, seedEnd)
    outMacd[seedEnd] = fastSeed - slowSeed
    emaSpread(src, 2 / (fast + 1), fastSeed, 2 / (slow + 1), slowSeed, seedEnd + 1, rows, outMacd)
  }
  fillNaN(outSignal, 0, warm)
  if (first < rows) {
    const alpha = 2 / (signalPeriod + 1)
    const signalSeed = seedOf(outMacd, signalPeriod, first)
    outSignal[first] = signalSeed
    smoothRun(outMacd, 1 - alpha, alpha, signalSeed, first + 1, rows, outSignal)
    for (let i = first; i < rows; i++) outHist[i] = outMacd[i] - outSignal[i]
  }
  fillNaN(outMacd, 0, warm)
  fillNaN(outHist, 0, warm)
}
