/**
 * When the fleet's Redis stops (REDIS_URL, docs/operations.md "A fleet"): an API process
 * answers every request that needs the queue with 503 and the reason, within seconds (never
 * a hang, never a 500), `/health` says `degraded` with the reason while the reads are still
 * served, the rate limits fall back to counting per process, and once Redis is back the
 * worker reconnects by itself and runs are answered again. The Redis here is a private
 * redis-server of this test on its own port, stopped and restarted in the middle.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { Redis } from 'ioredis'
import { QueueTransport } from '../src/runs/queue-transport'
import { fleetKey } from '../src/runs/queue-wire'
import { fillWalkUniverse } from './helpers/fixtures'
import { makeHarness, type Harness } from './helpers/harness'
import { BUN, freePort, ROOT } from './helpers/serve'

const REDIS_SERVER = '/usr/bin/redis-server'
const SYMBOLS = ['ETHUSDT', 'SOLUSDT', 'BTCUSDT', 'XRPUSDT']
const NOW = Date.UTC(2026, 10, 20, 0, 30)

/** A redis-server of this test's own on `port`, in `dir` (nothing kept on disk). */
function redisServer(port: number, dir: string): Subprocess {
  return Bun.spawn([REDIS_SERVER, '--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir], { stdout: 'ignore', stderr: 'ignore' })
}

async function until<T>(what: string, f: () => Promise<T | null | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const v = await f().catch(() => null)
    if (v) return v
    await Bun.sleep(50)
  }
  throw new Error(`timed out waiting for ${what}`)
}

const health = async (h: Harness) => (await h.req('/health')).body as { status: string; reason?: string; version: string; coins_loaded: number; uptime_seconds: number }

if (!existsSync(REDIS_SERVER)) process.stderr.write(`skipped: the Redis-stop tests - ${REDIS_SERVER} missing (README "Tests")\n`)

describe.skipIf(!existsSync(REDIS_SERVER))('the fleet when its Redis stops', () => {
  const dir = mkdtempSync(join(tmpdir(), 'perpsim-redis-stop-'))
  let server: Subprocess | null = null
  let worker: Subprocess | null = null
  let h: Harness | null = null
  afterAll(async () => {
    worker?.kill('SIGKILL')
    h?.cleanup()
    server?.kill()
    await server?.exited
    rmSync(dir, { recursive: true, force: true })
  })

  test('503 with the reason for every request that needs the queue, /health degraded, reads served, rate limits per process; back to normal when Redis is back', async () => {
    const port = await freePort()
    const url = `redis://127.0.0.1:${port}`
    server = redisServer(port, dir)
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 50 })
    probe.on('error', () => {})
    await until('redis-server', async () => (await probe.ping()) === 'PONG')
    const env = { REDIS_URL: url, REDIS_PREFIX: 'stop', RATE_LIMIT_OTHER_PER_MIN: '5' }
    h = makeHarness({
      nowMs: NOW,
      fill: s => fillWalkUniverse(s, SYMBOLS, Date.UTC(2026, 7, 1), 110, 70),
      env: { WORKERS: '1', ...env },
      transport: (_inner, store) => new QueueTransport(store, { url, prefix: 'stop', parallelism: 1, queueMax: 64 * 256, deadlineMs: 60_000 }),
    })
    const harness = h
    // before any worker: degraded, naming that
    expect(await until('degraded without a worker', async () => (await health(harness)).status === 'degraded' && health(harness))).toMatchObject({ reason: expect.stringContaining('no perpsim worker is connected') })
    worker = Bun.spawn([BUN, join(ROOT, 'src/cli.ts'), 'worker'], { cwd: ROOT, env: { ...process.env, ...env, DATA_DIR: h.dataDir, WORKERS: '1', LOG_LEVEL: 'silent', OFFLINE: '1' }, stdout: 'ignore', stderr: 'ignore' })
    await until('the worker in the fleet', async () => Object.keys(await probe.hgetall(fleetKey('stop'))).length === 1)
    expect(await until('/health ok', async () => (await health(harness)).status === 'ok' && health(harness))).toEqual({ status: 'ok', version: expect.any(String), coins_loaded: 4, uptime_seconds: expect.any(Number) })
    const run = { strategy: 'bb-squeeze-short', top_n: 4 }
    expect((await h.req('/simulate', { method: 'POST', json: run })).status).toBe(200)

    // Redis stops
    server.kill('SIGKILL')
    await server.exited
    const degraded = await until('/health degraded', async () => (await health(harness)).status === 'degraded' && health(harness), 5_000)
    expect(degraded.reason).toMatch(new RegExp(`^the queue's Redis at 127\\.0\\.0\\.1:${port} does not answer \\(connection \\w+\\): runs are answered 503 until it is back$`))
    for (const [path, json] of [
      ['/simulate', { ...run, top_n: 3 }],
      ['/backtest', { name: 't', direction: 'short', indicators: { bb: {}, rsi: {} }, entry: { type: 'AND', conditions: [{ field: 'close', op: '<', value: { field: 'bb_lower' } }, { field: 'rsi', op: '<', value: 40 }] }, top_n: 3 }],
      ['/simulate/validate', { strategy: 'bb-squeeze-short', top_n: 3, n_simulations: 100, oos_pct: 30 }],
    ] as const) {
      const started = Date.now()
      const res = await h.req(path, { method: 'POST', json, headers: { 'cache-control': 'no-cache' } })
      expect({ path, status: res.status }).toEqual({ path, status: 503 })
      expect(res.body.detail).toMatch(/^No simulation worker can run this now: the queue's Redis at 127\.0\.0\.1:\d+ does not answer/)
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(Date.now() - started).toBeLessThan(8_000)
    }
    // the reads are served, and their limit is counted in this process meanwhile: 5 a minute, then 429
    const reads = []
    for (let i = 0; i < 7; i++) reads.push((await h.req('/coins')).status)
    expect(reads).toEqual([200, 200, 200, 200, 200, 429, 429])

    // Redis is back on the same port: the worker reconnects and announces itself, runs are answered again
    server = redisServer(port, dir)
    await until('redis-server again', async () => (await probe.ping()) === 'PONG')
    await until('the worker back in the fleet', async () => Object.keys(await probe.hgetall(fleetKey('stop'))).length === 1, 20_000)
    expect((await until('/health ok again', async () => (await health(harness)).status === 'ok' && health(harness), 10_000)).status).toBe('ok')
    expect((await h.req('/simulate', { method: 'POST', json: run, headers: { 'cache-control': 'no-cache' } })).status).toBe(200)
    probe.disconnect()
  }, 90_000)
})
