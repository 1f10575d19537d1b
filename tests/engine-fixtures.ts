/** Hand-built candles, real-data loaders and defaults for the engine tests. */
import { expect } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Bars, FundingSeries } from '../src/market/types'
import { HOUR_MS } from '../src/time'
import { REAL_DATA_DIR } from './helpers/real-data-dir'
import { simulateCoin } from '../src/engine/trade-model'
import type { Trade, TradeParams } from '../src/engine/types'

/** 2024-01-01 00:00 UTC */
export const T0 = Date.UTC(2024, 0, 1)

/** [open, high, low, close] */
export type Ohlc = readonly [number, number, number, number]

export function barsOf(rows: readonly Ohlc[], stepMs = HOUR_MS, t0Ms = T0): Bars {
  const n = rows.length
  const col = () => new Float64Array(n)
  const bars = { t: col(), o: col(), h: col(), l: col(), c: col(), v: col(), n, stepMs }
  rows.forEach(([o, h, l, c], i) => {
    if (!(l <= Math.min(o, c) && h >= Math.max(o, c))) throw new Error(`fixture bar ${i} is not a candle: ${rows[i]}`)
    bars.t[i] = t0Ms + i * stepMs
    bars.o[i] = o
    bars.h[i] = h
    bars.l[i] = l
    bars.c[i] = c
    bars.v[i] = 1
  })
  return bars
}

/** A quiet bar around a price (range ±0.5 %). */
export const flat = (p: number): Ohlc => [p, p * 1.005, p * 0.995, p]

export function maskOf(n: number, ...ones: number[]): Uint8Array {
  const m = new Uint8Array(n)
  for (const i of ones) m[i] = 1
  return m
}

export function params(over: Partial<TradeParams> = {}): TradeParams {
  return {
    direction: 'long',
    slPct: 10,
    tpPct: 10,
    tpSource: 'custom_pct',
    trailingPct: null,
    maxBars: 48,
    leverage: 1,
    feeFrac: 0,
    mmrFrac: 0.005,
    marketType: 'futures',
    ...over,
  }
}

export function fundingOf(events: readonly (readonly [number, number])[]): FundingSeries {
  return { t: Float64Array.from(events.map((e) => e[0])), rate: Float64Array.from(events.map((e) => e[1])), n: events.length }
}

/** Real events of rate 0 just outside the bars: no stand-ins, no funding at all. */
export function zeroFunding(bars: Bars): FundingSeries {
  return fundingOf([
    [bars.t[0] - 8 * HOUR_MS, 0],
    [bars.t[bars.n - 1] + 8 * HOUR_MS, 0],
  ])
}

export interface SimOptions {
  exit?: number[]
  fromIdx?: number
  toIdx?: number
  funding?: FundingSeries | null
  symbol?: string
}

/** simulateCoin with signals at the given bars; funding defaults to none at all. */
export function sim(bars: Bars, signals: number[], p: TradeParams, opts: SimOptions = {}): Trade[] {
  return simulateCoin(
    {
      symbol: opts.symbol ?? 'TESTUSDT',
      bars,
      entry: maskOf(bars.n, ...signals),
      exit: opts.exit === undefined ? null : maskOf(bars.n, ...opts.exit),
      fromIdx: opts.fromIdx ?? 0,
      toIdx: opts.toIdx ?? bars.n - 1,
      funding: opts.funding === undefined ? zeroFunding(bars) : opts.funding,
    },
    p,
  )
}

export function only(trades: Trade[]): Trade {
  if (trades.length !== 1) throw new Error(`expected one trade, got ${trades.length}`)
  return trades[0]
}

/** Element-wise toBeCloseTo, so float rounding in the last digit is not a failure. */
export function expectAllClose(actual: readonly number[], expected: readonly number[], digits = 9): void {
  expect(actual.length).toBe(expected.length)
  actual.forEach((x, i) => expect(x).toBeCloseTo(expected[i], digits))
}

/** ../shared/data beside the repo (absent in some checkouts: tests skip then). */
export const SHARED_DATA = REAL_DATA_DIR
export const hasSharedData = existsSync(SHARED_DATA)

function csvRows(path: string): number[][] {
  const text = new TextDecoder().decode(Bun.gunzipSync(readFileSync(path)))
  return text
    .split('\n')
    .slice(1)
    .filter((line) => line.length > 0)
    .map((line) => line.split(',').map(Number))
}

/** Real 1H candles of a symbol from binance-usdm-1h. */
export function realBars(symbol: string): Bars {
  const rows = csvRows(join(SHARED_DATA, 'binance-usdm-1h', `${symbol}.csv.gz`))
  const n = rows.length
  const cols = [0, 1, 2, 3, 4, 5].map((k) => Float64Array.from(rows, (r) => r[k]))
  return { t: cols[0], o: cols[1], h: cols[2], l: cols[3], c: cols[4], v: cols[5], n, stepMs: HOUR_MS }
}

/** Real funding events of a symbol from binance-usdm-funding, null when the folder has none. */
export function realFunding(symbol: string): FundingSeries | null {
  const path = join(SHARED_DATA, 'binance-usdm-funding', `${symbol}.csv.gz`)
  if (!existsSync(path)) return null
  return fundingOf(csvRows(path).map((r) => [r[0], r[1]] as const))
}
