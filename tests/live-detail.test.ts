/**
 * The scorer and the paper trader under `reference-engine-v4` (issue 25 §4; docs/signals.md
 * "The scorer", docs/paper-trading.md): a row first written, or a position opened, under v4
 * resolves the bars whose exit depends on the path inside them by the coin's minutes, as
 * /simulate does by default, and says so (`exit_resolution`); a row or position of v3 keeps
 * the bar rule to its end. On a synthetic store (every coin has derived minutes), with
 * signals at the entries /simulate/coin finds for mean-reversion-short at SL 1 % / TP 1.5 %
 * (tight enough that some bars touch both levels), each published item is re-verified
 * against /simulate/coin's trade for that entry: with the default intrabar for v4, with
 * intrabar "bar" for v3.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { runPaper, STARTING_CAPITAL, SLOTS } from '../src/live/paper-trader'
import { scoreSignals } from '../src/live/signal-score'
import { generateSyntheticUniverse } from '../src/market/synthetic'
import { positionItem, positionsOfCycle } from '../src/records/paper'
import { GROUPS, PERIODS } from '../src/records/rankings/configurations'
import { DayFiles, type DayFile, type GroupRanking } from '../src/records/rankings/day-files'
import type { RankedRow } from '../src/records/rankings/rank'
import { ENGINE_V3, ENGINE_V4 } from '../src/records/scoring-execution'
import { insertSignals, saveScored, signalId, type ScoredRow, type SignalRow } from '../src/records/signals'
import { getStrategy } from '../src/strategies/registry'
import { DAY_MS, HOUR_MS, isoDay } from '../src/time'
import { makeHarness } from './helpers/harness'

const NOW = Date.UTC(2026, 10, 22)
const STRATEGY = 'mean-reversion-short'
const SL = 1
const TP = 1.5
/** the first signal's entry */
const FIRST = NOW - 45 * DAY_MS
/** the paper cycle's first day */
const D0 = NOW - 29 * DAY_MS
const h = makeHarness({ nowMs: D0, fill: store => generateSyntheticUniverse(store, { coins: 12, days: 60, seed: 5, endMs: NOW }) })
afterAll(() => h.cleanup())
const strategy = getStrategy(STRATEGY)!

interface Trade {
  entry_time: string
  exit_time: string
  entry_price: number
  exit_price: number
  exit_reason: string
  exit_resolution: 'detail' | 'bar'
  bars_held: number
  pnl_pct: number
  fee_pct: number
  funding_pct: number
  sl_tp_same_bar: boolean
}
/** /simulate/coin's trades (60 USD) and /simulate's on one coin (a paper slot's margin) by coin and entry instant, per intrabar mode and position margin */
const trades = new Map<string, Map<number, Trade>>()
const tradeOf = (intrabar: 'detail' | 'bar', usd: number, coin: string, entryMs: number) => trades.get(`${intrabar}|${usd}|${coin}`)!.get(entryMs)

/** the entries whose exit the minutes change, in time order */
const changed: { coin: string; entryMs: number }[] = []
/** the signals the scorer had written (open) under v3 when the label changed: those published before the change */
const v3Ids = new Set<string>()
let paperV3: { coin: string; entryMs: number } | null = null
const ids: string[] = []

const same = (a: Trade, b: Trade) => a.exit_time === b.exit_time && a.exit_price === b.exit_price && a.exit_reason === b.exit_reason

