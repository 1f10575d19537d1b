/**
 * The store's minute detail (issue 25 §1): 1m klines imported from Binance's CSV/zip
 * layouts, stored per UTC month, read lazily; the runs use stored minutes exactly as the
 * synthetic store's derived ones; GET /ohlcv?timeframe=1m; the data version follows it.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { strToU8, zipSync } from 'fflate'
import { CandleStore } from '../src/market/candle-store'
import { storeDerivedDetail } from '../src/market/generate-store'
import { importPaths } from '../src/market/import-binance'
import { generateSyntheticUniverse } from '../src/market/synthetic'
import { minuteLabel, syntheticMinutes } from '../src/market/synthetic-minutes'
import { fillWalkUniverse } from './helpers/fixtures'
import { makeHarness } from './helpers/harness'

const dirs: string[] = []
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'perpsim-detail-'))
  dirs.push(d)
  return d
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const T0 = Date.UTC(2024, 0, 1)
const MIN = 60_000

/** n 1m rows from T0 + start minutes: a slow walk */
function minuteRows(n: number, start = 0): number[][] {
  const rows: number[][] = []
  let p = 100
  for (let i = 0; i < n; i++) {
    const o = p
    const c = +(o * (1 + 0.0004 * Math.sin(i / 7))).toFixed(4)
    rows.push([T0 + (start + i) * MIN, o, Math.max(o, c) + 0.01, Math.min(o, c) - 0.01, c, 3 + (i % 5)])
    p = c
  }
  return rows
}
const csv12 = (rows: number[][]) => rows.map(([t, o, h, l, c, v]) => [t, o, h, l, c, v, t + MIN - 1, v * c, 7, v / 2, (v * c) / 2, 0].join(',')).join('\n') + '\n'
const csv6 = (rows: number[][]) => 'open_time_ms,open,high,low,close,volume\n' + rows.map(r => r.join(',')).join('\n') + '\n'

describe('data import of 1m klines', () => {
  test('12 columns (close time says 1m) and 6 columns (the file name says 1m), a zip: stored as detail, one segment per UTC month, re-import harmless', async () => {
    const dir = temp()
    mkdirSync(join(dir, 'in'))
    const day1 = minuteRows(1440)
    const day2 = minuteRows(600, 1440)
    writeFileSync(join(dir, 'in', 'BTCUSDT-1m-2024-01-01.csv'), csv12(day1))
    writeFileSync(join(dir, 'in', 'ETHUSDT-1m-2024-01.zip'), zipSync({ 'ETHUSDT-1m-2024-01.csv': strToU8(csv6(day1.concat(day2))) }))
    const store = CandleStore.open(join(dir, 'data'))
    const before = store.dataVersion()
    const report = await importPaths(store, [join(dir, 'in')])
    expect(report.failed).toBe(0)
    expect(report.detailAppended).toBe(1440 + 2040)
    expect(report.candlesAppended).toBe(0)
    expect(report.files.map(f => f.kind)).toEqual(['detail', 'detail'])
    expect(store.dataVersion()).not.toBe(before)
    expect([...store.storedDetailSymbols()].sort()).toEqual(['BTCUSDT', 'ETHUSDT'])
    expect(readdirSync(join(store.root, 'detail', '1m', 'ETHUSDT')).length).toBe(1)
    const cov = store.detailCoverage('ETHUSDT')!
    expect(cov).toEqual({ symbol: 'ETHUSDT', firstMs: T0, lastMs: T0 + 2039 * MIN, minutes: 2040, segments: 1 })
    // the minutes of one hour read back, exactly
    const r = store.detail.reader('ETHUSDT')!.rows(T0 + 23 * 3_600_000, T0 + 25 * 3_600_000)!
    expect(r.n).toBe(120)
    const want = day1.concat(day2).slice(23 * 60, 25 * 60)
    expect(Array.from({ length: r.n }, (_, i) => [r.t[i], r.o[i], r.h[i], r.l[i], r.c[i], r.v[i]])).toEqual(want)
    // again: nothing new
    const again = await importPaths(store, [join(dir, 'in')])
    expect(again.detailAppended).toBe(0)
    expect(again.files.every(f => f.skipped === f.rows)).toBe(true)
  })

  test('other intervals and minutes off the minute are refused with the line and reason', async () => {
    const dir = temp()
    mkdirSync(join(dir, 'in'))
    writeFileSync(join(dir, 'in', 'BTCUSDT-5m-2024-01.csv'), csv6(minuteRows(10)))
    const off = minuteRows(10).map((r, i) => (i === 4 ? [r[0] + 1000, ...r.slice(1)] : r))
    writeFileSync(join(dir, 'in', 'SOLUSDT-1m-2024-01.csv'), csv6(off))
    const store = CandleStore.open(join(dir, 'data'))
    const report = await importPaths(store, [join(dir, 'in')])
    const byName = Object.fromEntries(report.files.map(f => [f.file.split('/').pop(), f.error?.reason]))
    expect(byName['BTCUSDT-5m-2024-01.csv']).toContain('interval 5m')
    expect(byName['SOLUSDT-1m-2024-01.csv']).toContain('one minute apart')
    expect(store.storedDetailSymbols().size).toBe(0)
  })
})

