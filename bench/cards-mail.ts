/**
 * Cards and mail on the default 200-coin synthetic store (730 days, seed 7), 2 workers:
 * GET /og cold (a new setting each time: the simulation and the render), GET /og cached
 * (the same card again), GET /share cached, and the weekly alert for 10,000 active
 * subscribers to the file outbox (.eml files, no SMTP). `bun bench/cards-mail.ts`
 */
import { sql } from 'drizzle-orm'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../src/app'
import { ManualClock } from '../src/clock'
import { loadConfig } from '../src/config'
import { openDb, schema } from '../src/db'
import { createLogger } from '../src/log'
import { mailerFor } from '../src/mail/mailer'
import { runWeeklyMail } from '../src/mail/weekly'
import { generateStore } from '../src/market/generate-store'
import { GROUPS, PERIODS, periodWindow } from '../src/records/rankings/configurations'
import { DayFiles, type DayFile } from '../src/records/rankings/day-files'
import type { RankedRow } from '../src/records/rankings/rank'
import { workerPoolTransport } from '../src/runs/transport'
import { composeDeps } from '../src/compose'

const dir = mkdtempSync(join(tmpdir(), 'perpsim-cards-'))
const nowMs = Date.UTC(2026, 10, 23, 1) // a Monday, 01:00 UTC
const workers = Number(process.env.WORKERS ?? 2)
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]

const { store } = generateStore(dir, { coins: 200, days: 730, seed: 7, endMs: nowMs - 3_600_000 }, true)
const config = loadConfig({ OFFLINE: '1', DATA_DIR: dir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MIN: '0', PUBLIC_URL: 'https://perpsim.example.org' })
const clock = new ManualClock(nowMs)
const db = openDb(join(dir, 'perpsim.sqlite'))
const transport = workerPoolTransport(store, workers, 64 * 256)
const log = createLogger('silent')
const mailer = mailerFor(config, db, clock, log)
const deps = composeDeps({ config, clock, store, db, transport, log, mailer, maxRuns: 64, cacheSize: 256, strategyStats: () => async () => new Map() })
const { runs } = deps
const app = buildApp(deps)
const get = async (path: string) => {
  const t = performance.now()
  const r = await app.handle(new Request(`http://localhost${path}`))
  await r.arrayBuffer()
  if (r.status !== 200) throw new Error(`${path}: ${r.status}`)
  return performance.now() - t
}

console.log(`store: 200 synthetic coins × 730 days (seed 7); ${workers} workers; default card settings (bb-squeeze-short, top 10, 5x, fee 0.05 %)`)
await get('/og?sl=4.5') // warm the workers' code and the fonts once, outside the figures

const cold: number[] = []
for (let i = 0; i < 20; i++) cold.push(await get(`/og?sl=${(5 + i * 0.25).toFixed(2)}`))
const cachedOg: number[] = []
for (let i = 0; i < 300; i++) cachedOg.push(await get('/og?sl=5.00'))
const coldKo: number[] = []
for (let i = 0; i < 10; i++) coldKo.push(await get(`/og?lang=ko&sl=${(9 + i * 0.25).toFixed(2)}`))
await get('/share?preset=bb-squeeze-short&sl=5')
const cachedShare: number[] = []
for (let i = 0; i < 300; i++) cachedShare.push(await get('/share?preset=bb-squeeze-short&sl=5'))
console.log(`GET /og cold (new settings: simulation + render), 20 requests: p50 ${p50(cold).toFixed(1)} ms, p90 ${p90(cold).toFixed(1)} ms`)
console.log(`GET /og cold, Korean card, 10 requests: p50 ${p50(coldKo).toFixed(1)} ms`)
console.log(`GET /og cached (same card), 300 requests: p50 ${p50(cachedOg).toFixed(2)} ms, p90 ${p90(cachedOg).toFixed(2)} ms`)
console.log(`GET /share cached, 300 requests: p50 ${p50(cachedShare).toFixed(2)} ms, p90 ${p90(cachedShare).toFixed(2)} ms`)

// the weekly alert: a day file of the real shape (3 + 3 rows quoted), 10,000 active subscribers
function row(rank: number): RankedRow {
  return {
    configuration_id: `v1:bb-squeeze-short:1H:10-8-${40 + rank}`, strategy: 'bb-squeeze-short', name_en: 'BB Squeeze SHORT', name_ko: null, direction: 'short',
    status: 'testing', timeframe: '1H', sl_pct: 10, tp_pct: 8, max_bars: 40 + rank, total_trades: 30 + rank, win_rate: 60 - rank, profit_factor: 2 - rank / 10,
    pf_capped: false, total_return_pct: 50 - rank, sharpe_ratio: 1, max_drawdown_pct: 10 + rank, rank, eligible: true, previous_rank: null, previous_streak: null, rank_change: null, streak: 1,
  }
}
const rows = Array.from({ length: 20 }, (_, i) => row(i + 1))
const dateMs = Date.UTC(2026, 10, 23)
const periods = Object.fromEntries(PERIODS.map(p => [p, { ...periodWindow(dateMs, p), groups: Object.fromEntries(GROUPS.map(g => [g, { symbols: [], top_n_requested: 50, eligible_universe: 50, rows, weekly_best3: rows.slice(0, 3).map(r => ({ configuration_id: r.configuration_id, days_ranked: 7, mean_profit_factor: r.profit_factor, mean_win_rate: r.win_rate })) }])) }]))
const file = { schema_version: 'rankings-1', rules_version: 'v1', date: '2026-11-23', generated_at: '2026-11-23T00:30:00Z', written_by: 'schedule', engine_version: 'bench', data_version: 'bench', previous_date: null, rules: {}, periods } as unknown as DayFile
await new DayFiles(db).publish(file, nowMs)
const N = 10_000
await db.tx(async tx => {
  for (let i = 0; i < N; i += 500)
    await tx.orm.insert(schema.subscribers).values(Array.from({ length: Math.min(500, N - i) }, (_, k) => ({ email: `reader${i + k}@example.org`, lang: (i + k) % 3 === 0 ? 'ko' : 'en', status: 'active', createdAtMs: 0, updatedAtMs: 0 })))
})
const t0 = performance.now()
const r = await runWeeklyMail({ db, clock, mailer }, nowMs)
const weeklyS = (performance.now() - t0) / 1000
const files = readdirSync(join(dir, 'outbox')).filter(f => f.endsWith('.eml')).length
console.log(`weekly alert, ${N.toLocaleString('en-US')} active subscribers to the file outbox: ${weeklyS.toFixed(1)} s (${r.queued} queued, ${r.delivery!.sent} sent, ${files} .eml files)`)

await transport.close()
await db.close()
rmSync(dir, { recursive: true, force: true })
process.exit(0)
