/**
 * The scorer's hourly reads on a year-sized signals table: `signalsToScore` (the open rows
 * and the signals not scored yet) and `scoringPendingBefore` (a day root waits for them),
 * over 1,000,000 recorded signals, one every 10 s (8,640 a day: more than the hourly scan
 * records on the 200-coin store, so about a year of it or less), the newest
 * 1,000 not scored yet and one row in 2,000 still open; and `finalScoredForDay`, the leaves
 * of one day (the seal job, once a day). `bun bench/signal-records.ts [N]`.
 */
import { sql } from 'drizzle-orm'
import { openDb } from '../src/db'
import { finalScoredForDay, insertSignals, scoringPendingBefore, signalsToScore, type SignalRow } from '../src/records/signals'

const N = Number(process.argv[2] ?? 1_000_000)
const db = openDb(':memory:')
const rows: SignalRow[] = []
for (let i = 0; i < N; i++) {
  rows.push({ id: `v1:s:1H:BTCUSDT:${i}`, strategy: 's', strategyName: 's', status: 'research', coin: 'BTCUSDT', direction: 'long', timeframe: '1H', signalBarMs: i * 10_000, signalTimeMs: i * 10_000 + 1, entryPrice: 1, slPct: 1, tpPct: 1, maxBars: 48, publishedAtMs: i * 10_000 + 2, backfill: false })
}
await insertSignals(db, rows)
// closed rows exit (and become final) an hour after their signal: their leaf time
await db.rows(sql.raw(
  `INSERT INTO scored_signals (signal_id, engine, status, entry_time_ms, entry_price, pnl_pct, fee_frac, leverage, mmr_frac, sl_pct, tp_pct, max_bars, funding_source, marked_through_ms, updated_at_ms, exit_time_ms, finalized_at_ms)
   SELECT id, 'x', CASE WHEN rowid % 2000 = 0 THEN 'open' ELSE 'tp' END, signal_time_ms, 1, 1, 0.0005, 1, 0.005, 1, 1, 48, 'x', signal_time_ms, 0,
     CASE WHEN rowid % 2000 = 0 THEN NULL ELSE signal_time_ms + 3600000 END, CASE WHEN rowid % 2000 = 0 THEN NULL ELSE signal_time_ms + 3600000 END
   FROM signals WHERE rowid <= ${N - 1000}`,
))
const time = async (f: () => Promise<unknown>) => {
  const xs: number[] = []
  for (let k = 0; k < 5; k++) {
    const t0 = performance.now()
    await f()
    xs.push(performance.now() - t0)
  }
  return xs.sort((a, b) => a - b)[2]!.toFixed(1)
}
console.log(`${N.toLocaleString('en')} signals: signalsToScore ${await time(() => signalsToScore(db))} ms (${(await signalsToScore(db)).length} rows), scoringPendingBefore ${await time(() => scoringPendingBefore(db, N * 10_000))} ms (median of 5)`)
const day = Math.floor(N / 2) * 10_000
console.log(`finalScoredForDay: ${await time(() => finalScoredForDay(db, day, day + 86_400_000))} ms (${(await finalScoredForDay(db, day, day + 86_400_000)).length} leaves)`)
