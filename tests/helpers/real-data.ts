/**
 * Reads the real Binance 1h candles in ../shared/data/binance-usdm-1h (gzip CSV:
 * open_time_ms,open,high,low,close,volume) into Bars. For tests and benchmarks only:
 * the product never reads this folder. Use `hasRealData` with test.skipIf.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import type { Bars, FundingSeries } from '../../src/market/types'
import { REAL_DATA_DIR } from './real-data-dir'

export const REAL_1H_DIR = join(REAL_DATA_DIR, 'binance-usdm-1h')

export const REAL_DATA_MISSING = `real candles not found at ${REAL_1H_DIR} (REAL_DATA_DIR, or ../shared/data beside the repo); skipped`

export const hasRealData = (): boolean => existsSync(REAL_1H_DIR)

/** Symbols of the 28-coin set, sorted (AAVEUSDT … XTZUSDT). */
export function realSymbols(): string[] {
  if (!hasRealData()) return []
  return readdirSync(REAL_1H_DIR)
    .filter(f => f.endsWith('.csv.gz'))
    .map(f => f.slice(0, -'.csv.gz'.length))
    .sort()
}

const cache = new Map<string, Bars>()

export function loadRealBars(symbol: string): Bars {
  const hit = cache.get(symbol)
  if (hit) return hit
  const text = gunzipSync(readFileSync(join(REAL_1H_DIR, `${symbol}.csv.gz`))).toString('latin1')
  const lines = text.split('\n')
  let rows = lines.length - 1 // header
  while (rows > 0 && lines[rows].trim() === '') rows--
  const cols = Array.from({ length: 6 }, () => new Float64Array(rows))
  for (let r = 0; r < rows; r++) {
    const parts = lines[r + 1].split(',')
    for (let k = 0; k < 6; k++) cols[k][r] = Number(parts[k])
  }
  const [t, o, h, l, c, v] = cols
  const bars: Bars = { t, o, h, l, c, v, n: rows, stepMs: rows > 1 ? t[1] - t[0] : 3_600_000 }
  cache.set(symbol, bars)
  return bars
}

/** A copy of the first `n` bars (columns cut to length n). */
export function headOf(bars: Bars, n: number): Bars {
  return {
    t: bars.t.slice(0, n),
    o: bars.o.slice(0, n),
    h: bars.h.slice(0, n),
    l: bars.l.slice(0, n),
    c: bars.c.slice(0, n),
    v: bars.v.slice(0, n),
    n,
    stepMs: bars.stepMs,
  }
}

export const REAL_FUNDING_DIR = join(REAL_DATA_DIR, 'binance-usdm-funding')

/** Real funding events of a symbol (`funding_time_ms,funding_rate`), or null when the set has none for it. */
export function loadRealFunding(symbol: string): FundingSeries | null {
  const path = join(REAL_FUNDING_DIR, `${symbol}.csv.gz`)
  if (!existsSync(path)) return null
  const lines = gunzipSync(readFileSync(path)).toString('latin1').split('\n').slice(1).filter(s => s.trim() !== '')
  const t = new Float64Array(lines.length)
  const rate = new Float64Array(lines.length)
  lines.forEach((line, k) => {
    const [a, b] = line.split(',')
    t[k] = Number(a)
    rate[k] = Number(b)
  })
  return { t, rate, n: lines.length }
}
