/**
 * Mark price (issue 25 §3; docs/metrics.md §1 "Mark price"): where the store has a coin's
 * mark-price candles, liquidation is tested on them and the stop and take profit on the
 * last price. Hand-made candles where the two prices disagree, the import of Binance's
 * markPriceKlines files and their sync through ccxt against a loopback Binance.
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_MAKER_FEE_FRAC, type Execution } from '../src/engine/execution'
import { alignMark } from '../src/engine/mark-price'
import { simulateCoin } from '../src/engine/trade-model'
import { ManualClock } from '../src/clock'
import { exchangeFeed } from '../src/market/candle-feed'
import { CandleStore } from '../src/market/candle-store'
import { importPaths } from '../src/market/import-binance'
import { syncFromExchange } from '../src/market/sync-ccxt'
import type { MarkSeries } from '../src/market/types'
import { HOUR_MS } from '../src/time'
import { barsOf, maskOf, params } from './engine-fixtures'
import { fillWalkUniverse, makeHarness } from './helpers/harness'
import { makeCandles, makeFunding, startFakeBinance, type FakeBinance } from './fixtures/binance-server'

type Row = [number, number, number, number]

const exec: Execution = { slippage: 'none', impactK: 1, tpOrder: 'market', makerFeeFrac: DEFAULT_MAKER_FEE_FRAC, liquidationFeeFrac: 0.0125, margin: 'flat', notionalUsd: 600 }
// long at 100, leverage 10, flat 0.5 %: the liquidation price is 100 · (1 − 0.1 + 0.005) = 90.5; the stop (20 %) lies beyond it at 80
const p = params({ leverage: 10, slPct: 20, tpPct: 10, execution: exec })

function markOf(bars: { t: Float64Array; n: number }, rows: Row[]): MarkSeries {
  const col = (k: number) => Float64Array.from(rows, r => r[k])
  return { t: bars.t.slice(0, bars.n), o: col(0), h: col(1), l: col(2), c: col(3), n: rows.length }
}

function run(last: Row[], mark: Row[] | null, over = p) {
  const bars = barsOf(last)
  const input = { symbol: 'TESTUSDT', bars, entry: maskOf(bars.n, 0), exit: null, fromIdx: 0, toIdx: bars.n - 1, funding: null, mark: mark ? alignMark(bars, markOf(bars, mark)) : null }
  return simulateCoin(input, over)
}

const calm: Row = [95, 96, 94, 95]

describe('liquidation on the mark price (hand-made candles)', () => {
  test('the mark dips through the liquidation price while the last price does not: liquidated on the mark only', () => {
    const last: Row[] = [[100, 101, 99, 100], [100, 101, 99, 100], [100, 100.5, 92, 95], calm, calm]
    const mark: Row[] = [[100, 101, 99, 100], [100, 101, 99, 100], [100, 100.4, 90.2, 95], calm, calm]
    const onLast = run(last, null)
    expect(onLast[0].exitReason).toBe('end_of_data')
    const onMark = run(last, mark)
    expect(onMark[0]).toMatchObject({ exitReason: 'liquidation', exitIdx: 2, exitPrice: 90.5, pnlPct: -100 })
  })

  test('the last price wicks through it while the mark stays above: liquidated on the last price only', () => {
    const last: Row[] = [[100, 101, 99, 100], [100, 101, 99, 100], [100, 100.5, 90, 95], calm, calm]
    const mark: Row[] = [[100, 101, 99, 100], [100, 101, 99, 100], [100, 100.4, 93, 95], calm, calm]
    expect(run(last, null)[0]).toMatchObject({ exitReason: 'liquidation', exitIdx: 2, exitPrice: 90.5 })
    const onMark = run(last, mark)
    expect(onMark[0].exitReason).toBe('end_of_data')
    expect(onMark[0].pnlPct).toBeGreaterThan(-100)
  })

  test('a mark open beyond the liquidation price liquidates at the open; the stop still reads the last price', () => {
    const last: Row[] = [[100, 101, 99, 100], [100, 101, 99, 100], [92, 93, 91, 92], calm]
    const mark: Row[] = [[100, 101, 99, 100], [100, 101, 99, 100], [90, 91, 89.5, 90.5], calm]
    expect(run(last, mark)[0]).toMatchObject({ exitReason: 'liquidation', exitIdx: 2, exitPrice: 90.5 })
    // rule 1 before rule 2: a mark open beyond the liquidation price liquidates even where the last price also gapped through the stop
    const tight = params({ leverage: 10, slPct: 5, tpPct: 10, execution: exec })
    expect(run(last, mark, tight)[0]).toMatchObject({ exitReason: 'liquidation', exitIdx: 2 })
    // the stop (95) reads the last price: a gap through it is a stop at the open while the mark opened above the liquidation price
    const calmMark: Row[] = [[100, 101, 99, 100], [100, 101, 99, 100], [94, 95, 93, 94], calm]
    expect(run(last, calmMark, tight)[0]).toMatchObject({ exitReason: 'sl', exitIdx: 2, exitPrice: 92 })
  })

  test('short: the mark high reaches the liquidation price (109.5) while the last high does not', () => {
    const short = params({ direction: 'short', leverage: 10, slPct: 20, tpPct: 10, execution: exec })
    const last: Row[] = [[100, 101, 99, 100], [100, 101, 99, 100], [100, 108, 99.5, 104], calm]
    const mark: Row[] = [[100, 101, 99, 100], [100, 101, 99, 100], [100, 109.6, 99.5, 104], calm]
    expect(run(last, null, short)[0].exitReason).not.toBe('liquidation')
    expect(run(last, mark, short)[0]).toMatchObject({ exitReason: 'liquidation', exitIdx: 2, exitPrice: 109.5 })
  })

  test('with identical mark and last candles every trade is the last price\'s', () => {
    const last: Row[] = [[100, 101, 99, 100], [100, 101, 99, 100], [100, 100.5, 90, 95], [95, 112, 94, 111], calm]
    for (const over of [p, params({ leverage: 10, slPct: 5, tpPct: 8, execution: exec }), params({ direction: 'short', leverage: 10, slPct: 20, tpPct: 3, execution: exec })])
      expect(run(last, last, over)).toEqual(run(last, null, over))
  })

  test('the adverse excursion the capacity curve re-books liquidation with is the mark\'s where liquidation reads the mark', () => {
    const brackets = [{ bracket: 1, floorUsd: 0, capUsd: 1e9, mmrFrac: 0.005, cumUsd: 0, maxLeverage: 125 }]
    const withBrackets = params({ leverage: 2, slPct: 20, tpPct: 10, execution: { ...exec, margin: 'brackets' } })
    const last: Row[] = [[100, 101, 99, 100], [100, 101, 99, 100], [100, 100.5, 96, 97], [97, 98, 95, 96], calm]
    const mark: Row[] = [[100, 101, 99, 100], [100, 101, 99, 100], [100, 100.4, 93, 97], [97, 98, 95.5, 96], calm]
    const bars = barsOf(last)
    const sim = (m: Row[] | null) =>
      simulateCoin({ symbol: 'TESTUSDT', bars, entry: maskOf(bars.n, 0), exit: null, fromIdx: 0, toIdx: bars.n - 1, funding: null, brackets, mark: m ? alignMark(bars, markOf(bars, m)) : null }, withBrackets)[0]
    // held to the end of the data: the last price's lowest low is 94 (the last bar), the mark's 93
    expect(sim(null)).toMatchObject({ exitReason: 'end_of_data' })
    expect(sim(null).maeFrac).toBeCloseTo(0.06, 12)
    expect(sim(mark).maeFrac).toBeCloseTo(0.07, 12)
    expect(sim(mark).pnlPct).toBe(sim(null).pnlPct)
  })

  test('with minute detail: the mark bar decides a liquidation it reaches (no mark minutes, counted); elsewhere the minutes resolve the stop and the take profit', () => {
    const bars = barsOf([[100, 101, 99, 100], [100, 101, 99, 100], [100, 111, 94, 105], calm, calm])
    const t2 = bars.t[2]
    // inside bar 2 the take profit (110) trades first, then the price falls to 94
    const detail = {
      minutes: (from: number) =>
        from === t2
          ? { t: Float64Array.of(t2, t2 + 60_000), o: Float64Array.of(100, 110), h: Float64Array.of(111, 110), l: Float64Array.of(100, 94), c: Float64Array.of(110, 95), from: 0, to: 2 }
          : null,
    }
    const sim = (markLow: number, over = p) => {
      const counts = { replayed: 0, leftToRule: 0 } as { replayed: number; leftToRule: number; markLeftToRule?: number }
      const mark: Row[] = [[100, 101, 99, 100], [100, 101, 99, 100], [100, 110.9, markLow, 105], calm, calm]
      const input = { symbol: 'TESTUSDT', bars, entry: maskOf(bars.n, 0), exit: null, fromIdx: 0, toIdx: bars.n - 1, funding: null, detail, mark: alignMark(bars, markOf(bars, mark)) }
      return { trade: simulateCoin(input, over, counts)[0], counts }
    }
    // the mark reaches the liquidation price (90.5) in a bar where the take profit was touched too: the mark bar decides, and it is counted
    const liq = sim(90)
    expect(liq.trade).toMatchObject({ exitReason: 'liquidation', exitPrice: 90.5, slTpSameBar: true })
    expect(liq.counts.markLeftToRule).toBe(1)
    // the mark stays clear of it: the minutes put the take profit before the stop (95)
    const tight = params({ leverage: 10, slPct: 5, tpPct: 10, execution: exec })
    const tp = sim(93, tight)
    expect(tp.trade).toMatchObject({ exitReason: 'tp', exitPrice: 110, exitResolution: 'detail' })
    expect(tp.counts.markLeftToRule).toBeUndefined()
    expect(tp.counts.replayed).toBe(1)
  })

  test('alignment: a bar without its mark candle keeps the last price; a 4-hour bar takes the mark of its four hours', () => {
    const bars = barsOf([[100, 101, 99, 100], [100, 101, 99, 100]])
    const m = alignMark(bars, { t: bars.t.slice(0, 1), o: Float64Array.of(99), h: Float64Array.of(102), l: Float64Array.of(98), c: Float64Array.of(100), n: 1 })
    expect([m.covered, m.l[0], m.l[1], m.h[0], m.h[1]]).toEqual([1, 98, 99, 102, 101])
    const four = barsOf([[100, 105, 95, 100]], 4 * HOUR_MS)
    const t0 = four.t[0]
    const hours = { t: Float64Array.of(t0, t0 + HOUR_MS, t0 + 2 * HOUR_MS, t0 + 3 * HOUR_MS), o: Float64Array.of(100, 101, 99, 98), h: Float64Array.of(102, 104, 100, 99), l: Float64Array.of(99, 100, 94, 97), c: Float64Array.of(101, 99, 98, 99), n: 4 }
    const m4 = alignMark(four, hours)
    expect([m4.covered, m4.o[0], m4.h[0], m4.l[0]]).toEqual([1, 100, 104, 94])
    const m3 = alignMark(four, { ...hours, n: 3 })
    expect([m3.covered, m3.l[0]]).toEqual([0, 95])
  })
})

describe('mark-price candles in the store', () => {
  let dataDir: string
  let fake: FakeBinance | undefined
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'perpsim-mark-'))
  })
  afterEach(async () => {
    await fake?.stop()
    fake = undefined
    rmSync(dataDir, { recursive: true, force: true })
  })

  const t0 = Date.UTC(2024, 0, 1)
  const klineLine = (i: number, o: number, h: number, l: number, c: number) => [t0 + i * HOUR_MS, o, h, l, c, 0, t0 + (i + 1) * HOUR_MS - 1, 0, 3600, 0, 0, 0].join(',')

  test('data import reads markPriceKlines (recognised by the path), keeps them, and they move the data version', async () => {
    const dir = join(dataDir, 'in', 'futures', 'um', 'monthly', 'markPriceKlines', 'BTCUSDT', '1h')
    mkdirSync(dir, { recursive: true })
    const header = 'open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore'
    writeFileSync(join(dir, 'BTCUSDT-1h-2024-01.csv'), [header, klineLine(0, 100, 101, 99, 100.5), klineLine(1, 100.5, 102, 100, 101), klineLine(2, 101, 101.5, 98, 99)].join('\n'))
    const store = CandleStore.open(join(dataDir, 'data'))
    const before = store.dataVersion()
    const report = await importPaths(store, [join(dataDir, 'in')])
    expect(report.failed).toBe(0)
    expect(report.markAppended).toBe(3)
    expect(report.files[0]).toMatchObject({ kind: 'mark', symbol: 'BTCUSDT', appended: 3 })
    expect(report.candlesAppended).toBe(0)
    expect(store.bars('BTCUSDT')).toBeUndefined()
    const m = store.mark('BTCUSDT')!
    expect([...m.t]).toEqual([t0, t0 + HOUR_MS, t0 + 2 * HOUR_MS])
    expect([...m.l]).toEqual([99, 100, 98])
    expect(store.dataVersion()).not.toBe(before)
    // stored: a reopened store has them; a second import appends nothing
    const again = CandleStore.open(join(dataDir, 'data'))
    expect([...again.mark('BTCUSDT')!.h]).toEqual([101, 102, 101.5])
    expect((await importPaths(again, [join(dataDir, 'in')])).markAppended).toBe(0)
  })

  test("a coin's mark candles enter its per-coin digest (what a queued task carries); other coins keep theirs", () => {
    const store = CandleStore.open(join(dataDir, 'data'))
    const n = 5
    const t = Float64Array.from({ length: n }, (_, i) => t0 + i * HOUR_MS)
    const px = new Float64Array(n).fill(100)
    store.appendCandles('BTCUSDT', [t, px, px, px, px, px], n)
    store.appendCandles('ETHUSDT', [t, px, px, px, px, px], n)
    const before = { btc: store.symbolRows('BTCUSDT')!.digest, eth: store.symbolRows('ETHUSDT')!.digest }
    store.appendMark('BTCUSDT', [t, px, px, px, px].map(c => c.subarray(0, 3)), 3)
    const once = store.symbolRows('BTCUSDT')!.digest
    expect(once).not.toBe(before.btc)
    expect(store.symbolRows('ETHUSDT')!.digest).toBe(before.eth)
    store.appendMark('BTCUSDT', [t, px, px, px, px].map(c => c.subarray(3)), 2)
    const whole = store.symbolRows('BTCUSDT')!.digest
    expect(whole).not.toBe(once)
    // a store whose mark candles reach past the coin's last candle is the same coin (they are never read)
    const later = Float64Array.from({ length: 2 }, (_, i) => t0 + (n + i) * HOUR_MS)
    store.appendMark('BTCUSDT', [later, px, px, px, px].map(c => c.subarray(0, 2)), 2)
    expect(store.symbolRows('BTCUSDT')!.digest).toBe(whole)
    // a worker's store one candle ahead, cut to the API's last candle, carries the API's digest
    const rows = store.symbolRowsWithin('BTCUSDT', t0 + (n - 2) * HOUR_MS, Infinity, [Infinity, Infinity])!
    store.appendCandles('BTCUSDT', [later, px, px, px, px, px].map(c => c.subarray(0, 1)), 1)
    expect(store.symbolRowsWithin('BTCUSDT', t0 + (n - 2) * HOUR_MS, Infinity, [Infinity, Infinity])!.digest).toBe(rows.digest)
  })

  test('mark-price minutes are refused with a reason: only their hours are kept', async () => {
    const dir = join(dataDir, 'in', 'markPriceKlines')
    mkdirSync(dir, { recursive: true })
    const row = (i: number) => [t0 + i * 60_000, 100, 101, 99, 100, 0, t0 + (i + 1) * 60_000 - 1, 0, 60, 0, 0, 0].join(',')
    writeFileSync(join(dir, 'ETHUSDT-1m-2024-01-01.csv'), [row(0), row(1)].join('\n'))
    const store = CandleStore.open(join(dataDir, 'data'))
    const report = await importPaths(store, [dir])
    expect(report.failed).toBe(1)
    expect(report.files[0].error!.reason).toContain('1h only')
    expect(store.mark('ETHUSDT')).toBeUndefined()
  })

  test('data sync --mark pages the closed mark-price hours through ccxt (fetchMarkOHLCV) and resumes', async () => {
    let nowMs = Date.UTC(2026, 10, 20, 12, 30)
    const start = Math.floor(nowMs / HOUR_MS) * HOUR_MS - 10 * 24 * HOUR_MS
    const hours = 10 * 24 + 5
    const candles = makeCandles(start, hours, 3, 100)
    const mark = candles.map(([t, o, h, l, c]) => [t, o, h + 0.01, l - 0.01, c])
    fake = startFakeBinance({ markets: [{ symbol: 'BTCUSDT', candles, funding: makeFunding(start, start + hours * HOUR_MS, 8, 1), mark }], now: () => nowMs })
    const store = CandleStore.open(dataDir)
    const sync = () => syncFromExchange(store, { baseUrl: fake!.url, now: () => nowMs, pageLimit: 100, retry: { retries: 1, baseDelayMs: 5 }, mark: true })
    const report = await sync()
    expect(report.failed).toBe(0)
    const closed = mark.filter(r => r[0] + HOUR_MS <= nowMs)
    const m = store.mark('BTCUSDT')!
    expect(Array.from({ length: m.n }, (_, i) => [m.t[i], m.o[i], m.h[i], m.l[i], m.c[i]])).toEqual(closed)
    expect(report.markAppended).toBe(closed.length)
    expect(fake.requests.some(r => r.path === '/fapi/v1/markPriceKlines')).toBe(true)
    // three hours later: only the three new closed hours are asked for and appended
    nowMs += 3 * HOUR_MS
    const before = fake.requests.length
    const next = await sync()
    expect(next.markAppended).toBe(3)
    const markCalls = fake.requests.slice(before).filter(r => r.path === '/fapi/v1/markPriceKlines')
    expect(markCalls.length).toBe(1)
    expect(Number(markCalls[0].query.startTime)).toBe(closed[closed.length - 1][0] + HOUR_MS)
    // without the option nothing of it is asked for
    const plain = CandleStore.open(mkdtempSync(join(tmpdir(), 'perpsim-mark-plain-')))
    const n0 = fake.requests.length
    await syncFromExchange(plain, { baseUrl: fake.url, now: () => nowMs, pageLimit: 100, retry: { retries: 1, baseDelayMs: 5 } })
    expect(fake.requests.slice(n0).some(r => r.path === '/fapi/v1/markPriceKlines')).toBe(false)
    expect(plain.mark('BTCUSDT')).toBeUndefined()
  })
})

describe('the hourly sync of a running service', () => {
  test('keeps the coins that have mark-price candles in step; the others get none', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 20, 12, 0, 10))
    const start = Date.UTC(2026, 10, 20, 12) - 5 * 24 * HOUR_MS
    const hours = 5 * 24 + 6
    const market = (symbol: string, seed: number) => {
      const candles = makeCandles(start, hours, seed, 100)
      return { symbol, candles, funding: makeFunding(start, start + hours * HOUR_MS, 8, seed), mark: candles.map(([t, o, h, l, c]) => [t, o, h + 0.01, l - 0.01, c]) }
    }
    const fake = startFakeBinance({ markets: [market('BTCUSDT', 1), market('ETHUSDT', 2)], now: () => clock.now() })
    const dir = mkdtempSync(join(tmpdir(), 'perpsim-mark-feed-'))
    try {
      const store = CandleStore.open(dir)
      await syncFromExchange(store, { baseUrl: fake.url, now: () => clock.now(), symbols: ['BTCUSDT', 'ETHUSDT'], retry: { retries: 1, baseDelayMs: 5 } })
      await syncFromExchange(store, { baseUrl: fake.url, now: () => clock.now(), symbols: ['BTCUSDT'], mark: true, retry: { retries: 1, baseDelayMs: 5 } })
      expect(store.mark('BTCUSDT')!.t.at(-1)).toBe(Date.UTC(2026, 10, 20, 11))
      const feed = exchangeFeed(store, clock, { baseUrl: fake.url, retry: { retries: 1, baseDelayMs: 5 } })
      clock.set(Date.UTC(2026, 10, 20, 14, 0, 10))
      const r = await feed.candles(clock.now())
      expect(r.failed).toBe(0)
      expect(store.lastCandleMs('BTCUSDT')).toBe(Date.UTC(2026, 10, 20, 13))
      expect(store.mark('BTCUSDT')!.t.at(-1)).toBe(Date.UTC(2026, 10, 20, 13))
      expect(store.mark('ETHUSDT')).toBeUndefined()
    } finally {
      await fake.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('data info', () => {
  test('shows how many coins have mark-price candles and each coin\'s coverage', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpsim-mark-info-'))
    try {
      const store = CandleStore.open(dir)
      const t0 = Date.UTC(2024, 0, 1)
      const n = 4
      const t = Float64Array.from({ length: n }, (_, i) => t0 + i * HOUR_MS)
      const px = new Float64Array(n).fill(100)
      store.appendCandles('BTCUSDT', [t, px, px, px, px, px], n)
      store.appendCandles('ETHUSDT', [t, px, px, px, px, px], n)
      store.appendMark('BTCUSDT', [t.subarray(1), px, px, px, px].map(c => c.subarray(0, 3)), 3)
      const p = Bun.spawnSync([process.execPath, 'src/cli.ts', 'data', 'info'], { cwd: join(import.meta.dir, '..'), env: { ...process.env, DATA_DIR: dir, OFFLINE: '1' }, stdout: 'pipe', stderr: 'pipe' })
      const out = p.stdout.toString()
      expect(p.exitCode).toBe(0)
      expect(out).toContain('mark price: 1 of 2 coins have 1h mark-price candles')
      const btc = out.split('\n').find(l => l.startsWith('BTCUSDT'))!
      expect(btc).toContain('3 h 2024-01-01 to 2024-01-01 (75.0 % of the candles\' hours)')
      expect(out.split('\n').find(l => l.startsWith('ETHUSDT'))).toContain(' - | ')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('/simulate on a store with mark-price candles for some coins', () => {
  const T0 = Date.UTC(2025, 0, 1)
  const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT']
  const withMark = makeHarness({
    fill: store => {
      fillWalkUniverse(store, COINS, T0, 150, 11)
      // the mark spikes 15 % above the last price's high every hour: a short at leverage 10 (liquidation 9.5 % away) is liquidated on it
      for (const s of ['BTCUSDT', 'ETHUSDT']) {
        const b = store.bars(s)!
        // BTCUSDT's mark candles stop after 100 of its 150 days
        const n = s === 'BTCUSDT' ? 100 * 24 : b.n
        const h = Float64Array.from(b.h.subarray(0, n), x => x * 1.15)
        store.appendMark(s, [b.t, b.o, h, b.l, b.c].map(c => c.slice(0, n)), n)
      }
    },
  })
  const lastOnly = makeHarness({ fill: store => fillWalkUniverse(store, COINS, T0, 150, 11) })
  afterAll(() => {
    withMark.cleanup()
    lastOnly.cleanup()
  })
  const body = { strategy: 'bb-squeeze-short', top_n: 535, leverage: 10, sl_pct: 20, slippage: 'none', margin: 'flat' }

  test('liquidation is tested on the mark where a coin has it, and the answer says which coins', async () => {
    const r = await withMark.req('/simulate', { method: 'POST', json: body })
    expect(r.status).toBe(200)
    expect(r.body.execution).toMatchObject({ liquidation_price_source: 'mixed', coins_mark_price: ['BTCUSDT', 'ETHUSDT'] })
    expect(r.body.warnings.some((w: string) => w.startsWith('liquidation: 2 coin(s) were tested on the mark price'))).toBe(true)
    // the 50 days of BTCUSDT past its last mark candle were tested on the last price, and the answer says so
    expect(r.body.warnings).toContain('liquidation: 1200 hour(s) of 1 coin(s) tested on the mark price have no mark-price candle in the window; their bars were tested on the last price')
    const plain = await lastOnly.req('/simulate', { method: 'POST', json: body })
    expect(plain.body.execution).toMatchObject({ liquidation_price_source: 'last', coins_mark_price: [] })
    type T = { symbol: string; exit_reason: string; entry_time: string; exit_time: string }
    const onMark = (b: { trades: T[] }) => b.trades.filter(t => t.symbol === 'BTCUSDT' || t.symbol === 'ETHUSDT')
    // ETHUSDT's short is liquidated by the mark's spike; on the last price it runs to its timeout
    expect(onMark(r.body).map(t => t.exit_reason)).toEqual(['liquidation'])
    expect(onMark(plain.body).map(t => t.exit_reason)).toEqual(['timeout'])
    expect(onMark(r.body)[0].exit_time < onMark(plain.body)[0].exit_time).toBe(true)
    // the coins without mark candles exit alike in both stores
    const others = (b: { trades: T[] }) => b.trades.filter(t => t.symbol === 'SOLUSDT' || t.symbol === 'XRPUSDT').map(t => [t.symbol, t.entry_time, t.exit_time, t.exit_reason])
    expect(others(r.body).length).toBe(4)
    expect(others(r.body)).toEqual(others(plain.body))
  })
})
