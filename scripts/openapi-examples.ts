/**
 * Writes src/http/openapi-examples.json: the examples /openapi.json shows, each a real
 * request and the service's real answer to it, on the real candles beside the repo
 * (../shared/data: 28 coins, 2020-10 … 2024-06) with the clock just after their end.
 * Arrays are cut to their first EXAMPLE_ITEMS items (an example shows the shape, not every
 * row); nothing else is changed. Run after a change of a request or response schema:
 *   bun scripts/openapi-examples.ts
 * tests/openapi-document.test.ts validates every example against its schema.
 */
import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { buildApp } from '../src/app'
import { rankingsJob } from '../src/jobs/rankings'
import { Scheduler } from '../src/jobs/scheduler'
import { createLogger } from '../src/log'
import { importPaths } from '../src/market/import-binance'
import { makeHarness, SHARED } from '../tests/helpers/harness'

const EXAMPLE_ITEMS = 3
const OUT = resolve(import.meta.dir, '../src/http/openapi-examples.json')
const DATA = join(SHARED, 'data')
/** the day after the data ends; the ranking is the last day the data covers whole */
const NOW = Date.UTC(2024, 5, 17)
const RANKING_SLOT = Date.UTC(2024, 5, 16, 0, 30)

const cut = (v: unknown): unknown =>
  Array.isArray(v) ? v.slice(0, EXAMPLE_ITEMS).map(cut) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cut(x)])) : v

type Example = { request?: unknown; responses: Record<string, unknown> }
const operations: Record<string, Example> = {}
const components: Record<string, unknown> = {}

const h = makeHarness({ nowMs: RANKING_SLOT })
await importPaths(h.deps.store, [join(DATA, 'binance-usdm-1h'), join(DATA, 'binance-usdm-funding'), join(DATA, 'universe-snapshot-2026-03-15.csv')])
// one published ranking (the 00:30 job of that day), so /rankings/daily answers a real one
const scheduler = new Scheduler({ clock: h.clock, db: h.deps.db, log: createLogger('silent'), timers: false })
scheduler.register(rankingsJob(h.deps))
const ranked = await scheduler.runSlot('rankings', RANKING_SLOT, 'schedule')
await scheduler.stop()
console.log('rankings job:', JSON.stringify(ranked))
h.clock.set(NOW)

/** `key` is the document's "METHOD /path/{param}"; `url` the request made. */
async function record(key: string, url: string, json?: unknown) {
  const method = key.split(' ')[0]
  const r = await h.req(url, json === undefined ? { method } : { method, json })
  if (r.status >= 500) throw new Error(`${key}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`)
  const op = (operations[key] ??= { responses: {} })
  if (json !== undefined && r.status < 300) op.request = json
  op.responses[String(r.status)] = cut(r.body)
  console.log(`${key} ${r.status}`)
  return r.body
}

const window = { start_date: '2024-03-01', end_date: '2024-05-31' }
const entry = { type: 'AND', conditions: [{ field: 'rsi', op: '<', value: 35 }, { field: 'close', op: '>', value: { field: 'ema_slow', mult: 0.97 } }] }

await record('GET /health', '/health')
await record('GET /coins', '/coins')
// the market-context reads answer from the store when the upstreams are out of reach (OFFLINE)
for (const path of ['/coins/stats', '/market', '/market/live', '/news', '/macro', '/regime', '/hot-strategies', '/performance/public', '/trust/metrics'])
  await record(`GET ${path}`, path)
