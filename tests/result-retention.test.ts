/**
 * What a finished run keeps in memory (the result cache holds up to RESULT_CACHE_SIZE of
 * them): the portfolio's accepted trades and the body, never the table of every coin's
 * trades the portfolio chose from. A new condition tree's table is about ten times its
 * accepted rows; kept by each cached result, it grew the server by hundreds of megabytes
 * and made every new run's memory fresh pages (docs/benchmarks.md, issue 30, session 16).
 */
import { expect, test } from 'bun:test'
import { allocTradeTable } from '../src/engine/trade-table'
import { bookSteps, markOver } from '../src/engine/run'
import { finish } from '../src/engine/steps'
import { CandleStore } from '../src/market/candle-store'
import { assembledOf } from '../src/runs/present'
import { simulateSpec } from '../src/runs/simulate-spec'
import { tempDir } from './helpers/fixtures'

const HOUR_MS = 3_600_000

/** a table of `n` trades of one coin, one a day, the first three accepted by a portfolio of 3 */
function everyCoinsTable(n: number) {
  const t = allocTradeTable(n, 'short', ['AAAUSDT'])
  for (let i = 0; i < n; i++) {
    t.entryMs[i] = Date.UTC(2025, 0, 1) + i * 24 * HOUR_MS
    t.exitMs[i] = t.entryMs[i] + 5_000 * 24 * HOUR_MS // each still open at every later entry
    t.entryPrice[i] = 100
    t.exitPrice[i] = 99
    t.barsHeld[i] = 120_000
    t.pnlPct[i] = t.grossPct[i] = 1
  }
  return t
}

/** in a function of its own, so that no local of the test's frame holds the table */
function assembleAndDropTable(store: CandleStore) {
  const trades = everyCoinsTable(2_000)
  const portfolio = { perCoinUsd: 100, maxConcurrent: 3, compounding: false, leverage: 1, coinCount: 1 }
  const booked = finish(bookSteps(trades, portfolio, markOver(null, () => undefined)))
  const spec = simulateSpec({ strategy: 'bb-squeeze-short', market_type: 'futures', top_n: 1, timeframe: '1H', start_date: null, end_date: null, leverage: 1, fee_pct: null, per_coin_usd: 100, max_concurrent_positions: 3, compounding: false, include_stablecoins: false })
  const outcome = {
    spec,
    symbols: ['AAAUSDT'],
    coins: [{ symbol: 'AAAUSDT', inWindow: true, fromMs: trades.entryMs[0], toMs: trades.exitMs[trades.n - 1] }],
    trades,
    accounting: { top_n_requested: 1, eligible_universe: 1, universe_capped: false, coins_missing_data: 0 },
    indicatorsUsed: [],
    conditionsCount: 1,
    warnings: [],
    universe: null,
  }
  return { assembled: assembledOf(outcome, booked, store), table: new WeakRef(trades), outcome: new WeakRef(outcome) }
}

test('a result keeps its accepted trades, not the table of every coin it chose them from', async () => {
  const store = CandleStore.open(tempDir())
  const { assembled, table, outcome } = assembleAndDropTable(store)
  expect(assembled.portfolio.trades.n).toBe(3)
  for (let i = 0; i < 3 && (table.deref() || outcome.deref()); i++) {
    await Bun.sleep(0)
    Bun.gc(true)
  }
  expect(table.deref()).toBeUndefined()
  expect(outcome.deref()).toBeUndefined()
  // the result still answers: its body is built from what it kept
  expect(assembled.portfolio.trades.n).toBe(3)
  expect(assembled.metrics.total_trades).toBe(3)
})
