/** Seeded synthetic candles for indicator tests that must not depend on ../shared. */
import type { Bars } from '../src/market/types'

/** mulberry32: a small seeded PRNG, uniform in [0, 1) */
export function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * A random walk of 1h candles with volatility regimes, a few flat bars (open = close,
 * high = low) and ticks rounded to 0.01 so equal highs/lows occur, as in real data.
 */
export function syntheticBars(n: number, seed: number, start = 100): Bars {
  const r = rng(seed)
  const o = new Float64Array(n)
  const h = new Float64Array(n)
  const l = new Float64Array(n)
  const c = new Float64Array(n)
  const v = new Float64Array(n)
  const t = new Float64Array(n)
  const tick = (x: number) => Math.round(x * 100) / 100
  let price = start
  let vol = 0.01
  for (let i = 0; i < n; i++) {
    if (r() < 0.02) vol = 0.002 + r() * 0.03
    t[i] = 1_600_000_000_000 + i * 3_600_000
    const open = tick(price)
    if (r() < 0.01) {
      o[i] = h[i] = l[i] = c[i] = open
      v[i] = r() < 0.5 ? 0 : 1 + r() * 10
      continue
    }
    const close = tick(open * Math.exp((r() - 0.5) * 2 * vol))
    o[i] = open
    c[i] = close
    h[i] = tick(Math.max(open, close) * (1 + r() * vol))
    l[i] = tick(Math.min(open, close) * (1 - r() * vol))
    v[i] = 100 + r() * 1000
    price = close
  }
  return { t, o, h, l, c, v, n, stepMs: 3_600_000 }
}

/** A copy of bars whose candles after row `cut` are replaced by other valid random candles. */
export function perturbAfter(b: Bars, cut: number, seed: number): Bars {
  const r = rng(seed)
  const copy = (x: Float64Array) => Float64Array.from(x)
  const o = copy(b.o)
  const h = copy(b.h)
  const l = copy(b.l)
  const c = copy(b.c)
  const v = copy(b.v)
  for (let i = cut + 1; i < b.n; i++) {
    const open = b.o[i] * (0.7 + r() * 0.6)
    const close = open * (0.9 + r() * 0.2)
    o[i] = open
    c[i] = close
    h[i] = Math.max(open, close) * (1 + r() * 0.05)
    l[i] = Math.min(open, close) * (1 - r() * 0.05)
    v[i] = r() * 5000
  }
  return { t: b.t, o, h, l, c, v, n: b.n, stepMs: b.stepMs }
}

/**
 * Candles on a 0.01 tick (ties are common) with hourly-sized moves and, on every `every`-th bar,
 * a jump of 2.5× or more up or down: windows that span more than 2×, where arithmetic maxima
 * stop being exact.
 */
export function jumpyCandles(rows: number, seed: number, every: number): { h: Float64Array; l: Float64Array; c: Float64Array } {
  const r = rng(seed)
  const h = new Float64Array(rows)
  const l = new Float64Array(rows)
  const c = new Float64Array(rows)
  let price = 50
  for (let i = 0; i < rows; i++) {
    price *= i % every === every >> 1 ? (r() < 0.5 ? 2.5 + r() : 1 / (2.5 + r())) : 1 + (r() - 0.5) * 0.03
    h[i] = Math.round(price * (1 + r() * 0.01) * 100) / 100
    l[i] = Math.round(price * (1 - r() * 0.01) * 100) / 100
    c[i] = Math.round((l[i] + (h[i] - l[i]) * r()) * 100) / 100
  }
  return { h, l, c }
}
