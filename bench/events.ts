/**
 * The push feed under 1,000 open streams on loopback (docs/events.md, docs/benchmarks.md):
 * - commit-to-delivery: an event committed in the server process (bench/_events-server.ts,
 *   the live-records job's path: the post-commit wake-up) until each of the 1,000 clients
 *   has read it, p50 / p99 / max over every (event, stream) pair;
 * - memory per idle stream: the server's RSS after a full GC with the streams open, minus
 *   before, divided by the streams;
 * - /health p99 with the streams open, idle and while events are fanned out.
 * The clients run in this process (fetch, reading each body as it arrives); the server's
 * per-client limit is raised for them (they all come from 127.0.0.1).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BUN, freePort, pct, ROOT } from './_server'

// Bun's fetch keeps at most 256 connections at once unless told otherwise at start: run again with more
if (!process.env.BUN_CONFIG_MAX_HTTP_REQUESTS) {
  const again = Bun.spawnSync([process.execPath, import.meta.path], { env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: '4096' }, stdout: 'inherit', stderr: 'inherit' })
  process.exit(again.exitCode ?? 1)
}

const STREAMS = Number(process.env.STREAMS ?? 1000)
const EVENTS = Number(process.env.EVENTS ?? 60)
const GAP_MS = 100

const dataDir = mkdtempSync(join(tmpdir(), 'perpsim-bench-events-'))
const port = await freePort()
const proc = Bun.spawn([BUN, join(ROOT, 'bench/_events-server.ts')], {
  cwd: ROOT,
  env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', OFFLINE: '1', LOG_LEVEL: 'silent', RATE_LIMIT_OTHER_PER_MIN: '0', EVENTS_STREAMS_PER_CLIENT: String(STREAMS * 2), EVENTS_STREAMS_MAX: String(STREAMS * 2) },
  stdin: 'pipe',
  stdout: 'pipe',
  stderr: 'inherit',
})
const url = `http://127.0.0.1:${port}`
// the server never outlives the bench, however it ends
process.on('exit', () => proc.kill('SIGKILL'))

// the server's stdout, line by line: commit instants and RSS answers
const committed = new Map<number, number>()
const waiting: ((line: string) => void)[] = []
void (async () => {
  let buf = ''
  for await (const chunk of proc.stdout) {
    buf += new TextDecoder().decode(chunk)
    let i: number
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i)
      buf = buf.slice(i + 1)
      const m = /^committed (\d+) ([\d.]+)$/.exec(line)
      if (m) committed.set(Number(m[1]), Number(m[2]))
      else waiting.shift()?.(line)
    }
  }
})()
const command = (c: string) => proc.stdin.write(`${c}\n`)
const ask = (c: string) => new Promise<string>(r => (waiting.push(r), command(c)))

const first = await new Promise<string>(r => waiting.push(r))
if (!first.startsWith('listening')) throw new Error(first)
const rssBefore = Number((await ask('rss')).split(' ')[1])

/** receive instants per event seq, one per stream */
const received = new Map<number, number[]>()
let ready = 0
const controllers: AbortController[] = []
async function client(): Promise<void> {
  const ac = new AbortController()
  controllers.push(ac)
  const res = await fetch(`${url}/events`, { signal: ac.signal })
  if (res.status !== 200) throw new Error(`GET /events: ${res.status} ${await res.text()}`)
  const dec = new TextDecoder()
  let buf = ''
  let counted = false
  try {
    for await (const chunk of res.body!) {
      const now = performance.timeOrigin + performance.now()
      buf += dec.decode(chunk, { stream: true })
      if (!counted && buf.includes('retry:')) (counted = true), ready++
      let i: number
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const msg = buf.slice(0, i)
        buf = buf.slice(i + 2)
        const m = /"seq":(\d+)/.exec(msg)
        if (m) {
          const seq = Number(m[1])
          let list = received.get(seq)
          if (!list) received.set(seq, (list = []))
          list.push(now)
        }
      }
    }
  } catch (e) {
    if (!ac.signal.aborted) throw e
  }
}

async function healthSamples(ms: number): Promise<number[]> {
  const out: number[] = []
  const end = performance.now() + ms
  while (performance.now() < end) {
    const t0 = performance.now()
    await (await fetch(`${url}/health`)).arrayBuffer()
    out.push(performance.now() - t0)
  }
  return out
}

