/**
 * The real started server with live records: `serve` on a store of imported-style candles
 * that end at the last completed hour. At start-up the live-records job catches up its
 * latest slot: the 72-hour backfill is recorded and scored, the first paper cycle starts;
 * the routes answer over HTTP; a second start on the same DATA_DIR adds nothing.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CandleStore } from '../src/market/candle-store'
import { fillLiveStore, tempDir } from './helpers/fixtures'
import { allHistory } from './helpers/signal-history'
import { BUN, freePort, ROOT } from './helpers/serve'

const dataDir = tempDir()
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const fillStore = () => fillLiveStore(CandleStore.open(dataDir), 71)

async function serve(port: number) {
  const proc = Bun.spawn([BUN, 'src/cli.ts', 'serve'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', OFFLINE: '1', LOG_LEVEL: 'warn', ADMIN_KEY: 'e2e-key' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const url = `http://127.0.0.1:${port}`
  const started = Date.now()
  while (Date.now() - started < 60_000 && proc.exitCode === null) {
    try {
      if ((await fetch(`${url}/health`)).ok) break
    } catch {}
    await Bun.sleep(100)
  }
  return { proc, url }
}

const getJson = async (url: string, init?: RequestInit) => {
  const r = await fetch(url, init)
  return { status: r.status, body: (await r.json()) as any }
}

describe('serve with live records', () => {
  test('backfills, scores and starts paper trading at start-up; a restart adds nothing', async () => {
    fillStore()
    const csv = join(dataDir, 'nav.csv')
    writeFileSync(csv, 't,bot_id,nav\n1735689600,bot-1,1000\n1735776000,bot-1,1020\n')
    const imp = Bun.spawnSync([BUN, 'src/cli.ts', 'realtrack', 'import', csv], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, OFFLINE: '1', LOG_LEVEL: 'silent' } })
    expect(imp.exitCode).toBe(0)

    let { proc, url } = await serve(await freePort())
    let firstIds: string[] = []
    try {
      // the catch-up run of the job happens in the background after listening; the paper
      // trader is its third step (and /signals/history is cached 5 minutes: asked once, after)
      const t0 = Date.now()
      while (Date.now() - t0 < 60_000 && (await fetch(`${url}/paper-trading`)).status !== 200) await Bun.sleep(250)
      const history = await allHistory(url, 72)
      expect(history.length).toBeGreaterThan(0)
      expect(history.every((s: any) => s.backfill || s.published_at >= s.signal_time)).toBe(true)
      firstIds = history.map((s: any) => s.id).sort()

      const scored = await getJson(`${url}/signals/scored?days=1&limit=500`)
      expect(scored.body.signals.length).toBe(Math.min(500, history.length))

      const paper = await getJson(`${url}/paper-trading`)
      expect(paper.status).toBe(200)
      expect(paper.body).toMatchObject({ cycle_id: 1, cycle_status: 'active', cycle_length_days: 30, starting_capital: 10_000 })

      // a day that has ended has a root; today has not ended, so it is not sealed yet (404)
      const compact = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '')
      const day = await getJson(`${url}/trust/merkle/${compact(Date.now() - 86_400_000)}`)
      expect(day.status).toBe(200)
      expect(day.body.algorithm).toBe('rfc6962-sha256')
      expect((await getJson(`${url}/trust/merkle/${compact(Date.now())}`)).status).toBe(404)

      expect((await fetch(`${url}/trust/real-track`)).status).toBe(401)
      expect((await fetch(`${url}/trust/real-track`, { headers: { 'X-Admin-Key': 'wrong' } })).status).toBe(403)
      const track = await getJson(`${url}/trust/real-track`, { headers: { 'X-Admin-Key': 'e2e-key' } })
      expect(track.body.count).toBe(2)
      expect(JSON.stringify(track.body)).not.toContain('bot')
      const checklist = await getJson(`${url}/real-mode-checklist`, { headers: { 'X-Admin-Key': 'e2e-key' } })
      expect(checklist.body.items.find((i: any) => i.id === 'real_data').status).toBe('pass')
    } finally {
      proc.kill('SIGTERM')
      await proc.exited
    }

    // a second start: the job's slot is done, the records are all there, none twice
    ;({ proc, url } = await serve(await freePort()))
    try {
      await Bun.sleep(1000)
      const again = await allHistory(url, 72)
      expect(again.map((s: any) => s.id).sort()).toEqual(firstIds)
    } finally {
      proc.kill('SIGTERM')
      await proc.exited
    }
  }, 150_000)
})
