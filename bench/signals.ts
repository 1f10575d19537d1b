/**
 * Live records on the default 200-coin synthetic store (730 days, seed 7): the first scan
 * (72-hour backfill), one ordinary hourly scan (1H only), the midnight scan (1H, 4H and 1D
 * bars complete together), a scoring pass over 10,000 open signals, a day seal, and the
 * day of the paper trader (regime fallback picks), and the p50 of the /signals/*,
 * /paper-trading, /performance/public and /trust/* endpoints. `bun bench/signals.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../src/app'
import { ManualClock } from '../src/clock'
import { loadConfig } from '../src/config'
import { openDb } from '../src/db'
import type { AppDeps } from '../src/deps'
import { sealDays } from '../src/live/day-roots'
import { runPaper } from '../src/live/paper-trader'
import { paperLeafSource } from '../src/records/paper'
import { PaperService } from '../src/modules/paper/service'
import { scanSignals } from '../src/live/signal-scan'
import { scoreSignals } from '../src/live/signal-score'
import { createLogger } from '../src/log'
import { MarketContext } from '../src/market-context/service'
import { generateStore } from '../src/market/generate-store'
import { appendDemoCandles } from '../src/market/synthetic'
import { SeriesCache } from '../src/market/series'
import { DAY_MS, HOUR_MS } from '../src/time'
import { Universe } from '../src/market/universe'
import { insertSignals, signalId, type SignalRow } from '../src/records/signals'
import { workerPoolTransport } from '../src/runs/transport'
import { RunService } from '../src/runs/service'
import { listStrategies } from '../src/strategies/registry'

const dir = mkdtempSync(join(tmpdir(), 'perpsim-signals-'))
// the generated store ends with the 19:00 candle; demo mode appends the next ones as the clock moves
const endMs = Date.UTC(2026, 10, 25, 0, 0)
const { store } = generateStore(dir, { coins: 200, days: 730, seed: 7, endMs: endMs - 4 * HOUR_MS }, true)
const config = loadConfig({ OFFLINE: '1', DATA_DIR: dir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MIN: '0' })
const clock = new ManualClock(endMs - 4 * HOUR_MS + 10_000)
/** move the clock and append the candles completed by then (and draw the forming hour), as demo mode does every hour */
let demoMs = 0
const hourLater = (hours = 1) => {
  clock.advance(hours * HOUR_MS)
  const t0 = performance.now()
  appendDemoCandles(store, clock.now(), 7)
  demoMs = performance.now() - t0
}
const db = openDb(':memory:')
const universe = new Universe(store)
const series = new SeriesCache(store)
const log = createLogger('silent')
const workers = Number(process.env.WORKERS ?? 2)
const transport = workerPoolTransport(store, workers, 64 * 256)
const runs = new RunService({ store, universe, transport, db, clock, cacheSize: 8, maxRuns: 8 })
const deps: AppDeps = {
  config, clock, store, universe, series, db, runs,
  marketContext: new MarketContext({ config, clock, db, store, universe, log, strategyStats: async () => new Map() }),
  startedAtMs: clock.now(),
}
const app = buildApp(deps)
let lastCpuMs = 0
/** wall time of f; its CPU time (user + system of this process) is left in lastCpuMs */
const time = async <T>(f: () => Promise<T> | T): Promise<[T, number]> => {
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  const r = await f()
  const c = process.cpuUsage(c0)
  lastCpuMs = (c.user + c.system) / 1000
  return [r, performance.now() - t0]
}
const cpu = () => `, CPU ${(lastCpuMs / 1000).toFixed(2)} s`
const last = store.bars('BTCUSDT')!
console.log(`store: 200 synthetic coins × 730 days (seed 7), ${last.n} 1H bars per coin at most; ${listStrategies().length} strategies; scan top 100 on ${workers} workers`)

