import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { unzipSync, strFromU8 } from 'fflate'
import { listStrategies } from '../src/strategies/registry'
import { fillWalkUniverse, makeHarness, tempDir } from './helpers/harness'

// 60 days of random-walk 1H candles: the bots ship all of them (selftest_candles 5000), so
// their self-test replays exactly the candles /backtest runs on
const COINS = ['BTCUSDT', 'ETHUSDT']
const h = makeHarness({ fill: s => fillWalkUniverse(s, COINS, Date.UTC(2024, 0, 1), 60, 11) })
const out = tempDir('perpsim-bots-')
// registry ids may be renamed; the rsi-reversal family stays
const RSI_REVERSAL_LONG = listStrategies().find(s => s.id.startsWith('rsi-reversal') && s.direction === 'long')!
afterAll(() => {
  h.cleanup()
  rmSync(out, { recursive: true, force: true })
})

async function generate(json: unknown): Promise<{ status: number; headers: Headers; files: Record<string, Uint8Array>; body: any }> {
  const res = await h.app.handle(new Request('http://localhost/generate-bot', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) }))
  const buf = new Uint8Array(await res.arrayBuffer())
  if (res.status !== 200) return { status: res.status, headers: res.headers, files: {}, body: JSON.parse(strFromU8(buf)) }
  return { status: res.status, headers: res.headers, files: unzipSync(buf), body: null }
}

/** Unzip into a folder of its own and run `node bot.mjs args` there. */
function runBot(files: Record<string, Uint8Array>, name: string, args: string[]) {
  const dir = join(out, name)
  for (const [path, data] of Object.entries(files)) {
    if (path.endsWith('/')) continue
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), data)
  }
  const root = join(dir, Object.keys(files)[0].split('/')[0])
  // no node_modules anywhere up the tree, no network: the self-test must not need them
  const r = Bun.spawnSync(['node', 'bot.mjs', ...args], { cwd: root, stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '' } })
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString(), root }
}

/** /backtest's entries per coin for the same strategy and settings. */
async function backtestEntries(strategy: { indicators: unknown; entry: unknown; exit_conditions?: unknown; direction: string }, settings: Record<string, unknown>) {
  const r = await h.req('/backtest', { method: 'POST', json: { ...strategy, symbols: COINS, ...settings } })
  expect(r.status).toBe(200)
  expect(r.body.executed).toBe(true)
  const by: Record<string, string[]> = Object.fromEntries(COINS.map(c => [c, []]))
  for (const tr of r.body.trades) by[tr.symbol].push(new Date(tr.entry_time).toISOString())
  for (const c of COINS) by[c].sort()
  return { entries: by, body: r.body }
}

const entryTimes = (signals: Record<string, { entry_time: string }[]>) => Object.fromEntries(COINS.map(c => [c, signals[c].map(s => new Date(s.entry_time).toISOString())]))
const iso = (s: string) => new Date(s).toISOString()

