/**
 * The synthetic market's minutes: the 60 one-minute candles inside one synthetic hour,
 * derived on demand from the hour's candle and (seed, symbol, hour) — nothing on disk.
 * docs/data.md, "Minutes inside a synthetic hour", gives the construction; in short:
 *
 * - a Brownian bridge of 60 steps from the hour's open to its close (its own stream,
 *   `Rng.keyed(hash32(seed, 'minutes:' + symbol), hourOpenMs)`), whose highest and lowest
 *   interior points fix the minutes at which the hour's high and low are reached (so their
 *   order follows the path: a bar that closed up tends to make its low first);
 * - the bridge pinned to the four anchors (open at 0, high and low at their minutes,
 *   close at 60) by a linear correction between consecutive anchors, rounded to the
 *   hour's price tick and clamped into [low, high];
 * - each minute opens at the previous minute's close (no gaps inside the hour), with
 *   small wicks clamped into the hour's range, and a share of the hour's volume (whole
 *   quantity steps, largest remainders), heavier where the price moved.
 *
 * So every hour is exactly the aggregate of its minutes: first open, highest high, lowest
 * low, last close, summed volume (the sum to the last bit of floating point). The hour's
 * candle is itself a pure function of (seed, symbol, hour), so the minutes are too: the
 * same seed gives the same minutes every time, and the generator's hourly figures are the
 * ones it always wrote (tests/synthetic-minutes.test.ts proves both on every bar).
 */
import { hash32, Rng } from './synthetic-rng'
import { ceilPrice, floorPrice, priceDecimals, roundPrice } from './synthetic-ticks'
import { MINUTE_MS } from '../time'

export const MINUTES_PER_HOUR = 60

/** The hashed label of a coin's minute streams (hash once per coin, then one keyed stream per hour). */
export function minuteLabel(seed: number, symbol: string): number {
  return hash32(seed, `minutes:${symbol}`)
}

/** Output columns: minute i of the hour goes to index at + i. */
export interface MinuteColumns {
  t: Float64Array
  o: Float64Array
  h: Float64Array
  l: Float64Array
  c: Float64Array
  v: Float64Array
}

/** The price columns only (a replay reads no volume). */
export type MinutePrices = Omit<MinuteColumns, 'v'>

// scratch of one hour (the function is not re-entrant across threads, each thread has its own module)
const X = new Float64Array(MINUTES_PER_HOUR + 1)
const W = new Float64Array(MINUTES_PER_HOUR)
const REM = new Float64Array(MINUTES_PER_HOUR)
/** expected range of a standard Brownian bridge over n steps is √(π/2)·√n·σ … of its path: ≈ 1.2533 */
const BRIDGE_RANGE = 1.2533 * Math.sqrt(MINUTES_PER_HOUR)

/**
 * The minutes of the hour opening at `hourMs` with candle (o, h, l, c, v), written to
 * `out` at index `at` (60 rows). `label` = minuteLabel(seed, symbol). Without a `v`
 * column in `out` (a replay's) the volume split is skipped; the prices are the same
 * (the stream draws the volume's noise all the same).
 */
