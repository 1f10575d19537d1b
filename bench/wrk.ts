/**
 * Throughput and tail latency with wrk (64 connections, 2 threads) against the real started
 * server on a synthetic 535-coin × 2-year store: /health and /ohlcv idle, the same with two
 * 535-coin simulations kept in flight, and /health while nested-JSON attack bodies arrive
 * without pause (issue 19). wrk is Debian's package: installed here with apt-get when absent.
 *   bun bench/wrk.ts [--seconds N]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BUN, ROOT, startServer } from './_server'

const SECONDS = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 10

function haveWrk(): boolean {
  return Bun.spawnSync(['sh', '-c', 'command -v wrk'], { stdout: 'ignore' }).exitCode === 0
}

function ensureWrk(): boolean {
  if (haveWrk()) return true
  const apt = (args: string[]) => Bun.spawnSync(['apt-get', ...args], { stdout: 'ignore', stderr: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).exitCode === 0
  if (!apt(['install', '-y', '-qq', 'wrk'])) apt(['update', '-qq']) && apt(['install', '-y', '-qq', 'wrk'])
  return haveWrk()
}

interface WrkResult {
  rps: number
  p50: number
  p99: number
  errors: string
}

/** wrk's --latency report: "Requests/sec:" and the 50% / 99% lines (us, ms or s). */
function parseWrk(out: string): WrkResult {
  const ms = (label: string) => {
    const m = new RegExp(`^\\s*${label}\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(out)
    if (!m) return NaN
    return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1)
  }
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN)
  const errors = [/Socket errors:.*$/m.exec(out)?.[0], /Non-2xx or 3xx responses: \d+/.exec(out)?.[0]].filter(Boolean).join('; ')
  return { rps, p50: ms('50%'), p99: ms('99%'), errors }
}

async function wrk(url: string): Promise<WrkResult> {
  const p = Bun.spawn(['wrk', '-t2', '-c64', `-d${SECONDS}s`, '--latency', url], { stdout: 'pipe', stderr: 'pipe' })
  const out = await new Response(p.stdout).text()
  await p.exited
  return parseWrk(out)
}

/** Keeps `n` requests made by `make` in flight until `stop()`; resolves with how many completed. */
function keepInFlight(n: number, make: (k: number) => Promise<Response>) {
  let running = true
  let done = 0
  const loops = Array.from({ length: n }, async (_, i) => {
    for (let k = i; running; k += n) {
      await (await make(k)).arrayBuffer()
      done++
    }
  })
  return {
    async stop(): Promise<number> {
      running = false
      await Promise.all(loops)
      return done
    },
  }
}

const row = (cells: (string | number)[]) => `| ${cells.map(c => (typeof c === 'number' ? (Number.isFinite(c) ? c.toFixed(c < 10 ? 2 : 0) : '-') : c)).join(' | ')} |`

if (!ensureWrk()) {
  console.log('| wrk | skipped: wrk is not installed and apt-get could not install it | | |')
  process.exit(0)
}

const dataDir = mkdtempSync(join(tmpdir(), 'perpsim-wrk-'))
const lines = ['| scenario | requests/s | p50 ms | p99 ms | notes |', '|---|---:|---:|---:|---|']
try {
  const gen = Bun.spawnSync([BUN, join(ROOT, 'src/cli.ts'), 'data', 'generate', '--coins', '535', '--days', '730'], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir }, stderr: 'ignore' })
  if (gen.exitCode !== 0) throw new Error('data generate failed')
  const server = await startServer(dataDir, { RATE_LIMIT_PER_MIN: '0', RATE_LIMIT_OTHER_PER_MIN: '0' })
  try {
    const health = `${server.url}/health`
    const ohlcv = `${server.url}/ohlcv/BTCUSDT?limit=1000`
    const simulate = (k: number) =>
      fetch(`${server.url}/simulate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' },
        body: JSON.stringify({ strategy: 'bb-squeeze-short', top_n: 535, sl_pct: 5 + (k % 20) / 4 }),
      })
    await (await simulate(0)).arrayBuffer() // warm the workers
    await wrk(health) // warm the JIT
    for (const [label, url] of [['/health', health], ['/ohlcv/BTCUSDT limit 1000', ohlcv]] as const) {
      const idle = await wrk(url)
      lines.push(row([`${label}, idle`, idle.rps, idle.p50, idle.p99, idle.errors]))
      const sims = keepInFlight(2, simulate)
      const busy = await wrk(url)
      const runs = await sims.stop()
      lines.push(row([`${label}, two 535-coin /simulate in flight`, busy.rps, busy.p50, busy.p99, `${runs} runs finished meanwhile${busy.errors ? `; ${busy.errors}` : ''}`]))
    }
    // the attack of issue 19: 10,000-deep and 40 KB deep bodies, and a 400 KB array in a string field
    const attacks = [
      ['/backtest', `{"name":${'['.repeat(10_000)}${']'.repeat(10_000)},"entry":{}}`],
      ['/simulate', `{"strategy":${'['.repeat(20_000)}${']'.repeat(20_000)}}`],
      ['/simulate', `{"strategy":[${Array.from({ length: 200_000 }, () => '1').join(',')}]}`],
    ] as const
    const send = (k: number) => fetch(`${server.url}${attacks[k % 3][0]}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: attacks[k % 3][1] })
    // as reported: one attack body at a time (here every 100 ms)
    const paced = keepInFlight(1, k => Bun.sleep(100).then(() => send(k)))
    const single = await wrk(health)
    const sentPaced = await paced.stop()
    lines.push(row(['/health, one nested-JSON attack body every 100 ms', single.rps, single.p50, single.p99, `${sentPaced} attack bodies answered 422 meanwhile${single.errors ? `; ${single.errors}` : ''}`]))
    // a flood: three clients sending attack bodies without pause
    const flood = keepInFlight(3, send)
    const attacked = await wrk(health)
    const sent = await flood.stop()
    lines.push(row(['/health, nested-JSON attack bodies without pause (3 clients)', attacked.rps, attacked.p50, attacked.p99, `${sent} attack bodies answered 422 meanwhile${attacked.errors ? `; ${attacked.errors}` : ''}`]))
  } finally {
    await server.stop()
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
console.log(lines.join('\n'))
