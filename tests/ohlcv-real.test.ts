/**
 * The acceptance path on the real data beside the repo: import the 28 coins, their
 * funding and the universe CSV, then /coins and /ohlcv against by-hand figures and the
 * TA-Lib golden file.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { importPaths } from '../src/market/import-binance'
import { makeHarness, SHARED, type Harness } from './helpers/harness'

const DATA = join(SHARED, 'data')
const GOLDEN = join(SHARED, 'golden', 'BTCUSDT-1h.csv.gz')
const missing = !existsSync(join(DATA, 'binance-usdm-1h')) || !existsSync(GOLDEN)
if (missing) console.warn(`skipped: the real data set is not at ${DATA}`)

function csv(path: string): { header: string[]; rows: string[][] } {
  const lines = gunzipSync(readFileSync(path)).toString('latin1').trim().split('\n')
  return { header: lines[0].split(','), rows: lines.slice(1).map(l => l.split(',')) }
}

let h: Harness
beforeAll(async () => {
  if (missing) return
  h = makeHarness()
  await importPaths(h.deps.store, [join(DATA, 'binance-usdm-1h'), join(DATA, 'binance-usdm-funding'), join(DATA, 'universe-snapshot-2026-03-15.csv')])
}, 120_000)
afterAll(() => h?.cleanup())

const relClose = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b))

describe.skipIf(missing)('real data through the API', () => {
  test('the 28 coins load with 31,973 bars each, funding and names', async () => {
    const coins = (await h.req('/coins')).body
    expect(coins.length).toBe(28)
    for (const c of coins) expect(c.rows).toBe(31973)
    expect(h.deps.store.funding('BTCUSDT')!.n).toBeGreaterThan(1000)
    expect(h.deps.store.meta('BTCUSDT')!.name).toBe('Bitcoin')
  })

  test('/coins is in the universe file market-cap order', async () => {
    const uni = readFileSync(join(DATA, 'universe-snapshot-2026-03-15.csv'), 'utf8').trim().split('\n').slice(1).map(l => l.split(','))
    const rank = new Map(uni.filter(r => r[2] !== '').map(r => [r[0], Number(r[2])]))
    const got = (await h.req('/coins')).body.map((c: any) => c.symbol)
    const ranked = got.filter((s: string) => rank.has(s))
    expect(ranked).toEqual([...ranked].sort((a: string, b: string) => rank.get(a)! - rank.get(b)!))
    expect(got.slice(0, 2)).toEqual(['BTCUSDT', 'ETHUSDT'])
  })

  test('/ohlcv 1H bands and EMAs equal the TA-Lib golden values to 1e-9', async () => {
    const g = csv(GOLDEN)
    const col = (name: string) => g.header.indexOf(name)
    const n = g.rows.length
    const check = async (offset: number, limit: number) => {
      const r = await h.req(`/ohlcv/BTCUSDT?limit=${limit}&offset=${offset}`)
      const data = r.body.data
      expect(data.length).toBe(limit)
      const first = n - offset - limit
      data.forEach((bar: any, k: number) => {
        const row = g.rows[first + k]
        expect(bar.t * 1000).toBe(Number(row[0]))
        for (const [field, gold] of [['bb_upper', 'bb_upper_20_2'], ['bb_lower', 'bb_lower_20_2'], ['bb_mid', 'bb_mid_20_2'], ['ema20', 'ema_20'], ['ema50', 'ema_50']]) {
          const ref = row[col(gold)]
          if (ref === '') expect(bar[field]).toBeNull()
          else if (!relClose(bar[field], Number(ref))) throw new Error(`${field} at ${row[0]}: ${bar[field]} vs ${ref}`)
        }
      })
    }
    await check(0, 5000)
    await check(n - 5000, 5000) // the oldest bars: warm-up nulls at the same bars as the reference
  })

  test('/ohlcv 4H equals a by-hand resample of the CSV', async () => {
    const raw = csv(join(DATA, 'binance-usdm-1h', 'BTCUSDT.csv.gz')).rows.map(r => r.map(Number))
    const buckets = new Map<number, number[][]>()
    for (const r of raw) {
      const d = new Date(r[0])
      const key = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() - (d.getUTCHours() % 4))
      if (!buckets.has(key)) buckets.set(key, [])
      buckets.get(key)!.push(r)
    }
    const entries = [...buckets.entries()]
    if (entries.at(-1)![1].length < 4) entries.pop() // the unfinished last bucket
    const expected = entries.map(([t, rows]) => ({ t: t / 1000, o: rows[0][1], h: Math.max(...rows.map(r => r[2])), l: Math.min(...rows.map(r => r[3])), c: rows.at(-1)![4], v: rows.reduce((s, r) => s + r[5], 0) }))
    const r = await h.req('/ohlcv/BTCUSDT?timeframe=4H&limit=5000')
    const got = r.body.data
    expect(r.body.total_bars).toBe(expected.length)
    const tail = expected.slice(-5000)
    expect(got.length).toBe(tail.length)
    got.forEach((b: any, k: number) => {
      const e = tail[k]
      expect([b.t, b.o, b.h, b.l, b.c]).toEqual([e.t, e.o, e.h, e.l, e.c])
      if (!relClose(b.v, e.v)) throw new Error(`volume at ${b.t}: ${b.v} vs ${e.v}`)
    })
  })
})
