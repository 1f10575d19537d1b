/**
 * What minute detail costs the scorer: one scoring pass over the same open signals when
 * their rows are `reference-engine-v3` (bar rule) and when they are `reference-engine-v4`
 * (ambiguous bars replayed by the synthetic store's derived minutes), in alternating rounds
 * in one process (A B, B A, ...), so a load that changes while it runs weighs on both alike.
 * CPU time (user + system) beside wall time.
 *
 * Store: 100 synthetic coins × 365 days (seed 7). Signals: every registry strategy on every
 * coin at each of the last 4 1H bars (14,000 signals, with the strategy's own SL/TP/max
 * bars, so some exits fall in ambiguous bars), written once per label into its own in-memory database; a first pass per database
 * closes what has closed, the timed passes re-mark the open rows (nothing new: no writes).
 *   bun run bench scoring-labels      (ROUNDS=5 by default)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ManualClock } from '../src/clock'
import { openDb } from '../src/db'
import { scoreSignals } from '../src/live/signal-score'
import { generateStore } from '../src/market/generate-store'
import { SeriesCache } from '../src/market/series'
import { ENGINE_V3, ENGINE_V4 } from '../src/records/scoring-execution'
import { insertSignals, saveScored, signalId, type ScoredRow, type SignalRow } from '../src/records/signals'
import { listStrategies } from '../src/strategies/registry'

const rounds = Number(process.env.ROUNDS ?? 5)
const dir = mkdtempSync(join(tmpdir(), 'perpsim-scoring-labels-'))
const endMs = Date.UTC(2026, 10, 25, 0, 0)
const { store } = generateStore(dir, { coins: 100, days: 365, seed: 7, endMs }, true)
const clock = new ManualClock(endMs + 10_000)
const series = new SeriesCache(store)
const fundingSource = store.sources().sort().join('+') || 'none'

const signals: SignalRow[] = []
for (const coin of store.symbols()) {
  const b = store.bars(coin)
  if (!b || b.n < 100) continue
  for (const s of listStrategies())
    for (let back = 2; back < 6; back++) {
      const i = b.n - back
      signals.push({ id: signalId(s.id, '1H', coin, b.t[i]!), strategy: s.id, strategyName: s.name, status: s.status, coin, direction: s.direction, timeframe: '1H', signalBarMs: b.t[i]!, signalTimeMs: b.t[i + 1]!, entryPrice: b.o[i + 1]!, slPct: s.sl_pct, tpPct: s.tp_pct, maxBars: s.max_bars, publishedAtMs: b.t[i + 1]! + 10_000, backfill: false })
    }
}

/** a database whose rows were first written (open) under `engine` */
async function dbOf(engine: string) {
  const db = openDb(':memory:')
  await insertSignals(db, signals)
  const rows = signals.map((s): { row: ScoredRow; existed: boolean } => ({
    existed: false,
    row: {
      signalId: s.id, engine, status: 'open', exitReason: null, reason: null, entryTimeMs: s.signalTimeMs, entryPrice: s.entryPrice, pnlPct: 0, grossPct: null, feePct: null, fundingPct: null,
      exitPrice: null, exitTimeMs: null, barsHeld: null, slTpSameBar: null, feeFrac: 0.0005, leverage: 1, mmrFrac: 0.005, slPct: s.slPct, tpPct: s.tpPct, maxBars: s.maxBars, fundingSource, fundingEvents: null,
      fundingEventsReal: null, markedThroughMs: s.signalTimeMs, updatedAtMs: s.publishedAtMs, finalizedAtMs: null, exitResolution: null,
    },
  }))
  await saveScored(db, rows)
  const deps = { db, store, series, clock }
  const first = await scoreSignals(deps)
  return { engine, deps, first }
}

const sides = [await dbOf(ENGINE_V3), await dbOf(ENGINE_V4)]
for (const s of sides) console.log(`${s.engine}: ${signals.length} signals; first pass: ${s.first.closed} closed, ${s.first.open} open, ${s.first.unscoreable} unscoreable`)
const wall: Record<string, number[]> = { [ENGINE_V3]: [], [ENGINE_V4]: [] }
const cpu: Record<string, number[]> = { [ENGINE_V3]: [], [ENGINE_V4]: [] }
for (let r = 0; r < rounds; r++) {
  for (const s of r % 2 === 0 ? sides : [...sides].reverse()) {
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    await scoreSignals(s.deps)
    wall[s.engine]!.push(performance.now() - t0)
    const c = process.cpuUsage(c0)
    cpu[s.engine]!.push((c.user + c.system) / 1000)
  }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
for (const e of [ENGINE_V3, ENGINE_V4]) console.log(`${e}: a pass following its ${sides.find(s => s.engine === e)!.first.open} open rows: wall median ${med(wall[e]!).toFixed(0)} ms, CPU median ${med(cpu[e]!).toFixed(0)} ms (${rounds} rounds)`)
console.log(`v4 / v3 CPU: ${(med(cpu[ENGINE_V4]!) / med(cpu[ENGINE_V3]!)).toFixed(2)}×`)
rmSync(dir, { recursive: true, force: true })
