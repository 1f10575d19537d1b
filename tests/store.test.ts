import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CandleStore, StoreError } from '../src/market/candle-store'
import { tempDir, walkCandles } from './helpers/fixtures'

const dirs: string[] = []
const fresh = () => {
  const d = tempDir()
  dirs.push(d)
  return d
}
afterAll(() => dirs.forEach(d => rmSync(d, { recursive: true, force: true })))

const T0 = Date.UTC(2024, 0, 1)

describe('candle store', () => {
  test('candles, funding and metadata survive a reopen unchanged', () => {
    const dir = fresh()
    const s = CandleStore.open(dir)
    const cols = walkCandles(500, T0)
    s.appendCandles('BTCUSDT', cols, 500)
    s.appendFunding('BTCUSDT', [T0, T0 + 8 * 3_600_000], [0.0001, -0.0002], 2)
    s.upsertMeta([{ symbol: 'BTCUSDT', name: 'Bitcoin', rank: 1, stablecoin: false, assetClass: 'crypto', listingMs: T0 }], 'binance-csv')
    const r = CandleStore.open(dir)
    const b = r.bars('BTCUSDT')!
    expect(b.n).toBe(500)
    for (let k = 0; k < 6; k++) expect(Array.from([b.t, b.o, b.h, b.l, b.c, b.v][k])).toEqual(cols[k])
    expect(Array.from(r.funding('BTCUSDT')!.rate)).toEqual([0.0001, -0.0002])
    expect(r.meta('BTCUSDT')!.name).toBe('Bitcoin')
    expect(r.sources()).toEqual(['binance-csv'])
    expect(r.dataVersion()).toBe(s.dataVersion())
  })

  test('columns live in SharedArrayBuffers so workers read the same memory', () => {
    const s = CandleStore.open(fresh())
    s.appendCandles('ETHUSDT', walkCandles(10, T0), 10)
    expect(s.bars('ETHUSDT')!.c.buffer).toBeInstanceOf(SharedArrayBuffer)
  })

  test('an append adds a segment and never rewrites the existing one; overlapping rows are skipped', () => {
    const dir = fresh()
    const s = CandleStore.open(dir)
    const cols = walkCandles(300, T0)
    s.appendCandles('BTCUSDT', cols.map(c => c.slice(0, 200)), 200)
    const segDir = join(dir, 'store', 'candles', 'BTCUSDT')
    const first = readdirSync(segDir)
    const firstBytes = Bun.file(join(segDir, first[0])).size
    const res = s.appendCandles('BTCUSDT', cols.map(c => c.slice(150)), 150)
    expect(res).toEqual({ appended: 100, skipped: 50 })
    expect(readdirSync(segDir).length).toBe(2)
    expect(Bun.file(join(segDir, first[0])).size).toBe(firstBytes)
    const b = CandleStore.open(dir).bars('BTCUSDT')!
    expect(b.n).toBe(300)
    expect(Array.from(b.c)).toEqual(cols[4])
  })

  test('times that do not increase are refused and nothing is written', () => {
    const dir = fresh()
    const s = CandleStore.open(dir)
    const cols = walkCandles(5, T0)
    cols[0][3] = cols[0][2]
    expect(() => s.appendCandles('BTCUSDT', cols, 5)).toThrow(StoreError)
    expect(s.bars('BTCUSDT')).toBeUndefined()
    expect(existsSync(join(dir, 'store', 'candles', 'BTCUSDT')) && readdirSync(join(dir, 'store', 'candles', 'BTCUSDT')).length).toBeFalsy()
  })

  test('many small appends are merged into one segment without losing rows', () => {
    const dir = fresh()
    const s = CandleStore.open(dir)
    const cols = walkCandles(120, T0)
    for (let i = 0; i < 120; i++) s.appendCandles('SOLUSDT', cols.map(c => [c[i]]), 1)
    const segs = readdirSync(join(dir, 'store', 'candles', 'SOLUSDT'))
    expect(segs.length).toBeLessThan(60)
    const b = CandleStore.open(dir).bars('SOLUSDT')!
    expect(Array.from(b.t)).toEqual(cols[0])
  })

  test('a merge interrupted before the old segments are removed loads each row once', () => {
    const dir = fresh()
    const s = CandleStore.open(dir)
    const cols = walkCandles(30, T0)
    s.appendCandles('XRPUSDT', cols.map(c => c.slice(0, 10)), 10)
    s.appendCandles('XRPUSDT', cols.map(c => c.slice(10, 20)), 10)
    s.appendCandles('XRPUSDT', cols.map(c => c.slice(20)), 10)
    // what a crash right after the merged file's rename leaves: the merge + the later segments
    const { writeSegment, segmentName } = require('../src/market/segment-file')
    writeSegment(join(dir, 'store', 'candles', 'XRPUSDT', segmentName(T0)), cols, 30)
    const b = CandleStore.open(dir).bars('XRPUSDT')!
    expect(b.n).toBe(30)
    expect(Array.from(b.t)).toEqual(cols[0])
  })

  test('a leftover temp file from a crashed write is ignored', () => {
    const dir = fresh()
    const s = CandleStore.open(dir)
    s.appendCandles('BTCUSDT', walkCandles(10, T0), 10)
    writeFileSync(join(dir, 'store', 'candles', 'BTCUSDT', '0000000000000001.seg.123.456.tmp'), 'garbage')
    expect(CandleStore.open(dir).bars('BTCUSDT')!.n).toBe(10)
  })

  test('a writer killed midway leaves the old store readable', async () => {
    const dir = fresh()
    const s = CandleStore.open(dir)
    s.appendCandles('BTCUSDT', walkCandles(100, T0), 100)
    // a child that appends large segments as fast as it can, killed with SIGKILL mid-write
    const script = `
      const { CandleStore } = require(${JSON.stringify(join(import.meta.dir, '../src/market/candle-store.ts'))})
      const s = CandleStore.open(${JSON.stringify(dir)})
      let t = ${T0} + 100 * 3600000
      const n = 400000
      for (;;) {
        const cols = [new Float64Array(n), new Float64Array(n), new Float64Array(n), new Float64Array(n), new Float64Array(n), new Float64Array(n)]
        for (let i = 0; i < n; i++) { cols[0][i] = t + i * 3600000; for (let k = 1; k < 6; k++) cols[k][i] = 1 }
        s.appendCandles('BTCUSDT', cols, n)
        t += n * 3600000
        process.stdout.write('.')
      }`
    const child = Bun.spawn([process.execPath, '-e', script], { stdout: 'pipe', stderr: 'inherit' })
    const reader = child.stdout.getReader()
    await reader.read() // at least one append completed; the next is in flight
    await Bun.sleep(15)
    child.kill('SIGKILL')
    await child.exited
    const b = CandleStore.open(dir).bars('BTCUSDT')!
    expect(b.n).toBeGreaterThanOrEqual(100 + 400000)
    expect((b.n - 100) % 400000).toBe(0) // only whole segments are visible
    for (let i = 1; i < b.n; i++) if (b.t[i] !== b.t[i - 1] + 3_600_000) throw new Error(`gap at ${i}`)
  })
})
