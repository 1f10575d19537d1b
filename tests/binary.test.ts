/** `npm run build`'s single binary starts from another directory without the checkout. */
import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from './helpers/fixtures'

const ROOT = join(import.meta.dir, '..')
const out = tempDir('perpsim-bin-')
afterAll(() => rmSync(out, { recursive: true, force: true }))

test('the compiled binary runs its CLI and serves, with migrations, assets and the worker inside', async () => {
  const exe = join(out, 'perpsim')
  const build = Bun.spawnSync(
    [join(ROOT, 'node_modules/.bin/bun'), 'build', '--compile', 'src/cli.ts', 'workers/sim.worker.ts', '--asset', './db', '--asset', './assets', '--outfile', exe],
    { cwd: ROOT, stderr: 'pipe', stdout: 'pipe' },
  )
  expect(build.exitCode).toBe(0)
  const data = join(out, 'data')
  const gen = Bun.spawnSync([exe, 'data', 'generate', '--coins', '3', '--days', '2'], { cwd: out, env: { ...process.env, DATA_DIR: data }, stdout: 'pipe', stderr: 'pipe' })
  expect(gen.exitCode).toBe(0)
  const info = Bun.spawnSync([exe, 'data', 'info'], { cwd: out, env: { ...process.env, DATA_DIR: data }, stdout: 'pipe' })
  expect(info.exitCode).toBe(0)
  expect(info.stdout.toString()).toContain('sources: synthetic; coins: 3')
  // serve: SQLite migrations from inside the binary, and a simulation on its worker entry
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') })
  const port = probe.port!
  probe.stop(true)
  const proc = Bun.spawn([exe, 'serve'], { cwd: out, env: { ...process.env, DATA_DIR: data, PORT: String(port), HOST: '127.0.0.1', OFFLINE: '1', DEMO: '0' }, stderr: 'pipe' })
  try {
    let up = false
    for (let i = 0; i < 200 && !up; i++) {
      up = await fetch(`http://127.0.0.1:${port}/health`).then(r => r.ok, () => false)
      if (!up) await Bun.sleep(50)
    }
    expect(up).toBe(true)
    const sim = await fetch(`http://127.0.0.1:${port}/simulate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ strategy: 'ma-cross-long', top_n: 3 }) })
    expect(sim.status).toBe(200)
    expect(((await sim.json()) as any).executed).toBe(true)
  } finally {
    proc.kill('SIGTERM')
    await proc.exited
  }
}, 120_000)
