/** Helpers for benchmarks against the real started server (by PID, never through npm). */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const ROOT = join(import.meta.dir, '..')
export const BUN = join(ROOT, 'node_modules', '.bin', 'bun')

/**
 * The synthetic store a benchmark reads: BENCH_DATA_DIR when set (reused, never removed),
 * otherwise `data generate --coins N --days D` into a new temp DATA_DIR (`temp`: the caller
 * removes it when done).
 */
export function benchStore(label: string, coins: number, days = 730): { dir: string; temp: boolean } {
  const given = process.env.BENCH_DATA_DIR
  const dir = given ?? mkdtempSync(join(tmpdir(), `perpsim-bench-${label}-`))
  if (!given) {
    const gen = Bun.spawnSync([BUN, join(ROOT, 'src/cli.ts'), 'data', 'generate', '--coins', String(coins), '--days', String(days)], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dir, OFFLINE: '1', LOG_LEVEL: 'warn' },
      stdout: 'ignore',
      stderr: 'inherit',
    })
    if (gen.exitCode !== 0) throw new Error(`data generate exited with ${gen.exitCode}`)
  }
  if (!existsSync(join(dir, 'store'))) throw new Error(`no candle store under ${dir}`)
  return { dir, temp: !given }
}

export interface Server {
  url: string
  pid: number
  coldStartMs: number
  stop(): Promise<void>
  rssPeakMb(): number
}

export async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') })
  const port = s.port!
  s.stop(true)
  return port
}

/** Start `bun src/cli.ts serve` on a data dir and wait for /health. */
export async function startServer(dataDir: string, env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort()
  const started = performance.now()
  const proc = Bun.spawn([BUN, join(ROOT, 'src/cli.ts'), 'serve'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, OFFLINE: '1', DEMO: '0', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MIN: '0', RATE_LIMIT_OTHER_PER_MIN: '0', ...env },
    stdout: 'inherit',
    stderr: 'inherit',
  })
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}`)
    try {
      const r = await fetch(`${url}/health`)
      if (r.ok) break
    } catch {}
    if (performance.now() - started > 120_000) throw new Error('server did not answer /health in 120 s')
    await Bun.sleep(20)
  }
  const coldStartMs = performance.now() - started
  return {
    url,
    pid: proc.pid,
    coldStartMs,
    rssPeakMb() {
      const status = require('node:fs').readFileSync(`/proc/${proc.pid}/status`, 'utf8') as string
      const m = /VmHWM:\s+(\d+) kB/.exec(status)
      return m ? Number(m[1]) / 1024 : NaN
    },
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
    },
  }
}

export function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]
}

/** Time `n` sequential requests; returns latencies in ms. */
export async function timeRequests(n: number, fn: () => Promise<Response>): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    const r = await fn()
    await r.arrayBuffer()
    if (!r.ok) throw new Error(`HTTP ${r.status}`)
    out.push(performance.now() - t0)
  }
  return out
}

export const post = (url: string, body: unknown, noCache = true) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(noCache ? { 'cache-control': 'no-cache' } : {}) }, body: JSON.stringify(body) })

/**
 * A process's CPU so far by thread name, from /proc/<pid>/task/<tid>/stat: user ms, system
 * ms and minor page faults, threads of one name summed (the two `Worker`s), the process's
 * first thread named `main`. /proc counts CPU in ticks of 10 ms.
 */
export function threadTimes(pid: number): Map<string, [number, number, number]> {
  const out = new Map<string, [number, number, number]>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const st = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ')
      const name = tid === String(pid) ? 'main' : st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'))
      const [u, s, m] = out.get(name) ?? [0, 0, 0]
      out.set(name, [u + Number(f[11]) * 10, s + Number(f[12]) * 10, m + Number(f[7])])
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return out
}
