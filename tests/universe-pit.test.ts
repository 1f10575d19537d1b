/**
 * A universe without survivors (issue 26): the top N as it was known on each day, delisted
 * coins included. A coin that collapses and is delisted inside the window is traded while
 * it was in the set and exits `delisted`; the `current` run never sees it; ranks of day d
 * come from days before d only; the survivorship block compares with today's universe.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { entryCandidates } from '../src/engine/random-entry'
import { CandleStore } from '../src/market/candle-store'
import { RankHistory } from '../src/market/rank-history'
import { TaskContext } from '../src/runs/compute/context'
import { randomEntryCoinOf, type RandomEntryPayload } from '../src/runs/compute/research-tasks'
import { runCoinTrades, runTwinRows, type CoinTradesPayload, type TwinRows } from '../src/runs/compute/coin-tasks'
import { membershipsOf } from '../src/engine/tradable-windows'
import { DAY_MS, HOUR_MS, isoDay } from '../src/time'
import { makeHarness, tempDir, walkCandles } from './helpers/harness'
import { rmSync } from 'node:fs'

const T0 = Date.UTC(2025, 0, 1)
const DAYS = 200
const STEADY = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'BNBUSDT']
/** LUNA trades three times the others' volume, collapses from day 90 and its last candle is on day 140 */
const LUNA_LAST_DAY = 140
const COLLAPSE_DAY = 90
/** a coin listed on day 150 with the largest volume */
const NEW_FIRST_DAY = 150

function fill(store: CandleStore, cutMs = Infinity): void {
  const put = (s: string, cols: number[][]) => {
    const n = cols[0].filter(t => t < cutMs).length
    if (n > 0) store.appendCandles(s, cols.map(c => c.slice(0, n)), n)
  }
  STEADY.forEach((s, k) => put(s, walkCandles(24 * DAYS, T0, k + 1)))
  const luna = walkCandles(24 * (LUNA_LAST_DAY + 1), T0, 77)
  for (let i = 0; i < luna[0].length; i++) {
    // the collapse: −95 % over days 90…140, volume in coins unchanged (its quote volume falls with the price)
    const span = (LUNA_LAST_DAY + 1 - COLLAPSE_DAY) * 24
    const f = i < COLLAPSE_DAY * 24 ? 1 : Math.exp((Math.log(0.05) * (i - COLLAPSE_DAY * 24)) / span)
    for (const k of [1, 2, 3, 4]) luna[k][i] *= f
    luna[5][i] *= 3
  }
  put('LUNAUSDT', luna)
  const fresh = walkCandles(24 * (DAYS - NEW_FIRST_DAY), T0 + NEW_FIRST_DAY * DAY_MS, 99)
  fresh[5] = fresh[5].map(v => v * 20)
  put('NEWUSDT', fresh)
  const symbols = store.symbols()
  store.upsertMeta(symbols.map((symbol, k) => ({ symbol, name: symbol, rank: k + 1, stablecoin: false, assetClass: 'crypto' as const, listingMs: store.bars(symbol)!.t[0] })), 'binance-csv')
  if (cutMs === Infinity) store.markDelisted('LUNAUSDT')
}

/** the random-entry null's task payloads, as the run service sent them */
const randomEntryPayloads: RandomEntryPayload[] = []
/** the coin tasks' payloads, as the run service sent them */
const coinTradesPayloads: CoinTradesPayload[] = []
const h = makeHarness({
  fill: s => fill(s),
  transport: inner => ({
    get parallelism() {
      return inner.parallelism
    },
    submit(task, payload, opts) {
      if (task === 'randomEntry') randomEntryPayloads.push(payload as RandomEntryPayload)
      if (task === 'coinTrades') coinTradesPayloads.push(payload as CoinTradesPayload)
      return inner.submit(task, payload, opts)
    },
    stats: () => inner.stats(),
    close: () => inner.close(),
  }),
})
afterAll(() => h.cleanup())