for (const path of ['/signals/live', '/signals/history', '/signals/realtime']) await record(`GET ${path}`, path)
await record('GET /trust/merkle/{date}/leaves', '/trust/merkle/20240601/leaves')
await record('GET /ohlcv/{symbol}', '/ohlcv/BTCUSDT?limit=3')
await record('GET /ohlcv/{symbol}', '/ohlcv/NOPEUSDT')
await record('GET /strategies', '/strategies')
await record('GET /indicators', '/indicators')
await record('GET /builder/indicators', '/builder/indicators')
await record('GET /builder/presets', '/builder/presets')
await record('GET /builder/presets/{preset_id}', '/builder/presets/ema-20-50-cross-long')
await record('GET /builder/presets/{preset_id}', '/builder/presets/no-such-preset')
await record('POST /backtest', '/backtest', { name: 'RSI dip in an uptrend', direction: 'long', indicators: { rsi: {}, ema: {} }, entry, sl_pct: 5, tp_pct: 8, max_bars: 48, top_n: 5, ...window })
await record('POST /simulate', '/simulate', { strategy: 'ma-cross-long', top_n: 5, ...window })
await record('POST /simulate', '/simulate', { strategy: 'ma-cross-long', sl_pct: 0.1 })
await record('POST /simulate', '/simulate', { strategy: 'no-such-strategy' })
const coin = (await record('POST /simulate/coin', '/simulate/coin', { symbol: 'ETHUSDT', strategy: 'ma-cross-long', ...window })) as { trades?: Record<string, unknown>[] }
await record('POST /simulate/compare', '/simulate/compare', { sl_pct: 5, tp_pct: 8, top_n: 5 })
await record('POST /simulate/validate', '/simulate/validate', { strategy: 'ma-cross-long', top_n: 5, n_simulations: 200, seed: 7 })
await record('POST /simulate/optimize', '/simulate/optimize', { strategy: 'ma-cross-long', top_n: 5, sl_values: [3, 5], tp_values: [6, 10], ...window })
/** a research run's id once it has stopped (the 202 answers at once; the work goes on in the background) */
async function stopped(path: string): Promise<void> {
  for (let i = 0; i < 6000; i++) {
    const r = await h.req(path)
    if (!['queued', 'running'].includes(r.body.state)) return
    await Bun.sleep(20)
  }
  throw new Error(`${path} did not stop`)
}
const sweep = (await record('POST /research/sweeps', '/research/sweeps', {
  strategy: 'ma-cross-long',
  top_n: 5,
  ...window,
  space: [{ path: 'sl_pct', values: [3, 5, 8] }, { path: 'tp_pct', min: 4, max: 10, step: 3 }],
  objective: 'sharpe_ratio',
  min_trades: 5,
  pbo_blocks: 8,
})) as { id: string }
await stopped(`/research/sweeps/${sweep.id}`)
await record('GET /research/sweeps/{id}', `/research/sweeps/${sweep.id}?limit=3&sort=objective`)
await record('GET /research/sweeps/{id}', '/research/sweeps/sw-no-such-sweep')
await record('POST /research/sweeps', '/research/sweeps', { strategy: 'ma-cross-long', space: [{ path: 'entry.conditions[9].value', values: [1, 2] }] })
const wf = (await record('POST /research/walk-forward', '/research/walk-forward', {
  strategy: 'ma-cross-long',
  top_n: 5,
  start_date: '2023-06-01',
  end_date: '2024-05-31',
  space: [{ path: 'sl_pct', values: [3, 5] }, { path: 'tp_pct', values: [6, 10] }],
  objective: 'sharpe_ratio',
  min_trades: 5,
  mode: 'rolling',
  in_sample_days: 120,
  out_of_sample_days: 60,
  folds: 3,
  purge_days: 2,
})) as { id: string }
await stopped(`/research/walk-forward/${wf.id}`)
await record('GET /research/walk-forward/{id}', `/research/walk-forward/${wf.id}`)
const trades = (coin.trades ?? []).slice(0, 3).map(t => ({ direction: t.direction, entry_price: t.entry_price, exit_price: t.exit_price, entry_time: t.entry_time, exit_time: t.exit_time }))
await record('POST /simulate/score-session', '/simulate/score-session', { trades })
await record('POST /simulate/dca', '/simulate/dca', { symbol: 'ETHUSDT', start: '2024-03-01', end: '2024-05-31', params: { max_safety_orders: 4, leverage: 2 } })
await record('POST /simulate/grid', '/simulate/grid', { symbol: 'BTCUSDT', start: '2024-03-01', end: '2024-05-31', params: { lower_price: 56000, upper_price: 72000, grid_count: 20 } })
await record('GET /rankings/daily', '/rankings/daily')
await record('GET /rankings/daily', '/rankings/daily?date=20200101&strict_date=true')
await record('GET /signals/scored', '/signals/scored?days=14&limit=50')
await record('GET /trust/merkle/{date}', '/trust/merkle/20240601')
await record('GET /paper-trading', '/paper-trading')
await record('POST /api/subscribe', '/api/subscribe', { email: 'reader@example.org', lang: 'en' })
for (const [status, name] of [['422', 'ValidationError'], ['404', 'NotFound']] as const) {
  const found = Object.values(operations).find(o => o.responses[status])
  components[name] = found?.responses[status]
}

// 429 and 503 come from the HTTP layer's guards: a one-request limit, and a late event loop
const limited = makeHarness({ nowMs: NOW, env: { RATE_LIMIT_OTHER_PER_MIN: '1' } })
await limited.req('/coins')
components.RateLimited = (await limited.req('/coins')).body
limited.cleanup()
const shed = makeHarness({ nowMs: NOW, env: { SHED_LAG_MS: '200' } })
const lateLoop = buildApp({ ...shed.deps, eventLoopLag: { lagMs: () => 2400 } })
const late = await lateLoop.handle(new Request('http://localhost/simulate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"strategy":"ma-cross-long"}' }))
if (late.status !== 503) throw new Error(`expected a 503 from load shedding, got ${late.status}`)
components.Overloaded = await late.json()
shed.cleanup()

writeFileSync(OUT, `${JSON.stringify({ operations, components }, null, 1)}\n`)
h.cleanup()
console.log(`wrote ${OUT}`)
process.exit(0)
