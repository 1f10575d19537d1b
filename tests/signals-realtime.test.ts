import { afterAll, describe, expect, test } from 'bun:test'
import { HOUR_MS } from '../src/time'
import { GROUPS, PERIODS } from '../src/records/rankings/configurations'
import { DayFiles, type DayFile, type GroupRanking } from '../src/records/rankings/day-files'
import type { RankedRow } from '../src/records/rankings/rank'
import { insertSignals, recordScan, signalId, type SignalRow } from '../src/records/signals'
import { getStrategy } from '../src/strategies/registry'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const T0 = Date.UTC(2025, 0, 1)
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT']
const BAR = Date.UTC(2025, 0, 20, 10)
const NOW = BAR + 2 * HOUR_MS + 10_000
const h = makeHarness({ fill: store => fillWalkUniverse(store, COINS, T0, 25, 3), nowMs: NOW })
afterAll(() => h.cleanup())

function signal(strategy: string, coin: string, barMs = BAR): SignalRow {
  const s = getStrategy(strategy)!
  return {
    id: signalId(strategy, '1H', coin, barMs), strategy, strategyName: s.name, status: s.status, coin, direction: s.direction, timeframe: '1H',
    signalBarMs: barMs, signalTimeMs: barMs + HOUR_MS, entryPrice: 100, slPct: s.sl_pct, tpPct: s.tp_pct, maxBars: s.max_bars, publishedAtMs: NOW, backfill: false,
  }
}

function row(strategy: string, timeframe: '1H' | '4H' | '1D', rank: number, pf: number, preset = '5-10-48'): RankedRow {
  const s = getStrategy(strategy)!
  return {
    configuration_id: `v1:${strategy}:${timeframe}:${preset}`, strategy, name_en: s.name, name_ko: null, direction: s.direction, status: s.status, timeframe,
    sl_pct: 5, tp_pct: 10, max_bars: 48, total_trades: 40, win_rate: 55, profit_factor: pf, pf_capped: false, total_return_pct: 12, sharpe_ratio: 1, max_drawdown_pct: 5,
    rank, eligible: true, previous_rank: null, previous_streak: null, rank_change: null, streak: 0,
  }
}

async function publishRanking(rows: RankedRow[]): Promise<void> {
  const empty: GroupRanking = { symbols: [], top_n_requested: null, eligible_universe: null, rows: [], weekly_best3: [] }
  const groups = (r: RankedRow[]) => Object.fromEntries(GROUPS.map(g => [g, g === 'top50' ? { ...empty, rows: r } : empty])) as DayFile['periods']['30d']['groups']
  const file: DayFile = {
    schema_version: 'rankings-1', rules_version: 'v1', date: '2025-01-20', generated_at: '2025-01-20T00:30:00Z', written_by: 'schedule', engine_version: 'x', data_version: 'x',
    previous_date: null, rules: {},
    periods: Object.fromEntries(PERIODS.map(p => [p, { start_date: '2024-12-21', end_date: '2025-01-19', groups: groups(p === '30d' ? rows : []) }])) as DayFile['periods'],
  }
  await new DayFiles(h.deps.db).publish(file, NOW)
}

describe('/signals/realtime (the contract rules 1–5)', () => {
  test('rule 4: an empty list before the scanner has scanned', async () => {
    const r = await h.req('/signals/realtime?max_results=9') // (its own cache entry)
    expect(r.status).toBe(200)
    expect(r.body).toEqual([])
  })

  test('rules 1–3: latest-candle signals whose ranking row has PF ≥ min_pf, 1H row first, else the best timeframe; at most max_results', async () => {
    await insertSignals(h.deps.db, [
      signal('ichimoku-long', 'BTCUSDT'),
      signal('ichimoku-long', 'ETHUSDT'),
      signal('macd-cross-short', 'BTCUSDT'),
      signal('supertrend-long', 'SOLUSDT'),
      signal('ma-cross-long', 'BTCUSDT'),
      signal('ichimoku-long', 'SOLUSDT', BAR - HOUR_MS), // an older candle: never listed
    ])
    await recordScan(h.deps.db, { timeframe: '1H', signalBarMs: BAR, scannedAtMs: NOW - 5_000, coins: 3, strategies: 28, signalsFound: 5 })
    // in rank order, as every day file stores its rows
    await publishRanking([
      row('macd-cross-short', '4H', 1, 3.2), // macd-cross-short has a 1H row too: that one counts
      row('ichimoku-long', '1H', 2, 2.6),
      row('supertrend-long', '4H', 3, 2.2), // no 1H row: its best timeframe
      row('ichimoku-long', '1H', 4, 1.9, '8-15-72'),
      row('macd-cross-short', '1H', 5, 1.4),
      row('supertrend-long', '1D', 6, 1.1),
    ])
    const r = await h.req('/signals/realtime?min_pf=2')
    expect(r.status).toBe(200)
    expect(r.body.map((s: any) => `${s.strategy}|${s.coin}|${s.ranking_timeframe}|${s.profit_factor}|${s.rank}`)).toEqual([
      'ichimoku-long|BTCUSDT|1H|2.6|2',
      'ichimoku-long|ETHUSDT|1H|2.6|2',
      'supertrend-long|SOLUSDT|4H|2.2|3',
    ])
    const first = r.body[0]
    expect(first).toMatchObject({ configuration_id: 'v1:ichimoku-long:1H:5-10-48', win_rate: 55, trades: 40, signal_time: '2025-01-20T11:00:00' })
    // the most max_results allows stays within the contract's ~50 KB
    expect(JSON.stringify(first).length * 50).toBeLessThan(50_000)
    const capped = await h.req('/signals/realtime?min_pf=1&max_results=2')
    expect(capped.body.length).toBe(2)
    const all = await h.req('/signals/realtime?min_pf=1&max_results=10')
    expect(all.body.map((s: any) => s.strategy)).toContain('macd-cross-short')
    expect(all.body.find((s: any) => s.strategy === 'macd-cross-short').ranking_timeframe).toBe('1H')
    expect(all.body.map((s: any) => s.strategy)).not.toContain('ma-cross-long') // not in the ranking
  })

  test('rule 5: cached 5 minutes; rule 4: empty once the scanner has gone cold', async () => {
    const a = await h.req('/signals/realtime?min_pf=2')
    await insertSignals(h.deps.db, [signal('ichimoku-long', 'SOLUSDT')])
    h.clock.advance(4 * 60_000)
    expect((await h.req('/signals/realtime?min_pf=2')).body).toEqual(a.body)
    h.clock.advance(2 * 60_000)
    expect((await h.req('/signals/realtime?min_pf=2')).body.length).toBe(a.body.length + 1)
    h.clock.advance(3 * HOUR_MS) // no scan for three hours
    expect((await h.req('/signals/realtime?min_pf=2')).body).toEqual([])
  })

  test('out-of-range parameters are 422s', async () => {
    for (const q of ['min_pf=-1', 'min_pf=x', 'max_results=0', 'max_results=51']) expect((await h.req(`/signals/realtime?${q}`)).status).toBe(422)
  })
})
