/**
 * `data import` of Binance's derivatives files (docs/data.md "Open interest and premium
 * index"): the metrics files (open interest every 5 minutes) and the 1h premium-index
 * klines, recognised by header and by path like the other imports, validated whole before
 * anything is stored, appended like candles (re-imports skip what is held), and kept
 * across a restart.
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { strToU8, zipSync } from 'fflate'
import { CandleStore } from '../src/market/candle-store'
import { importPaths } from '../src/market/import-binance'
import { HOUR_MS } from '../src/time'

let dir: string
let dataDir: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'perpsim-import-deriv-'))
  dataDir = join(dir, 'data')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const T0 = Date.UTC(2024, 0, 1)
const FIVE_MIN = 5 * 60_000

const METRICS_HEADER = 'create_time,symbol,sum_open_interest,sum_open_interest_value,count_toptrader_long_short_ratio,sum_toptrader_long_short_ratio,count_long_short_ratio,sum_taker_long_short_vol_ratio'

/** a day of Binance's metrics file: "YYYY-MM-DD HH:MM:SS" times every 5 minutes */
function metricsCsv(day0: number, rows: number, oi: (k: number) => number): string {
  const lines = [METRICS_HEADER]
  for (let k = 0; k < rows; k++) {
    const t = new Date(day0 + k * FIVE_MIN).toISOString().slice(0, 19).replace('T', ' ')
    lines.push(`${t},BTCUSDT,${oi(k).toFixed(10)},${(oi(k) * 42000).toFixed(10)},1.61,1.52,1.4,0.97`)
  }
  return lines.join('\n') + '\n'
}

/** premium-index klines in Binance's 12-column layout (volumes 0, as Binance writes them) */
function premiumCsv(t0: number, closes: number[]): string {
  const lines = ['open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore']
  closes.forEach((c, i) => {
    const t = t0 + i * HOUR_MS
    lines.push([t, c, c + 0.0001, c - 0.0001, c, 0, t + HOUR_MS - 1, 0, 60, 0, 0, 0].join(','))
  })
  return lines.join('\n') + '\n'
}

function write(rel: string, body: string | Uint8Array): string {
  const p = join(dir, 'in', rel)
  mkdirSync(join(p, '..'), { recursive: true })
  writeFileSync(p, body)
  return p
}

describe('data import: open interest and premium index', () => {
  test("Binance's folders as downloaded: metrics zips and premiumIndexKlines zips are recognised and stored", async () => {
    const day1 = metricsCsv(T0, 288, k => 75_000 + k)
    const day2 = metricsCsv(T0 + 86_400_000, 288, k => 76_000 + k)
    write('futures/um/daily/metrics/BTCUSDT/BTCUSDT-metrics-2024-01-01.zip', zipSync({ 'BTCUSDT-metrics-2024-01-01.csv': strToU8(day1) }))
    write('futures/um/daily/metrics/BTCUSDT/BTCUSDT-metrics-2024-01-02.zip', zipSync({ 'BTCUSDT-metrics-2024-01-02.csv': strToU8(day2) }))
    const closes = Array.from({ length: 48 }, (_, i) => (i % 2 ? 0.0003 : -0.0002))
    write('futures/um/monthly/premiumIndexKlines/BTCUSDT/1h/BTCUSDT-1h-2024-01.zip', zipSync({ 'BTCUSDT-1h-2024-01.csv': strToU8(premiumCsv(T0, closes)) }))
    const store = CandleStore.open(dataDir)
    const report = await importPaths(store, [join(dir, 'in')])
    expect(report.failed).toBe(0)
    expect(report.files.map(f => [f.kind, f.symbol, f.rows])).toEqual([
      ['open_interest', 'BTCUSDT', 288],
      ['open_interest', 'BTCUSDT', 288],
      ['premium_index', 'BTCUSDT', 48],
    ])
    expect(report.samplesAppended).toBe(288 * 2 + 48)
    expect(report.candlesAppended).toBe(0)
    const oi = store.samples('open_interest', 'BTCUSDT')!
    expect(oi.n).toBe(576)
    expect([oi.t[0], oi.value[0], oi.t[575], oi.value[575]]).toEqual([T0, 75_000, T0 + 575 * FIVE_MIN, 76_287])
    // a premium-index kline's close is known at its close: stored at open + 1h
    const p = store.samples('premium_index', 'BTCUSDT')!
    expect([p.n, p.t[0], p.value[0], p.t[47], p.value[47]]).toEqual([48, T0 + HOUR_MS, -0.0002, T0 + 48 * HOUR_MS, 0.0003])
    // no candles came of it: the store's candle symbols are untouched
    expect(store.symbols()).toEqual([])
    // kept across a restart, and importing again appends nothing
    const reopened = CandleStore.open(dataDir)
    expect(reopened.samples('open_interest', 'BTCUSDT')!.n).toBe(576)
    const again = await importPaths(reopened, [join(dir, 'in')])
    expect(again.samplesAppended).toBe(0)
    expect(again.files.every(f => f.skipped === f.rows)).toBe(true)
  })

  test('the data version moves when samples arrive (results computed before are not reused)', async () => {
    const store = CandleStore.open(dataDir)
    const before = store.dataVersion()
    write('x/BTCUSDT-premiumIndex-1h-2024-01.csv', premiumCsv(T0, [0.0001, 0.0002]))
    await importPaths(store, [join(dir, 'in')])
    expect(store.dataVersion()).not.toBe(before)
  })

  test('a bad row stops its file with its line and stores nothing of it', async () => {
    write('premiumIndexKlines/BTCUSDT-1h-2024-01.csv', premiumCsv(T0, [0.0001, 1.5, 0.0002]))
    const metrics = metricsCsv(T0, 3, k => 10 + k).replace('2024-01-01 00:05:00,BTCUSDT,11', '2024-01-01 00:00:00,BTCUSDT,11')
    write('metrics/BTCUSDT-metrics-2024-01-01.csv', metrics)
    write('metrics/ETHUSDT-metrics-2024-01-01.csv', metricsCsv(T0, 2, () => 5).replace('2024-01-01 00:05:00', '2024-02-30 00:05:00'))
    const store = CandleStore.open(dataDir)
    const report = await importPaths(store, [join(dir, 'in')])
    expect(report.files.map(f => [f.file.split('/').pop(), f.error])).toEqual([
      ['BTCUSDT-metrics-2024-01-01.csv', { line: 3, reason: 'create_time 2024-01-01T00:00:00Z repeats the previous row with another open interest (10 then 11)' }],
      ['ETHUSDT-metrics-2024-01-01.csv', { line: 3, reason: 'create_time "2024-02-30 00:05:00" is neither "YYYY-MM-DD HH:MM:SS" nor a timestamp' }],
      ['BTCUSDT-1h-2024-01.csv', { line: 3, reason: 'premium index "1.5" is not a fraction (|x| < 1)' }],
    ])
    expect(store.samples('open_interest', 'BTCUSDT')).toBeUndefined()
    expect(store.samples('premium_index', 'BTCUSDT')).toBeUndefined()
  })

  test('the same kline file outside a premiumIndex path is candles, as before', async () => {
    write('klines/BTCUSDT-1h-2024-01.csv', premiumCsv(T0, [100, 101, 102]).replace(/,0,(\d+),0,60,0,0,0/g, ',5,$1,500,60,2,250,0'))
    const store = CandleStore.open(dataDir)
    const report = await importPaths(store, [join(dir, 'in')])
    expect(report.files[0].kind).toBe('klines')
    expect(store.bars('BTCUSDT')!.n).toBe(3)
  })
})
