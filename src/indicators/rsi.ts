import { stochasticOf } from './stoch'
import { sma } from './ma'
import { checkPeriod, fillNaN, isTaZero, rowsOf } from './util'

/**
 * Relative strength index with Wilder smoothing, as TA-Lib: average gain and loss start as
 * plain means of the first `period` changes (rows 1..period), then
 * avg = (avg · (period − 1) + x) / period; RSI = 100 · gain / (gain + loss), 0 when both are ~0.
 * First value at row `period`.
 */
export function rsi(src: Float64Array, period: number, out: Float64Array, n?: number): void {
  checkPeriod('rsi', period, 2)
  const rows = rowsOf(src, n)
  fillNaN(out, 0, Math.min(period, rows))
  if (period >= rows) return
  let gain = 0
  let loss = 0
  for (let i = 1; i <= period; i++) {
    const d = src[i] - src[i - 1]
    if (d < 0) loss -= d
    else gain += d
  }
  loss /= period
  gain /= period
  out[period] = strength(gain, loss)
  // (avg · (p − 1) + x) / p as avg · keep + x · share; the gain/loss split as (|d| ± d) / 2,
  // which is exact and has no data-dependent branch
  const keep = (period - 1) / period
  const share = 0.5 / period
  let prev = src[period]
  for (let i = period + 1; i < rows; i++) {
    const x = src[i]
    const d = x - prev
    prev = x
    const size = Math.abs(d)
    gain = gain * keep + (size + d) * share
    loss = loss * keep + (size - d) * share
    const total = gain + loss
    out[i] = total >= 1e-8 ? (100 * gain) / total : 0 // TA_IS_ZERO, total being >= 0
  }
}

function strength(gain: number, loss: number): number {
  const total = gain + loss
  return isTaZero(total) ? 0 : 100 * (gain / total)
}

/**
 * Stochastic RSI: the stochastic oscillator applied to RSI(rsiPeriod):
 * raw = 100 · (RSI − min RSI) / (max RSI − min RSI) over `stochPeriod` bars (0 when flat),
 * outK = SMA(kSmooth) of raw, outD = SMA(dPeriod) of outK.
 * First values: K at rsiPeriod + stochPeriod + kSmooth − 2, D dPeriod − 1 later.
 */
export function stochRsi(
  src: Float64Array,
  rsiPeriod: number,
  stochPeriod: number,
  kSmooth: number,
  dPeriod: number,
  outK: Float64Array,
  outD: Float64Array,
  n?: number,
): void {
  checkPeriod('stochRsi', stochPeriod)
  checkPeriod('stochRsi', kSmooth)
  checkPeriod('stochRsi', dPeriod)
  const rows = rowsOf(src, n)
  // the outputs double as scratch: RSI in outK, raw %K in outD, then each is overwritten once
  // its content has been used
  rsi(src, rsiPeriod, outK, rows)
  stochasticOf(outK, outK, outK, stochPeriod, outD, rows)
  sma(outD, kSmooth, outK, rows)
  sma(outK, dPeriod, outD, rows)
}
