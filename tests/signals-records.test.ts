import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { scoredSignals, signals } from '../db/schema'
import { openDb } from '../src/db'
import { scanSignals } from '../src/live/signal-scan'
import { scoreSignals } from '../src/live/signal-score'
import { DAY_MS, HOUR_MS } from '../src/time'
import { latestScan, recordScan, type ScoredRow, type SignalRow } from '../src/records/signals'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const sig = (over: Partial<SignalRow> = {}): SignalRow => ({
  id: 'v1:ichimoku-long:1H:BTCUSDT:1000',
  strategy: 'ichimoku-long',
  strategyName: 'Ichimoku',
  status: 'verified',
  coin: 'BTCUSDT',
  direction: 'long',
  timeframe: '1H',
  signalBarMs: 1000,
  signalTimeMs: 1000 + HOUR_MS,
  entryPrice: 100,
  slPct: 6,
  tpPct: 10,
  maxBars: 96,
  publishedAtMs: 1000 + HOUR_MS,
  backfill: false,
  ...over,
})

const scored = (over: Partial<ScoredRow> = {}): ScoredRow => ({
  signalId: 'v1:ichimoku-long:1H:BTCUSDT:1000',
  engine: 'reference-engine-v2',
  status: 'open',
  exitReason: null,
  reason: null,
  entryTimeMs: 1000 + HOUR_MS,
  entryPrice: 100,
  pnlPct: 1.5,
  grossPct: null,
  feePct: null,
  fundingPct: null,
  exitPrice: null,
  exitTimeMs: null,
  barsHeld: null,
  slTpSameBar: null,
  feeFrac: 0.0005,
  leverage: 1,
  mmrFrac: 0.005,
  slPct: 6,
  tpPct: 10,
  maxBars: 96,
  fundingSource: 'binance-csv',
  fundingEvents: null,
  fundingEventsReal: null,
  markedThroughMs: 1000 + 2 * HOUR_MS,
  updatedAtMs: 0,
  finalizedAtMs: null,
  exitResolution: null,
  ...over,
})

describe('the database refuses to rewrite published records (SQLite triggers)', () => {
  const db = openDb(':memory:')
  afterAll(() => db.close())
  beforeAll(async () => {
    await db.orm.insert(signals).values(sig())
  })

  test('a recorded signal cannot be updated or deleted', async () => {
    await expect(db.rows(sql.raw(`UPDATE signals SET entry_price = 101`))).rejects.toThrow(/append-only/)
    await expect(db.rows(sql.raw(`DELETE FROM signals`))).rejects.toThrow(/append-only/)
    expect((await db.orm.select().from(signals))[0]!.entryPrice).toBe(100)
  })

  test('an open scored row may be re-marked; its frozen inputs may not change', async () => {
    await db.orm.insert(scoredSignals).values(scored())
    await db.rows(sql.raw(`UPDATE scored_signals SET pnl_pct = 2.5, marked_through_ms = marked_through_ms + 3600000`))
    expect((await db.orm.select().from(scoredSignals))[0]!.pnlPct).toBe(2.5)
    await expect(db.rows(sql.raw(`UPDATE scored_signals SET fee_frac = 0.001`))).rejects.toThrow(/frozen inputs/)
    await expect(db.rows(sql.raw(`UPDATE scored_signals SET engine = 'other'`))).rejects.toThrow(/frozen inputs/)
  })

  test('a final scored row cannot be updated or deleted, whatever the statement', async () => {
    await db.rows(sql.raw(`UPDATE scored_signals SET status = 'tp', exit_reason = 'tp', pnl_pct = 9.9, exit_price = 110, finalized_at_ms = 5`))
    await expect(db.rows(sql.raw(`UPDATE scored_signals SET pnl_pct = 0`))).rejects.toThrow(/never rewritten/)
    await expect(db.rows(sql.raw(`UPDATE scored_signals SET status = 'open'`))).rejects.toThrow(/never rewritten/)
    await expect(db.rows(sql.raw(`DELETE FROM scored_signals`))).rejects.toThrow(/never deleted/)
    await expect(db.rows(sql.raw(`INSERT OR REPLACE INTO scored_signals (signal_id, engine, status, entry_time_ms, entry_price, pnl_pct, fee_frac, leverage, mmr_frac, sl_pct, tp_pct, max_bars, funding_source, marked_through_ms, updated_at_ms) VALUES ('v1:ichimoku-long:1H:BTCUSDT:1000', 'x', 'open', 0, 0, 0, 0, 1, 0, 1, 1, 1, 'x', 0, 0)`))).rejects.toThrow()
    await expect(db.rows(sql.raw(`INSERT OR REPLACE INTO signals (id, strategy, strategy_name, status, coin, direction, timeframe, signal_bar_ms, signal_time_ms, entry_price, sl_pct, tp_pct, max_bars, published_at_ms, backfill) SELECT id, strategy, strategy_name, status, coin, direction, timeframe, signal_bar_ms, signal_time_ms, 1, sl_pct, tp_pct, max_bars, published_at_ms, backfill FROM signals`))).rejects.toThrow(/append-only/)
    const row = (await db.orm.select().from(scoredSignals))[0]!
    expect(row.status).toBe('tp')
    expect(row.pnlPct).toBe(9.9)
  })

  test('an unscoreable row is final too, and a legacy engine label is kept as written', async () => {
    await db.orm.insert(signals).values(sig({ id: 'legacy-1' }))
    await db.orm.insert(scoredSignals).values(scored({ signalId: 'legacy-1', engine: 'paper-tracker-v1', status: 'unscoreable', reason: 'x', finalizedAtMs: 1 }))
    await expect(db.rows(sql.raw(`UPDATE scored_signals SET engine = 'reference-engine-v2' WHERE signal_id = 'legacy-1'`))).rejects.toThrow()
    expect((await db.orm.select().from(scoredSignals).where(eq(scoredSignals.signalId, 'legacy-1')))[0]!.engine).toBe('paper-tracker-v1')
  })
})

