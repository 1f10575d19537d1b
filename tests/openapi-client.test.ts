/**
 * /openapi.json generates a working client: openapi-typescript turns the served document
 * into types, a small program written only against them (tests/fixtures/openapi-client/
 * tour.ts: /simulate, /backtest with a condition tree, /rankings/daily, /signals/scored)
 * compiles under `tsc --strict`, and run against the service it reads what it typed.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const ROOT = resolve(import.meta.dir, '..')
const START = Date.UTC(2026, 8, 1)
const h = makeHarness({ nowMs: Date.UTC(2026, 10, 22), fill: s => fillWalkUniverse(s, ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'], START, 60, 11) })
const dir = mkdtempSync(join(tmpdir(), 'perpsim-client-'))
afterAll(() => {
  h.cleanup()
  rmSync(dir, { recursive: true, force: true })
})

const run = (cmd: string[], cwd: string) => {
  const p = Bun.spawnSync(cmd, { cwd, stdout: 'pipe', stderr: 'pipe' })
  return { code: p.exitCode, out: `${p.stdout.toString()}${p.stderr.toString()}` }
}

describe('a client generated from /openapi.json', () => {
  test('openapi-typescript generates it, and a program using it compiles under tsc --strict', async () => {
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify((await h.req('/openapi.json')).body))
    const gen = run([process.execPath, join(ROOT, 'node_modules/.bin/openapi-typescript'), 'openapi.json', '-o', 'api.d.ts'], dir)
    expect(gen.out).not.toContain('rror')
    expect(gen.code).toBe(0)
    copyFileSync(join(ROOT, 'tests/fixtures/openapi-client/tour.ts'), join(dir, 'tour.ts'))
    const tsc = run(
      [join(ROOT, 'node_modules/.bin/tsc'), '--ignoreConfig', '--strict', '--noEmit', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler', '--lib', 'es2022', '--types', '', 'tour.ts'],
      dir,
    )
    expect(tsc.out).toBe('')
    expect(tsc.code).toBe(0)
  }, 60_000)

  test('the program reads real answers through those types', async () => {
    // the program is compiled against the generated types only (tsconfig leaves it out)
    type Tour = (fetch: (url: string, init?: RequestInit) => Promise<Response>, base: string) => Promise<string[]>
    const { tour } = (await import(join(dir, 'tour.ts'))) as { tour: Tour }
    const lines = await tour(async (url, init) => h.app.handle(new Request(url, init)), 'http://localhost')
    expect(lines[0]).toMatch(/^simulate -?\d+\.\d\d % over \d+ trades on 2 coins, max_bars \d+$/)
    expect(lines[1]).toMatch(/^backtest true -?\d+\.\d\d % profit factor \d+\.\d\d, 2 conditions$/)
    expect(lines[2]).toMatch(/^rankings: /)
    expect(lines[3]).toMatch(/^scored 0 signals as of /)
  }, 30_000)
})