describe('POST /generate-bot', () => {
  test('a registry strategy: the zip holds README, package.json (ccxt pinned), config.json, .env.example, bot.mjs and selftest/; its self-test passes under node and finds /backtest’s entries', async () => {
    const def = RSI_REVERSAL_LONG
    const g = await generate({ strategy: def.id, coins: COINS, selftest_candles: 5000, avoid_hours: [3, 4] })
    expect(g.status).toBe(200)
    expect(g.headers.get('content-type')).toBe('application/zip')
    expect(g.headers.get('content-disposition')).toBe(`attachment; filename="perpsim-bot-${def.id}.zip"`)
    const root = `perpsim-bot-${def.id}/`
    expect(Object.keys(g.files).filter(f => !f.endsWith('/')).sort()).toEqual(
      ['.env.example', 'README.md', 'bot.mjs', 'config.json', 'package.json', 'selftest/candles/BTCUSDT.json', 'selftest/candles/ETHUSDT.json', 'selftest/signals.json'].map(f => root + f).sort(),
    )
    const pkg = JSON.parse(strFromU8(g.files[root + 'package.json']))
    expect(pkg.dependencies.ccxt).toMatch(/^\d+\.\d+\.\d+$/)
    const cfg = JSON.parse(strFromU8(g.files[root + 'config.json']))
    expect(cfg).toMatchObject({ strategy_id: def.id, direction: 'long', sl_pct: def.sl_pct, tp_pct: def.tp_pct, max_bars: def.max_bars, live: false, exchange: 'binanceusdm', avoid_hours: [3, 4] })

    const run = runBot(g.files, 'registry', ['--self-test', '--print-signals'])
    expect(run.stderr).toContain('self-test passed')
    expect(run.code).toBe(0)
    const found = JSON.parse(run.stdout)
    const bt = await backtestEntries({ indicators: def.indicators, entry: def.entry, exit_conditions: def.exit_conditions ?? null, direction: def.direction }, { sl_pct: def.sl_pct, tp_pct: def.tp_pct, max_bars: def.max_bars, avoid_hours: [3, 4] })
    expect(entryTimes(found)).toEqual(bt.entries)
    expect(bt.body.total_trades).toBeGreaterThan(0)
    // the README's figures are the service's backtest of these settings
    const readme = strFromU8(g.files[root + 'README.md'])
    expect(readme).toContain(
      `| trades | ${bt.body.total_trades} (take profit ${bt.body.tp_count}, stop loss ${bt.body.sl_count}, timeout ${bt.body.timeout_count}, trailing stop ${bt.body.trailing_count}, exit signal ${bt.body.signal_count}, liquidation ${bt.body.liquidation_count}, end of data ${bt.body.end_of_data_count}) |`,
    )
  }, 60_000)

  test('a custom tree with an exit condition: the self-test equals /backtest’s entries, and a tampered signals file fails it', async () => {
    const strategy = {
      direction: 'short',
      indicators: { rsi: { period: 10 }, ema: { fast: 10, slow: 30 } },
      entry: { type: 'AND', conditions: [{ field: 'rsi', op: '>', value: 62 }, { field: 'downtrend', op: '==', value: false }] },
      exit_conditions: { field: 'rsi', op: '<', value: 45 },
    }
    const settings = { sl_pct: 3, tp_pct: 4, max_bars: 24, leverage: 5 }
    const g = await generate({ ...strategy, ...settings, name: 'RSI fade', coins: COINS, selftest_candles: 5000 })
    expect(g.status).toBe(200)
    expect(g.headers.get('content-disposition')).toBe('attachment; filename="perpsim-bot-rsi-fade.zip"')
    const run = runBot(g.files, 'custom', ['--self-test', '--print-signals'])
    expect(run.code).toBe(0)
    const bt = await backtestEntries(strategy, settings)
    expect(bt.body.total_trades).toBeGreaterThan(5)
    expect(entryTimes(JSON.parse(run.stdout))).toEqual(bt.entries)

    const signalsPath = join(run.root, 'selftest', 'signals.json')
    const shipped = JSON.parse(await Bun.file(signalsPath).text())
    shipped.ETHUSDT.pop()
    writeFileSync(signalsPath, JSON.stringify(shipped))
    const again = Bun.spawnSync(['node', 'bot.mjs', '--self-test'], { cwd: run.root, stdout: 'pipe', stderr: 'pipe' })
    expect(again.exitCode).toBe(1)
    expect(again.stderr.toString()).toContain('self-test FAILED for ETHUSDT')
  }, 60_000)

  test('a short timeframe ships resampled candles and still replays exactly', async () => {
    const g = await generate({ strategy: RSI_REVERSAL_LONG.id, coins: ['BTCUSDT'], timeframe: '4H', selftest_candles: 200 })
    expect(g.status).toBe(200)
    const root = Object.keys(g.files)[0].split('/')[0]
    const candles = JSON.parse(strFromU8(g.files[`${root}/selftest/candles/BTCUSDT.json`]))
    expect(candles.t).toHaveLength(200)
    expect(candles.t[1] - candles.t[0]).toBe(4 * 3_600_000)
    expect(runBot(g.files, 'tf4h', ['--self-test']).code).toBe(0)
  }, 60_000)

  test('the zip is packed on a worker: the pool gives the same bytes as in-process', async () => {
    const pooled = makeHarness({ fill: s => fillWalkUniverse(s, COINS, Date.UTC(2024, 0, 1), 60, 11), workers: 1 })
    try {
      const body = JSON.stringify({ strategy: RSI_REVERSAL_LONG.id, coins: COINS, timeframe: '2H' })
      const ask = (app: typeof h.app) => app.handle(new Request('http://localhost/generate-bot', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).then(r => r.arrayBuffer())
      const [a, b] = await Promise.all([ask(pooled.app), ask(h.app)])
      expect(new Uint8Array(a)).toEqual(new Uint8Array(b))
    } finally {
      pooled.cleanup()
    }
  }, 60_000)

  test('the file name and the folder inside the zip come from a sanitised id only', async () => {
    const g = await generate({ direction: 'long', indicators: { rsi: {} }, entry: { field: 'rsi', op: '<', value: 30 }, name: '../../Évil "bot"; rm -rf /', coins: ['BTCUSDT'] })
    expect(g.status).toBe(200)
    expect(g.headers.get('content-disposition')).toBe('attachment; filename="perpsim-bot-vil-bot-rm-rf.zip"')
    expect(Object.keys(g.files).every(f => f.startsWith('perpsim-bot-vil-bot-rm-rf/'))).toBe(true)
  })

  test('bad input is 422 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ strategy: 'no-such-strategy' }, 'body.strategy'],
      [{ strategy: RSI_REVERSAL_LONG.id, entry: { field: 'rsi', op: '<', value: 30 } }, 'body.strategy'],
      [{}, 'body.entry'],
      [{ entry: { field: 'rsi', op: '<', value: 30 }, indicators: { rsi: {} } }, 'body.direction'],
      [{ direction: 'long', entry: { field: 'nope', op: '<', value: 30 } }, 'body.entry'],
      [{ direction: 'long', indicators: { rsi: {} }, entry: { field: 'rsi', op: '<', value: 30, shift: -1 } }, 'body.entry.shift'],
      [{ strategy: RSI_REVERSAL_LONG.id, coins: ['btcusdt'] }, 'body.coins.0'],
      [{ strategy: RSI_REVERSAL_LONG.id, coins: ['BTCUSDT', 'ETHUSDT', 'BTCUSDT'] }, 'body.coins.2'],
      [{ strategy: RSI_REVERSAL_LONG.id, coins: Array.from({ length: 51 }, (_, i) => `C${i}USDT`) }, 'body.coins'],
      [{ strategy: RSI_REVERSAL_LONG.id, exchange: 'mtgox' }, 'body.exchange'],
      [{ strategy: RSI_REVERSAL_LONG.id, leverage: 126 }, 'body.leverage'],
      [{ strategy: RSI_REVERSAL_LONG.id, avoid_hours: [24] }, 'body.avoid_hours.0'],
    ]
    for (const [json, loc] of cases) {
      const g = await generate(json)
      expect({ json, status: g.status }).toEqual({ json, status: 422 })
      expect(g.body.detail.map((d: any) => d.loc.join('.'))).toContain(loc)
    }
    // a symbol the store does not hold is the 404 of every route that takes a symbol
    const unknown = await generate({ strategy: RSI_REVERSAL_LONG.id, coins: ['BTCUSDT', 'NOPEUSDT'] })
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 404, body: { detail: "Unknown symbol 'NOPEUSDT': see GET /coins" } })
  }, 60_000)
})