const t0 = performance.now()
const clients = Array.from({ length: STREAMS }, () => client())
while (ready < STREAMS) {
  if (performance.now() - t0 > 60_000) {
    console.error(`only ${ready} of ${STREAMS} streams opened in 60 s`)
    process.exit(1)
  }
  await Bun.sleep(20)
}
const openMs = performance.now() - t0
await Bun.sleep(500)
const rssOpen = Number((await ask('rss')).split(' ')[1])
const healthIdle = await healthSamples(3000)

await ask('lag')
const healthDuring = healthSamples(EVENTS * GAP_MS)
for (let k = 0; k < EVENTS; k++) {
  command('emit 1')
  await Bun.sleep(GAP_MS)
}
const healthBusy = await healthDuring
const steadyLag = Number((await ask('lag')).split(' ')[1])
const deadline = performance.now() + 30_000
while ([...received.values()].reduce((s, l) => s + l.length, 0) < EVENTS * STREAMS && performance.now() < deadline) await Bun.sleep(50)

// a burst: BURST events in one transaction (an hour's scan records a few hundred signals at once)
const BURST = 300
const burstFirst = EVENTS + 1
await ask('lag')
const healthBurst = healthSamples(2500)
command(`emit ${BURST}`)
const burstSamples = await healthBurst
const burstDeadline = performance.now() + 30_000
const burstReceived = () => Array.from({ length: BURST }, (_, k) => received.get(burstFirst + k)?.length ?? 0).reduce((a, b) => a + b, 0)
while (burstReceived() < BURST * STREAMS && performance.now() < burstDeadline) await Bun.sleep(50)
const burstLag = Number((await ask('lag')).split(' ')[1])
const burstCommit = committed.get(EVENTS + BURST)!
const burstLast = Math.max(...Array.from({ length: BURST }, (_, k) => Math.max(...(received.get(burstFirst + k) ?? [NaN]))))

const latencies: number[] = []
let missing = 0
for (let seq = 1; seq <= EVENTS; seq++) {
  const at = committed.get(seq)
  const list = received.get(seq) ?? []
  missing += STREAMS - list.length
  if (at !== undefined) for (const r of list) latencies.push(r - at)
}

for (const ac of controllers) ac.abort()
await Promise.allSettled(clients)
proc.kill('SIGTERM')
await proc.exited
rmSync(dataDir, { recursive: true, force: true })

const f = (x: number, d = 2) => x.toFixed(d)
console.log(`| measurement | value |`)
console.log(`|---|---:|`)
console.log(`| streams open (all read \`retry:\`) | ${STREAMS} in ${f(openMs, 0)} ms |`)
console.log(`| events, one per ${GAP_MS} ms, each to every stream | ${EVENTS} × ${STREAMS} = ${EVENTS * STREAMS} deliveries, ${missing} missing |`)
console.log(`| commit to delivery p50 / p99 / max | ${f(pct(latencies, 50))} / ${f(pct(latencies, 99))} / ${f(Math.max(...latencies))} ms |`)
console.log(`| server RSS after GC: no stream / ${STREAMS} idle streams | ${f(rssBefore / 2 ** 20, 1)} / ${f(rssOpen / 2 ** 20, 1)} MB |`)
console.log(`| memory per idle stream | ${f((rssOpen - rssBefore) / STREAMS / 1024, 1)} KB |`)
console.log(`| /health p50 / p99, streams open, idle (${healthIdle.length} samples) | ${f(pct(healthIdle, 50))} / ${f(pct(healthIdle, 99))} ms |`)
console.log(`| /health p50 / p99, while events fan out (${healthBusy.length} samples) | ${f(pct(healthBusy, 50))} / ${f(pct(healthBusy, 99))} ms |`)
console.log(`| a burst of ${BURST} events in one transaction: commit to the last of ${BURST * STREAMS} deliveries | ${f(burstLast - burstCommit, 0)} ms, ${BURST * STREAMS - burstReceived()} missing |`)
console.log(`| /health p50 / p99 / max during the burst (${burstSamples.length} samples) | ${f(pct(burstSamples, 50))} / ${f(pct(burstSamples, 99))} / ${f(Math.max(...burstSamples))} ms |`)
console.log(`| the server's longest event-loop stall: steady events / the burst | ${f(steadyLag)} / ${f(burstLag)} ms |`)
if (missing > 0 || burstReceived() < BURST * STREAMS) process.exit(1)
