import { PICK_PAIR, rowsOf } from './util'

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
 * Inputs are finite (the store's candles are positive prices); with a NaN the highs and lows
 * from that row are unspecified.
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
  let haClose = (open[0] + high[0] + low[0] + close[0]) / 4
  // which of the three is highest changes too randomly for a branch to be predicted: each
  // max / min is read from a pair by the comparison's 0 or 1 (the value itself, to the bit;
  // 2.2× faster than picking it arithmetically as x · 1 + y · 0, docs/benchmarks.md session 16)
  const pick = PICK_PAIR
  for (let i = 0; ; ) {
    const h = high[i]
    const l = low[i]
    outOpen[i] = haOpen
    outClose[i] = haClose
    pick[0] = haOpen
    pick[1] = haClose
    const up = +(haClose > haOpen)
    const bodyTop = pick[up]
    const bodyBottom = pick[up ^ 1]
    pick[0] = bodyTop
    pick[1] = h
    outHigh[i] = pick[+(h > bodyTop)]
    pick[0] = bodyBottom
    pick[1] = l
    outLow[i] = pick[+(l < bodyBottom)]
    if (++i >= rows) break
    haOpen = (haOpen + haClose) / 2
    haClose = (open[i] + high[i] + low[i] + close[i]) / 4
  }
}

/**
 * The Heikin-Ashi candles' bodies: size (top − bottom), top = max(HA open, HA close) and
 * bottom = min of the two; with `wicks`, the upper (HA high − top) and lower (bottom − HA
 * low) wicks. A kernel of its own rather than a loop in the indicator's definition: the
 * JIT compiles a small function once, where the definition, entered with other fields
 * asked for, was compiled again whole.
 */
export function heikinAshiBody(
  open: Float64Array,
  close: Float64Array,
  high: Float64Array,
  low: Float64Array,
  body: Float64Array,
  top: Float64Array,
  bottom: Float64Array,
  wicks: { upper: Float64Array; lower: Float64Array } | null,
  n: number,
): void {
  // the top and bottom read from a pair by the comparison (a coin toss bar to bar, which a
  // branch would mispredict), as heikinAshi picks its highs and lows
  const pick = PICK_PAIR
  for (let i = 0; i < n; i++) {
    pick[0] = open[i]
    pick[1] = close[i]
    const up = +(pick[1] > pick[0])
    const t = pick[up]
    const m = pick[up ^ 1]
    body[i] = t - m
    top[i] = t
    bottom[i] = m
  }
  if (wicks === null) return
  const { upper, lower } = wicks
  for (let i = 0; i < n; i++) {
    upper[i] = high[i] - top[i]
    lower[i] = bottom[i] - low[i]
  }
}