describe('the lazy reader', () => {
  test('finds an hour\'s minutes where minutes are missing before it (the search behind the offset guess), across segments', () => {
    const store = CandleStore.open(join(temp(), 'data'))
    // minutes 0–99, then a gap of 37, then 2000 more (crossing into a second UTC day, same month)
    const rows = minuteRows(100).concat(minuteRows(2000, 137))
    const cols = [0, 1, 2, 3, 4, 5].map(k => Float64Array.from(rows, r => r[k]))
    expect(store.appendDetail('SOLUSDT', cols, rows.length).appended).toBe(2100)
    // and a later append: a second segment
    const more = minuteRows(50, 2200)
    store.appendDetail('SOLUSDT', [0, 1, 2, 3, 4, 5].map(k => Float64Array.from(more, r => r[k])), 50)
    const reader = store.detail.reader('SOLUSDT')!
    for (const [a, b] of [[T0 + 60 * MIN, T0 + 180 * MIN], [T0 + 1500 * MIN, T0 + 1560 * MIN], [T0 + 2100 * MIN, T0 + 2240 * MIN]]) {
      const r = reader.rows(a, b)!
      const want = rows.concat(more).filter(x => x[0] >= a && x[0] < b)
      expect(Array.from({ length: r.n }, (_, i) => [r.t[i], r.o[i], r.h[i], r.l[i], r.c[i], r.v[i]])).toEqual(want)
    }
    expect(reader.rows(T0 + 100 * MIN, T0 + 137 * MIN)).toBeNull()
  })
})