beforeAll(async () => {
  const signals: SignalRow[] = []
  for (const coin of h.deps.store.symbols()) {
    for (const intrabar of ['detail', 'bar'] as const)
      for (const usd of [60, 1000]) {
        // /simulate/coin prices at the default 60 USD; a paper slot's 1,000 USD is /simulate's per_coin_usd over the one coin
        const r =
          usd === 60
            ? await h.req('/simulate/coin', { method: 'POST', json: { symbol: coin, strategy: STRATEGY, sl_pct: SL, tp_pct: TP, max_bars: strategy.max_bars, intrabar } })
            : await h.req('/simulate', { method: 'POST', json: { symbols: [coin], strategy: STRATEGY, sl_pct: SL, tp_pct: TP, max_bars: strategy.max_bars, per_coin_usd: usd, intrabar } })
        expect(r.status).toBe(200)
        trades.set(`${intrabar}|${usd}|${coin}`, new Map((r.body.trades as Trade[]).map(t => [Date.parse(t.entry_time), t])))
      }
    // the strategy's entries from FIRST on, recorded as the scan would, published 10 s after the entry bar opened
    for (const [entryMs, t] of trades.get(`detail|60|${coin}`)!) {
      if (entryMs < FIRST || t.exit_reason === 'end_of_data') continue
      const id = signalId(STRATEGY, '1H', coin, entryMs - HOUR_MS)
      signals.push({ id, strategy: STRATEGY, strategyName: strategy.name, status: strategy.status, coin, direction: strategy.direction, timeframe: '1H', signalBarMs: entryMs - HOUR_MS, signalTimeMs: entryMs, entryPrice: t.entry_price, slPct: SL, tpPct: TP, maxBars: strategy.max_bars, publishedAtMs: entryMs + 10_000, backfill: false })
      ids.push(id)
      if (!same(t, tradeOf('bar', 60, coin, entryMs)!)) changed.push({ coin, entryMs })
    }
  }
  signals.sort((a, b) => a.publishedAtMs - b.publishedAtMs || (a.id < b.id ? -1 : 1))
  changed.sort((a, b) => a.entryMs - b.entryMs)
  await insertSignals(h.deps.db, signals)
  // the label changed between the changed entries' halves: the signals published before were
  // first scored under v3 (written open at their publication, as the scorer then did)
  const changeMs = changed[Math.floor(changed.length / 2)]!.entryMs
  const fundingSource = h.deps.store.sources().sort().join('+') || 'none'
  const v3Rows: { row: ScoredRow; existed: boolean }[] = []
  for (const s of signals) {
    if (s.publishedAtMs >= changeMs) continue
    v3Ids.add(s.id)
    v3Rows.push({
      existed: false,
      row: {
        signalId: s.id, engine: ENGINE_V3, status: 'open', exitReason: null, reason: null, entryTimeMs: s.signalTimeMs, entryPrice: s.entryPrice, pnlPct: 0, grossPct: null, feePct: null, fundingPct: null,
        exitPrice: null, exitTimeMs: null, barsHeld: null, slTpSameBar: null, feeFrac: 0.0005, leverage: 1, mmrFrac: 0.005, slPct: SL, tpPct: TP, maxBars: strategy.max_bars, fundingSource, fundingEvents: null,
        fundingEventsReal: null, markedThroughMs: s.signalTimeMs, updatedAtMs: s.publishedAtMs, finalizedAtMs: null, exitResolution: null,
      },
    })
  }
  await saveScored(h.deps.db, v3Rows)

  // the paper trader: a ranking whose pick is this configuration; one position opened under v3 before the change
  await publishRanking(isoDay(D0), [rankedRow(1)])
  h.clock.set(D0 + HOUR_MS + 10_000)
  await runPaper(h.deps)
  paperV3 = changed.at(-1)!
  await insertV3Position(paperV3)
  for (let t = D0 + 4 * HOUR_MS + 10_000; t <= NOW; t += 3 * HOUR_MS) {
    h.clock.set(t)
    await runPaper(h.deps)
  }
  h.clock.set(NOW + 10_000)
  await scoreSignals(h.deps)
}, 240_000)

function rankedRow(rank: number): RankedRow {
  return {
    configuration_id: `v1:${STRATEGY}:1H:${SL}-${TP}-${strategy.max_bars}`, strategy: STRATEGY, name_en: strategy.name, name_ko: null, direction: strategy.direction, status: strategy.status, timeframe: '1H',
    sl_pct: SL, tp_pct: TP, max_bars: strategy.max_bars, total_trades: 40, win_rate: 50, profit_factor: 2.5, pf_capped: false, total_return_pct: 1, sharpe_ratio: 1, max_drawdown_pct: 1,
    rank, eligible: true, previous_rank: null, previous_streak: null, rank_change: null, streak: 0,
  }
}

