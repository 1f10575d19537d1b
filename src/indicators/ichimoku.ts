import { rollingMax, rollingMin } from './rolling-extremes'
import { fillNaN, rowsOf } from './util'

export interface IchimokuOut {
  tenkan: Float64Array
  kijun: Float64Array
  senkouA: Float64Array
  senkouB: Float64Array
}

/** Midpoint of the highest high and lowest low of the last `period` bars, into out. */
function midRange(high: Float64Array, low: Float64Array, period: number, out: Float64Array, scratch: Float64Array, rows: number): void {
  rollingMax(high, period, out, rows)
  rollingMin(low, period, scratch, rows)
  for (let i = 0; i < rows; i++) out[i] = (out[i] + scratch[i]) / 2
}

/**
 * Ichimoku, causal form. tenkan and kijun are the midpoints of the highest high and lowest low
 * of the last `tenkanPeriod` / `kijunPeriod` bars. senkouA and senkouB are the spans as they
 * stand under bar i on a chart: the values computed `displacement` bars earlier,
 * senkouA[i] = (tenkan + kijun)[i − displacement] / 2 and senkouB[i] = midpoint of the last
 * `senkouBPeriod` bars ending at i − displacement. Nothing reads a later bar. (The chikou span
 * is today's close drawn in the past; callers compare close[i] with close[i − displacement].)
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
  // senkouA is free until the end, so it serves as scratch for the lowest lows
  midRange(high, low, tenkanPeriod, tenkan, senkouA, rows)
  midRange(high, low, kijunPeriod, kijun, senkouA, rows)
  midRange(high, low, senkouBPeriod, senkouB, senkouA, rows)
  // shift the current-bar spans forward by `displacement` rows (backwards, so in place)
  const d = displacement
  for (let i = rows - 1; i >= d; i--) {
    senkouB[i] = senkouB[i - d]
    senkouA[i] = (tenkan[i - d] + kijun[i - d]) / 2
  }
  fillNaN(senkouA, 0, Math.min(d, rows))
  fillNaN(senkouB, 0, Math.min(d, rows))
}
