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
  // which is exact and has no data-dependent branch. Two bars per step: the averages two bars
  // on are avg · keep² + (x₁ · keep + x₂), so the loop-carried chain is one multiply-add per
  // two bars (it bounded the kernel); the first bar of a step is avg · keep + x₁ as before.
  // Steps start at row period + 1 whatever the length, so a row's value never depends on
  // where the series ends; rounding differs from the one-bar form by a few ulps.
  const keep = (period - 1) / period
  const keep2 = keep * keep
  const share = 0.5 / period
  let i = period + 1
  for (; i + 1 < rows; i += 2) {
    const d1 = src[i] - src[i - 1]
    const d2 = src[i + 1] - src[i]
    const s1 = Math.abs(d1)
    const s2 = Math.abs(d2)
    const g1 = (s1 + d1) * share
    const l1 = (s1 - d1) * share
    const g2 = (s2 + d2) * share
    const l2 = (s2 - d2) * share
    const gainAt1 = gain * keep + g1
    const lossAt1 = loss * keep + l1
    gain = gain * keep2 + (g1 * keep + g2)
    loss = loss * keep2 + (l1 * keep + l2)
    const t1 = gainAt1 + lossAt1
    out[i] = t1 >= 1e-8 ? (100 * gainAt1) / t1 : 0 // TA_IS_ZERO, the total being >= 0
    const t2 = gain + loss
    out[i + 1] = t2 >= 1e-8 ? (100 * gain) / t2 : 0
  }
  if (i < rows) {
    const d1 = src[i] - src[i - 1]
    const s1 = Math.abs(d1)
    const gainAt1 = gain * keep + (s1 + d1) * share
    const lossAt1 = loss * keep + (s1 - d1) * share
    const t1 = gainAt1 + lossAt1
    out[i] = t1 >= 1e-8 ? (100 * gainAt1) / t1 : 0
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