// as the server does at start-up: the demo feed's first call draws the forming hour
appendDemoCandles(store, clock.now(), 7)
const [first, firstMs] = await time(() => scanSignals(deps))
console.log(`first scan (72 h backfill, 1H+4H+1D): ${(firstMs / 1000).toFixed(2)} s${cpu()}, ${first.added} signals`)
hourLater()
const [hourly, hourlyMs] = await time(() => scanSignals(deps))
console.log(`hourly scan (1H: ${hourly.timeframes[0]!.barsScanned} coin-bars, recorded at the close from the forming open): ${(hourlyMs / 1000).toFixed(2)} s${cpu()}, ${hourly.added} signals`)
console.log(`demo hour (200 coins: append the closed hour, draw the forming one): ${demoMs.toFixed(0)} ms; a second call in the same hour: ${(await time(() => appendDemoCandles(store, clock.now(), 7)))[1].toFixed(0)} ms`)
hourLater(3)
const [midnight, midnightMs] = await time(() => scanSignals(deps))
console.log(`midnight scan (1H + 4H + 1D complete): ${(midnightMs / 1000).toFixed(2)} s${cpu()}, ${midnight.added} signals`)
const [, firstScoreMs] = await time(() => scoreSignals(deps))
console.log(`scoring the recorded signals: ${firstScoreMs.toFixed(0)} ms`)

// 10,000 open signals: registry strategies on the top 100 coins at the last 40 1H bars,
// with wide exits so they stay open
const strategies = listStrategies()
const coins = universe.topN(100).map(c => c.meta.symbol)
const extra: SignalRow[] = []
for (let k = 0; extra.length < 10_000; k++) {
  const s = strategies[k % strategies.length]!
  const coin = coins[Math.floor(k / strategies.length) % coins.length]!
  const b = store.bars(coin)!
  const i = b.n - 2 - (Math.floor(k / (strategies.length * coins.length)) % 40)
  const id = signalId(s.id, '1H', coin, b.t[i]!) + ':bench'
  extra.push({ id, strategy: s.id, strategyName: s.name, status: s.status, coin, direction: s.direction, timeframe: '1H', signalBarMs: b.t[i]!, signalTimeMs: b.t[i + 1]!, entryPrice: b.o[i + 1]!, slPct: 50, tpPct: 50, maxBars: 168, publishedAtMs: clock.now(), backfill: false })
}
await insertSignals(db, extra)
await scoreSignals(deps) // first pass writes the rows
hourLater() // a new candle: every open row is marked again
const [, nextScanMs] = await time(() => scanSignals(deps))
const scanCpu = cpu()
const [pass, passMs] = await time(() => scoreSignals(deps))
console.log(`next hour: scan ${(nextScanMs / 1000).toFixed(2)} s${scanCpu}; scoring pass re-marking ${pass.scored} of the open signals (${pass.open} still open, ${pass.closed} closed): ${passMs.toFixed(0)} ms${cpu()}`)
// paper trading on the regime fallback (no ranking is published in this bench): a day of hours
const paperDeps = { ...deps, regimeStrategies: async () => ['bb-squeeze-short', 'atr-breakout-short'] }
let paperMs = 0
for (let k = 0; k < 24; k++) {
  hourLater()
  await scanSignals(deps)
  await scoreSignals(deps)
  paperMs += (await time(() => runPaper(paperDeps)))[1]
}
const state = (await new PaperService(deps).state())!
console.log(`paper trader: ${(paperMs / 24).toFixed(0)} ms per hourly step; ${state.open_positions.length} open, ${state.closed_positions.length} closed positions after a day`)
clock.advance(DAY_MS)
const [seal, sealMs] = await time(() => sealDays({ ...deps, leafSources: [paperLeafSource] }))
console.log(`sealing ${seal.sealed.length} day(s): ${sealMs.toFixed(0)} ms`)

const day = new Date(endMs - DAY_MS).toISOString().slice(0, 10).replaceAll('-', '')
const paths = [
  '/paper-trading', '/performance/public', '/signals/live', '/signals/history?hours=72', '/signals/scored?days=14&limit=200', '/signals/realtime', `/trust/merkle/${day}`, `/trust/merkle/${day}/leaves`, '/trust/metrics',
]
console.log('\n| endpoint | p50 ms | p90 ms | bytes |\n|---|---|---|---|')
for (const p of paths) {
  const xs: number[] = []
  let bytes = 0
  for (let k = 0; k < 60; k++) {
    const t0 = performance.now()
    const res = await app.handle(new Request(`http://localhost${p}`))
    bytes = (await res.text()).length
    xs.push(performance.now() - t0)
  }
  xs.sort((a, b) => a - b)
  console.log(`| ${p} | ${xs[30]!.toFixed(2)} | ${xs[54]!.toFixed(2)} | ${bytes} |`)
}
await transport.close()
await db.close()
rmSync(dir, { recursive: true, force: true })
