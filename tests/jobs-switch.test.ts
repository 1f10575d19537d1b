/**
 * JOBS=0 on the real started server: a fresh store starts no rankings backfill (the
 * benchmarks of requests use it so their figures measure requests alone).
 */
import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { tempDir } from './helpers/fixtures'
import { BUN, freePort, ROOT } from './helpers/serve'

const dirs: string[] = []
afterAll(() => dirs.forEach(d => rmSync(d, { recursive: true, force: true })))

test('JOBS=0: a fresh store is served without any scheduled job run', async () => {
  const dataDir = tempDir()
  dirs.push(dataDir)
  const env = { ...process.env, DATA_DIR: dataDir, OFFLINE: '1', DEMO: '0', LOG_LEVEL: 'info', WORKERS: '1', JOBS: '0', RATE_LIMIT_OTHER_PER_MIN: '0' }
  const gen = Bun.spawnSync([BUN, 'src/cli.ts', 'data', 'generate', '--coins', '8', '--days', '60'], { cwd: ROOT, env, stderr: 'pipe' })
  expect(gen.exitCode).toBe(0)
  const port = await freePort()
  const proc = Bun.spawn([BUN, 'src/cli.ts', 'serve'], { cwd: ROOT, env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdout: 'pipe', stderr: 'pipe' })
  const base = `http://127.0.0.1:${port}`
  try {
    const started = Date.now()
    for (;;) {
      try {
        if ((await fetch(`${base}/health`)).ok) break
      } catch {}
      if (Date.now() - started > 30_000 || proc.exitCode !== null) throw new Error('server did not start')
      await Bun.sleep(50)
    }
    // with jobs on, a store this small publishes its first day file within a second or two
    await Bun.sleep(2000)
    expect((await fetch(`${base}/rankings/daily`)).status).toBe(404)
    const metrics = await (await fetch(`${base}/metrics`)).text()
    expect(metrics).not.toMatch(/perpsim_job_runs_total\{[^}]*job="rankings"/)
  } finally {
    proc.kill('SIGTERM')
    await proc.exited
  }
  const log = await new Response(proc.stderr).text()
  expect(log).toContain('JOBS=0: the scheduled jobs (rankings, …) are not run')
  expect(log).not.toContain('job rankings')
}, 60_000)
