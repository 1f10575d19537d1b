import { rollingMax, rollingMin } from './rolling-extremes'
import { fillNaN, floatScratch, rowsOf } from './util'

export interface IchimokuOut {
  tenkan: Float64Array
  kijun: Float64Array
  senkouA: Float64Array
  senkouB: Float64Array
}

/** a window widened from a narrower one by at most this many reads per bar (else its own pass) */
const MAX_WIDEN_TERMS = 3

/**
 * Highest / lowest of the last `wide` bars from those of the last `narrow` bars (narrow ≤ wide):
 * the wide window is the union of narrow windows ending at i, i − narrow, i − 2·narrow, …, and
 * the last at i − (wide − narrow), so its extreme is the extreme of theirs. A max or min only
 * picks a value, so the result is the rolling pass's to the bit. Rows before wide − 1 are NaN.
 * Each pick is of an index by an integer mask, as in rolling-extremes.ts (whether one window's
 * high beats another's is a coin toss bar to bar: Math.max here cost 4 ns a bar, a branch
 * would mispredict); like the rolling passes, it takes its inputs finite from row narrow − 1.
 */
function widen(hiN: Float64Array, loN: Float64Array, narrow: number, wide: number, hiOut: Float64Array, loOut: Float64Array, rows: number): void {
  const first = Math.min(wide - 1, rows)
  fillNaN(hiOut, 0, first)
  fillNaN(loOut, 0, first)
  const last = wide - narrow
  if (last === 0) {
    for (let i = first; i < rows; i++) {
      hiOut[i] = hiN[i]
      loOut[i] = loN[i]
    }
  } else if (last <= narrow) {
    for (let i = first; i < rows; i++) {
      const j = i - last
      hiOut[i] = hiN[i ^ ((i ^ j) & -(hiN[j] > hiN[i]))]
      loOut[i] = loN[i ^ ((i ^ j) & -(loN[j] < loN[i]))]
    }
  } else {
    // three windows: i, i − narrow, i − last (last ≤ 2 · narrow)
    for (let i = first; i < rows; i++) {
      const j = i - narrow
      const k = i - last
      let h = i ^ ((i ^ j) & -(hiN[j] > hiN[i]))
      h ^= (h ^ k) & -(hiN[k] > hiN[h])
      hiOut[i] = hiN[h]
      let l = i ^ ((i ^ j) & -(loN[j] < loN[i]))
      l ^= (l ^ k) & -(loN[k] < loN[l])
      loOut[i] = loN[l]
    }
  }
}

/**
 * Ichimoku, causal form. tenkan and kijun are the midpoints of the highest high and lowest low
 * of the last `tenkanPeriod` / `kijunPeriod` bars. senkouA and senkouB are the spans as they
 * stand under bar i on a chart: the values computed `displacement` bars earlier,
 * senkouA[i] = (tenkan + kijun)[i − displacement] / 2 and senkouB[i] = midpoint of the last
 * `senkouBPeriod` bars ending at i − displacement. Nothing reads a later bar. (The chikou span
 * is today's close drawn in the past; callers compare close[i] with close[i − displacement].)
 *
 * Speed (docs/benchmarks.md, first run of each strategy): the three windows' highs and lows
 * are six rolling passes when computed apart. A wider window that two or three of a narrower
 * one cover (9 → 26 → 52 by default) is taken from the narrower one's extremes instead, a few
 * reads per bar; the values are the same to the bit (an extreme is one of the inputs).
 */
export function ichimoku(
  high: Float64Array,
  low: Float64Array,
  tenkanPeriod: number,
  kijunPeriod: number,
  senkouBPeriod: number,
  displacement: number,
  out: IchimokuOut,
  n?: number,
): void {
  const rows = rowsOf(high, n)
  const { tenkan, kijun, senkouA, senkouB } = out
  // the three windows, narrowest first: each one's highs and lows, from a narrower one's when it covers it
  const periods = [tenkanPeriod, kijunPeriod, senkouBPeriod]
  const order = [0, 1, 2].sort((a, b) => periods[a] - periods[b])
  const hi: Float64Array[] = []
  const lo: Float64Array[] = []
  order.forEach((k, r) => {
    const p = periods[k]
    const h = floatScratch(10 + 2 * r, rows)
    const l = floatScratch(11 + 2 * r, rows)
    const narrower = r > 0 ? order[r - 1] : -1
    if (narrower >= 0 && p <= MAX_WIDEN_TERMS * periods[narrower]) widen(hi[narrower], lo[narrower], periods[narrower], p, h, l, rows)
    else {
      rollingMax(high, p, h, rows)
      rollingMin(low, p, l, rows)
    }
    hi[k] = h
    lo[k] = l
  })
  const [h0, h1] = hi
  const [l0, l1] = lo
  for (let i = 0; i < rows; i++) {
    tenkan[i] = (h0[i] + l0[i]) / 2
    kijun[i] = (h1[i] + l1[i]) / 2
  }
  // the spans read displacement bars back: written from the windows' extremes directly
  const d = displacement
  const h2 = hi[2]
  const l2 = lo[2]
  for (let i = d; i < rows; i++) {
    senkouB[i] = (h2[i - d] + l2[i - d]) / 2
    senkouA[i] = (tenkan[i - d] + kijun[i - d]) / 2
  }
  fillNaN(senkouA, 0, Math.min(d, rows))
  fillNaN(senkouB, 0, Math.min(d, rows))
}