describe('stored minutes in the runs and on /ohlcv', () => {
  const NOW = Date.UTC(2026, 10, 22)
  const GEN = { coins: 6, days: 60, seed: 9, endMs: NOW }
  // the same synthetic market twice: minutes derived, and the same minutes stored on disk
  const derived = makeHarness({
    nowMs: NOW,
    fill: store => {
      generateSyntheticUniverse(store, GEN)
      store.setSyntheticSeed(GEN.seed)
    },
  })
  const stored = makeHarness({
    nowMs: NOW,
    fill: store => {
      generateSyntheticUniverse(store, GEN)
      store.setSyntheticSeed(GEN.seed)
      storeDerivedDetail(store, GEN.seed)
    },
  })
  afterAll(() => {
    derived.cleanup()
    stored.cleanup()
  })

  test('a run on stored minutes gets the trades of the same minutes derived', async () => {
    expect(stored.deps.store.storedDetailSymbols().size).toBe(6)
    expect(stored.deps.store.detailSource('BTCUSDT')).toBe('stored')
    const body = { entry: { field: 'close', op: '>', value: 0 }, top_n: 6, sl_pct: 0.7, tp_pct: 0.9, max_bars: 24, tp_source: 'trailing' }
    const a = await derived.req('/backtest', { method: 'POST', json: body })
    const b = await stored.req('/backtest', { method: 'POST', json: body })
    expect(a.status).toBe(200)
    expect(b.body.intrabar.bars_replayed).toBeGreaterThan(0)
    expect(b.body.intrabar).toEqual(a.body.intrabar)
    expect(b.body.trades).toEqual(a.body.trades)
  })

  test('GET /ohlcv?timeframe=1m: stored and derived minutes alike, with the limit/offset rule; the hour is their aggregate', async () => {
    const q = '/ohlcv/ETHUSDT?timeframe=1m&limit=120&offset=60'
    const a = await derived.req(q)
    const b = await stored.req(q)
    expect(a.status).toBe(200)
    expect(b.body).toEqual(a.body)
    expect(a.body.timeframe).toBe('1m')
    expect(a.body.total_bars).toBe(derived.deps.store.bars('ETHUSDT')!.n * 60)
    expect(a.body.data.length).toBe(120)
    expect(a.body.data[0].ema50).not.toBeNull() // overlays warmed up before the window
    // the window ends 60 minutes before the newest: it is the two hours before the last one
    const h = derived.deps.store.bars('ETHUSDT')!
    const k = h.n - 2
    expect(a.body.data[60].t).toBe(h.t[k] / 1000)
    const hour = a.body.data.slice(60, 120)
    expect([hour[0].o, Math.max(...hour.map((m: any) => m.h)), Math.min(...hour.map((m: any) => m.l)), hour[59].c]).toEqual([h.o[k], h.h[k], h.l[k], h.c[k]])
    const cols = { t: new Float64Array(60), o: new Float64Array(60), h: new Float64Array(60), l: new Float64Array(60), c: new Float64Array(60), v: new Float64Array(60) }
    syntheticMinutes(minuteLabel(GEN.seed, 'ETHUSDT'), h.t[k], h.o[k], h.h[k], h.l[k], h.c[k], h.v[k], cols, 0)
    expect(hour.map((m: any) => m.v)).toEqual([...cols.v])
  })

  test('a coin without minutes is a 404 that says so; an unknown coin the usual 404', async () => {
    const plain = makeHarness({ nowMs: NOW, fill: store => fillWalkUniverse(store, ['BTCUSDT'], T0, 30, 1) })
    try {
      const r = await plain.req('/ohlcv/BTCUSDT?timeframe=1m')
      expect(r.status).toBe(404)
      expect(r.body.detail).toContain('no 1m detail')
      expect((await plain.req('/ohlcv/BTCUSDT?timeframe=1H')).status).toBe(200)
      expect((await plain.req('/ohlcv/NOPEUSDT?timeframe=1m')).status).toBe(404)
      expect((await plain.req('/ohlcv/BTCUSDT?timeframe=5m')).status).toBe(422)
    } finally {
      plain.cleanup()
    }
  })
})

describe('the command line', () => {
  const ROOT = join(import.meta.dir, '..')
  const BUN = join(ROOT, 'node_modules/.bin/bun')
  const cli = (dir: string, ...args: string[]) => {
    const p = Bun.spawnSync([BUN, 'src/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, DATA_DIR: join(dir, 'data'), OFFLINE: '1' }, stdout: 'pipe', stderr: 'pipe' })
    return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() }
  }

  test('data generate --detail-stored N writes the first N coins\' minutes; data info shows stored, derived and the coverage', () => {
    const dir = temp()
    const gen = cli(dir, 'data', 'generate', '--coins', '3', '--days', '2', '--detail-stored', '1')
    expect(gen.code).toBe(0)
    expect(gen.out).toContain('stored 2880 minutes of 1m detail for 1 coins')
    const info = cli(dir, 'data', 'info')
    expect(info.code).toBe(0)
    expect(info.out).toContain('1m detail: 1 coins stored; every other coin derived')
    const lines = info.out.split('\n').filter(l => /USDT/.test(l))
    expect(lines.filter(l => l.includes('2880 min') && l.includes('(100.0 % of the minutes in that span)')).length).toBe(1)
    // the other two trading coins derive theirs, as do the six synthetic delisted coins (status last)
    expect(lines.filter(l => /\bderived\s+trading$/.test(l.trimEnd())).length).toBe(2)
    expect(lines.filter(l => /\bderived\s+delisted$/.test(l.trimEnd())).length).toBe(6)
    expect(cli(dir, 'data', 'generate', '--force', '--detail-stored', '0').err).toContain('--detail-stored 0')
  })
})
