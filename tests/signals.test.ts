import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { scoredSignals, signals } from '../db/schema'
import { compiledStrategy, entryMask, exitMask, scanSignals } from '../src/live/signal-scan'
import { scoreSignals } from '../src/live/signal-score'
import { HOUR_MS, DAY_MS } from '../src/time'
import { latestScan, signalsSince, type SignalRow } from '../src/records/signals'
import { listStrategies } from '../src/strategies/registry'
import { fillWalkUniverse, makeHarness } from './helpers/harness'
import { walkCandles } from './helpers/fixtures'

const T0 = Date.UTC(2025, 0, 1)
const DAYS = 40
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT']
/** the simulated week: its first scan at WEEK_START (a fresh store: 72 h backfill), then hourly */
const WEEK_START = T0 + 32 * DAY_MS
const WEEK_END = WEEK_START + 7 * DAY_MS

const h = makeHarness({ fill: store => fillWalkUniverse(store, COINS, T0, DAYS, 21), nowMs: WEEK_START })
afterAll(() => h.cleanup())

const deps = () => ({ ...h.deps, clock: h.clock })
let week: SignalRow[] = []

beforeAll(async () => {
  // the store already holds candles past the clock: the scanner must only see completed ones
  for (let t = WEEK_START; t <= WEEK_END; t += HOUR_MS) {
    h.clock.set(t + 10_000)
    await scanSignals(deps())
    await scoreSignals(deps())
  }
  week = await signalsSince(h.deps.db, 0)
}, 60_000)

describe('the scanner', () => {
  test('finds signals of every timeframe and records each once', async () => {
    expect(week.length).toBeGreaterThan(50)
    expect(new Set(week.map(s => s.id)).size).toBe(week.length)
    for (const tf of ['1H', '4H', '1D']) expect(week.some(s => s.timeframe === tf)).toBe(true)
  })

  // this fixture store already holds the bars after the clock, like a store that keeps the
  // forming candle: the entry bar's open is known the moment it opens
  test('a signal is recorded once its bar has closed and the next bar has opened, never earlier', async () => {
    for (const s of week) {
      const step = s.timeframe === '1H' ? HOUR_MS : s.timeframe === '4H' ? 4 * HOUR_MS : DAY_MS
      expect(s.signalTimeMs).toBe(s.signalBarMs + step)
      expect(s.publishedAtMs).toBeGreaterThanOrEqual(s.signalTimeMs)
      expect(s.id).toBe(`v1:${s.strategy}:${s.timeframe}:${s.coin}:${s.signalBarMs}`)
    }
  })

  test('the first scan backfills 72 hours and says so; later scans record the newest bar', async () => {
    const first = week.filter(s => s.publishedAtMs === WEEK_START + 10_000)
    expect(first.length).toBeGreaterThan(0)
    expect(Math.min(...first.map(s => s.signalTimeMs))).toBeGreaterThanOrEqual(WEEK_START - 72 * HOUR_MS)
    expect(first.filter(s => s.timeframe === '1H').every(s => s.backfill === (s.signalBarMs < WEEK_START - HOUR_MS))).toBe(true)
    const later1H = week.filter(s => s.publishedAtMs > WEEK_START + HOUR_MS && s.timeframe === '1H')
    expect(later1H.length).toBeGreaterThan(0)
    expect(later1H.every(s => !s.backfill && s.signalBarMs === Math.floor(s.publishedAtMs / HOUR_MS) * HOUR_MS - HOUR_MS)).toBe(true)
  })

  test('a second scan of the same hour adds nothing', async () => {
    const before = (await signalsSince(h.deps.db, 0)).length
    expect((await scanSignals(deps())).added).toBe(0)
    expect((await signalsSince(h.deps.db, 0)).length).toBe(before)
  })

  test('entry_price is the open of the bar after the signal bar', async () => {
    for (const s of week.filter(x => x.timeframe === '1H').slice(0, 40)) {
      const bars = h.deps.store.bars(s.coin)!
      const e = (s.signalTimeMs - bars.t[0]) / HOUR_MS
      expect(bars.t[e]).toBe(s.signalTimeMs)
      expect(s.entryPrice).toBe(bars.o[e])
    }
  })
})

