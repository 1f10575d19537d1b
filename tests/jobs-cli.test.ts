/** `perpsim jobs list` and `perpsim jobs run <name> [--date]` as a user runs them. */
import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from './helpers/fixtures'

const ROOT = join(import.meta.dir, '..')
const BUN = join(ROOT, 'node_modules', '.bin', 'bun')
const dataDir = tempDir()
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
const env = { ...process.env, DATA_DIR: dataDir, OFFLINE: '1', LOG_LEVEL: 'warn', WORKERS: '1' }
const cli = (...args: string[]) => Bun.spawnSync([BUN, 'src/cli.ts', ...args], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })

test('jobs list, jobs run with --date (progress printed), a second run skipped, bad arguments refused', () => {
  expect(cli('data', 'generate', '--coins', '8', '--days', '60').exitCode).toBe(0)
  const date = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
  const before = cli('jobs', 'list')
  expect(before.exitCode).toBe(0)
  expect(before.stdout.toString()).toContain('rankings  (30 0 * * * UTC)')
  expect(before.stdout.toString()).toContain('last run: never')

  const run = cli('jobs', 'run', 'rankings', '--date', date)
  expect(run.exitCode).toBe(0)
  expect(run.stdout.toString()).toContain(`rankings:${date} attempt 1: ok`)
  expect(run.stderr.toString()).toContain(`${date} 365d btc:`)
  expect(run.stderr.toString()).toContain(`published the day file of ${date} (manual)`)

  const again = cli('jobs', 'run', 'rankings', '--date', date)
  expect(again.exitCode).toBe(0)
  expect(again.stdout.toString()).toContain(`rankings:${date} attempt 2: skipped`)
  const after = cli('jobs', 'list').stdout.toString()
  expect(after).toContain(`last run: rankings:${date} attempt 2 (manual) skipped`)

  const bad = cli('jobs', 'run', 'rankings', '--date', '2026-02-30')
  expect(bad.exitCode).toBe(2)
  expect(bad.stderr.toString()).toContain('--date 2026-02-30: expected a calendar date YYYY-MM-DD')
  const unknown = cli('jobs', 'run', 'nope')
  expect(unknown.exitCode).toBe(2)
  expect(unknown.stderr.toString()).toContain("unknown job 'nope'; jobs: candles, rankings, live-records, weekly-mail")
  // the hourly candles of a synthetic store are demo mode's: a manual run brings the hours up to now
  expect(after).toContain('candles  (5 0 * * * * UTC)  demo mode')
  const candles = cli('jobs', 'run', 'candles')
  expect(candles.exitCode).toBe(0)
  expect(candles.stdout.toString()).toMatch(/candles:\S+ attempt 1: ok .*forming 8/)
}, 120_000)