async function publishRanking(date: string, rows: RankedRow[]): Promise<void> {
  const empty: GroupRanking = { symbols: [], top_n_requested: null, eligible_universe: null, rows: [], weekly_best3: [] }
  const groups = (r: RankedRow[]) => Object.fromEntries(GROUPS.map(g => [g, g === 'top50' ? { ...empty, rows: r } : empty])) as DayFile['periods']['30d']['groups']
  await new DayFiles(h.deps.db).publish({
    schema_version: 'rankings-1', rules_version: 'v1', date, generated_at: `${date}T00:30:00Z`, written_by: 'schedule', engine_version: 'x', data_version: 'x', previous_date: null, rules: {},
    periods: Object.fromEntries(PERIODS.map(p => [p, { start_date: date, end_date: date, groups: groups(p === '30d' ? rows : []) }])) as DayFile['periods'],
  }, h.clock.now())
}

/** A position of the pick opened under v3 at an entry whose exit the minutes change (as the trader opened them before the change). */
async function insertV3Position(at: { coin: string; entryMs: number }): Promise<void> {
  const t = tradeOf('detail', 60, at.coin, at.entryMs)!
  await h.deps.db.orm.insert(h.deps.db.t.paperPositions).values({
    id: `v3:${at.coin}:${at.entryMs}`, cycleId: 1, signalId: signalId(STRATEGY, '1H', at.coin, at.entryMs - HOUR_MS), configurationId: rankedRow(1).configuration_id, strategy: STRATEGY, coin: at.coin,
    direction: strategy.direction, timeframe: '1H', slPct: SL, tpPct: TP, maxBars: strategy.max_bars, feeFrac: 0.0005, leverage: 1, mmrFrac: 0.005, marginUsd: STARTING_CAPITAL / SLOTS,
    referenceEntryPrice: t.entry_price, entryTimeMs: at.entryMs, entryPrice: null, status: 'pending', exitReason: null, exitPrice: null, exitTimeMs: null, barsHeld: null, pnlPct: null, pnlUsd: null,
    markPrice: null, unrealizedUsd: null, markedThroughMs: at.entryMs, openedAtMs: at.entryMs + 10_000, closedAtMs: null, engine: ENGINE_V3, exitResolution: null,
  })
}

/** the cycle's closed positions in their published form (the /paper-trading item, their Merkle leaf's text; the route lists the last 20) */
async function closedItems(): Promise<any[]> {
  const rows = await positionsOfCycle(h.deps.db, 1)
  return rows.filter(p => !['pending', 'open'].includes(p.status)).map(positionItem)
}

async function scoredItems(): Promise<any[]> {
  const out: any[] = []
  for (let i = 0; i < ids.length; i += 100) {
    const r = await h.req(`/signals/scored?signal_ids=${encodeURIComponent(ids.slice(i, i + 100).join(','))}`)
    expect(r.status).toBe(200)
    out.push(...r.body.signals)
  }
  return out
}

/** an item or position re-verified against /simulate/coin's trade of its entry */
function expectTrade(item: { exit_price: number | null; exit_time: string | null; exit_reason: string | null; bars_held: number | null; pnl_pct: number | null }, tr: Trade) {
  expect(item.exit_price).toBe(tr.exit_price)
  expect(item.exit_time).toBe(tr.exit_time)
  expect(item.exit_reason).toBe(tr.exit_reason)
  expect(item.bars_held).toBe(tr.bars_held)
  expect(Math.round(item.pnl_pct! * 1e6) / 1e6).toBe(tr.pnl_pct)
}