describe('signals over HTTP', () => {
  const T0 = Date.UTC(2025, 0, 1)
  const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT']
  const NOW = T0 + 35 * DAY_MS + 10_000
  const h = makeHarness({ fill: store => fillWalkUniverse(store, COINS, T0, 35, 5), nowMs: NOW })
  afterAll(() => h.cleanup())
  let all: SignalRow[] = []
  beforeAll(async () => {
    await scanSignals(h.deps)
    await scoreSignals(h.deps)
    all = (await h.deps.db.orm.select().from(signals))
  })

  test('a store of completed candles only: the newest recordable signal bar is the one before the last candle', async () => {
    // the last candle opened at NOW − 1 h − 10 s: its open is the entry of the bar before it
    const newest = Math.max(...all.filter(s => s.timeframe === '1H').map(s => s.signalBarMs))
    expect(newest).toBeLessThanOrEqual(T0 + 35 * DAY_MS - 2 * HOUR_MS)
  })

  test('/signals/history lists every status from the database, newest first, within the hours asked', async () => {
    const r = await h.req('/signals/history?hours=72&limit=500')
    expect(r.status).toBe(200)
    const expected = all.filter(s => s.signalTimeMs >= NOW - 72 * HOUR_MS)
    expect(expected.length).toBeLessThanOrEqual(500)
    expect(r.body.total).toBe(expected.length)
    expect(r.body.count).toBe(expected.length)
    expect(r.body.signals.length).toBe(expected.length)
    expect(r.body.next_cursor).toBeNull()
    expect(new Set(r.body.signals.map((s: any) => s.status)).size).toBeGreaterThan(1)
    const times = r.body.signals.map((s: any) => s.signal_time)
    expect([...times].sort().reverse()).toEqual(times)
    expect(times[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/)
    const six = await h.req('/signals/history?hours=6')
    expect(six.body.total).toBe(all.filter(s => s.signalTimeMs >= NOW - 6 * HOUR_MS).length)
  })

  test('/signals/history pages: limit (default 200, 1–500) and an opaque cursor; the pages of one listing neither overlap nor shift', async () => {
    const first = await h.req('/signals/history?hours=72')
    expect(first.body.limit).toBe(200)
    expect(first.body.count).toBe(Math.min(200, first.body.total))
    const whole = (await h.req('/signals/history?hours=72&limit=500')).body.signals.map((s: any) => s.id)
    expect(whole.length).toBeGreaterThan(14)
    // a signal recorded between two pages (newer than all) changes no page of the listing
    const pages: string[] = []
    let cursor: string | null = null
    let n = 0
    do {
      const r: any = await h.req(`/signals/history?hours=72&limit=7${cursor ? `&cursor=${cursor}` : ''}`)
      expect(r.status).toBe(200)
      expect(r.body.count).toBeLessThanOrEqual(7)
      // total counts the window as it stands at each page (the late one, inside it, too)
      expect(r.body.total).toBe(whole.length + (n === 0 ? 0 : 1))
      pages.push(...r.body.signals.map((s: any) => s.id))
      cursor = r.body.next_cursor
      if (n++ === 0) (await h.deps.db.orm.insert(signals).values({ ...all[0]!, id: 'v1:late:4H:BTCUSDT:0', timeframe: '4H', signalBarMs: NOW - HOUR_MS, signalTimeMs: NOW - 1_000, publishedAtMs: NOW }))
    } while (cursor !== null && n < 100)
    expect(pages).toEqual(whole)
  })

  test('/signals/history: a bad limit or cursor is a 422 naming it, never a silent first page', async () => {
    const page = (await h.req('/signals/history?hours=72&limit=3')).body
    for (const [q, field] of [['limit=0', 'limit'], ['limit=501', 'limit'], ['limit=2.5', 'limit'], ['cursor=', 'cursor'], ['cursor=not-a-cursor!', 'cursor'], ['cursor=bm9wZQ', 'cursor'], [`hours=24&cursor=${page.next_cursor}`, 'cursor']] as const) {
      const r = await h.req(`/signals/history?${q}`)
      expect([q, r.status]).toEqual([q, 422])
      expect(r.body.detail[0].loc).toEqual(['query', field])
    }
    expect((await h.req(`/signals/history?hours=24&cursor=${page.next_cursor}`)).body.detail[0].msg).toContain('hours=72')
  })

  test('/signals/history: hours outside 1–72 is a 422 naming the field', async () => {
    for (const q of ['hours=0', 'hours=73', 'hours=x']) {
      const r = await h.req(`/signals/history?${q}`)
      expect(r.status).toBe(422)
      expect(JSON.stringify(r.body.detail)).toContain('hours')
    }
  })

  test('/signals/live: verified strategies at the newest scanned 1H bar, top_n 1–100', async () => {
    const newest = (await latestScan(h.deps.db, '1H'))!.signalBarMs
    expect(newest).toBe(T0 + 35 * DAY_MS - 2 * HOUR_MS)
    // verified signals on the newest bar for two coins, a testing one, and a verified one an hour older
    await h.deps.db.orm.insert(signals).values([
      sig({ id: 'live-btc', coin: 'BTCUSDT', signalBarMs: newest }),
      sig({ id: 'live-sol', coin: 'SOLUSDT', signalBarMs: newest }),
      sig({ id: 'live-testing', coin: 'ETHUSDT', signalBarMs: newest, status: 'testing', strategy: 'bb-squeeze-long' }),
      sig({ id: 'live-old', coin: 'ETHUSDT', signalBarMs: newest - HOUR_MS }),
    ])
    const expected = (await h.deps.db.orm.select().from(signals)).filter(s => s.timeframe === '1H' && s.status === 'verified' && s.signalBarMs === newest)
    const r = await h.req('/signals/live')
    expect(r.status).toBe(200)
    expect(r.body.length).toBe(expected.length)
    expect(r.body.map((s: any) => s.id)).toContain('live-btc')
    expect(r.body.map((s: any) => s.id)).not.toContain('live-testing')
    expect(r.body.map((s: any) => s.id)).not.toContain('live-old')
    for (const s of r.body) {
      expect(s.status).toBe('verified')
      for (const k of ['strategy', 'strategy_name', 'coin', 'direction', 'signal_time', 'entry_price', 'status', 'sl_pct', 'tp_pct']) expect(s).toHaveProperty(k)
    }
    // market-cap order, and top_n cuts the coins
    expect(r.body.map((s: any) => s.coin).indexOf('BTCUSDT')).toBeLessThan(r.body.map((s: any) => s.coin).indexOf('SOLUSDT'))
    const one = await h.req('/signals/live?top_n=1')
    expect(one.body.length).toBe(expected.filter(s => s.coin === 'BTCUSDT').length)
    expect(one.body.every((s: any) => s.coin === 'BTCUSDT')).toBe(true)
    expect((await h.req('/signals/live?top_n=0')).status).toBe(422)
    expect((await h.req('/signals/live?top_n=101')).status).toBe(422)
  })

  test('/signals/live is cached 5 minutes on the clock', async () => {
    const a = await h.req('/signals/live?top_n=2')
    await h.deps.db.orm.insert(signals).values(sig({ id: 'late', coin: 'BTCUSDT', signalBarMs: (await latestScan(h.deps.db, '1H'))!.signalBarMs, timeframe: '1H' }))
    expect((await h.req('/signals/live?top_n=2')).body).toEqual(a.body)
    h.clock.advance(5 * 60_000)
    const b = await h.req('/signals/live?top_n=2')
    expect(a.body.length).toBeGreaterThan(0)
    expect(b.body.length).toBe(a.body.length + 1)
    // a scan of a newer bar inside the 5 minutes shows at once: the cache is per scanned bar
    const scan = (await latestScan(h.deps.db, '1H'))!
    const newer = scan.signalBarMs + HOUR_MS
    await h.deps.db.orm.insert(signals).values(sig({ id: 'newer', coin: 'BTCUSDT', signalBarMs: newer, signalTimeMs: newer + HOUR_MS, timeframe: '1H' }))
    await recordScan(h.deps.db, { ...scan, signalBarMs: newer, scannedAtMs: h.clock.now() })
    h.clock.advance(60_000)
    expect((await h.req('/signals/live?top_n=2')).body.map((s: any) => s.id)).toEqual(['newer'])
  })

  test('/signals/scored: envelope, windows and the exact id lookup', async () => {
    const r = await h.req('/signals/scored?days=90&limit=500')
    expect(r.status).toBe(200)
    expect(r.body.as_of).toMatch(/Z$/)
    expect(r.body.signals.length).toBe(all.length) // every signal was scored (open or final)
    const item = r.body.signals.find((s: any) => s.status !== 'open')
    for (const k of ['strategy', 'strategy_name', 'coin', 'direction', 'entry_price', 'sl_pct', 'tp_pct', 'signal_time', 'status', 'pnl_pct', 'exit_price', 'exit_time', 'bars_held']) expect(item).toHaveProperty(k)
    expect(item.engine).toBe('reference-engine-v4')
    expect(item.frozen_inputs.fee_frac).toBe(0.0005)
    // rows of v4 show the execution they paid (issue 25), minute detail included, and how their exit was found
    // (this store has no minute detail: the bar rule); a v2 row's item has none
    expect(item.frozen_inputs.execution).toEqual({ slippage: 'impact', impact_k: 1, tp_order: 'market', liquidation_fee_pct: 1.25, margin: 'brackets', position_notional_usd: 60, intrabar: 'detail' })
    expect(item.exit_resolution).toBe(item.status === 'unscoreable' ? null : 'bar')
    expect((await h.req('/signals/scored?limit=3')).body.signals.length).toBe(3)
    const ids = [all[0]!.id, all[5]!.id]
    h.clock.advance(200 * DAY_MS) // far past every window: the exact lookup still finds them
    const exact = await h.req(`/signals/scored?limit=1&signal_ids=${encodeURIComponent(ids.join(','))}`)
    expect(exact.body.signals.map((s: any) => s.id).sort()).toEqual([...ids].sort())
    expect((await h.req('/signals/scored')).body.signals.length).toBe(0)
  })

  test('/signals/scored: days, limit and signal_ids out of range are 422s', async () => {
    for (const q of ['days=0', 'days=91', 'limit=0', 'limit=501', `signal_ids=${Array.from({ length: 501 }, (_, i) => `a${i}`).join(',')}`, 'signal_ids=a,,b']) {
      const r = await h.req(`/signals/scored?${q}`)
      expect(r.status).toBe(422)
      expect(JSON.stringify(r.body.detail)).toContain(q.split('=')[0]!)
    }
  })
})

describe('the published item of a scored signal and its engine (issue 25)', () => {
  test('a reference-engine-v2 row shows no execution: its item (and Merkle leaf) is what it was; a v3 row shows the execution it paid; a v4 row also its minute detail and exit_resolution', () => {
    const { scoredItem } = require('../src/records/scored-item') as typeof import('../src/records/scored-item')
    const v2 = scoredItem({ signal: sig(), scored: scored() })
    expect(Object.keys(v2.frozen_inputs)).toEqual(['fee_frac', 'leverage', 'mmr_frac', 'sl_pct', 'tp_pct', 'max_bars', 'market_type', 'funding_source'])
    const v3 = scoredItem({ signal: sig(), scored: scored({ engine: 'reference-engine-v3', leverage: 3 }) })
    expect((v3.frozen_inputs as { execution?: { position_notional_usd: number } }).execution?.position_notional_usd).toBe(180)
    // a v3 item keeps the keys it was published with: no intrabar, no exit_resolution
    expect(Object.keys((v3.frozen_inputs as { execution: object }).execution)).toEqual(['slippage', 'impact_k', 'tp_order', 'liquidation_fee_pct', 'margin', 'position_notional_usd'])
    expect('exit_resolution' in v3).toBe(false)
    const v4 = scoredItem({ signal: sig(), scored: scored({ engine: 'reference-engine-v4', status: 'sl', exitResolution: 'detail' }) })
    expect((v4.frozen_inputs as { execution: { intrabar?: string } }).execution.intrabar).toBe('detail')
    expect((v4 as { exit_resolution?: string | null }).exit_resolution).toBe('detail')
  })
})
