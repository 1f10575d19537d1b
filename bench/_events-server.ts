/**
 * The server side of bench/events.ts: the real app (buildApp over composeDeps) on the
 * system clock, an empty candle store and a database file, listening on PORT. It reads
 * commands on stdin, so the events are committed in this process, as the live-records job
 * commits them (the post-commit wake-up path):
 *   `emit <n>`  append n events in one transaction, each payload carrying its commit instant
 *   `rss`       collect garbage, then print `rss <bytes>`
 *   `lag`       print `lag <ms>`: the longest the event loop was late since the last `lag`
 */
import { sql } from 'drizzle-orm'
import { join } from 'node:path'
import { buildApp } from '../src/app'
import { systemClock } from '../src/clock'
import { composeDeps } from '../src/compose'
import { loadConfig } from '../src/config'
import { openDb } from '../src/db'
import { CandleStore } from '../src/market/candle-store'
import { appendEvents } from '../src/records/events'
import { inProcessTransport } from '../src/runs/transport'

const config = loadConfig(process.env)
const store = CandleStore.open(config.dataDir)
const db = openDb(join(config.dataDir, 'perpsim.sqlite'))
const deps = composeDeps({ config, clock: systemClock, store, db, transport: inProcessTransport(store), maxRuns: 8 })
const app = buildApp(deps)
app.listen({ port: config.port, hostname: config.host })
console.log(`listening ${app.server!.port}`)

// the event loop's lateness, sampled every 5 ms
let maxLag = 0
let expected = performance.now() + 5
setInterval(() => {
  const now = performance.now()
  maxLag = Math.max(maxLag, now - expected)
  expected = now + 5
}, 5)

let seq = 0
for await (const line of console) {
  const [cmd, arg] = line.trim().split(' ')
  if (cmd === 'emit') {
    const n = Number(arg ?? 1)
    await db.tx(async tx => {
      const list = Array.from({ length: n }, () => ({ kind: 'signal' as const, strategy: 'bench', coin: 'BTCUSDT', status: 'verified', payload: { seq: ++seq, pad: 'x'.repeat(600) } }))
      await appendEvents(tx, Date.now(), list)
      // the instant of the commit: the transaction ends right after this callback returns
    })
    console.log(`committed ${seq} ${performance.timeOrigin + performance.now()}`)
  } else if (cmd === 'lag') {
    console.log(`lag ${maxLag}`)
    maxLag = 0
  } else if (cmd === 'rss') {
    Bun.gc(true)
    console.log(`rss ${process.memoryUsage().rss}`)
  }
}