/** always in the market: a short from every bar, held up to a week */
const ALWAYS = { type: 'AND', conditions: [{ field: 'close', op: '>', value: 0 }] }
const body = (over: Record<string, unknown> = {}) => ({ name: 'always', direction: 'short', entry: ALWAYS, indicators: {}, sl_pct: 50, tp_pct: 100, max_bars: 168, top_n: 3, start_date: '2025-01-15', ...over })
const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`)

describe('delisted coins in the store', () => {
  test('a delisted coin keeps its candles, status and date_to; /coins lists it only with include_delisted', async () => {
    const meta = h.deps.store.meta('LUNAUSDT')!
    expect(meta.status).toBe('delisted')
    expect(isoDay(meta.delistedMs!)).toBe(isoDay(T0 + LUNA_LAST_DAY * DAY_MS))
    const plain = await h.req('/coins')
    expect(plain.body.map((c: any) => c.symbol)).not.toContain('LUNAUSDT')
    const all = await h.req('/coins?include_delisted=true')
    const luna = all.body.find((c: any) => c.symbol === 'LUNAUSDT')
    expect(luna).toMatchObject({ status: 'delisted', date_to: isoDay(T0 + LUNA_LAST_DAY * DAY_MS) })
    expect(all.body.find((c: any) => c.symbol === 'BTCUSDT').status).toBe('trading')
  })
})

describe('point-in-time universe', () => {
  test('the delisted coin is traded while in the top N, exits `delisted`, and is absent from the current run', async () => {
    const pit = await h.req('/backtest', { method: 'POST', json: body({ universe: 'point_in_time' }) })
    expect(pit.status).toBe(200)
    expect(pit.body.universe_mode).toBe('point_in_time')
    expect(pit.body.rebalance).toBe('monthly')
    const luna = pit.body.trades.filter((t: any) => t.symbol === 'LUNAUSDT')
    expect(luna.length).toBeGreaterThan(0)
    const last = luna[luna.length - 1]
    expect(last.exit_reason).toBe('delisted')
    expect(Date.parse(last.exit_time)).toBe(T0 + (LUNA_LAST_DAY + 1) * DAY_MS) // the close of its last candle
    expect(pit.body.delisted_count).toBe(1)
    for (const t of luna) expect(Date.parse(t.entry_time)).toBeLessThan(T0 + (LUNA_LAST_DAY + 1) * DAY_MS)

    const cur = await h.req('/backtest', { method: 'POST', json: body({ universe: 'current' }) })
    expect(cur.body.universe_mode).toBe('current')
    expect(cur.body.survivorship).toBeNull()
    expect(cur.body.trades.some((t: any) => t.symbol === 'LUNAUSDT')).toBe(false)
    expect(cur.body.delisted_count).toBe(0)

    // the survivorship block: today's set against the sets of the window, and the current run's figures
    const sv = pit.body.survivorship
    expect(sv.delisted_in_window).toEqual(['LUNAUSDT'])
    expect(sv.coins_then_not_today).toContain('LUNAUSDT')
    expect(sv.current_universe_result).toEqual({
      total_return_pct: cur.body.total_return_pct,
      win_rate: cur.body.win_rate,
      profit_factor: cur.body.profit_factor,
      total_trades: cur.body.total_trades,
    })
  })

  test("the twin's figures are the current run's when today's coins were limited in the window (their twin trades reuse the run's where they entered)", async () => {
    const cur = await h.req('/backtest', { method: 'POST', json: body({ universe: 'current', rebalance: undefined }), headers: { 'cache-control': 'no-cache' } })
    // weekly: today's coins move in and out of the top 3 as their volumes cross
    const pit = await h.req('/backtest', { method: 'POST', json: body({ universe: 'point_in_time', rebalance: 'weekly' }), headers: { 'cache-control': 'no-cache' } })
    expect(pit.status).toBe(200)
    const count = (r: any, s: string) => r.body.trades.filter((t: any) => t.symbol === s).length
    const limited = cur.body.coin_results.map((c: any) => c.symbol).filter((s: string) => count(pit, s) > 0 && count(pit, s) < count(cur, s))
    expect(limited.length).toBeGreaterThan(0)
    expect(pit.body.survivorship.current_universe_result).toEqual({ total_return_pct: cur.body.total_return_pct, win_rate: cur.body.win_rate, profit_factor: cur.body.profit_factor, total_trades: cur.body.total_trades })
  })

  test("a chunk's twin: the run's rows of the coins whose membership cut no signal, the others simulated again from the run's (the same rows as a run without memberships)", async () => {
    // a sparse tree, so that some memberships cut signals and others none
    coinTradesPayloads.length = 0
    const tree = { name: 'sparse', direction: 'long', entry: { type: 'AND', conditions: [{ field: 'rsi', op: '<', value: 28 }] }, indicators: { rsi: { period: 14 } }, sl_pct: 4, tp_pct: 6, max_bars: 72, top_n: 3, start_date: '2025-01-15', universe: 'current' }
    expect((await h.req('/backtest', { method: 'POST', json: tree, headers: { 'cache-control': 'no-cache' } })).status).toBe(200)
    const spec = coinTradesPayloads[0].spec
    const ctx = new TaskContext(h.deps.store)
    const symbols = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'LUNAUSDT']
    const whole = runCoinTrades(ctx, { spec, symbols: [...symbols, 'BNBUSDT'] })
    const rowsOf = (t: { symbols: readonly string[]; coin?: Int32Array; entryMs: Float64Array; exitMs: Float64Array; pnlPct: Float64Array; n?: number; start?: Int32Array }, s: string) => {
      const out: [number, number, number][] = []
      if (t.start) {
        const k = t.symbols.indexOf(s)
        if (k >= 0) for (let i = t.start[k]; i < t.start[k + 1]; i++) out.push([t.entryMs[i], t.exitMs[i], t.pnlPct[i]])
      } else for (let i = 0; i < t.n!; i++) if (t.symbols[t.coin![i]] === s) out.push([t.entryMs[i], t.exitMs[i], t.pnlPct[i]])
      return out
    }
    // BTC's first signal after the window's start: a membership from just before it cuts nothing
    const btc = rowsOf(whole.trades, 'BTCUSDT')
    const eth = rowsOf(whole.trades, 'ETHUSDT')
    expect(btc.length).toBeGreaterThan(3)
    expect(eth.length).toBeGreaterThan(3)
    const end = T0 + (DAYS + 1) * DAY_MS
    const tradable: Record<string, number[]> = {
      BTCUSDT: [btc[0][0] - 2 * HOUR_MS, end], // starts after the window's start, cuts no signal
      ETHUSDT: [eth[1][0] - HOUR_MS, end], // cuts the first trade's signal (and the first trade)
      SOLUSDT: [T0, end], // covers the window
      XRPUSDT: [], // never in the set
      LUNAUSDT: [T0, T0 + 60 * DAY_MS], // left the set
    }
    const twin = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'BNBUSDT'] // BNB: not a coin of the chunk
    const chunk = runCoinTrades(ctx, { spec, symbols, memberships: membershipsOf(symbols, tradable), twin })
    expect(chunk.twin!.rows.symbols.sort()).toEqual(['BTCUSDT', 'SOLUSDT'])
    expect(chunk.twin!.left).toEqual(['ETHUSDT', 'XRPUSDT', 'BNBUSDT'])
    expect(chunk.twin!.known.symbols).toEqual(['ETHUSDT', 'XRPUSDT'])
    // the run's own rows: BTC as without the membership, ETH without its first trade, XRP none
    expect(rowsOf(chunk.trades, 'BTCUSDT')).toEqual(btc)
    expect(rowsOf(chunk.trades, 'ETHUSDT').length).toBeLessThan(eth.length)
    expect(rowsOf(chunk.trades, 'XRPUSDT')).toEqual([])
    const again: TwinRows = runTwinRows(ctx, { spec, symbols: chunk.twin!.left, known: chunk.twin!.known })
    for (const s of twin) {
      const got = chunk.twin!.rows.symbols.includes(s) ? rowsOf(chunk.twin!.rows, s) : rowsOf(again, s)
      expect({ s, rows: got }).toEqual({ s, rows: rowsOf(whole.trades, s) })
    }
  })

  test('a coin listed inside the window enters at the first rebalance after it has a day of history, never before', async () => {
    const pit = await h.req('/backtest', { method: 'POST', json: body({ universe: 'point_in_time', rebalance: 'weekly' }) })
    const fresh = pit.body.trades.filter((t: any) => t.symbol === 'NEWUSDT')
    expect(fresh.length).toBeGreaterThan(0)
    // listed on day 150 (a Saturday, 2025-05-31): ranked from day 151; the next Monday is 2025-06-02
    const firstEntry = Math.min(...fresh.map((t: any) => Date.parse(t.entry_time)))
    expect(firstEntry).toBeGreaterThanOrEqual(day('2025-06-02'))
    const none = await h.req('/backtest', { method: 'POST', json: body({ universe: 'point_in_time', rebalance: 'none' }) })
    expect(none.body.trades.some((t: any) => t.symbol === 'NEWUSDT')).toBe(false)
    expect(none.body.rebalance).toBe('none')
  })

  test('positions open at a rebalance are kept until they exit', async () => {
    const pit = await h.req('/backtest', { method: 'POST', json: body({ universe: 'point_in_time', rebalance: 'weekly' }) })
    // the first Monday on which LUNA is no longer in the top 3 (its quote volume collapsed)
    const history = new RankHistory(h.deps.store)
    let left = day('2025-01-20')
    while (history.rankedOn(left).slice(0, 3).some(c => c.symbol === 'LUNAUSDT')) left += 7 * DAY_MS
    expect(left).toBeLessThan(T0 + (LUNA_LAST_DAY + 1) * DAY_MS)
    const luna = pit.body.trades.filter((t: any) => t.symbol === 'LUNAUSDT')
    // no trade opened after it left; the one open when it left was kept (here until the delisting)
    expect(luna.every((t: any) => Date.parse(t.entry_time) < left)).toBe(true)
    expect(luna.some((t: any) => Date.parse(t.entry_time) < left && Date.parse(t.exit_time) > left)).toBe(true)
    const counts = (x: any) => x.tp_count + x.sl_count + x.timeout_count + x.trailing_count + x.signal_count + x.liquidation_count + x.end_of_data_count + x.delisted_count
    expect(counts(pit.body)).toBe(pit.body.total_trades)
  })

  test('the default: point_in_time for a start_date more than 30 days before the last candle, current otherwise', async () => {
    const early = await h.req('/backtest', { method: 'POST', json: body() })
    expect(early.body.universe_mode).toBe('point_in_time')
    const none = await h.req('/backtest', { method: 'POST', json: body({ start_date: null }) })
    expect(none.body.universe_mode).toBe('current')
    const late = await h.req('/backtest', { method: 'POST', json: body({ start_date: isoDay(T0 + (DAYS - 20) * DAY_MS) }) })
    expect(late.body.universe_mode).toBe('current')
    const symbols = await h.req('/backtest', { method: 'POST', json: body({ symbols: ['BTCUSDT'] }) })
    expect(symbols.body.universe_mode).toBeNull()
    const sim = await h.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-short', start_date: '2025-02-01' } })
    expect(sim.status).toBe(200)
    expect(sim.body.universe_mode).toBe('point_in_time')
  })

  test('a window that starts before the rank history warns naming the first ranked day', async () => {
    const r = await h.req('/backtest', { method: 'POST', json: body({ universe: 'point_in_time', start_date: isoDay(T0) }) })
    expect(r.status).toBe(200)
    expect(r.body.warnings.some((w: string) => w.includes(isoDay(T0 + DAY_MS)) && w.includes('point_in_time'))).toBe(true)
    expect(r.body.trades.every((t: any) => Date.parse(t.entry_time) >= T0 + DAY_MS)).toBe(true)
  })

  test('bad input: unknown universe or rebalance, rebalance without point_in_time, point_in_time with symbols', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ universe: 'today' }, 'universe'],
      [{ rebalance: 'daily' }, 'rebalance'],
      [{ universe: 'current', rebalance: 'weekly' }, 'rebalance'],
      [{ start_date: null, rebalance: 'weekly' }, 'rebalance'],
      [{ universe: 'point_in_time', symbols: ['BTCUSDT'] }, 'universe'],
    ]
    for (const [over, field] of cases) {
      const r = await h.req('/backtest', { method: 'POST', json: body(over) })
      expect(r.status).toBe(422)
      expect(r.body.detail.some((d: any) => d.loc.includes(field))).toBe(true)
    }
    const sim = await h.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-short', universe: 'yesterday' } })
    expect(sim.status).toBe(422)
    const cmp = await h.req('/simulate/compare', { method: 'POST', json: { rebalance: 'weekly' } })
    expect(cmp.status).toBe(422)
  })

  test('validate and optimize take the universe too, and the delisted coin trades in their point-in-time runs', async () => {
    const tree = { entry: ALWAYS, indicators: {}, direction: 'short', sl_pct: 50, tp_pct: 100, max_bars: 168, top_n: 3, start_date: '2025-01-15' }
    const v = await h.req('/simulate/validate', { method: 'POST', json: { ...tree, n_simulations: 100 } })
    expect(v.status).toBe(200)
    expect(v.body.universe_mode).toBe('point_in_time')
    expect(v.body.rebalance).toBe('monthly')
    const pit = await h.req('/backtest', { method: 'POST', json: body() })
    expect(v.body.total_trades).toBe(pit.body.total_trades)
    const o = await h.req('/simulate/optimize', { method: 'POST', json: { ...tree, sl_values: [50], tp_values: [100] } })
    expect(o.status).toBe(200)
    expect(o.body.universe_mode).toBe('point_in_time')
    expect(o.body.best.total_trades).toBe(pit.body.total_trades)
    const cur = await h.req('/simulate/optimize', { method: 'POST', json: { ...tree, sl_values: [50], tp_values: [100], universe: 'current' } })
    expect(cur.body.universe_mode).toBe('current')
    expect(cur.body.best.total_trades).toBe(pit.body.survivorship.current_universe_result.total_trades)
    const bad = await h.req('/simulate/optimize', { method: 'POST', json: { ...tree, universe: 'then' } })
    expect(bad.status).toBe(422)
  })

  test("validate's random-entry null draws a coin's entries only while it was in the set, as the run's own entries", async () => {
    const tree = { entry: ALWAYS, indicators: {}, direction: 'short', sl_pct: 50, tp_pct: 100, max_bars: 168, top_n: 3, start_date: '2025-01-15', rebalance: 'weekly' }
    randomEntryPayloads.length = 0
    const v = await h.req('/simulate/validate', { method: 'POST', json: { ...tree, universe: 'point_in_time', n_simulations: 50 } })
    expect(v.status).toBe(200)
    const sent = randomEntryPayloads.find(p => p.coins.some(c => c.symbol === 'LUNAUSDT'))!
    expect(sent.tradable).toBeDefined()
    // LUNA left the top 3 as its volume collapsed, weeks before its delisting
    const member = sent.tradable!.LUNAUSDT
    const isMember = (ms: number) => member.some((from, k) => k % 2 === 0 && ms >= from && ms < member[k + 1])
    expect(member[member.length - 1]).toBeLessThan(T0 + LUNA_LAST_DAY * DAY_MS)
    // the same membership as the run's: every LUNA trade of the point-in-time run entered inside it
    const run = await h.req('/backtest', { method: 'POST', json: body({ universe: 'point_in_time', rebalance: 'weekly' }) })
    const lunaEntries = run.body.trades.filter((t: any) => t.symbol === 'LUNAUSDT').map((t: any) => Date.parse(t.entry_time))
    expect(lunaEntries.length).toBeGreaterThan(0)
    for (const ms of lunaEntries) expect(isMember(ms)).toBe(true)
    // the bars the null draws from: each enters (at the next bar's open) inside the membership
    const ctx = new TaskContext(h.deps.store)
    const bars = h.deps.store.bars('LUNAUSDT')!
    const drawn = entryCandidates(randomEntryCoinOf(ctx, sent.spec, 'LUNAUSDT', sent.tradable)!)
    expect(drawn.length).toBeGreaterThan(0)
    for (const s of drawn) expect(isMember(bars.t[s] + bars.stepMs)).toBe(true)
    // over the whole window (as before, and as a current run's null) some would enter after LUNA left
    const whole = entryCandidates(randomEntryCoinOf(ctx, sent.spec, 'LUNAUSDT')!)
    expect(Array.from(whole).filter(s => !isMember(bars.t[s] + bars.stepMs)).length).toBeGreaterThan(24 * 7)
    // a current run's null carries no membership: its coins draw over their whole window, as before
    randomEntryPayloads.length = 0
    const cur = await h.req('/simulate/validate', { method: 'POST', json: { ...tree, rebalance: undefined, universe: 'current', n_simulations: 50 } })
    expect(cur.status).toBe(200)
    expect(randomEntryPayloads.length).toBeGreaterThan(0)
    for (const p of randomEntryPayloads) expect(p.tradable).toBeUndefined()
  })

  test('sweeps and walk-forward refuse a point-in-time universe (they run on today\'s), never drop it silently', async () => {
    const sweep = { entry: ALWAYS, indicators: {}, top_n: 3, start_date: '2025-01-15', space: [{ path: 'sl_pct', values: [3, 5] }] }
    for (const [over, field] of [[{ universe: 'point_in_time' }, 'universe'], [{ rebalance: 'weekly' }, 'rebalance']] as const) {
      const r = await h.req('/research/sweeps', { method: 'POST', json: { ...sweep, ...over } })
      expect(r.status).toBe(422)
      expect(r.body.detail.some((d: any) => d.loc.includes(field))).toBe(true)
    }
  })

  test('compare takes the universe too', async () => {
    const r = await h.req('/simulate/compare', { method: 'POST', json: { top_n: 3, universe: 'point_in_time' } })
    expect(r.status).toBe(200)
    expect(r.body.universe_mode).toBe('point_in_time')
    const c = await h.req('/simulate/compare', { method: 'POST', json: { top_n: 3 } })
    expect(c.body.universe_mode).toBe('current')
  })
})

describe('rank history', () => {
  test("day d's order uses only days before d: cutting the store at d's start (or after d) leaves it unchanged", () => {
    const full = h.deps.store
    const history = new RankHistory(full)
    for (const d of [20, 60, 105, 140, 141, 142, 151, 152, 180]) {
      const dayMs = T0 + d * DAY_MS
      for (const cut of [dayMs, dayMs + DAY_MS, dayMs + 3 * DAY_MS]) {
        const dir = tempDir()
        try {
          const cutStore = CandleStore.open(dir)
          fill(cutStore, cut)
          // the delisting is known once the market has closed: from the end of its last day
          if (cut >= T0 + (LUNA_LAST_DAY + 1) * DAY_MS) cutStore.markDelisted('LUNAUSDT')
          expect(new RankHistory(cutStore).rankedOn(dayMs)).toEqual(history.rankedOn(dayMs))
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      }
    }
  }, 60_000) // 27 stores written and read

  test('volume ranks: LUNA first while its volume is large, gone after its delisting; a new coin ranks from the day after its first', () => {
    const history = new RankHistory(h.deps.store)
    expect(history.firstRankedDayMs()).toBe(T0 + DAY_MS)
    expect(history.rankedOn(T0)).toEqual([])
    expect(history.rankedOn(T0 + 50 * DAY_MS)[0].symbol).toBe('LUNAUSDT')
    expect(history.sourceOf(T0 + 50 * DAY_MS)).toBe('volume')
    expect(history.rankedOn(T0 + LUNA_LAST_DAY * DAY_MS).map(c => c.symbol)).toContain('LUNAUSDT') // traded the day before
    // its market closed on its last day: from the next day on it is in no order
    expect(history.rankedOn(T0 + (LUNA_LAST_DAY + 1) * DAY_MS).map(c => c.symbol)).not.toContain('LUNAUSDT')
    expect(history.rankedOn(T0 + NEW_FIRST_DAY * DAY_MS).map(c => c.symbol)).not.toContain('NEWUSDT')
    expect(history.rankedOn(T0 + (NEW_FIRST_DAY + 1) * DAY_MS).map(c => c.symbol)).toContain('NEWUSDT')
    // the 30-day quote volume of day d is the sum of volume × close over days d−30 … d−1
    const d = T0 + 40 * DAY_MS
    const b = h.deps.store.bars('BTCUSDT')!
    let sum = 0
    for (let i = 0; i < b.n; i++) if (b.t[i] >= d - 30 * DAY_MS && b.t[i] < d) sum += b.v[i] * b.c[i]
    expect(history.rankedOn(d).find(c => c.symbol === 'BTCUSDT')!.quoteVolume30d).toBeCloseTo(sum, 6)
    void HOUR_MS
  })
})
