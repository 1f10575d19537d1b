/**
 * `npm run build`'s single binary (scripts/build.ts), smoke-tested as CI does: copied into an
 * empty temporary folder with nothing of the checkout around it, it generates a store,
 * serves /health, /ohlcv and /simulate (and, when the service has them, /rankings/daily and
 * an /og card), and answers oversized headers with its JSON 431.
 */
import { afterAll, expect, test } from 'bun:test'
import { copyFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from './helpers/fixtures'
import { makeHarness } from './helpers/harness'
import { testRedis } from './helpers/redis'
import { QueueTransport } from '../src/runs/queue-transport'

const ROOT = join(import.meta.dir, '..')
const build = tempDir('perpsim-build-')
const out = tempDir('perpsim-bin-')
const redis = await testRedis('the binary as a queue worker (BullMQ on Redis)')
afterAll(async () => {
  await redis?.cleanup()
  rmSync(build, { recursive: true, force: true })
  rmSync(out, { recursive: true, force: true })
})

test('the compiled binary runs from an empty folder: CLI, migrations, assets and the worker inside', async () => {
  const built = join(build, 'perpsim')
  const b = Bun.spawnSync([join(ROOT, 'node_modules/.bin/bun'), 'scripts/build.ts', '--outfile', built], { cwd: ROOT, stderr: 'pipe', stdout: 'pipe' })
  expect(b.exitCode).toBe(0)
  expect(b.stdout.toString()).toContain('workers: workers/sim.worker.ts')
  const exe = join(out, 'perpsim')
  copyFileSync(built, exe)
  const env = { PATH: process.env.PATH ?? '', HOME: out, TMPDIR: out, DATA_DIR: join(out, 'data'), OFFLINE: '1', DEMO: '0', LOG_LEVEL: 'info' }
  const gen = Bun.spawnSync([exe, 'data', 'generate', '--coins', '4', '--days', '30'], { cwd: out, env, stdout: 'pipe', stderr: 'pipe' })
  expect(gen.exitCode).toBe(0)
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') })
  const port = probe.port!
  await probe.stop(true)
  const proc = Bun.spawn([exe, 'serve'], { cwd: out, env: { ...env, PORT: String(port) }, stderr: 'pipe' })
  const base = `http://127.0.0.1:${port}`
  try {
    let up = false
    for (let i = 0; i < 400 && !up; i++) {
      up = await fetch(`${base}/health`).then(r => r.ok, () => false)
      if (!up) await Bun.sleep(50)
    }
    expect(up).toBe(true)
    const coins = (await (await fetch(`${base}/coins`)).json()) as { symbol: string }[]
    const ohlcv = await fetch(`${base}/ohlcv/${coins[0].symbol}?limit=24`)
    expect(ohlcv.status).toBe(200)
    const sim = await fetch(`${base}/simulate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ strategy: 'ma-cross-long', top_n: 4 }) })
    expect(sim.status).toBe(200)
    expect(((await sim.json()) as { executed: boolean }).executed).toBe(true)
    const paths = Object.keys(((await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, unknown> }).paths)
    if (paths.includes('/rankings/daily')) expect((await fetch(`${base}/rankings/daily`)).status).toBeLessThan(500)
    if (paths.includes('/og')) {
      // the card: fonts embedded as files and copied out for resvg, the native add-on extracted to TMPDIR
      const card = await fetch(`${base}/og?strategy=ma-cross-long`)
      expect(card.status).toBe(200)
      expect(card.headers.get('content-type')).toContain('image/png')
      expect([...new Uint8Array(await card.arrayBuffer()).slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47])
    }
    const big = await fetch(`${base}/health`, { headers: { 'x-big': 'x'.repeat(20_000) } })
    expect(big.status).toBe(431)
    expect(((await big.json()) as { detail: string }).detail).toContain('headers too large')
  } finally {
    proc.kill('SIGTERM')
    expect(await proc.exited).toBe(0)
  }
}, 180_000)

test.skipIf(!redis)('the binary is a queue worker too: `perpsim worker` runs a run\'s tasks, the same response as in-process', async () => {
  const exe = join(out, 'perpsim')
  const dataDir = join(out, 'data')
  const r = redis!
  const env = { PATH: process.env.PATH ?? '', HOME: out, TMPDIR: out, DATA_DIR: dataDir, OFFLINE: '1', LOG_LEVEL: 'warn', REDIS_URL: r.url, REDIS_PREFIX: r.prefix, WORKERS: '1' }
  const worker = Bun.spawn([exe, 'worker'], { cwd: out, env, stderr: 'inherit' })
  const local = makeHarness({ dataDir })
  const remote = makeHarness({ dataDir, transport: (_inner, store) => new QueueTransport(store, { url: r.url, prefix: r.prefix, parallelism: 1, queueMax: 1000, deadlineMs: 60_000 }) })
  try {
    const body = { strategy: 'ma-cross-long', top_n: 4 }
    let res = await remote.req('/simulate', { method: 'POST', json: body })
    // until the worker has joined the fleet (the API answers 503 "no perpsim worker" before)
    for (let i = 0; i < 200 && res.status === 503; i++) {
      await Bun.sleep(50)
      res = await remote.req('/simulate', { method: 'POST', json: body })
    }
    expect(res.status).toBe(200)
    const mine = await local.req('/simulate', { method: 'POST', json: body })
    const { compute_time_ms: _a, ...got } = res.body
    const { compute_time_ms: _b, ...want } = mine.body
    expect(got).toEqual(want)
  } finally {
    worker.kill('SIGTERM')
    expect(await worker.exited).toBe(0)
    local.cleanup()
    remote.cleanup()
  }
}, 60_000)
