/**
 * The synthetic market's rules for one hour (tick): jumps and innovations, market-wide
 * crashes and squeezes, open gaps, the intrabar range (a Brownian bridge), seasonality,
 * volume weights and the price and quantity ticks. Their parameters are
 * synthetic-model.ts's; the formulas are in docs/data.md, "Synthetic universe".
 */
import {
  CRASH_PROB,
  GAP_MAX,
  GAP_SCALE,
  GAP_SHARE,
  INNOVATION_CAP,
  JUMP_DOWN_SHARE,
  JUMP_EXP,
  JUMP_MIN,
  SQUEEZE_PROB,
  type Seasonality,
} from './synthetic-model'
import type { Rng } from './synthetic-rng'
import { HOUR_MS } from '../time'

// ---------- shocks ----------

export function jumpSize(rng: Rng, volHourly: number): number {
  const size = volHourly * (JUMP_MIN - JUMP_EXP * Math.log(rng.uniform()))
  return rng.uniform() < JUMP_DOWN_SHARE ? -size : size
}

/** a Student-t(ν) innovation of unit variance, clipped at ±INNOVATION_CAP */
export function innovation(rng: Rng, nu: 4 | 6 | 8): number {
  const z = rng.studentT(nu)
  return z > INNOVATION_CAP ? INNOVATION_CAP : z < -INNOVATION_CAP ? -INNOVATION_CAP : z
}

/** this hour's market-wide crash or squeeze (a log return), or 0 */
export function marketJump(rng: Rng): number {
  const u = rng.uniform()
  if (u < CRASH_PROB) return -0.04 * Math.exp(0.35 * rng.normal())
  if (u < CRASH_PROB + SQUEEZE_PROB) return 0.03 * Math.exp(0.3 * rng.normal())
  return 0
}

/** how far a crash or squeeze overshoots the close inside the hour (log), for a coin with this beta */
export function crashWick(rng: Rng, jump: number, beta: number, amp: number): number {
  return Math.abs(jump) * beta * amp * (0.3 + 0.9 * rng.uniform())
}

/** the open's log distance from the previous close: usually 0, else a tiny gap */
export function openGap(rng: Rng, barSd: number): number {
  if (rng.uniform() >= GAP_SHARE) return 0
  return Math.max(-GAP_MAX, Math.min(GAP_MAX, GAP_SCALE * barSd * rng.normal()))
}

// ---------- seasonality ----------

/** crypto: busier around the Asian open, the funding hours and the US open; quieter weekends */
const CRYPTO_HOUR = [
  1.15, 1.05, 1.0, 0.95, 0.88, 0.84, 0.84, 0.9, 1.02, 1.0, 0.96, 0.95, 0.98, 1.12, 1.28, 1.32, 1.22, 1.08, 1.0, 0.97,
  0.94, 0.92, 0.9, 0.98,
]

function rawSeason(kind: Seasonality, dow: number, hour: number): number {
  const weekend = dow === 0 || dow === 6
  if (kind === 'crypto') return CRYPTO_HOUR[hour] * (weekend ? 0.75 : 1)
  if (kind === 'stock') {
    // the underlying trades 13:30–20:00 UTC on weekdays; the perp drifts in between
    if (weekend) return 0.3
    return hour >= 13 && hour <= 19 ? 1.9 : hour >= 20 ? 0.7 : 0.45
  }
  if (weekend) return 0.25
  return hour < 7 ? 0.7 : hour < 13 ? 1.0 : hour < 17 ? 1.5 : hour < 21 ? 1.0 : 0.6
}

/** 168 hour-of-week multipliers per kind, normalised so their mean square is 1 */
const SEASON_TABLES: Record<Seasonality, Float64Array> = (() => {
  const out = {} as Record<Seasonality, Float64Array>
  for (const kind of ['crypto', 'stock', 'commodity'] as const) {
    const t = new Float64Array(168)
    let ss = 0
    for (let k = 0; k < 168; k++) {
      t[k] = rawSeason(kind, Math.floor(k / 24), k % 24)
      ss += t[k] * t[k]
    }
    const norm = Math.sqrt(ss / 168)
    for (let k = 0; k < 168; k++) t[k] /= norm
    out[kind] = t
  }
  return out
})()

/** volatility multiplier of the hour starting at tMs */
export function seasonal(kind: Seasonality, tMs: number): number {
  // hours since Sunday 00:00 UTC; 1970-01-01 was a Thursday (4 days = 96 hours in)
  return SEASON_TABLES[kind][(Math.floor(tMs / HOUR_MS) + 96) % 168]
}

/** the multipliers of nBars consecutive hours from firstOpenMs */
export function seasonalSeries(kind: Seasonality, firstOpenMs: number, nBars: number): Float64Array {
  const out = new Float64Array(nBars)
  for (let k = 0; k < nBars; k++) out[k] = seasonal(kind, firstOpenMs + k * HOUR_MS)
  return out
}

/**
 * Weight of an hour's quote volume: the seasonal level × √(σ/σ̄) × e^{0.35·min(8, |r|/σ)}
 * (volume follows volatility and the size of the move); the generator and the demo
 * continuation both scale it to the coin's volume level.
 */
export function volumeWeight(g: number, volRatio: number, absMoveSd: number): number {
  return g * Math.sqrt(volRatio) * Math.exp(0.35 * Math.min(8, absMoveSd))
}

// ---------- bars ----------

/** open time of the newest hour that has closed at or before nowMs ("last completed candle") */
export function lastCompletedOpenMs(nowMs: number): number {
  return Math.floor(nowMs / HOUR_MS) * HOUR_MS - HOUR_MS
}

/** decimals of a price tick giving six significant digits (at least one decimal) */
export function priceDecimals(price: number): number {
  const d = 5 - Math.floor(Math.log10(price))
  return Math.min(12, Math.max(1, d))
}

const POW10 = Array.from({ length: 13 }, (_, i) => 10 ** i)

export function roundPrice(x: number, dec: number): number {
  return Math.round(x * POW10[dec]) / POW10[dec]
}
export function ceilPrice(x: number, dec: number): number {
  return Math.ceil(x * POW10[dec]) / POW10[dec]
}
export function floorPrice(x: number, dec: number): number {
  return Math.floor(x * POW10[dec]) / POW10[dec]
}

/** base-quantity step by price level (Binance-like: 0.001 for dear coins, 1 for cheap ones) */
export function roundQty(qty: number, price: number): number {
  const step = price >= 100 ? 1000 : price >= 1 ? 10 : 1
  return Math.round(qty * step) / step
}

/**
 * Highest and lowest log price of the intrabar path: a Brownian bridge from 0 to `d`
 * with variance `s2`, whose maximum is (d + √(d² − 2·s2·ln U))/2 (and the minimum the
 * mirror image); returned relative to the bar's open.
 */
export function bridgeHigh(d: number, s2: number, u: number): number {
  return (d + Math.sqrt(d * d - 2 * s2 * Math.log(u))) / 2
}
export function bridgeLow(d: number, s2: number, u: number): number {
  return (d - Math.sqrt(d * d - 2 * s2 * Math.log(u))) / 2
}
