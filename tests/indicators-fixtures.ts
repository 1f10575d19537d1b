/**
 * Real candles and TA-Lib reference values for the indicator tests, read from ../shared
 * (beside the repo root; never copied into it).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import type { Bars } from '../src/market/types'

export const SHARED_DIR = join(import.meta.dir, '../../shared')
export const CANDLES_DIR = join(SHARED_DIR, 'data/binance-usdm-1h')
export const GOLDEN_DIR = join(SHARED_DIR, 'golden')
export const GOLDEN_SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'DOGEUSDT'] as const
export const hasGolden = existsSync(GOLDEN_DIR) && existsSync(CANDLES_DIR)
export const SKIP_REASON = `reference data not found at ${SHARED_DIR} (../shared beside the repo root)`

/** Columns of a gzip CSV with a header row; empty fields become NaN. */
export function readCsvColumns(path: string): Record<string, Float64Array> {
  const text = new TextDecoder().decode(gunzipSync(readFileSync(path)))
  const lines = text.split('\n').filter((line) => line.length > 0)
  const names = lines[0].split(',')
  const cols = names.map(() => new Float64Array(lines.length - 1))
  for (let r = 1; r < lines.length; r++) {
    const cells = lines[r].split(',')
    for (let c = 0; c < names.length; c++) cols[c][r - 1] = cells[c] === '' ? NaN : Number(cells[c])
  }
  return Object.fromEntries(names.map((name, c) => [name, cols[c]]))
}

export function loadBars(symbol: string): Bars {
  const c = readCsvColumns(join(CANDLES_DIR, `${symbol}.csv.gz`))
  const t = c.open_time_ms
  return { t, o: c.open, h: c.high, l: c.low, c: c.close, v: c.volume, n: t.length, stepMs: t[1] - t[0] }
}

export function loadGolden(symbol: string): Record<string, Float64Array> {
  return readCsvColumns(join(GOLDEN_DIR, `${symbol}-1h.csv.gz`))
}
