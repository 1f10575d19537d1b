/**
 * Redis for the tests of the queue and the shared rate limits. REDIS_URL when it is set
 * (.ci/run sets it); otherwise a private `redis-server` on a free loopback port in a temp
 * dir (nothing kept on disk), stopped by `cleanup()`; otherwise none, and the caller skips
 * with the printed reason ("skipped: …", the convention of tests/helpers/setup.ts that
 * .ci/run repeats and fails on). Every test gets its own random key prefix, deleted by
 * `cleanup()`, so test files never share state.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'

export interface TestRedis {
  url: string
  /** a key prefix of this test's own (REDIS_PREFIX) */
  prefix: string
  cleanup(): Promise<void>
}

const REDIS_SERVER = '/usr/bin/redis-server'

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

async function answers(url: string, timeoutMs: number): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 })
  client.on('error', () => {})
  const deadline = Date.now() + timeoutMs
  try {
    while (Date.now() < deadline) {
      try {
        if (client.status !== 'ready') await client.connect()
        if ((await client.ping()) === 'PONG') return true
      } catch {
        client.disconnect()
        await Bun.sleep(50)
      }
    }
    return false
  } finally {
    client.disconnect()
  }
}

/** A private redis-server on a free loopback port (null where the binary is missing or it did not start); `stop()` ends it. */
export async function privateRedis(): Promise<{ url: string; stop(): Promise<void> } | null> {
  if (!existsSync(REDIS_SERVER)) return null
  const dir = mkdtempSync(join(tmpdir(), 'perpsim-redis-'))
  const port = await freePort()
  const proc = Bun.spawn([REDIS_SERVER, '--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir], { stdout: 'ignore', stderr: 'ignore' })
  const url = `redis://127.0.0.1:${port}`
  const stop = async () => {
    proc.kill()
    await proc.exited
    rmSync(dir, { recursive: true, force: true })
  }
  if (await answers(url, 5000)) return { url, stop }
  await stop()
  return null
}

/** Redis for one test file, or the reason there is none (printed once as "skipped: …"). */
export async function testRedis(what: string): Promise<TestRedis | null> {
  const prefix = `t${Math.random().toString(36).slice(2, 10)}`
  // REDIS_URL as the run was given it (tests/helpers/setup.ts keeps it out of process.env)
  let url = process.env.PERPSIM_TEST_REDIS_URL || ''
  let stop = async () => {}
  if (url) {
    if (!(await answers(url, 3000))) {
      process.stderr.write(`skipped: ${what} - REDIS_URL=${url} does not answer\n`)
      return null
    }
  } else if (existsSync(REDIS_SERVER)) {
    const own = await privateRedis()
    if (!own) {
      process.stderr.write(`skipped: ${what} - a private ${REDIS_SERVER} did not start\n`)
      return null
    }
    url = own.url
    stop = own.stop
  } else {
    process.stderr.write(`skipped: ${what} - no Redis: set REDIS_URL or install redis-server (README "Tests")\n`)
    return null
  }
  return {
    url,
    prefix,
    async cleanup() {
      const client = new Redis(url, { maxRetriesPerRequest: 1 })
      client.on('error', () => {})
      try {
        let cursor = '0'
        do {
          const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000)
          cursor = next
          if (keys.length) await client.del(...keys)
        } while (cursor !== '0')
      } catch {
        // the server is gone (a test stopped it): nothing left to delete
      } finally {
        client.disconnect()
        await stop()
      }
    },
  }
}