export function syntheticMinutes(label: number, hourMs: number, o: number, h: number, l: number, c: number, v: number, out: MinuteColumns | MinutePrices, at: number): void {
  const N = MINUTES_PER_HOUR
  const outV = 'v' in out ? out.v : null
  for (let i = 0; i < N; i++) out.t[at + i] = hourMs + i * MINUTE_MS
  if (!(h > l)) {
    // a flat hour (no trade, or one price all hour): flat minutes
    for (let i = 0; i < N; i++) {
      out.o[at + i] = out.h[at + i] = out.l[at + i] = out.c[at + i] = o
    }
    if (outV !== null) splitVolume(null, v, c, outV, at)
    return
  }
  const rng = Rng.keyed(label, hourMs)
  const range = h - l
  const d = c - o
  const s = Math.sqrt(Math.max(range * range - d * d, 0.01 * range * range)) / BRIDGE_RANGE
  // the raw bridge from o to c
  X[0] = 0
  for (let i = 1; i <= N; i++) X[i] = X[i - 1] + rng.normal()
  const end = X[N]
  for (let i = 0; i <= N; i++) X[i] = o + (d * i) / N + s * (X[i] - (end * i) / N)
  // the minutes at which the hour's high and low are reached: the bridge's interior extremes
  let tHi = 1, tLo = 1
  for (let i = 2; i < N; i++) {
    if (X[i] > X[tHi]) tHi = i
    if (X[i] < X[tLo]) tLo = i
  }
  if (tHi === tLo) tLo = tHi === 1 ? 2 : tHi - 1
  // pin the bridge to open, high, low, close: a linear correction between consecutive anchors
  const a1 = tHi < tLo ? tHi : tLo
  const a2 = tHi < tLo ? tLo : tHi
  const v1 = tHi < tLo ? h : l
  const v2 = tHi < tLo ? l : h
  pin(0, o, a1, v1)
  pin(a1, v1, a2, v2)
  pin(a2, v2, N, c)
  const dec = priceDecimals(o)
  for (let i = 1; i < N; i++) {
    if (i === tHi || i === tLo) continue
    const x = roundPrice(X[i], dec)
    X[i] = x > h ? h : x < l ? l : x
  }
  X[0] = o
  X[N] = c
  X[tHi] = h
  X[tLo] = l
  // minute candles: open = previous close, wicks inside the hour's range
  const wick = 0.25 * s
  for (let i = 0; i < N; i++) {
    const mo = X[i], mc = X[i + 1]
    let mh = ceilPrice((mo > mc ? mo : mc) - wick * Math.log(rng.uniform()) * 0.5, dec)
    let ml = floorPrice((mo < mc ? mo : mc) + wick * Math.log(rng.uniform()) * 0.5, dec)
    if (mh > h) mh = h
    if (ml < l) ml = l
    if (mh < (mo > mc ? mo : mc)) mh = mo > mc ? mo : mc
    if (ml > (mo < mc ? mo : mc)) ml = mo < mc ? mo : mc
    out.o[at + i] = mo
    out.c[at + i] = mc
    out.h[at + i] = mh
    out.l[at + i] = ml
    // volume follows the minute's range, with noise
    if (outV !== null) W[i] = ((mh - ml) / range + 0.15) * Math.exp(0.5 * rng.normal())
    else if (i < N - 1) rng.skipNormal() // the next minute's wicks come after this draw (the rest of the hour's normals are skipped too)
  }
  if (outV !== null) splitVolume(W, v, c, outV, at)
}

function pin(a: number, va: number, b: number, vb: number): void {
  const ea = va - X[a]
  const eb = vb - X[b]
  for (let i = a; i <= b; i++) X[i] += ea + ((eb - ea) * (i - a)) / (b - a)
}

/**
 * The hour's volume split over its minutes by weight (null: evenly) in whole quantity
 * steps of the generator (0.001, 0.1 or 1 by price, as roundQty), largest remainders
 * first; a volume off that grid (not the generator's) is split as plain numbers whose
 * last minute takes the rest.
 */
function splitVolume(w: Float64Array | null, v: number, price: number, out: Float64Array, at: number): void {
  const N = MINUTES_PER_HOUR
  if (!(v > 0)) {
    for (let i = 0; i < N; i++) out[at + i] = 0
    return
  }
  let total = 0
  for (let i = 0; i < N; i++) total += w ? w[i] : 1
  const step = price >= 100 ? 1000 : price >= 1 ? 10 : 1
  const units = Math.round(v * step)
  if (units / step !== v || units > 2 ** 52) {
    let sum = 0
    for (let i = 0; i < N - 1; i++) {
      const x = (v * (w ? w[i] : 1)) / total
      out[at + i] = x
      sum += x
    }
    out[at + N - 1] = v - sum
    return
  }
  // whole units: floors, then one more unit to the largest remainders
  let given = 0
  const rem = REM
  for (let i = 0; i < N; i++) {
    const exact = (units * (w ? w[i] : 1)) / total
    const f = Math.floor(exact)
    out[at + i] = f
    rem[i] = exact - f
    given += f
  }
  for (let left = units - given; left > 0; left--) {
    let best = 0
    for (let i = 1; i < N; i++) if (rem[i] > rem[best]) best = i
    out[at + best] += 1
    rem[best] = -1
  }
  for (let i = 0; i < N; i++) out[at + i] /= step
}
