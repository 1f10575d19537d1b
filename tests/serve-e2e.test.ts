/** The real started server: `serve` on an empty DATA_DIR, and start-up refusing bad settings. */
import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync, rmSync } from 'node:fs'
import { tempDir } from './helpers/fixtures'
import { BUN, freePort, ROOT } from './helpers/serve'

const dirs: string[] = []
afterAll(() => dirs.forEach(d => rmSync(d, { recursive: true, force: true })))

describe('serve', () => {
  test('on an empty DATA_DIR generates the synthetic universe and answers /health within 60 s', async () => {
    const dataDir = tempDir()
    dirs.push(dataDir)
    const port = await freePort()
    const proc = Bun.spawn([BUN, 'src/cli.ts', 'serve'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', OFFLINE: '1', LOG_LEVEL: 'info' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    try {
      const started = Date.now()
      let health: any = null
      while (Date.now() - started < 60_000 && proc.exitCode === null) {
        try {
          const r = await fetch(`http://127.0.0.1:${port}/health`)
          if (r.ok) {
            health = await r.json()
            break
          }
        } catch {}
        await Bun.sleep(100)
      }
      expect(health).toMatchObject({ status: 'ok', version: '0.3.0' })
      expect(health.coins_loaded).toBeGreaterThanOrEqual(200)
      const coins = (await (await fetch(`http://127.0.0.1:${port}/coins`)).json()) as any[]
      expect(coins[0].symbol).toBe('BTCUSDT')
      expect(coins[0].rows).toBe(730 * 24)
      // the process that answers is the one started (same pid), with the allocator's settings
      // (src/allocator-settings.ts): started again with them where the environment lacked them
      if (process.platform === 'linux') {
        const environ = readFileSync(`/proc/${proc.pid}/environ`, 'latin1').split('\0')
        expect(environ).toContain(`MIMALLOC_PURGE_DELAY=${process.env.MIMALLOC_PURGE_DELAY ?? '-1'}`)
      }
    } finally {
      proc.kill('SIGTERM')
      await proc.exited
    }
    const log = await new Response(proc.stderr).text()
    expect(log).toContain('generating synthetic data')
  }, 90_000)

  test('a bad setting stops start-up with one line naming the variable', async () => {
    const proc = Bun.spawnSync([BUN, 'src/cli.ts', 'serve'], { cwd: ROOT, env: { ...process.env, PORT: 'eighty', DATA_DIR: tempDir() }, stderr: 'pipe' })
    expect(proc.exitCode).toBe(2)
    const err = proc.stderr.toString().trim()
    expect(err.split('\n').length).toBe(1)
    expect(err).toContain('PORT')
    expect(err).toContain('0 to 65535')
  })
})
