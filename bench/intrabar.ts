/**
 * What minute detail (issue 25 §1) costs a run, on one core (the coin task, the booking
 * and the intrabar block: no HTTP): /simulate bb-squeeze-short with `intrabar: "detail"`
 * beside `intrabar: "bar"`,
 *   1. on the synthetic store's derived minutes (535 coins × 2 years by default), warm
 *      (masks cached, the detail opened before) and cold (a fresh thread context: no
 *      minute derived or read before, the masks warm);
 *   2. on a store with stored 1m detail (100 coins × 1 year by default, the minutes written
 *      by `storeDerivedDetail`, as `data generate --detail-stored`), warm and cold, and the
 *      process's resident memory after the bar run and after the detail runs;
 *   3. `data import` of one coin-year of 1m klines (12-column CSV, 525,600 rows).
 * Each timed run starts after a full collection; wall and CPU time (user + system) are both
 * printed, and the ratios to the bar rule's run at the end (the CPU ratio is the one to
 * trust on a shared machine).
 *   bun bench/intrabar.ts   (BENCH_COINS, BENCH_DETAIL_COINS, BENCH_DETAIL_DAYS for smaller stores;
 *   BENCH_DERIVED_DIR, BENCH_STORED_DIR: data folders to reuse instead of generating them)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { acceptSteps } from '../src/engine/portfolio'
import { bookSteps, daySpan, markOver } from '../src/engine/run'
import { CandleStore } from '../src/market/candle-store'
import { generateStore, storeDerivedDetail } from '../src/market/generate-store'
import { importPaths } from '../src/market/import-binance'
import { Universe } from '../src/market/universe'
import { runCoinTrades } from '../src/runs/compute/coin-tasks'
import { TaskContext } from '../src/runs/compute/context'
import { intrabarBlock, mergeIntrabar } from '../src/runs/intrabar-summary'
import { simulateSpec } from '../src/runs/simulate-spec'
import { portfolioOptionsOf, type RunSpec } from '../src/runs/spec'
import { stepped } from '../src/runs/yield'

const COINS = Number(process.env.BENCH_COINS ?? 535)
const DETAIL_COINS = Number(process.env.BENCH_DETAIL_COINS ?? 100)
const DETAIL_DAYS = Number(process.env.BENCH_DETAIL_DAYS ?? 365)
const END = Date.UTC(2026, 10, 22)
const REPS = 7
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const mb = (x: number) => (x / 2 ** 20).toFixed(0)

const body = { strategy: 'bb-squeeze-short', market_type: 'futures' as const, top_n: 535, timeframe: '1H' as const, start_date: null, end_date: null, leverage: 1, fee_pct: null, per_coin_usd: 60, max_concurrent_positions: 100, compounding: false, include_stablecoins: false }
/** the strategy's own exits (stop 10 %, take profit 8 %: few bars touch both), and tight ones (many do) */
const EXITS = [
  { label: 'own exits', over: {} },
  { label: 'sl 1 %, tp 1.5 %', over: { sl_pct: 1, tp_pct: 1.5 } },
]

/** One run as the run service does it on one thread: coin task, booking, intrabar block. */
async function run(ctx: TaskContext, store: CandleStore, spec: RunSpec, symbols: string[]) {
  const res = runCoinTrades(ctx, { spec, symbols })
  const portfolio = portfolioOptionsOf(spec, symbols.length)
  const acceptance = await stepped(acceptSteps(res.trades, portfolio))
  const booked = await stepped(bookSteps(res.trades, portfolio, markOver(daySpan(res.coins), s => store.bars(s)), acceptance))
  const ib = intrabarBlock(spec, symbols, store, mergeIntrabar(symbols, [res.intrabar]), res.trades, acceptance, booked.metrics, portfolio)
  return { trades: booked.portfolio.trades.n, ib: ib?.block }
}

/** wall and CPU time (user + system, this process) of one run, after a full collection (so no run pays for another's garbage) */
async function timed(f: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  Bun.gc(true)
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  await f()
  const wall = performance.now() - t0
  const c = process.cpuUsage(c0)
  return { wall, cpu: (c.user + c.system) / 1000 }
}

const COLD = 5
const p50 = (xs: { wall: number; cpu: number }[]) => ({ wall: median(xs.map(x => x.wall)), cpu: median(xs.map(x => x.cpu)) })
const targets: string[] = []

/** warm p50 of bar and detail (alternating), the cold detail run (fresh context, masks warmed by a bar run first), and the detail block */
async function compare(store: CandleStore, label: string, over: object) {
  const barSpec = simulateSpec({ ...body, ...over, intrabar: 'bar' })
  const detailSpec = simulateSpec({ ...body, ...over, intrabar: 'detail' })
  const symbols = new Universe(store).eligible().map(c => c.meta.symbol)
  const cold: { wall: number; cpu: number }[] = []
  for (let r = 0; r < COLD; r++) {
    const ctx = new TaskContext(store)
    await run(ctx, store, barSpec, symbols) // masks warm, no minute touched
    cold.push(await timed(() => run(ctx, store, detailSpec, symbols)))
  }
  const ctx = new TaskContext(store)
  await run(ctx, store, barSpec, symbols)
  const memBar = process.memoryUsage().rss
  const d = await run(ctx, store, detailSpec, symbols)
  const bar: { wall: number; cpu: number }[] = [], detail: { wall: number; cpu: number }[] = []
  for (let r = 0; r < REPS; r++) {
    bar.push(await timed(() => run(ctx, store, barSpec, symbols)))
    detail.push(await timed(() => run(ctx, store, detailSpec, symbols)))
  }
  const memDetail = process.memoryUsage().rss
  const b = p50(bar), w = p50(detail), c = p50(cold)
  const x = (a: number, base: number) => `${(a / base).toFixed(2)}×`
  targets.push(`${label}: warm ${x(w.wall, b.wall)} wall / ${x(w.cpu, b.cpu)} CPU (target ≤ 1.3×), cold ${x(c.wall, b.wall)} wall / ${x(c.cpu, b.cpu)} CPU (target ≤ 2×)`)
  return {
    row: `| ${label} | ${symbols.length} | ${d.trades} | ${d.ib!.bars_replayed} | ${b.wall.toFixed(1)} / ${b.cpu.toFixed(1)} | ${w.wall.toFixed(1)} / ${w.cpu.toFixed(1)} (${x(w.wall, b.wall)}) | ${c.wall.toFixed(1)} / ${c.cpu.toFixed(1)} (${x(c.wall, b.wall)}) |`,
    memBar,
    memDetail,
  }
}

