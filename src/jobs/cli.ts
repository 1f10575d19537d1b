/**
 * `perpsim jobs list` and `perpsim jobs run <name> [--date YYYY-MM-DD]`: the server's jobs
 * on a scheduler of this process (no timers), over the same store and database, and on the
 * same road to the workers (the pool, or with REDIS_URL the fleet's queue). A manual
 * run claims the slot's next attempt in job_runs, so it shows in `jobs list` like any run.
 */
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { systemClock, type Clock } from '../clock'
import type { Config } from '../config'
import { openConfiguredDb } from '../db'
import { createLogger } from '../log'
import { CandleStore } from '../market/candle-store'
import { SeriesCache } from '../market/series'
import { DAY_MS, isoRecordInstant, parseDay } from '../time'
import { Universe } from '../market/universe'
import { transportFor } from '../main'
import { RunService } from '../runs/service'
import { candleFeedFor } from './candles'
import { registerJobs } from './registry'
import { describeOwner } from '../records/job-runs'
import { Scheduler } from './scheduler'

const iso = (ms: number | null) => (ms === null ? '-' : isoRecordInstant(ms))

export async function jobsCommand(config: Config, args: string[], usage: (msg: string) => Error, clock: Clock = systemClock): Promise<number> {
  const [sub, ...rest] = args
  if (sub !== 'list' && sub !== 'run') throw usage(`unknown command: jobs ${sub ?? ''}`.trim())
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { date: { type: 'string' } } })
  if (sub === 'list' && (positionals.length > 0 || values.date !== undefined)) throw usage('jobs list takes no arguments')
  if (sub === 'run' && positionals.length !== 1) throw usage('jobs run needs one job name (see jobs list)')
  let dayMs: number | null = null
  if (values.date !== undefined) {
    dayMs = parseDay(values.date)
    if (dayMs === null)
      throw usage(`--date ${values.date}: expected a calendar date YYYY-MM-DD`)
  }

  const log = createLogger(config.logLevel === 'silent' ? 'silent' : 'warn')
  const store = CandleStore.open(config.dataDir)
  const db = await openConfiguredDb(config)
  const universe = new Universe(store)
  // with REDIS_URL a manual run goes to the fleet's workers, as the server's scheduled runs do
  const transport = await transportFor(config, store, log)
  const runs = new RunService({ store, universe, transport, db, clock, cacheSize: config.resultCacheSize, maxRuns: Infinity })
  const scheduler = new Scheduler({ clock, db, log, timers: false })
  const feed = candleFeedFor(config, store, clock, log) ?? undefined
  registerJobs(scheduler, { config, clock, db, store, universe, runs, series: new SeriesCache(store), feed }, log)
  try {
    if (sub === 'list') {
      for (const j of await scheduler.list()) {
        const last = j.last
        console.log(`${j.name}  (${j.cron} UTC)  ${j.description}`)
        console.log(`  next run: ${j.next_run ?? '-'}`)
        console.log(
          last
            ? `  last run: ${last.slot} attempt ${last.attempt} (${last.trigger}) ${last.outcome ?? `running (${describeOwner(last)}, last heartbeat ${iso(last.heartbeatMs)})`}; started ${iso(last.startedAtMs)}, finished ${iso(last.finishedAtMs)}${last.counts ? `; ${Object.entries(last.counts).map(([k, v]) => `${k} ${v}`).join(', ')}` : ''}${last.error ? `; ${last.error.split('\n')[0]}` : ''}`
            : '  last run: never',
        )
      }
      return 0
    }
    const name = positionals[0]
    if (!scheduler.names().includes(name)) throw usage(`unknown job '${name}'; jobs: ${scheduler.names().join(', ')}`)
    if (store.coinCount === 0) throw usage(`the store at ${store.root} is empty: run \`data generate\` or start the server once`)
    const now = clock.now()
    let slotMs: number | null
    if (dayMs !== null) {
      slotMs = scheduler.nextSlot(name, dayMs - 1)
      if (slotMs === null || slotMs >= dayMs + DAY_MS) throw usage(`job ${name} has no slot on ${values.date}`)
    } else slotMs = scheduler.slotsBetween(name, now - 8 * DAY_MS, now).at(-1) ?? null
    if (slotMs === null) throw usage(`job ${name} has had no slot in the last 8 days; give --date`)
    process.stderr.write(`running ${scheduler.slotOf(name, slotMs)} (slot ${iso(slotMs)})\n`)
    const row = await scheduler.runSlot(name, slotMs, 'manual', msg => process.stderr.write(`  ${msg}\n`))
    if (!row) {
      process.stderr.write('another process claimed this attempt first\n')
      return 1
    }
    console.log(`${row.slot} attempt ${row.attempt}: ${row.outcome} in ${((row.finishedAtMs! - row.startedAtMs) / 1000).toFixed(1)} s${row.counts ? ` (${Object.entries(row.counts).map(([k, v]) => `${k} ${v}`).join(', ')})` : ''}${row.error ? `\n${row.error}` : ''}`)
    return row.outcome === 'failed' ? 1 : 0
  } finally {
    await scheduler.stop()
    await transport.close()
    await db.close()
  }
}
