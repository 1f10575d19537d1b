/**
 * Hostile bodies against a real listening server (issue #19 §1): the attack bodies of the
 * report are answered with short JSON errors while /health keeps answering, and bodies sent
 * without a Content-Length are still held to the limit with a JSON 413.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from './helpers/fixtures'

const ROOT = join(import.meta.dir, '..')
const BUN = join(ROOT, 'node_modules/.bin/bun')
const dataDir = tempDir('perpsim-hostile-')
// as a service runs: without bun test's NODE_ENV=test (src/production-env.ts)
const { NODE_ENV: _testEnv, ...parentEnv } = process.env
const env = { ...parentEnv, DATA_DIR: dataDir, OFFLINE: '1', DEMO: '0', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MIN: '0' }
let proc: ReturnType<typeof Bun.spawn>
let base = ''

beforeAll(async () => {
  expect(Bun.spawnSync([BUN, 'src/cli.ts', 'data', 'generate', '--coins', '3', '--days', '20'], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' }).exitCode).toBe(0)
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') })
  const port = probe.port!
  await probe.stop(true)
  base = `http://127.0.0.1:${port}`
  proc = Bun.spawn([BUN, 'src/cli.ts', 'serve'], { cwd: ROOT, env: { ...env, PORT: String(port) }, stderr: 'pipe' })
  for (let i = 0; i < 400; i++) {
    if (await fetch(`${base}/health`).then(r => r.ok, () => false)) return
    await Bun.sleep(50)
  }
  throw new Error('server did not start')
}, 60_000)

afterAll(async () => {
  if (proc?.exitCode === null) proc.kill('SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

const post = (path: string, body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(`${base}${path}`, { method: 'POST', headers, body, duplex: 'half' } as RequestInit)

test('nested-JSON attacks are short 422s and /health answers throughout', async () => {
  const attacks = [
    `{"name":${'['.repeat(10_000)}${']'.repeat(10_000)},"entry":{}}`,
    `{"strategy":${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
    `{"strategy":${'['.repeat(30)}${Array.from({ length: 200_000 }, () => '1').join(',')}${']'.repeat(30)}}`,
    // deeper than the top-level pre-check: the validator describes it (compactly, in production)
    `{"trades":[{"direction":[${Array.from({ length: 200_000 }, () => '1').join(',')}],"entry_price":1,"exit_price":2}]}`,
  ]
  let healthy = 0
  let slowest = 0
  let stop = false
  const pings = (async () => {
    while (!stop) {
      const t = performance.now()
      const r = await fetch(`${base}/health`)
      slowest = Math.max(slowest, performance.now() - t)
      if (r.status === 200) healthy++
      await Bun.sleep(2)
    }
  })()
  for (let round = 0; round < 5; round++) {
    const answers = await Promise.all(attacks.map(a => post(a.includes('"name"') ? '/backtest' : a.includes('"trades"') ? '/simulate/score-session' : '/simulate', a)))
    for (const r of answers) {
      expect(r.status).toBe(422)
      expect((await r.text()).length).toBeLessThan(1000)
    }
  }
  stop = true
  await pings
  console.log(`health pings ${healthy}, slowest ${slowest.toFixed(0)} ms`)
  expect(healthy).toBeGreaterThan(5)
  expect(slowest).toBeLessThan(1000) // generous: a property, not a latency target (bench/ measures it)
})

test('a chunked body over the limit is a JSON 413', async () => {
  const chunk = new TextEncoder().encode(`{"strategy":"${'x'.repeat(64 * 1024)}`)
  let sent = 0
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent++ < 40) c.enqueue(chunk)
      else c.close()
    },
  })
  const r = await post('/simulate', body)
  expect(r.status).toBe(413)
  expect(((await r.json()) as { detail: string }).detail).toContain('too large')
})

test('after an abandoned oversized body, SIGTERM still stops at once with exit 0 (the 413 closed its connection)', async () => {
  const started = performance.now()
  proc.kill('SIGTERM')
  expect(await proc.exited).toBe(0)
  expect(performance.now() - started).toBeLessThan(5000) // not the 10 s grace
})
