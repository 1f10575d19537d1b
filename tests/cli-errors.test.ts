/**
 * A newcomer's mistakes on the command line (issue #19 §4): each prints one line naming the
 * problem, no stack trace, and exits non-zero; `data import` reports each bad file once,
 * with its line, and never copies control characters to the terminal.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from './helpers/fixtures'

const ROOT = join(import.meta.dir, '..')
const BUN = join(ROOT, 'node_modules/.bin/bun')
const dir = tempDir('perpsim-cli-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function cli(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawnSync([BUN, 'src/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, DATA_DIR: join(dir, 'data'), OFFLINE: '1', LOG_LEVEL: 'info', ...env }, stdout: 'pipe', stderr: 'pipe' })
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() }
}

function expectOneLine(r: { code: number | null; err: string }, pattern: RegExp) {
  expect(r.code).not.toBe(0)
  const lines = r.err.trimEnd().split('\n')
  expect(lines.length).toBe(1)
  expect(lines[0]).toMatch(pattern)
  expect(r.err).not.toMatch(/^\s+at /m)
}

describe('one line and a non-zero exit', () => {
  test('--coins -5 names the flag and its range', () => expectOneLine(cli(['data', 'generate', '--coins', '-5']), /--coins -5: expected an integer from 1 to/))
  test('an unknown flag', () => expectOneLine(cli(['data', 'generate', '--bogus']), /Unknown option '--bogus'/))
  test("an unknown flag of a command that parses its own (jobs)", () => expectOneLine(cli(['jobs', 'list', '--bogus']), /^Unknown option '--bogus'/))
  test('an unknown command', () => expectOneLine(cli(['data', 'frobnicate']), /unknown command: data frobnicate/))
  test('trust verify --date takes only a real calendar day (20260230 is none)', () => {
    const leaf = join(dir, 'leaf.json')
    writeFileSync(leaf, '{"a":1}')
    expectOneLine(cli(['trust', 'verify', leaf, '--date', '20260230']), /^--date 20260230: expected a UTC calendar day as YYYYMMDD\b/)
    expectOneLine(cli(['trust', 'verify', leaf, '--date', '2026-02-03']), /^--date 2026-02-03: expected a UTC calendar day as YYYYMMDD\b/)
  })
  test('data market-caps: a gap names its line, nothing is stored; --coingecko with a file is refused; OFFLINE forbids --coingecko', () => {
    const csv = join(dir, 'caps.csv')
    writeFileSync(csv, 'date,symbol,market_cap\n2025-01-01,BTC,100\n2025-01-03,BTC,102\n')
    expectOneLine(cli(['data', 'market-caps', csv]), /caps\.csv: line 3: BTCUSDT has a gap: no row for 2025-01-02 .*; nothing was stored$/)
    expectOneLine(cli(['data', 'market-caps', csv, '--coingecko']), /give a CSV file or --coingecko, not both/)
    expectOneLine(cli(['data', 'market-caps', '--coingecko']), /OFFLINE=1 forbids outbound calls/)
    writeFileSync(csv, 'date,symbol,market_cap\n2025-01-01,BTC,100\n2025-01-02,BTC,102\n')
    const ok = cli(['data', 'market-caps', csv])
    expect(ok.code).toBe(0)
    expect(ok.out).toContain('market caps: 2 rows of 1 coins (2025-01-01 to 2025-01-02); 2 stored, 0 already held')
  }, 30_000) // four processes
  test('a bad HOST', () => expectOneLine(cli(['serve'], { HOST: 'not a host!' }), /HOST="not a host!"/))
  test('a DATABASE_URL that is not postgres:// stops serve, perpsim worker and the commands that read records, naming the variable', () => {
    const refused = /^configuration error: DATABASE_URL="mysql:\/\/h\/db": expected postgres:\/\/user@host:port\/database/
    for (const args of [['serve'], ['worker'], ['jobs', 'run', 'rankings'], ['db', 'migrate']]) {
      const r = cli(args, { DATABASE_URL: 'mysql://h/db', REDIS_URL: 'redis://127.0.0.1:1', PORT: '0' })
      expect({ args, code: r.code }).toEqual({ args, code: 2 })
      expectOneLine(r, refused)
    }
    // and no SQLite file was opened in its place
    expect(existsSync(join(dir, 'data', 'perpsim.sqlite'))).toBe(false)
  })
  test('a DATA_DIR that is a file', () => {
    const file = join(dir, 'a-file')
    writeFileSync(file, 'x')
    expectOneLine(cli(['data', 'info'], { DATA_DIR: file }), /not a directory/)
  })
  test('data sync with the exchange unreachable gives up at once, saying so', () => {
    const started = performance.now()
    const r = cli(['data', 'sync', '--symbols', 'BTCUSDT'], { OFFLINE: '0', BINANCE_FUTURES_URL: 'http://127.0.0.1:9', DATA_DIR: join(dir, 'sync') })
    expectOneLine(r, /data sync: cannot reach http:\/\/127\.0\.0\.1:9 .*offline\?/)
    expect(performance.now() - started).toBeLessThan(20_000) // not minutes of retries
  })
  test('data sync --brackets without an API key names the two settings, before asking the exchange', () => {
    const r = cli(['data', 'sync', '--brackets'], { OFFLINE: '0', BINANCE_API_KEY: '', BINANCE_API_SECRET: '', BINANCE_FUTURES_URL: 'http://127.0.0.1:9', DATA_DIR: join(dir, 'sync-brackets') })
    expectOneLine(r, /--brackets: .*BINANCE_API_KEY and BINANCE_API_SECRET/)
  })
})

describe('data import', () => {
  const H = 3_600_000
  const t0 = Date.UTC(2024, 0, 1)
  const row = (k: number, price = 100) => `${t0 + k * H},${price},${price + 1},${price - 1},${price},10`

  test('impossible candles (1e308, year 2100) are refused with the file and line, each error once, control characters escaped', () => {
    const huge = join(dir, 'HUGEUSDT-1h.csv')
    writeFileSync(huge, [row(0), row(1, 1e308), row(2)].join('\n'))
    const future = join(dir, 'LATEUSDT-1h.csv')
    writeFileSync(future, [row(0), `${Date.UTC(2100, 0, 1)},1,2,0.5,1,10`].join('\n'))
    const ctrl = join(dir, 'CTRLUSDT-1h.csv')
    writeFileSync(ctrl, [row(0), `${t0 + H},1\u001b[31mred,2,0.5,1,10`].join('\n'))
    const r = cli(['data', 'import', huge, future, ctrl], { DATA_DIR: join(dir, 'imp') })
    expect(r.code).toBe(1)
    const all = r.out + r.err
    expect(all).toMatch(/HUGEUSDT-1h\.csv:2: price 1e\+308 is above/)
    expect(all).toMatch(/LATEUSDT-1h\.csv:2: open time 2100-01-01.* is in the future/)
    expect(all).toContain('CTRLUSDT-1h.csv:2:')
    expect(all).not.toContain('\u001b')
    expect(all).toContain('\\x1b')
    for (const f of ['HUGEUSDT-1h.csv:2', 'LATEUSDT-1h.csv:2', 'CTRLUSDT-1h.csv:2']) expect(all.split(f).length - 1).toBe(1)
  })
})