const rows = [
  '| store | coins | trades | bars replayed | bar p50 wall / CPU (ms) | detail warm p50 wall / CPU (ms) | detail cold p50 wall / CPU (ms) |',
  '|---|---:|---:|---:|---:|---:|---:|',
]
const dirs: string[] = []
try {
  // 1. derived minutes (BENCH_DERIVED_DIR: a data folder from `data generate --coins 535 --days 730`, reused)
  let d1 = process.env.BENCH_DERIVED_DIR
  if (!d1) {
    d1 = mkdtempSync(join(tmpdir(), 'perpsim-intrabar-'))
    dirs.push(d1)
    generateStore(d1, { coins: COINS, days: 730, seed: 7, endMs: END })
  }
  const derived = CandleStore.open(d1)
  const derivedCoins = derived.symbols().length
  for (const e of EXITS) rows.push((await compare(derived, `synthetic, derived minutes, ${derivedCoins} coins × 2 years, ${e.label}`, e.over)).row)

  // 2. stored minutes (BENCH_STORED_DIR: a data folder from `data generate --coins 100 --days 365 --detail-stored`, reused)
  let d2 = process.env.BENCH_STORED_DIR
  let minutes = 0
  let writeS = 0
  if (!d2) {
    d2 = mkdtempSync(join(tmpdir(), 'perpsim-intrabar-stored-'))
    dirs.push(d2)
    const gen = generateStore(d2, { coins: DETAIL_COINS, days: DETAIL_DAYS, seed: 7, endMs: END })
    const t0 = performance.now()
    minutes = storeDerivedDetail(gen.store, 7)
    writeS = (performance.now() - t0) / 1000
  }
  const storedStore = CandleStore.open(d2)
  if (minutes === 0) for (const s of storedStore.storedDetailSymbols()) minutes += storedStore.detailCoverage(s)?.minutes ?? 0
  const storedCoins = storedStore.storedDetailSymbols().size
  const storedDays = Math.round(Math.max(...storedStore.symbols().map(s => storedStore.bars(s)?.n ?? 0)) / 24)
  const rssOpen = process.memoryUsage().rss
  let stored = { row: '', memBar: 0, memDetail: 0 }
  for (const e of EXITS) {
    stored = await compare(storedStore, `stored 1m detail, ${storedCoins} coins × ${storedDays} days (${(minutes / 1e6).toFixed(1)} M minutes), ${e.label}`, e.over)
    rows.push(stored.row)
  }

  // 3. import of one coin-year of 1m klines
  const d3 = mkdtempSync(join(tmpdir(), 'perpsim-intrabar-import-'))
  dirs.push(d3)
  mkdirSync(join(d3, 'in'))
  const t = Date.UTC(2025, 0, 1)
  const lines: string[] = []
  let p = 100
  for (let i = 0; i < 525_600; i++) {
    const o = p
    const c = Math.round(o * (1 + 0.0005 * Math.sin(i / 13)) * 1e4) / 1e4
    const ms = t + i * 60_000
    lines.push(`${ms},${o},${Math.max(o, c) + 0.01},${Math.min(o, c) - 0.01},${c},12.5,${ms + 59_999},1250,40,6,625,0`)
    p = c
  }
  writeFileSync(join(d3, 'in', 'BTCUSDT-1m-2025.csv'), lines.join('\n') + '\n')
  const importTimes: number[] = []
  for (let r = 0; r < 3; r++) {
    rmSync(join(d3, 'data'), { recursive: true, force: true })
    const store = CandleStore.open(join(d3, 'data'))
    const t1 = performance.now()
    const rep = await importPaths(store, [join(d3, 'in')])
    importTimes.push(performance.now() - t1)
    if (rep.detailAppended !== 525_600) throw new Error(`imported ${rep.detailAppended} minutes`)
  }

  console.log(`intrabar detail, one core, p50 of ${REPS} warm runs (bar and detail alternating), cold = ${COLD} fresh contexts; load average ${loadavg()[0].toFixed(1)} at the end\n`)
  console.log(rows.join('\n'))
  console.log(`\nstored detail: ${minutes} minutes${writeS > 0 ? ` written in ${writeS.toFixed(1)} s` : ' (store reused)'}; resident memory: ${mb(rssOpen)} MB with the store open, ${mb(stored.memBar)} MB after the bar runs, ${mb(stored.memDetail)} MB after the detail runs (${(stored.memDetail / stored.memBar).toFixed(2)}×, target ≤ 1.5×)`)
  console.log(`data import of one coin-year of 1m klines (525,600 rows, 12 columns): p50 ${(median(importTimes) / 1000).toFixed(2)} s of 3`)
  console.log(`\nratios to the same request with intrabar "bar" (p50):\n${targets.map(t => `- ${t}`).join('\n')}`)
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
}