describe('the scorer under reference-engine-v4', () => {
  test('the fixture has entries whose exit the minutes change (a bar that touches both the stop and the take profit)', () => {
    expect(changed.length).toBeGreaterThanOrEqual(4)
    expect(v3Ids.size).toBeGreaterThan(10)
  })

  test('a signal first scored under v4 is the /simulate/coin trade of its entry, minute detail included; its item says how its exit was found', async () => {
    const items = (await scoredItems()).filter(x => !v3Ids.has(x.id))
    expect(items.length).toBeGreaterThan(50)
    let detail = 0
    let bothTouched = 0
    for (const it of items) {
      expect(it.engine).toBe(ENGINE_V4)
      expect(it.frozen_inputs.execution).toMatchObject({ slippage: 'impact', margin: 'brackets', position_notional_usd: 60, intrabar: 'detail' })
      const entryMs = Date.parse(`${it.signal_time}Z`)
      const tr = tradeOf('detail', 60, it.coin, entryMs)!
      expect(['tp', 'sl', 'timeout', 'liquidation']).toContain(it.status)
      expectTrade(it, tr)
      expect(Math.round(it.fee_pct * 1e6) / 1e6).toBe(tr.fee_pct)
      expect(Math.round(it.funding_pct * 1e6) / 1e6).toBe(tr.funding_pct)
      expect(it.exit_resolution).toBe(tr.exit_resolution)
      if (it.exit_resolution !== 'detail') continue
      detail++
      // the exit bar touched both levels: the bar rule would have taken the stop at the bar's midpoint
      const bars = h.deps.store.bars(it.coin)!
      const exitMs = Date.parse(it.exit_time)
      const k = (Math.floor(exitMs / HOUR_MS) * HOUR_MS - bars.t[0]) / HOUR_MS
      const stop = it.entry_price * (1 + SL / 100)
      const take = it.entry_price * (1 - TP / 100)
      if (bars.h[k]! >= stop && bars.l[k]! <= take) bothTouched++
      expect(exitMs % HOUR_MS).not.toBe(HOUR_MS / 2)
      expect(same(tr, tradeOf('bar', 60, it.coin, entryMs)!)).toBe(false)
    }
    expect(detail).toBeGreaterThanOrEqual(2)
    expect(bothTouched).toBeGreaterThanOrEqual(1)
  })

  test('a signal first scored under v3 stays v3 to its end: the bar rule, re-verified with intrabar "bar"; its item carries no exit_resolution', async () => {
    const items = (await scoredItems()).filter(x => v3Ids.has(x.id))
    expect(items.length).toBe(v3Ids.size)
    let differs = 0
    for (const it of items) {
      expect(it.engine).toBe(ENGINE_V3)
      expect('exit_resolution' in it).toBe(false)
      expect('intrabar' in it.frozen_inputs.execution).toBe(false)
      const entryMs = Date.parse(`${it.signal_time}Z`)
      expectTrade(it, tradeOf('bar', 60, it.coin, entryMs)!)
      if (!same(tradeOf('detail', 60, it.coin, entryMs)!, tradeOf('bar', 60, it.coin, entryMs)!)) differs++
    }
    // among them rows the minutes would have changed: the label, not the scoring time, decided
    expect(differs).toBeGreaterThanOrEqual(2)
  })
})

describe('the paper trader under reference-engine-v4', () => {
  test('a position opened under v4 is the /simulate/coin trade of its entry at its own margin, minute detail included', async () => {
    const closed = (await closedItems()).filter(p => p.engine === ENGINE_V4)
    expect(closed.length).toBeGreaterThan(10)
    let detail = 0
    for (const p of closed) {
      const tr = tradeOf('detail', STARTING_CAPITAL / SLOTS, p.coin, Date.parse(p.entry_time))!
      expectTrade(p, tr)
      expect(p.exit_resolution).toBe(tr.exit_resolution)
      expect(p.execution).toMatchObject({ position_notional_usd: STARTING_CAPITAL / SLOTS, intrabar: 'detail' })
      if (p.exit_resolution === 'detail') detail++
    }
    expect(detail).toBeGreaterThanOrEqual(1)
  })

  test('a position opened under v3 keeps the bar rule to its close, though the minutes would change its exit', async () => {
    const p = (await closedItems()).find(x => x.id === `v3:${paperV3!.coin}:${paperV3!.entryMs}`)
    expect(p).toBeDefined()
    expect(p.engine).toBe(ENGINE_V3)
    expect('exit_resolution' in p).toBe(false)
    expectTrade(p, tradeOf('bar', STARTING_CAPITAL / SLOTS, p.coin, paperV3!.entryMs)!)
    expect(same(tradeOf('detail', STARTING_CAPITAL / SLOTS, p.coin, paperV3!.entryMs)!, tradeOf('bar', STARTING_CAPITAL / SLOTS, p.coin, paperV3!.entryMs)!)).toBe(false)
  })
})
