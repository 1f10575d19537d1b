import { rowsOf } from './util'

export interface HeikinAshiOut {
  open: Float64Array
  high: Float64Array
  low: Float64Array
  close: Float64Array
}

/**
 * Heikin-Ashi candles: close = (o + h + l + c) / 4; open = (previous HA open + previous HA
 * close) / 2, seeded on row 0 with (o + c) / 2; high = max(h, HA open, HA close); low likewise.
 * Valid from row 0; like an EMA the open carries (fading) memory of where the series starts.
 */
export function heikinAshi(
  open: Float64Array,
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  out: HeikinAshiOut,
  n?: number,
): void {
  const rows = rowsOf(close, n)
  if (rows === 0) return
  const { open: outOpen, close: outClose, high: outHigh, low: outLow } = out
  let haOpen = (open[0] + close[0]) / 2
  let haClose = 0
  for (let i = 0; i < rows; i++) {
    if (i > 0) haOpen = (haOpen + haClose) / 2
    const h = high[i]
    const l = low[i]
    haClose = (open[i] + h + l + close[i]) / 4
    outOpen[i] = haOpen
    outClose[i] = haClose
    // which of the three is highest changes too randomly for a branch to be predicted, so
    // each max / min is picked arithmetically (x · 1 + y · 0 is exactly x)
    const up = +(haClose > haOpen)
    const bodyTop = haClose * up + haOpen * (1 - up)
    const bodyBottom = haOpen * up + haClose * (1 - up)
    const above = +(h > bodyTop)
    const below = +(l < bodyBottom)
    outHigh[i] = h * above + bodyTop * (1 - above)
    outLow[i] = l * below + bodyBottom * (1 - below)
  }
}
