/** Hand-made candles for the bot engine tests. */
import type { Bars, FundingSeries } from '../src/market/types'

export const T0 = Date.UTC(2024, 0, 1, 1) // 01:00 UTC: no stand-in funding event inside a few hours
export const HOUR = 3_600_000

/** Bars from [open, high, low, close] rows, hourly from `t0`. */
export function barsOf(rows: [number, number, number, number][], t0 = T0): Bars {
  const n = rows.length
  const col = (i: number) => Float64Array.from(rows.map(r => r[i]))
  return { t: Float64Array.from(rows.map((_, k) => t0 + k * HOUR)), o: col(0), h: col(1), l: col(2), c: col(3), v: new Float64Array(n).fill(1), n, stepMs: HOUR }
}

export function fundingOf(events: [number, number][]): FundingSeries {
  return { t: Float64Array.from(events.map(e => e[0])), rate: Float64Array.from(events.map(e => e[1])), n: events.length }
}

/** A flat bar at price p. */
export const flat = (p: number): [number, number, number, number] => [p, p, p, p]
