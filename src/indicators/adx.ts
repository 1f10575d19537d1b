import { checkPeriod, fillNaN, isTaZero, rowsOf } from './util'

/** directional moves of row i: [+DM, −DM, TR] */
const move = new Float64Array(3)

/**
 * +DM is the up move (high − previous high) when it is positive and beats the down move
 * (previous low − low); −DM mirrored; TR the true range. Written branch-free: which move wins
 * changes from bar to bar too randomly for a branch predictor. (x + |x|) / 2 is max(x, 0),
 * exactly.
 */
function directionalMove(high: Float64Array, low: Float64Array, close: Float64Array, i: number): void {
  const h = high[i]
  const l = low[i]
  const up = h - high[i - 1]
  const down = low[i - 1] - l
  move[0] = (up + Math.abs(up)) * 0.5 * +(up > down)
  move[1] = (down + Math.abs(down)) * 0.5 * +(down > up)
  const pc = close[i - 1]
  let tr = h - l
  const above = Math.abs(h - pc)
  if (above > tr) tr = above
  const below = Math.abs(l - pc)
  if (below > tr) tr = below
  move[2] = tr
}

/**
 * Wilder's directional movement system, as TA-Lib computes it: +DM, −DM and TR are summed over
 * rows 1..period−1, then Wilder-smoothed (s = s − s/period + x) from row `period` on;
 * +DI = 100 · +DM_s / TR_s, −DI likewise (0 when TR_s is ~0).
 * DX = 100 · |+DI − −DI| / (+DI + −DI); ADX = mean of the first `period` DX values (rows
 * period..2·period−1), then (prev · (period − 1) + DX) / period. A bar whose DX cannot be
 * formed (TR_s or +DI + −DI ~0) leaves ADX unchanged and adds nothing to that first mean, as
 * in TA-Lib. First values: ±DI at row `period`, ADX at row 2·period − 1.
 */
export function adx(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  period: number,
  outAdx: Float64Array,
  outPlusDi: Float64Array,
  outMinusDi: Float64Array,
  n?: number,
): void {
  checkPeriod('adx', period, 2)
  const rows = rowsOf(high, n)
  fillNaN(outPlusDi, 0, Math.min(period, rows))
  fillNaN(outMinusDi, 0, Math.min(period, rows))
  const adxFirst = 2 * period - 1
  fillNaN(outAdx, 0, Math.min(adxFirst, rows))
  let plusDm = 0
  let minusDm = 0
  let trS = 0
  for (let i = 1; i < period && i < rows; i++) {
    directionalMove(high, low, close, i)
    plusDm += move[0]
    minusDm += move[1]
    trS += move[2]
  }
  const keep = (period - 1) / period
  const share = 1 / period
  let sumDx = 0
  let adxPrev = 0
  for (let i = period; i < rows; i++) {
    directionalMove(high, low, close, i)
    // Wilder's s − s/period + x, as s · keep + x
    plusDm = plusDm * keep + move[0]
    minusDm = minusDm * keep + move[1]
    trS = trS * keep + move[2]
    let dx = NaN
    if (isTaZero(trS)) {
      outPlusDi[i] = 0
      outMinusDi[i] = 0
    } else {
      const scale = 100 / trS
      const plusDi = plusDm * scale
      const minusDi = minusDm * scale
      outPlusDi[i] = plusDi
      outMinusDi[i] = minusDi
      const diSum = plusDi + minusDi
      if (!isTaZero(diSum)) dx = (100 * Math.abs(plusDi - minusDi)) / diSum
    }
    if (i > adxFirst) {
      if (dx === dx) adxPrev = adxPrev * keep + dx * share
      outAdx[i] = adxPrev
    } else {
      if (dx === dx) sumDx += dx
      if (i === adxFirst) {
        adxPrev = sumDx / period
        outAdx[i] = adxPrev
      }
    }
  }
}
