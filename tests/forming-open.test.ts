/**
 * The forming candle's open (docs/signals.md "When it is recorded"): the store keeps the
 * open of the hour now forming, the scanner records a signal of the bar that just closed
 * at once with that open as its entry price, and the scorer waits for the entry candle
 * instead of calling the signal unscoreable.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { scoredSignals } from '../db/schema'
import { scanSignals } from '../src/live/signal-scan'
import { scoreSignals } from '../src/live/signal-score'
import { CandleStore, StoreError } from '../src/market/candle-store'
import { resample } from '../src/market/resample'
import { type Bars } from '../src/market/types'
import { DAY_MS, HOUR_MS } from '../src/time'
import { signalsSince, type SignalRow } from '../src/records/signals'
import { newestSignalBar, nextOpen } from '../src/runs/compute/signal-tasks'
import { makeHarness, tempDir, walkCandles } from './helpers/harness'

const T0 = Date.UTC(2025, 0, 1)

function barsOf(cols: number[][], n = cols[0]!.length): Bars {
  const [t, o, h, l, c, v] = cols.map(col => Float64Array.from(col.slice(0, n)))
  return { t: t!, o: o!, h: h!, l: l!, c: c!, v: v!, n, stepMs: HOUR_MS }
}

describe('the store', () => {
  const dir = tempDir()
  const store = CandleStore.open(dir)
  const cols = walkCandles(48, T0, 3)
  store.appendCandles('BTCUSDT', cols.map(c => c.slice(0, 47)), 47)
  const nextMs = T0 + 47 * HOUR_MS

  test('keeps the open of the candle after its last one, and refuses anything else', async () => {
    expect(store.formingOpen('BTCUSDT')).toBeUndefined()
    expect(() => store.setFormingOpen('BTCUSDT', nextMs + HOUR_MS, 100)).toThrow(StoreError)
    expect(() => store.setFormingOpen('BTCUSDT', nextMs - HOUR_MS, 100)).toThrow(StoreError)
    expect(() => store.setFormingOpen('ETHUSDT', T0, 100)).toThrow(StoreError)
    for (const bad of [0, -1, NaN, Infinity]) expect(() => store.setFormingOpen('BTCUSDT', nextMs, bad)).toThrow(/positive price/)
    store.setFormingOpen('BTCUSDT', nextMs, cols[1]![47]!)
    expect(store.formingOpen('BTCUSDT')).toEqual({ t: nextMs, o: cols[1]![47]! })
  })

  test('lapses once that candle is stored, and is not written to disk', async () => {
    expect(CandleStore.open(dir).formingOpen('BTCUSDT')).toBeUndefined()
    store.appendCandles('BTCUSDT', cols.map(c => c.slice(47)), 1)
    expect(store.formingOpen('BTCUSDT')).toBeUndefined()
  })
})

describe('the newest recordable bar and its entry price', () => {
  const cols = walkCandles(12, T0, 5) // 00:00 … 11:00
  const bars = barsOf(cols)
  const closeOfLast = T0 + 12 * HOUR_MS
  const forming = { t: closeOfLast, o: 123.5 }

  test('completed candles only: the bar before the last (its next open is stored)', async () => {
    expect(newestSignalBar(bars, closeOfLast + 10_000)).toBe(10)
    expect(nextOpen(bars, 10)).toBe(bars.o[11]!)
    expect(nextOpen(bars, 11)).toBeNaN()
  })

  test('with the forming open: the last bar, entering at that open', async () => {
    expect(newestSignalBar(bars, closeOfLast + 10_000, forming)).toBe(11)
    expect(nextOpen(bars, 11, forming)).toBe(123.5)
    // a forming candle that does not follow the series, or has not opened by now, does not count
    expect(newestSignalBar(bars, closeOfLast + 10_000, { t: closeOfLast + HOUR_MS, o: 1 })).toBe(10)
    expect(newestSignalBar(bars, closeOfLast - 1, forming)).toBe(10)
    expect(nextOpen(bars, 11, { t: closeOfLast + HOUR_MS, o: 1 })).toBeNaN()
  })

  test("on 4H the forming hour that opens the next 4H bar is that bar's open", () => {
    const h4 = resample(bars, '4H') // 00:00, 04:00, 08:00 (complete through 11:00)
    expect(h4.n).toBe(3)
    expect(newestSignalBar(h4, closeOfLast + 10_000)).toBe(1)
    expect(newestSignalBar(h4, closeOfLast + 10_000, forming)).toBe(2)
    expect(nextOpen(h4, 2, forming)).toBe(123.5)
    // 13:00 forming: the 12:00 bucket is unfinished and dropped, and 13:00 opens nothing on 4H
    const more = barsOf(walkCandles(13, T0, 5))
    expect(newestSignalBar(resample(more, '4H'), closeOfLast + HOUR_MS + 10_000, { t: closeOfLast + HOUR_MS, o: 1 })).toBe(1)
  })
})

describe('scan and score with the forming open', () => {
  const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT']
  const DAYS = 40
  const n = 24 * DAYS
  const all = COINS.map((_, k) => walkCandles(n + 1, T0, 77 + k))
  // everything but the last candle is stored; the last one is forming
  const h = makeHarness({
    fill: store => {
      COINS.forEach((s, k) => store.appendCandles(s, all[k]!.map(c => c.slice(0, n)), n))
      store.upsertMeta(COINS.map((symbol, k) => ({ symbol, name: symbol, rank: k + 1, stablecoin: false, assetClass: 'crypto' as const, listingMs: T0 })), 'binance-csv')
    },
  })
  afterAll(() => h.cleanup())
  const closeMs = T0 + n * HOUR_MS
  let fresh: SignalRow[] = []

  beforeAll(async () => {
    // the first scan (72-hour backfill) without forming opens, so the newest bar waits
    h.clock.set(closeMs - HOUR_MS + 10_000)
    await scanSignals(h.deps)
    const before = new Set((await signalsSince(h.deps.db, 0)).map(s => s.id))
    h.clock.set(closeMs + 10_000)
    COINS.forEach((s, k) => h.deps.store.setFormingOpen(s, closeMs, all[k]![1]![n]!))
    await scanSignals(h.deps)
    fresh = (await signalsSince(h.deps.db, 0)).filter(s => !before.has(s.id))
    await scoreSignals(h.deps)
  })

  test('the bar that just closed is recorded at once, entering at the forming open', async () => {
    const lastBar = closeMs - HOUR_MS
    const hourly = fresh.filter(s => s.timeframe === '1H' && s.signalBarMs === lastBar)
    expect(hourly.length).toBeGreaterThan(0)
    for (const s of hourly) {
      expect(s.signalTimeMs).toBe(closeMs)
      expect(s.publishedAtMs - s.signalTimeMs).toBe(10_000)
      expect(s.backfill).toBe(false)
      expect(s.entryPrice).toBe(all[COINS.indexOf(s.coin)]![1]![n]!)
    }
    // the day closed at 00:00 too: the 4H and 1D bars that ended there are live as well
    expect(closeMs % DAY_MS).toBe(0)
    for (const tf of ['4H', '1D'] as const) for (const s of fresh.filter(x => x.timeframe === tf && x.signalTimeMs === closeMs)) expect(s.backfill).toBe(false)
  })

  test('the scorer waits for the entry candle: open, no P&L yet, not unscoreable', async () => {
    const rows = (await h.deps.db.orm.select().from(scoredSignals))
    for (const s of fresh.filter(x => x.signalTimeMs === closeMs)) {
      const r = rows.find(x => x.signalId === s.id)!
      expect(r.status).toBe('open')
      expect(r.pnlPct).toBe(0)
      expect(r.markedThroughMs).toBe(closeMs)
    }
  })

  test('once the entry candle is stored the signal is followed like any other; a different open makes it unscoreable', async () => {
    // BTC's entry candle arrives as announced; ETH's opens elsewhere than its forming open said
    COINS.forEach((s, k) => {
      const c = all[k]!.map(col => col.slice(n))
      if (s === 'ETHUSDT') c[1]![0] = c[1]![0]! * 1.001
      h.deps.store.appendCandles(s, c, 1)
    })
    h.clock.set(closeMs + HOUR_MS + 10_000)
    await scoreSignals(h.deps)
    const rows = (await h.deps.db.orm.select().from(scoredSignals))
    const of = (coin: string) => fresh.filter(x => x.coin === coin && x.timeframe === '1H' && x.signalTimeMs === closeMs).map(s => rows.find(r => r.signalId === s.id)!)
    const btc = of('BTCUSDT'), eth = of('ETHUSDT')
    expect(btc.length).toBeGreaterThan(0)
    expect(eth.length).toBeGreaterThan(0)
    for (const r of btc) {
      expect(r.status).not.toBe('unscoreable')
      expect(r.markedThroughMs).toBe(closeMs + HOUR_MS)
    }
    for (const r of eth) {
      expect(r.status).toBe('unscoreable')
      expect(r.reason).toContain('not at the recorded')
    }
  })
})

describe('higher timeframes started mid-bar', () => {
  // 40 days and 5 hours: the last 1H candle opens 04:00 of day 41 and closes 05:00
  const COINS = ['BTCUSDT', 'ETHUSDT']
  const n = 40 * 24 + 5
  const all = COINS.map((_, k) => walkCandles(n, T0, 91 + k))
  const h = makeHarness({
    fill: store => {
      COINS.forEach((s, k) => store.appendCandles(s, all[k]!, n))
      store.upsertMeta(COINS.map((symbol, k) => ({ symbol, name: symbol, rank: k + 1, stablecoin: false, assetClass: 'crypto' as const, listingMs: T0 })), 'binance-csv')
    },
    nowMs: T0 + n * HOUR_MS + 10_000,
  })
  afterAll(() => h.cleanup())

  test("the newest 4H and 1D bars are recorded at once: their next bar's first hour is stored", async () => {
    const day41 = T0 + 40 * DAY_MS
    const report = await scanSignals(h.deps)
    const tf = (x: string) => report.timeframes.find(r => r.timeframe === x)!
    expect(tf('4H').signalBarMs).toBe(day41) // 00:00–04:00; the 04:00 bar is unfinished
    expect(tf('1D').signalBarMs).toBe(day41 - DAY_MS)
    const rows = (await signalsSince(h.deps.db, 0)).filter(s => s.timeframe !== '1H')
    expect(rows.length).toBeGreaterThan(0)
    for (const s of rows) {
      const k = COINS.indexOf(s.coin)
      expect(s.entryPrice).toBe(all[k]![1]![(s.signalTimeMs - T0) / HOUR_MS]!)
      expect(s.backfill).toBe(s.signalBarMs < (s.timeframe === '4H' ? day41 : day41 - DAY_MS))
    }
  })
})
