/**
 * The real started server on a fresh store: listening does not wait for the rankings, the
 * last 30 days are backfilled in the background with progress in the log, /health
 * answers throughout, and the pages have their history when the backfill ends.
 */
import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { tempDir } from './helpers/fixtures'
import { BUN, freePort, ROOT } from './helpers/serve'

const dirs: string[] = []
afterAll(() => dirs.forEach(d => rmSync(d, { recursive: true, force: true })))

test('a fresh store backfills 30 ranking days in the background while /health answers', async () => {
  const dataDir = tempDir()
  dirs.push(dataDir)
  const env = { ...process.env, DATA_DIR: dataDir, OFFLINE: '1', DEMO: '0', LOG_LEVEL: 'info', WORKERS: '2' }
  const gen = Bun.spawnSync([BUN, 'src/cli.ts', 'data', 'generate', '--coins', '20', '--days', '120'], { cwd: ROOT, env, stderr: 'pipe' })
  expect(gen.exitCode).toBe(0)
  const port = await freePort()
  const proc = Bun.spawn([BUN, 'src/cli.ts', 'serve'], { cwd: ROOT, env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdout: 'pipe', stderr: 'pipe' })
  const base = `http://127.0.0.1:${port}`
  let healthOk = 0, healthOther = 0, firstDaily: number | null = null
  let latest: any = null
  try {
    const started = Date.now()
    const today = new Date().toISOString().slice(0, 10)
    const due = new Date().getUTCHours() > 0 || new Date().getUTCMinutes() >= 30 ? today : null
    while (Date.now() - started < 150_000 && proc.exitCode === null) {
      try {
        const h = await fetch(`${base}/health`)
        h.ok ? healthOk++ : healthOther++
        const d = await fetch(`${base}/rankings/daily`)
        if (d.status === 200) {
          firstDaily ??= healthOk
          latest = await d.json()
          // done once the newest slot (today's, or yesterday's before 00:30) is published
          if (latest.date === (due ?? new Date(Date.now() - 86_400_000).toISOString().slice(0, 10))) break
        } else expect(d.status).toBe(404)
      } catch {}
      await Bun.sleep(200)
    }
    expect(healthOk).toBeGreaterThan(0)
    expect(healthOther).toBe(0)
    expect(latest).not.toBeNull()
    // the week before the newest day is there too: weekly_best3 and rank_change have history
    const week = await fetch(`${base}/rankings/daily?date=${latest.date.replaceAll('-', '')}&period=7d&group=top30&selection=true`)
    const w: any = await week.json()
    expect(w.selection.previous_day.date).not.toBeNull()
  } finally {
    proc.kill('SIGTERM')
    await proc.exited
  }
  const log = await new Response(proc.stderr).text()
  expect(log).toMatch(/job rankings: catching up 3[01] missed slot\(s\)/)
  expect(log).toContain('published the day file of')
  expect(log.indexOf('perpsim listening')).toBeLessThan(log.indexOf('published the day file of'))
}, 180_000)