describe('masks', () => {
  test("a strategy's masks from its long/short pair compiled together are its own masks, byte for byte", () => {
    for (const coin of COINS) {
      const bars = h.deps.store.bars(coin)!
      for (const s of listStrategies()) {
        const own = compiledStrategy(s).signals(bars)
        expect(Buffer.from(entryMask(s, bars)).equals(Buffer.from(own.entry))).toBe(true)
        const exit = exitMask(s, bars)
        if (own.exit === null) expect(exit).toBeNull()
        else expect(Buffer.from(exit!).equals(Buffer.from(own.exit))).toBe(true)
      }
    }
  })
})

describe('signals = the entries /simulate/coin finds, both ways, over the week', () => {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  const strategies = listStrategies()
  test.each(COINS)('%s', async coin => {
    let entries = 0
    let matched = 0
    for (const s of strategies) {
      // signal bars inside the week's full UTC days, with the entry bar before the last bar
      const fromMs = Date.UTC(2025, 0, 1) + 30 * DAY_MS
      const toDayMs = WEEK_END - DAY_MS - (WEEK_END % DAY_MS)
      const r = await h.req('/simulate/coin', {
        method: 'POST',
        json: { symbol: coin, strategy: s.id, sl_pct: s.sl_pct, tp_pct: s.tp_pct, max_bars: s.max_bars, start_date: day(fromMs), end_date: day(toDayMs) },
      })
      expect(r.status).toBe(200)
      const lastBarMs = toDayMs + DAY_MS - HOUR_MS
      const sigs = week.filter(x => x.coin === coin && x.strategy === s.id && x.timeframe === '1H' && x.signalBarMs >= fromMs && x.signalBarMs < lastBarMs)
      const bySignalTime = new Map(sigs.map(x => [x.signalTimeMs, x]))
      // 1. every backtest entry is a recorded signal with the same entry price
      const trades = r.body.trades as { entry_time: string; exit_time: string; entry_price: number; exit_reason: string }[]
      const held: [number, number][] = []
      for (const tr of trades) {
        const entryMs = Date.parse(tr.entry_time)
        if (entryMs - HOUR_MS < WEEK_START - 72 * HOUR_MS) continue // before the backfill reach
        const sig = bySignalTime.get(entryMs)
        expect(sig).toBeDefined()
        expect(sig!.entryPrice).toBe(tr.entry_price)
        entries++
        // the bar in which the exit filled: a fill at an open is at that bar's open time,
        // inside a bar at its middle, at a close at the next bar's open time
        const exitMs = Date.parse(tr.exit_time)
        const exitBar = exitMs % HOUR_MS !== 0 ? Math.floor(exitMs / HOUR_MS) * HOUR_MS : tr.exit_reason === 'timeout' || tr.exit_reason === 'end_of_data' ? exitMs - HOUR_MS : exitMs
        held.push([entryMs - HOUR_MS, exitBar])
      }
      // 2. every signal on a bar where the backtest holds no position is a backtest entry
      for (const sig of sigs) {
        if (sig.signalBarMs < WEEK_START - 72 * HOUR_MS) continue
        const busy = held.some(([sigBar, exitBar]) => sig.signalBarMs > sigBar && sig.signalBarMs < exitBar)
        if (busy) continue
        expect(trades.some(tr => Date.parse(tr.entry_time) === sig.signalTimeMs)).toBe(true)
        matched++
      }
    }
    expect(entries).toBeGreaterThan(0)
    expect(matched).toBe(entries)
  })
})

