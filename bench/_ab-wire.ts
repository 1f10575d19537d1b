/**
 * The bytes on the wire of two servers, another checkout's and this tree's, for the same
 * requests (issue 30): each request sent over a raw socket with a fixed X-Request-Id, the
 * answers compared byte for byte (status line, every header in its order, the body), the
 * Date header and the body's compute_time_ms aside. Make the other tree as for
 * bench/_ab-warm.ts, then
 *   BENCH_DATA_DIR=<store> bun bench/_ab-wire.ts /tmp/base
 */
import { connect } from 'node:net'
import { join } from 'node:path'
import { freePort } from './_server'

const other = process.argv[2]
const dataDir = process.env.BENCH_DATA_DIR
if (!other || !dataDir) throw new Error('usage: BENCH_DATA_DIR=<store> bun bench/_ab-wire.ts <dir holding the other src/>')

const REQUESTS: { path: string; body: unknown }[] = [
  { path: '/simulate', body: { strategy: 'bb-squeeze-short', top_n: 40 } },
  { path: '/simulate', body: { strategy: 'macd-cross-long', top_n: 25, leverage: 3 } },
  { path: '/simulate', body: { strategy: 'no-such-strategy', top_n: 5 } },
  { path: '/simulate', body: { strategy: 'bb-squeeze-short', top_n: 0 } },
  { path: '/backtest', body: { entry: { type: 'AND', conditions: [{ field: 'close', op: '>', value: { field: 'bb_upper' } }] }, indicators: { bb: {} }, top_n: 30 } },
  // an invalid tree: 200 with executed=false
  { path: '/backtest', body: { entry: { type: 'AND', conditions: [{ field: 'bb_uper', op: '>', value: 1 }] }, indicators: { bb: {} }, top_n: 5 } },
]

async function start(root: string) {
  const port = await freePort()
  const proc = Bun.spawn([join(import.meta.dir, '../node_modules/.bin/bun'), join(root, 'src/cli.ts'), 'serve'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir!, OFFLINE: '1', DEMO: '0', JOBS: '0', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MIN: '0', RATE_LIMIT_OTHER_PER_MIN: '0' },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server in ${root} exited with ${proc.exitCode}`)
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break
    } catch {}
    await Bun.sleep(200)
  }
  return { port, proc }
}

/** One request over a raw socket; the whole answer as latin1 text (bytes one to one). */
const raw = (port: number, path: string, body: unknown) =>
  new Promise<string>((resolve, reject) => {
    const payload = Buffer.from(JSON.stringify(body))
    const chunks: Buffer[] = []
    const s = connect(port, '127.0.0.1', () => {
      s.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Request-Id: wire-ab-0001\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n\r\n`)
      // not end(): a half-closed socket is a request given up, and the server drops it; it closes after answering
      s.write(payload)
    })
    s.on('data', (d: Buffer) => chunks.push(d))
    s.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')))
    s.on('error', reject)
  })
const strip = (t: string) => t.replace(/\r\nDate: [^\r]*/i, '').replace(/"compute_time_ms":\d+/, '').replace(/\r\nContent-Length: \d+/i, '\r\nContent-Length: N')

const servers = [await start(other), await start(join(import.meta.dir, '..'))]
let differing = 0
try {
  for (const r of REQUESTS) {
    const [a, b] = [await raw(servers[0].port, r.path, r.body), await raw(servers[1].port, r.path, r.body)]
    const same = strip(a) === strip(b)
    if (!same) differing++
    const head = a.slice(0, a.indexOf('\r\n\r\n'))
    console.log(`${same ? 'same' : 'DIFFERENT'}: ${r.path} ${JSON.stringify(r.body).slice(0, 60)} -> ${head.split('\r\n')[0]}, ${a.length - head.length - 4} body bytes`)
    if (!same) console.log(`  other: ${JSON.stringify(head)}\n  this:  ${JSON.stringify(b.slice(0, b.indexOf('\r\n\r\n')))}`)
  }
  const a = await raw(servers[0].port, REQUESTS[0].path, REQUESTS[0].body)
  console.log(`headers of the first, in their order on the wire: ${JSON.stringify(a.slice(0, a.indexOf('\r\n\r\n')).replace(/\r\nDate: [^\r]*/i, ''))}`)
} finally {
  for (const s of servers) s.proc.kill()
}
console.log(`answers byte-identical on the wire (Date, Content-Length and compute_time_ms aside): ${differing === 0 ? 'yes' : `NO (${differing} of ${REQUESTS.length})`}`)
process.exit(differing === 0 ? 0 : 1)
