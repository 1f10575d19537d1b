import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { strToU8, zipSync } from 'fflate'
import { CandleStore } from '../src/market/candle-store'
import { formatImportReport, importPaths, type ImportReport } from '../src/market/import-binance'
import { HOUR_MS } from '../src/time'
import { REAL_DATA_DIR } from './helpers/real-data-dir'
import { makeCandles } from './fixtures/binance-server'

const SHARED = REAL_DATA_DIR
const HAVE_SHARED = existsSync(join(SHARED, 'binance-usdm-1h'))
if (!HAVE_SHARED) console.warn(`import.test.ts: ${SHARED} is absent; the tests on the real Binance files are skipped`)

let dir: string
let dataDir: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'perpsim-import-'))
  dataDir = join(dir, 'data')
  mkdirSync(join(dir, 'in'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const T0 = Date.UTC(2024, 0, 1)

/** the 12-column Binance public-data layout, times in `unit` */
function csv12(rows: number[][], opts: { header?: boolean; unit?: 's' | 'ms' | 'us' } = {}): string {
  const k = opts.unit === 'us' ? 1000 : opts.unit === 's' ? 1 / 1000 : 1
  const lines = rows.map(([t, o, h, l, c, v]) => [t * k, o, h, l, c, v, (t + HOUR_MS - 1) * k, v * c, 42, v / 2, (v * c) / 2, 0].join(','))
  if (opts.header) lines.unshift('open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore')
  return lines.join('\n') + '\n'
}

/** the 6-column layout of ../shared/data */
function csv6(rows: number[][], header = false): string {
  const lines = rows.map(r => r.join(','))
  if (header) lines.unshift('open_time_ms,open,high,low,close,volume')
  return lines.join('\n') + '\n'
}

function put(name: string, content: string | Uint8Array): string {
  const p = join(dir, 'in', name)
  writeFileSync(p, content)
  return p
}

function rowsOf(store: CandleStore, symbol: string): number[][] {
  const b = store.bars(symbol)
  if (!b) return []
  return Array.from({ length: b.n }, (_, i) => [b.t[i], b.o[i], b.h[i], b.l[i], b.c[i], b.v[i]])
}

/** every file of the store with a digest of its bytes */
function diskState(): Record<string, string> {
  const out: Record<string, string> = {}
  const root = join(dataDir, 'store')
  const walk = (d: string) => {
    if (!existsSync(d)) return
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else out[relative(root, p)] = createHash('sha256').update(readFileSync(p)).digest('hex')
    }
  }
  walk(root)
  return out
}

function only(report: ImportReport, fileEnd: string) {
  const f = report.files.find(r => r.file.endsWith(fileEnd))
  if (!f) throw new Error(`no report line for ${fileEnd}: ${report.files.map(r => r.file).join(', ')}`)
  return f
}

describe('kline layouts', () => {
  test('the 12-column Binance layout with a header imports open time and OHLCV', async () => {
    const rows = makeCandles(T0, 48, 1)
    const store = CandleStore.open(dataDir)
    const report = await importPaths(store, [put('BTCUSDT-1h-2024-01.csv', csv12(rows, { header: true }))])
    expect(report.failed).toBe(0)
    expect(rowsOf(store, 'BTCUSDT')).toEqual(rows)
    expect(only(report, '.csv')).toMatchObject({ kind: 'klines', symbol: 'BTCUSDT', rows: 48, appended: 48, skipped: 0 })
  })

  test('the 6-column layout without a header imports the same candles', async () => {
    const rows = makeCandles(T0, 30, 2)
    const store = CandleStore.open(dataDir)
    await importPaths(store, [put('ETHUSDT.csv', csv6(rows))])
    expect(rowsOf(store, 'ETHUSDT')).toEqual(rows)
  })

  test('a .csv.gz file is read through gzip', async () => {
    const rows = makeCandles(T0, 30, 3)
    const store = CandleStore.open(dataDir)
    await importPaths(store, [put('SOLUSDT.csv.gz', Bun.gzipSync(strToU8(csv6(rows, true))))])
    expect(rowsOf(store, 'SOLUSDT')).toEqual(rows)
  })

  test('timestamps in seconds and in microseconds become milliseconds', async () => {
    const rows = makeCandles(T0, 24, 4)
    const store = CandleStore.open(dataDir)
    await importPaths(store, [put('XRPUSDT-1h-2024-01.csv', csv12(rows, { unit: 's' })), put('ADAUSDT-1h-2025-01.csv', csv12(rows, { unit: 'us', header: true }))])
    expect(store.bars('XRPUSDT')!.t[0]).toBe(T0)
    expect(rowsOf(store, 'XRPUSDT')).toEqual(rows)
    expect(rowsOf(store, 'ADAUSDT')).toEqual(rows)
  })

  test('a zip holding two months, and monthly zips given out of order, are appended in time order', async () => {
    const jan = makeCandles(T0, 31 * 24, 5)
    const febStart = jan[jan.length - 1][0] + HOUR_MS
    const feb = makeCandles(febStart, 29 * 24, 6, jan[jan.length - 1][4])
    const mar = makeCandles(feb[feb.length - 1][0] + HOUR_MS, 24, 7, feb[feb.length - 1][4])
    const store = CandleStore.open(dataDir)
    const twoMonths = zipSync({ 'BNBUSDT-1h-2024-02.csv': strToU8(csv12(feb, { header: true })), 'BNBUSDT-1h-2024-01.csv': strToU8(csv12(jan, { header: true })) })
    // the March file sorts first by name but last by time
    const report = await importPaths(store, [put('A-BNBUSDT-1h-2024-03.zip', zipSync({ 'BNBUSDT-1h-2024-03.csv': strToU8(csv12(mar)) })), put('BNBUSDT-1h-2024-01-02.zip', twoMonths)])
    expect(report.failed).toBe(0)
    expect(report.files.map(f => f.file.split(':').pop())).toEqual(['BNBUSDT-1h-2024-03.csv', 'BNBUSDT-1h-2024-01.csv', 'BNBUSDT-1h-2024-02.csv'])
    expect(rowsOf(store, 'BNBUSDT')).toEqual([...jan, ...feb, ...mar])
  })

  test('overlapping files store each hour once', async () => {
    const rows = makeCandles(T0, 100, 8)
    const store = CandleStore.open(dataDir)
    const report = await importPaths(store, [put('DOTUSDT-a.csv', csv6(rows.slice(0, 60))), put('DOTUSDT-b.csv', csv6(rows.slice(40)))])
    expect(rowsOf(store, 'DOTUSDT')).toEqual(rows)
    expect(only(report, 'DOTUSDT-b.csv')).toMatchObject({ appended: 40, skipped: 20 })
  })

  test('a folder is walked recursively and files that are not CSVs are ignored', async () => {
    mkdirSync(join(dir, 'in', 'klines', 'LTCUSDT', '1h'), { recursive: true })
    const rows = makeCandles(T0, 24, 9)
    writeFileSync(join(dir, 'in', 'klines', 'LTCUSDT', '1h', 'LTCUSDT-1h-2024-01.zip'), zipSync({ 'LTCUSDT-1h-2024-01.csv': strToU8(csv12(rows)) }))
    writeFileSync(join(dir, 'in', 'klines', 'LTCUSDT', '1h', 'LTCUSDT-1h-2024-01.zip.CHECKSUM'), 'abc  LTCUSDT-1h-2024-01.zip\n')
    writeFileSync(join(dir, 'in', 'README.md'), '# notes\n')
    const store = CandleStore.open(dataDir)
    const report = await importPaths(store, [join(dir, 'in')])
    expect(report.files).toHaveLength(1)
    expect(rowsOf(store, 'LTCUSDT')).toEqual(rows)
  })
})

describe('funding and universe files', () => {
  test('funding_time_ms,funding_rate and Binance fundingRate files import their events', async () => {
    const store = CandleStore.open(dataDir)
    const events = [[T0, 0.0001], [T0 + 8 * HOUR_MS, -0.00025], [T0 + 12 * HOUR_MS, 0.0003]]
    const report = await importPaths(store, [
      put('BTCUSDT.csv', 'funding_time_ms,funding_rate\n' + events.map(e => e.join(',')).join('\n') + '\n'),
      put('ETHUSDT-fundingRate-2024-01.zip', zipSync({ 'ETHUSDT-fundingRate-2024-01.csv': strToU8('calc_time,funding_interval_hours,last_funding_rate\n' + events.map(([t, r]) => `${t},8,${r}`).join('\n') + '\n') })),
    ])
    expect(report.failed).toBe(0)
    expect(report.fundingAppended).toBe(6)
    for (const s of ['BTCUSDT', 'ETHUSDT']) {
      const f = store.funding(s)!
      expect(Array.from({ length: f.n }, (_, i) => [f.t[i], f.rate[i]])).toEqual(events)
    }
    expect(store.symbols()).toEqual([]) // funding alone makes no coin
  })

  test('the universe CSV sets names and ranks and marks stablecoins and non-crypto perps', async () => {
    const store = CandleStore.open(dataDir)
    await importPaths(store, [put('BTCUSDT.csv', csv6(makeCandles(T0, 24, 10))), put('USDCUSDT.csv', csv6(makeCandles(T0, 24, 11, 1)))])
    const report = await importPaths(store, [put('universe.csv', [
      'symbol,name,market_cap_rank,market_cap_usd,price_usd,volume_24h_usd,change_7d_pct',
      'BTCUSDT,Bitcoin,1,1422329014792,71078.64,921268639.57,5.7',
      'USDCUSDT,USDC,6,79185829298,0.9999,327404985.66,0.0',
      'XAUUSDT,Gold,5807,103441,5021.06,132367671.59,-13.9',
      '"TSLAUSDT","Tesla, Inc.",,,,1000,0',
    ].join('\n') + '\n')])
    expect(report.failed).toBe(0)
    expect(store.meta('BTCUSDT')).toEqual({ symbol: 'BTCUSDT', name: 'Bitcoin', rank: 1, stablecoin: false, assetClass: 'crypto', listingMs: T0 })
    expect(store.meta('USDCUSDT')).toMatchObject({ stablecoin: true, rank: 6 })
    expect(store.meta('XAUUSDT')).toMatchObject({ name: 'Gold', assetClass: 'commodity', listingMs: null })
    expect(store.meta('TSLAUSDT')).toMatchObject({ name: 'Tesla, Inc.', rank: null, assetClass: 'stock' })
  })

  test('names alone do not record a source; candles record binance-csv', async () => {
    const store = CandleStore.open(dataDir)
    await importPaths(store, [put('u.csv', 'symbol,name,market_cap_rank\nBTCUSDT,Bitcoin,1\n')])
    expect(store.sources()).toEqual([])
    await importPaths(store, [put('BTCUSDT.csv', csv6(makeCandles(T0, 3, 1)))])
    expect(store.sources()).toEqual(['binance-csv'])
    expect(store.meta('BTCUSDT')!.name).toBe('Bitcoin')
  })
})

describe('bad files stop with file, line and reason, and leave nothing behind', () => {
  const cases: [string, (rows: string[]) => void, number | null, RegExp][] = [
    ['a price that is not a number', r => (r[5] = r[5].replace(/^(\d+),[^,]+/, '$1,abc')), 6, /open "abc" is not a number/],
    ['high below low', r => { const c = r[3].split(','); [c[2], c[3]] = [c[3], c[2]]; r[3] = c.join(',') }, 4, /high .* is below low/],
    ['a time that does not increase', r => (r[7] = r[6]), 8, /not after the previous row/],
    ['a row with a column missing', r => (r[9] = r[9].split(',').slice(0, 5).join(',')), 10, /5 columns, expected 6/],
    ['an empty field', r => (r[2] = r[2].replace(/,[^,]+$/, ',')), 3, /volume "" is not a number/],
  ]
  for (const [what, spoil, line, reason] of cases) {
    test(`${what}: the error names the file and line; the store is untouched`, async () => {
      const lines = csv6(makeCandles(T0, 12, 12)).trimEnd().split('\n')
      spoil(lines)
      const file = put('BTCUSDT.csv', lines.join('\n') + '\n')
      const store = CandleStore.open(dataDir)
      const logged: string[] = []
      const report = await importPaths(store, [file, put('ETHUSDT.csv', csv6(makeCandles(T0, 12, 13)))], l => logged.push(l))
      const f = only(report, 'BTCUSDT.csv')
      expect(f.error).not.toBeNull()
      expect(f.error!.line).toBe(line)
      expect(f.error!.reason).toMatch(reason)
      expect(f.appended).toBe(0)
      expect(store.bars('BTCUSDT')).toBeUndefined()
      expect(existsSync(join(dataDir, 'store', 'candles', 'BTCUSDT'))).toBe(false)
      expect(store.bars('ETHUSDT')!.n).toBe(12) // the other file still imports
      expect(formatImportReport(report)).toContain(`${file}:${line}: `)
      // reported once, in the summary: the progress log does not repeat it
      expect(logged.filter(l => l.includes(f.error!.reason))).toEqual([])
    })
  }

  test('other intervals are refused: by file name, by close time and by spacing', async () => {
    const fourHourly = makeCandles(T0, 10, 14).map((r, i) => [T0 + i * 4 * HOUR_MS, ...r.slice(1)])
    const quarterHourly = makeCandles(T0, 10, 15).map((r, i) => [T0 + i * 15 * 60_000, ...r.slice(1)])
    const closeSaysDay = csv12(makeCandles(T0, 1, 16)).replace(String(T0 + HOUR_MS - 1), String(T0 + 24 * HOUR_MS - 1))
    const store = CandleStore.open(dataDir)
    const report = await importPaths(store, [
      put('BTCUSDT-4h-2024-01.csv', csv6(makeCandles(T0, 10, 14))),
      put('ETHUSDT.csv', csv6(fourHourly)),
      put('SOLUSDT.csv', csv6(quarterHourly)),
      put('XRPUSDT.csv', closeSaysDay),
    ])
    expect(only(report, 'BTCUSDT-4h-2024-01.csv').error!.reason).toMatch(/interval 4h in the file name/)
    expect(only(report, 'ETHUSDT.csv').error!.reason).toMatch(/4h apart/)
    expect(only(report, 'SOLUSDT.csv').error!.reason).toMatch(/15m apart/)
    expect(only(report, 'XRPUSDT.csv').error!.reason).toMatch(/span 1d/)
    expect(store.symbols()).toEqual([])
  })

  test('a file whose second half is bad changes nothing on disk, as a reopened store shows', async () => {
    const store = CandleStore.open(dataDir)
    const first = makeCandles(T0, 100, 17)
    await importPaths(store, [put('BTCUSDT-1h-2024-01.csv', csv6(first))])
    const before = diskState()
    const next = makeCandles(T0 + 100 * HOUR_MS, 200, 18, first[99][4])
    const lines = csv6(next).trimEnd().split('\n')
    lines[150] = lines[150].replace(/,[^,]+$/, ',-5') // negative volume, deep in the second half
    const report = await importPaths(store, [put('BTCUSDT-1h-2024-02.csv', lines.join('\n') + '\n')])
    expect(only(report, '2024-02.csv').error).toEqual({ line: 151, reason: 'volume must be a number >= 0' })
    expect(diskState()).toEqual(before)
    expect(rowsOf(CandleStore.open(dataDir), 'BTCUSDT')).toEqual(first)
  })

  test('when a month fails, the later months of that symbol are held back so no gap is stored', async () => {
    const jan = makeCandles(T0, 24, 19)
    const feb = makeCandles(T0 + 24 * HOUR_MS, 24, 20)
    const mar = makeCandles(T0 + 48 * HOUR_MS, 24, 21)
    const badFeb = csv6(feb).replace(/\n[^\n]+\n$/, '\nnot,a,row\n')
    const store = CandleStore.open(dataDir)
    const report = await importPaths(store, [put('BTCUSDT-1h-01.csv', csv6(jan)), put('BTCUSDT-1h-02.csv', badFeb), put('BTCUSDT-1h-03.csv', csv6(mar))])
    expect(only(report, '01.csv').error).toBeNull()
    expect(only(report, '02.csv').error!.line).toBe(24)
    expect(only(report, '03.csv').error!.reason).toMatch(/held back/)
    expect(rowsOf(store, 'BTCUSDT')).toEqual(jan)
    // fixed and imported again: everything lands, in order
    const again = await importPaths(store, [put('BTCUSDT-1h-02.csv', csv6(feb)), join(dir, 'in', 'BTCUSDT-1h-03.csv'), join(dir, 'in', 'BTCUSDT-1h-01.csv')])
    expect(again.failed).toBe(0)
    expect(rowsOf(store, 'BTCUSDT')).toEqual([...jan, ...feb, ...mar])
  })

  test('when the store fails to write, the files are reported as not stored and no source is recorded', async () => {
    const store = CandleStore.open(dataDir)
    const failing = Object.assign(Object.create(store) as CandleStore, {
      appendCandles: () => {
        throw new Error('disk full')
      },
    })
    const report = await importPaths(failing, [put('BTCUSDT.csv', csv6(makeCandles(T0, 5, 1)))])
    expect(only(report, 'BTCUSDT.csv')).toMatchObject({ appended: 0, error: { line: null, reason: 'not stored: disk full' } })
    expect(report.candlesAppended).toBe(0)
    expect(store.sources()).toEqual([])
    expect(diskState()).toEqual({})
  })

  test('files the importer cannot place are reported: no symbol in the name, unknown layout, missing path, empty zip', async () => {
    const store = CandleStore.open(dataDir)
    const report = await importPaths(store, [
      put('candles.csv', csv6(makeCandles(T0, 3, 22))),
      put('BTCUSDT-x.csv', '1,2,3,4\n'),
      join(dir, 'in', 'nowhere.csv'),
      put('EMPTYUSDT.zip', zipSync({ 'readme.txt': strToU8('hi') })),
      put('notes.txt', 'hello'),
    ])
    expect(only(report, 'candles.csv').error!.reason).toMatch(/symbol from the file name/)
    expect(only(report, 'BTCUSDT-x.csv').error!.reason).toMatch(/unrecognised layout: 4 columns/)
    expect(only(report, 'nowhere.csv').error!.reason).toMatch(/no such file/)
    expect(only(report, 'EMPTYUSDT.zip').error!.reason).toMatch(/holds no .csv/)
    expect(only(report, 'notes.txt').error!.reason).toMatch(/not a .csv, .csv.gz, .zip or .json/)
    expect(report.failed).toBe(5)
    expect(diskState()).toEqual({})
  })
})

test('importing the same files again appends nothing and leaves the store as it was', async () => {
  const rows = makeCandles(T0, 500, 23)
  const files = [put('BTCUSDT-1h-2024-01.zip', zipSync({ 'BTCUSDT-1h-2024-01.csv': strToU8(csv12(rows, { header: true })) })), put('BTCUSDT-f.csv', 'funding_time_ms,funding_rate\n' + `${T0},0.0001\n`)]
  const store = CandleStore.open(dataDir)
  await importPaths(store, files)
  const before = diskState()
  const again = await importPaths(store, files)
  expect(again.candlesAppended + again.fundingAppended).toBe(0)
  expect(only(again, '.zip:BTCUSDT-1h-2024-01.csv')).toMatchObject({ appended: 0, skipped: 500 })
  expect(diskState()).toEqual(before)
  expect(rowsOf(CandleStore.open(dataDir), 'BTCUSDT')).toEqual(rows)
})

describe.skipIf(!HAVE_SHARED)('the real Binance files in ../shared/data', () => {
  let realDir: string
  let store: CandleStore
  let report: ImportReport
  const symbols = HAVE_SHARED ? readdirSync(join(SHARED, 'binance-usdm-1h')).map(f => f.replace('.csv.gz', '')) : []

  /** the CSV read the plainest way, to compare with */
  const csvRows = (path: string) => new TextDecoder().decode(Bun.gunzipSync(readFileSync(path))).trim().split('\n').slice(1).map(l => l.split(',').map(Number))

  beforeAll(async () => {
    realDir = mkdtempSync(join(tmpdir(), 'perpsim-import-real-'))
    store = CandleStore.open(realDir)
    report = await importPaths(store, [join(SHARED, 'binance-usdm-1h'), join(SHARED, 'binance-usdm-funding'), join(SHARED, 'universe-snapshot-2026-03-15.csv')])
  })
  afterAll(() => rmSync(realDir, { recursive: true, force: true }))

  test('the 28 coins import with 31,973 hourly bars each, no file failing', () => {
    expect(report.failed).toBe(0)
    expect(symbols).toHaveLength(28)
    expect(store.symbols()).toEqual(symbols.sort())
    for (const s of symbols) expect(store.bars(s)!.n).toBe(31_973)
    expect(report.candlesAppended).toBe(28 * 31_973)
  })

  test('the stored BTCUSDT and XTZUSDT candles equal the CSV, value for value', () => {
    for (const s of ['BTCUSDT', 'XTZUSDT']) expect(rowsOf(store, s)).toEqual(csvRows(join(SHARED, 'binance-usdm-1h', `${s}.csv.gz`)))
  })

  test('the five funding files import every event', () => {
    for (const f of readdirSync(join(SHARED, 'binance-usdm-funding'))) {
      const expected = csvRows(join(SHARED, 'binance-usdm-funding', f))
      const got = store.funding(f.replace('.csv.gz', ''))!
      expect(got.n).toBe(expected.length)
      expect(Array.from({ length: got.n }, (_, i) => [got.t[i], got.rate[i]])).toEqual(expected)
    }
  })

  test('the universe snapshot gives names and market-cap ranks, and flags stablecoins and gold', () => {
    expect(store.meta('BTCUSDT')).toMatchObject({ name: 'Bitcoin', rank: 1, stablecoin: false, assetClass: 'crypto', listingMs: Date.UTC(2020, 9, 23, 8) })
    expect(store.meta('ETHUSDT')).toMatchObject({ name: 'Ethereum', rank: 2 })
    expect(store.meta('USDCUSDT')).toMatchObject({ stablecoin: true })
    expect(store.meta('XAUUSDT')).toMatchObject({ assetClass: 'commodity' })
    expect(store.meta('XAGUSDT')).toMatchObject({ assetClass: 'commodity' })
    expect(store.sources()).toEqual(['binance-csv'])
  })

  test('a second import of the same folders appends nothing', async () => {
    const again = await importPaths(store, [join(SHARED, 'binance-usdm-1h'), join(SHARED, 'binance-usdm-funding')])
    expect(again.failed).toBe(0)
    expect(again.candlesAppended + again.fundingAppended).toBe(0)
    expect(store.bars('ETHUSDT')!.n).toBe(31_973)
  })
})