describe('the scorer', () => {
  test('a closed result equals, field for field, the /simulate/coin trade of that entry', async () => {
    const rows = (await h.deps.db.orm.select().from(scoredSignals).innerJoin(signals, eq(signals.id, scoredSignals.signalId)))
    const closed = rows.filter(r => ['tp', 'sl', 'timeout', 'liquidation'].includes(r.scored_signals.status) && r.signals.timeframe === '1H')
    expect(closed.length).toBeGreaterThan(20)
    let compared = 0
    const cache = new Map<string, any[]>()
    for (const { signals: s, scored_signals: sc } of closed) {
      const key = `${s.strategy}|${s.coin}`
      if (!cache.has(key)) {
        const r = await h.req('/simulate/coin', { method: 'POST', json: { symbol: s.coin, strategy: s.strategy, sl_pct: s.slPct, tp_pct: s.tpPct, max_bars: s.maxBars } })
        cache.set(key, r.body.trades)
      }
      const tr = cache.get(key)!.find(t => Date.parse(t.entry_time) === s.signalTimeMs)
      if (!tr) continue // the backtest was in a position at this signal
      compared++
      expect(sc.entryPrice).toBe(tr.entry_price)
      expect(sc.exitPrice).toBe(tr.exit_price)
      expect(new Date(sc.exitTimeMs!).toISOString().replace('.000Z', 'Z')).toBe(tr.exit_time)
      expect(sc.barsHeld).toBe(tr.bars_held)
      expect(sc.exitReason).toBe(tr.exit_reason)
      expect(Math.round(sc.pnlPct * 1e6) / 1e6).toBe(tr.pnl_pct)
      expect(Math.round(sc.feePct! * 1e6) / 1e6).toBe(tr.fee_pct)
      expect(Math.round(sc.fundingPct! * 1e6) / 1e6).toBe(tr.funding_pct)
      expect(sc.status === 'liquidation' ? 'sl' : sc.status).toBe(tr.result)
    }
    expect(compared).toBeGreaterThan(10)
  })

  test('an open row reports the gross move to the last completed close; its frozen inputs are stored', async () => {
    const open = (await h.deps.db.orm.select().from(scoredSignals).innerJoin(signals, eq(signals.id, scoredSignals.signalId)).where(eq(scoredSignals.status, 'open')))
    expect(open.length).toBeGreaterThan(0)
    for (const { signals: s, scored_signals: sc } of open.filter(r => r.signals.timeframe === '1H')) {
      const bars = h.deps.store.bars(s.coin)!
      const last = (sc.markedThroughMs - HOUR_MS - bars.t[0]) / HOUR_MS
      const sign = s.direction === 'long' ? 1 : -1
      expect(sc.pnlPct).toBeCloseTo(sign * (bars.c[last] / s.entryPrice - 1) * 100, 10)
      expect(sc.feeFrac).toBe(0.0005)
      expect(sc.leverage).toBe(1)
      expect(sc.slPct).toBe(s.slPct)
      expect(sc.engine).toBe('reference-engine-v4')
      expect(sc.exitResolution).toBeNull()
    }
  })

  test('every signal has a scored row', async () => {
    const n = (await h.deps.db.orm.select().from(scoredSignals)).length
    expect(n).toBe((await signalsSince(h.deps.db, 0)).length)
  })
})

describe('the scan on the worker pool', () => {
  test('records exactly what the scan on this thread records', async () => {
    const fill = (store: any) => fillWalkUniverse(store, COINS, T0, DAYS, 21)
    const pool = makeHarness({ fill, nowMs: WEEK_START + 10_000, workers: 2 })
    const here = makeHarness({ fill, nowMs: WEEK_START + 10_000 })
    try {
      const a = await scanSignals(pool.deps)
      // the same scan without the run service: coin by coin on this thread
      const { runs: _runs, ...noPool } = here.deps
      const b = await scanSignals(noPool)
      expect(a.added).toBeGreaterThan(0)
      expect(a.added).toBe(b.added)
      const rows = async (x: typeof pool) => (await signalsSince(x.deps.db, 0)).map(s => `${s.id}|${s.entryPrice}|${s.backfill}`).sort()
      expect(await rows(pool)).toEqual(await rows(here))
    } finally {
      pool.cleanup()
      here.cleanup()
    }
  }, 60_000)
})

describe('the scan on the worker pool, as candles arrive', () => {
  test('a scan right after an append sees the appended candle', async () => {
    const cols = COINS.map((_, k) => walkCandles(24 * DAYS, T0, 61 + k))
    const upTo = (store: any, n: number) =>
      COINS.forEach((s, k) => {
        const have = store.bars(s)?.n ?? 0
        if (n > have) store.appendCandles(s, cols[k]!.map(c => c.slice(have, n)), n - have)
      })
    const n0 = 24 * 30
    const pool = makeHarness({
      fill: store => {
        upTo(store, n0)
        store.upsertMeta(COINS.map((symbol, k) => ({ symbol, name: symbol, rank: k + 1, stablecoin: false, assetClass: 'crypto', listingMs: T0 })), 'binance-csv')
      },
      nowMs: T0 + n0 * HOUR_MS + 10_000,
      workers: 2,
    })
    try {
      await scanSignals(pool.deps)
      const before = (await latestScan(pool.deps.db, '1H'))!.signalBarMs
      upTo(pool.deps.store, n0 + 1)
      pool.clock.advance(HOUR_MS)
      await scanSignals(pool.deps)
      expect((await latestScan(pool.deps.db, '1H'))!.signalBarMs).toBe(before + HOUR_MS)
    } finally {
      pool.cleanup()
    }
  }, 60_000)
})
