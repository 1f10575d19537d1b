/**
 * Rate limits shared by a fleet (REDIS_URL, src/http/rate-limit.ts): two real API processes
 * on one Redis count one window per client, so 300 compute requests sent through both at
 * once are served exactly RATE_LIMIT_PER_MIN times in all (each process alone would serve
 * that many), and the rest get the same 429 body and Retry-After as the in-process limiter.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import type { Subprocess } from 'bun'
import { CandleStore } from '../src/market/candle-store'
import { fillWalkUniverse, tempDir } from './helpers/fixtures'
import { testRedis } from './helpers/redis'
import { BUN, freePort, ROOT } from './helpers/serve'

const redis = await testRedis('the shared rate limit tests (rate-limiter-flexible on Redis)')
afterAll(() => redis?.cleanup())

async function serve(env: Record<string, string>): Promise<{ proc: Subprocess; base: string; dir: string }> {
  const dir = tempDir()
  const store = CandleStore.open(dir)
  fillWalkUniverse(store, ['BTCUSDT', 'ETHUSDT'], Date.UTC(2026, 7, 1), 30, 5)
  const port = await freePort()
  const proc = Bun.spawn([BUN, 'src/cli.ts', 'serve'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1', OFFLINE: '1', JOBS: '0', WORKERS: '1', LOG_LEVEL: 'warn', SHED_LAG_MS: '0', ...env },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const base = `http://127.0.0.1:${port}`
  for (let i = 0; i < 600 && proc.exitCode === null; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) return { proc, base, dir }
    } catch {}
    await Bun.sleep(100)
  }
  proc.kill()
  throw new Error('the server did not start')
}

describe.skipIf(!redis)('rate limits shared through Redis', () => {
  test('300 compute requests through two API processes: exactly RATE_LIMIT_PER_MIN=120 served, the rest 429 with Retry-After', async () => {
    const env = { REDIS_URL: redis!.url, REDIS_PREFIX: redis!.prefix, RATE_LIMIT_PER_MIN: '120' }
    const nodes = await Promise.all([serve(env), serve(env)])
    try {
      const answers = await Promise.all(
        Array.from({ length: 300 }, async (_, i) => {
          const r = await fetch(`${nodes[i % 2].base}/ohlcv/BTCUSDT?limit=5`)
          return { status: r.status, retryAfter: r.headers.get('retry-after'), body: (await r.json()) as any }
        }),
      )
      const served = answers.filter(a => a.status === 200)
      const limited = answers.filter(a => a.status === 429)
      expect({ served: served.length, limited: limited.length }).toEqual({ served: 120, limited: 180 })
      const one = limited[0]
      expect(Number(one.retryAfter)).toBeGreaterThanOrEqual(1)
      expect(Number(one.retryAfter)).toBeLessThanOrEqual(60)
      expect(one.body).toEqual({
        detail: `Rate limit exceeded: 120 requests per minute per client on compute endpoint; do not retry before ${one.retryAfter} s`,
        limit_per_minute: 120,
        retry_after_seconds: Number(one.retryAfter),
      })
    } finally {
      for (const n of nodes) {
        n.proc.kill('SIGTERM')
        await n.proc.exited
        rmSync(n.dir, { recursive: true, force: true })
      }
    }
  }, 120_000)
})
