/**
 * The point-in-time universe on real Binance data: the 28-coin set (2020-10 → 2024-06)
 * and the recent 100-coin set (2025-09 → 2026-03) imported into one store with the
 * universe snapshot, ranked by their own volume (no market caps). On a small window (the
 * set of 2025-12-01, no rebalance) the test recomputes by hand: the set from the candles
 * (30 days of volume × close before the day), the survivorship lists against today's top N
 * (the snapshot's ranks), and the run itself as a run over the set's coins listed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { importPaths } from '../src/market/import-binance'
import { LIQUIDITY_DEAD_USD } from '../src/market/universe'
import { DAY_MS } from '../src/time'
import { makeHarness, type Harness } from './helpers/harness'
import { hasRealData, REAL_1H_DIR, REAL_FUNDING_DIR } from './helpers/real-data'
import { REAL_DATA_DIR } from './helpers/real-data-dir'

const UNIVERSE_CSV = join(REAL_DATA_DIR, 'universe-snapshot-2026-03-15.csv')
const RECENT_1H = join(REAL_DATA_DIR, 'binance-usdm-1h-recent')
const RECENT_FUNDING = join(REAL_DATA_DIR, 'binance-usdm-funding-recent')
const missing = !hasRealData() || !existsSync(RECENT_1H) || !existsSync(RECENT_FUNDING) || !existsSync(UNIVERSE_CSV)

const START = '2025-12-01'
const END = '2025-12-31'
const TOP_N = 20

describe.skipIf(missing)('point-in-time universe on the real 28 + recent 100 sets', () => {
  let h: Harness
  beforeAll(async () => {
    h = makeHarness({ nowMs: Date.parse('2026-03-19T21:00:00Z') })
    await importPaths(h.deps.store, [REAL_1H_DIR, REAL_FUNDING_DIR, RECENT_1H, RECENT_FUNDING, UNIVERSE_CSV])
  }, 120_000)
  afterAll(() => h?.cleanup())

  /** the set of START by hand: eligible coins with a candle the day before, by their 30-day quote volume */
  function setByHand(): string[] {
    const store = h.deps.store
    const day = Date.parse(`${START}T00:00:00Z`)
    const rows: { symbol: string; q: number }[] = []
    for (const meta of store.allMeta()) {
      if (meta.stablecoin || meta.assetClass !== 'crypto') continue
      const b = store.bars(meta.symbol)!
      const daily = new Map<number, number>()
      for (let i = 0; i < b.n; i++) {
        if (b.t[i] < day - 30 * DAY_MS || b.t[i] >= day) continue
        const d = Math.floor(b.t[i] / DAY_MS)
        daily.set(d, (daily.get(d) ?? 0) + b.v[i] * b.c[i])
      }
      if (!daily.has(day / DAY_MS - 1)) continue // did not trade the day before
      const sorted = [...daily.values()].sort((x, y) => x - y)
      const m = sorted.length >> 1
      const median = sorted.length % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2
      if (median < LIQUIDITY_DEAD_USD) continue
      rows.push({ symbol: meta.symbol, q: [...daily.values()].reduce((a, x) => a + x, 0) })
    }
    rows.sort((a, b) => b.q - a.q || a.symbol.localeCompare(b.symbol))
    return rows.slice(0, TOP_N).map(r => r.symbol)
  }

  test('the survivorship block, recomputed by hand on December 2025', async () => {
    const body = { strategy: 'bb-squeeze-short', top_n: TOP_N, start_date: START, end_date: END, rebalance: 'none' }
    const pit = await h.req('/simulate', { method: 'POST', json: body })
    expect(pit.status).toBe(200)
    // start_date is more than 30 days before the store's last candle: point_in_time by default
    expect(pit.body.universe_mode).toBe('point_in_time')
    const set = setByHand()
    expect(set.length).toBe(TOP_N)
    expect(set).toContain('BTCUSDT')
    // coins of the 28-coin set whose candles end in 2024 are in no set of 2025
    expect(set).not.toContain('MATICUSDT')
    expect(pit.body.coin_results.map((c: any) => c.symbol)).toEqual(set)

    // today's top N: the snapshot's market-cap ranks among today's eligible coins
    const today = (await h.req('/simulate', { method: 'POST', json: { ...body, universe: 'current', rebalance: undefined } })).body
    expect(today.universe_mode).toBe('current')
    const todaySet: string[] = today.coin_results.map((c: any) => c.symbol)
    expect(todaySet.length).toBe(TOP_N)
    expect(todaySet).toEqual(h.deps.universe.topN(TOP_N).map(c => c.meta.symbol))
    const sv = pit.body.survivorship
    expect(sv.coins_today_not_then).toEqual(todaySet.filter(s => !set.includes(s)))
    expect(sv.coins_then_not_today).toEqual(set.filter(s => !todaySet.includes(s)))
    expect(sv.coins_today_not_then.length).toBeGreaterThan(0) // the bias is there: today's ranks are not December's volume
    expect(sv.delisted_in_window).toEqual([])
    expect(sv.current_universe_result).toEqual({ total_return_pct: today.total_return_pct, win_rate: today.win_rate, profit_factor: today.profit_factor, total_trades: today.total_trades })

    // with one set over the whole window, the run is the run over the set's coins listed in its order
    const listed = (await h.req('/simulate', { method: 'POST', json: { ...body, rebalance: undefined, top_n: null, symbols: set } })).body
    expect(listed.universe_mode).toBeNull()
    for (const k of ['total_trades', 'win_rate', 'profit_factor', 'total_return_pct', 'max_drawdown_pct', 'sharpe_ratio'])
      expect([k, pit.body[k]]).toEqual([k, listed[k]])
    expect(pit.body.top_n_requested).toBe(TOP_N)
    expect(pit.body.coins_missing_data).toBe(0)
  }, 120_000)
})
