/**
 * Point-in-time universes (issue 26): /simulate top 535 over two years with
 * `universe: "point_in_time"` (the set re-formed monthly, delisted coins included, and the
 * same run on today's coins for the survivorship block) against `universe: "current"`, on
 * the worker pool, result cache off, the two taking turns; and the rank history of 600
 * symbols × 3 years of market caps (657,000 rows) loaded from the store and built.
 *   bun bench/universe.ts [--runs N]        (BENCH_DATA_DIR=<dir> reuses a generated store)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { buildApp } from '../src/app'
import { ManualClock } from '../src/clock'
import { composeDeps } from '../src/compose'
import { loadConfig } from '../src/config'
import { openDb } from '../src/db'
import { createLogger } from '../src/log'
import { CandleStore } from '../src/market/candle-store'
import { generateStore } from '../src/market/generate-store'
import { RankHistory } from '../src/market/rank-history'
import { workerPoolTransport } from '../src/runs/transport'
import { DAY_MS, isoDay } from '../src/time'

const { values } = parseArgs({ args: process.argv.slice(2), options: { runs: { type: 'string' } } })
const runs = Number(values.runs ?? 101)
const dir = process.env.BENCH_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'perpsim-universe-'))
const own = !process.env.BENCH_DATA_DIR
const nowMs = Date.UTC(2026, 10, 22)
const workers = Number(process.env.WORKERS ?? 2)
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

try {
  const store = own ? generateStore(dir, { coins: 535, days: 730, seed: 7, endMs: nowMs, delistings: 6 }).store : CandleStore.open(dir)
  const config = loadConfig({ OFFLINE: '1', DATA_DIR: dir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MIN: '0' })
  const transport = workerPoolTransport(store, workers, 64 * 256)
  const deps = composeDeps({ config, clock: new ManualClock(nowMs), store, db: openDb(':memory:'), transport, log: createLogger('silent'), maxRuns: 64, cacheSize: 64, strategyStats: () => async () => new Map() })
  const app = buildApp(deps)
  const start = isoDay(Math.floor(store.newestCandleMs()! / DAY_MS) * DAY_MS - 700 * DAY_MS)
  const cpuMs = () => {
    const u = process.cpuUsage()
    return (u.user + u.system) / 1000
  }
  const post = async (universe: string) => {
    const t0 = performance.now()
    const c0 = cpuMs()
    const r = await app.handle(
      new Request('http://localhost/simulate', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' },
        body: JSON.stringify({ strategy: 'bb-squeeze-short', top_n: 535, start_date: start, universe }),
      }),
    )
    const body = (await r.json()) as { total_trades: number; coins_used: number; survivorship: { delisted_in_window: string[] } | null }
    if (r.status !== 200) throw new Error(`/simulate answered ${r.status}`)
    return { ms: performance.now() - t0, cpu: cpuMs() - c0, body }
  }
  // warm: signal masks on the workers, the rank history built
  const warmPit = await post('point_in_time')
  await post('current')
  const pit: number[] = [], cur: number[] = [], pitCpu: number[] = [], curCpu: number[] = []
  const pairRatios: number[] = []
  for (let k = 0; k < runs; k++) {
    // the order alternates, so neither universe always runs right after the other
    let c: Awaited<ReturnType<typeof post>>, p: Awaited<ReturnType<typeof post>>
    if (k % 2 === 0) {
      c = await post('current')
      p = await post('point_in_time')
    } else {
      p = await post('point_in_time')
      c = await post('current')
    }
    pairRatios.push(p.ms / c.ms)
    cur.push(c.ms)
    curCpu.push(c.cpu)
    pit.push(p.ms)
    pitCpu.push(p.cpu)
  }
  console.log(`store: 535 synthetic coins + 6 delisted × 730 days (seed 7); ${workers} workers; /simulate bb-squeeze-short top_n 535 from ${start}, result cache off, ${runs} runs each, taking turns (the order alternating)`)
  console.log(`point_in_time: ${warmPit.body.coins_used} coins over the window's sets, delisted in the window: ${warmPit.body.survivorship?.delisted_in_window.join(', ')}\n`)
  console.log('| measurement | unit | figure |')
  console.log('|---|---|---:|')
  console.log(`| /simulate top_n 535, universe current | p50 ms | ${p50(cur).toFixed(1)} |`)
  console.log(`| /simulate top_n 535, universe point_in_time (monthly; with the current twin for survivorship) | p50 ms | ${p50(pit).toFixed(1)} |`)
  console.log(`| ratio point_in_time / current (target ≤ 1.15) | × | ${(p50(pit) / p50(cur)).toFixed(2)} |`)
  console.log(`| … the median of the ${runs} pairs' own ratios (each pair run back to back) | × | ${p50(pairRatios).toFixed(2)} |`)
  console.log(`| CPU time of the process (main thread and workers) per request: current / point_in_time | ms | ${p50(curCpu).toFixed(0)} / ${p50(pitCpu).toFixed(0)} (${(p50(pitCpu) / p50(curCpu)).toFixed(2)}×) |`)
  await transport.close()

  // rank history: 600 symbols × 3 years of daily market caps, written to a store and loaded
  const capsDir = mkdtempSync(join(tmpdir(), 'perpsim-caps-'))
  try {
    const caps = CandleStore.open(capsDir)
    const days = 3 * 365
    const first = Math.floor(nowMs / DAY_MS) * DAY_MS - days * DAY_MS
    const t = Array.from({ length: days }, (_, k) => first + k * DAY_MS)
    const candle = [t.map(x => x + 12 * 3_600_000), t.map(() => 1), t.map(() => 1), t.map(() => 1), t.map(() => 1), t.map(() => 1e6)]
    for (let s = 0; s < 600; s++) {
      const symbol = `C${s}USDT`
      caps.appendMarketCaps(symbol, t, t.map((_, k) => 1e9 * (1 + ((s * 7919 + k * 104729) % 1000) / 1000)), days, { durable: false })
      // one candle a day (the rank history needs a coin to have traded the day before)
      caps.appendCandles(symbol, candle, days, { durable: false })
    }
    const rows = 600 * days
    // the same store without its market caps: what the caps add to opening it
    const plainDir = mkdtempSync(join(tmpdir(), 'perpsim-nocaps-'))
    const plain = CandleStore.open(plainDir)
    for (let s = 0; s < 600; s++) plain.appendCandles(`C${s}USDT`, candle, days, { durable: false })
    let withCaps = Infinity, without = Infinity, buildMs = Infinity
    for (let r = 0; r < 5; r++) {
      let t0 = performance.now()
      CandleStore.open(plainDir)
      without = Math.min(without, performance.now() - t0)
      t0 = performance.now()
      const reopened = CandleStore.open(capsDir)
      const t1 = performance.now()
      const history = new RankHistory(reopened)
      history.rankedOn(first + 400 * DAY_MS)
      buildMs = Math.min(buildMs, performance.now() - t1)
      withCaps = Math.min(withCaps, t1 - t0)
    }
    rmSync(plainDir, { recursive: true, force: true })
    console.log(`| rank history: ${rows.toLocaleString('en')} market-cap rows (600 symbols × 3 years) read at store open (open with them − without) | ms | ${(withCaps - without).toFixed(1)} |`)
    console.log(`| rank history built from them and the candles, first day ranked (lazily, at the first point-in-time run) | ms | ${buildMs.toFixed(1)} |`)
    console.log(`| the two together (target ≤ 200) | ms | ${(withCaps - without + buildMs).toFixed(1)} |`)
  } finally {
    rmSync(capsDir, { recursive: true, force: true })
  }
} finally {
  if (own) rmSync(dir, { recursive: true, force: true })
}
