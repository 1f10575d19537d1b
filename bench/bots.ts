/**
 * `bun bench/bots.ts`: the bot routes over HTTP against the real started server, on a
 * synthetic store of 3 coins × 2 years of 1H candles (generated into a temp DATA_DIR):
 *   - POST /simulate/dca, default params, the whole two years (target p50 ≤ 20 ms);
 *   - POST /simulate/grid, 100 levels (grid_count 100) spanning the coin's two-year range,
 *     neutral, the whole two years (target p50 ≤ 20 ms);
 *   - POST /generate-bot, a registry strategy on one coin, 1000 self-test candles
 *     (target p50 ≤ 300 ms), its backtest recomputed (Cache-Control: no-cache) and from the
 *     result cache; the first call, which bundles bot.mjs from source, apart.
 * Env: BENCH_REPS (default 30).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CandleStore } from '../src/market/candle-store'
import { listStrategies } from '../src/strategies/registry'
import { BUN, pct, post, ROOT, startServer, timeRequests } from './_server'

const REPS = Number(process.env.BENCH_REPS ?? 30)
const dir = mkdtempSync(join(tmpdir(), 'perpsim-bench-bots-'))
try {
  const gen = Bun.spawnSync([BUN, join(ROOT, 'src/cli.ts'), 'data', 'generate', '--coins', '3', '--days', '730'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dir, OFFLINE: '1', LOG_LEVEL: 'warn' },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  if (gen.exitCode !== 0) throw new Error(`data generate exited with ${gen.exitCode}`)
  const store = CandleStore.open(dir)
  const bars = store.bars('BTCUSDT')!
  let lo = Infinity
  let hi = -Infinity
  for (let i = 0; i < bars.n; i++) {
    lo = Math.min(lo, bars.l[i])
    hi = Math.max(hi, bars.h[i])
  }
  const server = await startServer(dir)
  try {
    const dca = { symbol: 'BTCUSDT', params: {} }
    const grid = { symbol: 'BTCUSDT', params: { lower_price: lo, upper_price: hi, grid_count: 100, direction: 'neutral' } }
    const strategy = listStrategies().find(s => s.id.startsWith('rsi-reversal') && s.direction === 'long')!.id
    const bot = { strategy, coins: ['BTCUSDT'] }
    const first = await timeRequests(1, () => post(`${server.url}/generate-bot`, bot, false))
    const sample = (await (await post(`${server.url}/simulate/grid`, grid, false)).json()) as { fills: number; round_trips: number }
    const sampleDca = (await (await post(`${server.url}/simulate/dca`, dca, false)).json()) as { deals: unknown[] }
    await timeRequests(5, () => post(`${server.url}/simulate/dca`, dca, false))
    await timeRequests(5, () => post(`${server.url}/simulate/grid`, grid, false))
    const tDca = await timeRequests(REPS, () => post(`${server.url}/simulate/dca`, dca, false))
    const tGrid = await timeRequests(REPS, () => post(`${server.url}/simulate/grid`, grid, false))
    const tBot = await timeRequests(REPS, () => post(`${server.url}/generate-bot`, bot, true))
    const tBotCached = await timeRequests(REPS, () => post(`${server.url}/generate-bot`, bot, false))
    const data = `synthetic 3 × 2y (${bars.n} 1H bars of BTCUSDT)`
    console.log('| data | measurement | unit | value |\n|---|---|---|---|')
    console.log(`| ${data} | /simulate/dca default params (${sampleDca.deals.length} deals) | p50 / p95 ms | ${pct(tDca, 50).toFixed(2)} / ${pct(tDca, 95).toFixed(2)} |`)
    console.log(`| ${data} | /simulate/grid 100 levels, neutral (${sample.fills} fills, ${sample.round_trips} round trips) | p50 / p95 ms | ${pct(tGrid, 50).toFixed(2)} / ${pct(tGrid, 95).toFixed(2)} |`)
    console.log(`| ${data} | /generate-bot ${strategy}, 1 coin, 1000 self-test candles, backtest recomputed (no-cache) | p50 / p95 ms | ${pct(tBot, 50).toFixed(1)} / ${pct(tBot, 95).toFixed(1)} |`)
    console.log(`| ${data} | /generate-bot, the same with the backtest from the result cache | p50 / p95 ms | ${pct(tBotCached, 50).toFixed(1)} / ${pct(tBotCached, 95).toFixed(1)} |`)
    console.log(`| ${data} | /generate-bot, first call (bundles bot.mjs from source) | ms | ${first[0].toFixed(1)} |`)
  } finally {
    await server.stop()
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
