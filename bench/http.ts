/**
 * Service benchmarks over HTTP against the real started server (issue 2 and 4 targets):
 * cold start, /ohlcv, /simulate top 535, /backtest 3-condition tree, /simulate/compare,
 * /health under load and peak RSS, on a synthetic 535-coin × 2-year store and on the
 * real 28-coin set (when ../shared/data is beside the repo). These figures are of requests
 * alone: the server runs with JOBS=0 (no rankings backfill on the fresh store). Then the
 * same /simulate while a fresh store's 30-day rankings backfill runs (jobs on): what a user
 * sees in the first minutes after `npm start`, with requests' tasks ahead of the job's.
 *   bun bench/http.ts [--runs N]
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BUN, pct, post, ROOT, startServer, timeRequests } from './_server'

const RUNS = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 15
const SHARED_DATA = join(ROOT, '..', 'shared', 'data')

const TREE3 = {
  name: 'bench 3-condition tree',
  direction: 'short',
  indicators: { bb: {}, rsi: {}, volume: {} },
  entry: { type: 'AND', conditions: [{ field: 'close', op: '<', value: { field: 'bb_lower' } }, { field: 'rsi', op: '<', value: 35 }, { field: 'vol_ratio', op: '>', value: 1.2 }] },
  top_n: 535,
}

/** Warm-up requests before a timed series: JIT tiers and the workers' signal masks settle over the first few runs. */
const WARMUP = 3
async function warm(request: () => Promise<Response>): Promise<void> {
  for (let i = 0; i < WARMUP; i++) await (await request()).arrayBuffer()
}

function row(cells: (string | number)[]): string {
  return `| ${cells.map(c => (typeof c === 'number' ? c.toFixed(c < 10 ? 2 : 1) : c)).join(' | ')} |`
}

async function benchStore(label: string, dataDir: string, topN: number): Promise<string[]> {
  const out: string[] = []
  // requests alone: no scheduled job shares the workers (the backfill is measured apart)
  const server = await startServer(dataDir, { JOBS: '0' })
  try {
    out.push(row([label, 'cold start to first /health', 'ms', server.coldStartMs]))
    const sim = { strategy: 'bb-squeeze-short', top_n: topN }
    await warm(() => post(`${server.url}/simulate`, sim)) // the workers' JIT and signal caches
    const simCold = await timeRequests(RUNS, () => post(`${server.url}/simulate`, sim))
    out.push(row([label, `/simulate bb-squeeze-short top_n ${topN}, result cache off`, 'p50 ms', pct(simCold, 50)]))
    const simWarm = await timeRequests(RUNS, () => post(`${server.url}/simulate`, sim, false))
    out.push(row([label, `/simulate bb-squeeze-short top_n ${topN}, cached`, 'p50 ms', pct(simWarm, 50)]))
    const tree = { ...TREE3, top_n: topN }
    await warm(() => post(`${server.url}/backtest`, tree))
    const bt = await timeRequests(RUNS, () => post(`${server.url}/backtest`, tree))
    out.push(row([label, `/backtest 3-condition tree top_n ${topN}, result cache off`, 'p50 ms', pct(bt, 50)]))
    await warm(() => post(`${server.url}/simulate/compare`, { top_n: 5 }))
    const cmp = await timeRequests(RUNS, () => post(`${server.url}/simulate/compare`, { top_n: 5 }))
    out.push(row([label, '/simulate/compare 5 coins, every strategy, result cache off', 'p50 ms', pct(cmp, 50)]))
    const ohlcv = await timeRequests(RUNS * 4, () => fetch(`${server.url}/ohlcv/BTCUSDT?limit=1000`))
    out.push(row([label, '/ohlcv/BTCUSDT limit 1000 (1H)', 'p50 ms', pct(ohlcv, 50)]))
    const ohlcv4 = await timeRequests(RUNS * 4, () => fetch(`${server.url}/ohlcv/BTCUSDT?limit=1000&timeframe=4H`))
    out.push(row([label, '/ohlcv/BTCUSDT limit 1000 (4H)', 'p50 ms', pct(ohlcv4, 50)]))
    // /health while two full-universe runs are in flight
    const health: number[] = []
    for (let k = 0; k < 5; k++) {
      let done = 0
      const runs = [1, 2].map(i => post(`${server.url}/simulate`, { ...sim, sl_pct: 5 + k + i / 10 }).then(r => r.arrayBuffer()).finally(() => done++))
      while (done < 2) {
        const t0 = performance.now()
        await (await fetch(`${server.url}/health`)).arrayBuffer()
        health.push(performance.now() - t0)
        await Bun.sleep(2)
      }
      await Promise.all(runs)
    }
    out.push(row([label, `/health while two top_n ${topN} runs are in flight (${health.length} samples)`, 'p99 ms', pct(health, 99)]))
    out.push(row([label, 'peak RSS of the server', 'MB', server.rssPeakMb()]))
  } finally {
    await server.stop()
  }
  return out
}

/** The rankings job's finished runs and runs in progress, from GET /metrics. */
async function rankingsProgress(url: string): Promise<{ ok: number; running: number }> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0)
  return { ok: num(/^perpsim_job_runs_total\{job="rankings",outcome="ok"\} (\S+)$/m), running: num(/^perpsim_jobs_running\{job="rankings"\} (\S+)$/m) }
}

/**
 * /simulate while the fresh store's 30-day rankings backfill runs (jobs on, the default):
 * the server starts on a store with no day file, the series is timed at once, and the
 * backfill is then waited for (it must still finish: requests go first, jobs are not starved).
 */
async function benchDuringBackfill(label: string, dataDir: string, topN: number): Promise<string[]> {
  const out: string[] = []
  const startedAt = performance.now()
  const server = await startServer(dataDir)
  try {
    const sim = { strategy: 'bb-squeeze-short', top_n: topN }
    await warm(() => post(`${server.url}/simulate`, sim))
    let after = await rankingsProgress(server.url)
    // at once (the job's first day: every strategy's signal masks computed cold on the
    // workers), then again once 3 days are published (masks cached: the rest of the backfill)
    for (const [phase, minDays] of [['at start', 0], ['after 3 days published', 3]] as const) {
      while ((await rankingsProgress(server.url)).ok < minDays) await Bun.sleep(100)
      const before = await rankingsProgress(server.url)
      const t0 = performance.now()
      const during = await timeRequests(RUNS, () => post(`${server.url}/simulate`, sim))
      const seriesS = (performance.now() - t0) / 1000
      after = await rankingsProgress(server.url)
      if (before.running + after.running === 0) throw new Error('the rankings backfill was not running during the series')
      out.push(row([label, `/simulate bb-squeeze-short top_n ${topN}, result cache off, while the 30-day rankings backfill runs, ${phase} (days published ${before.ok} → ${after.ok} over the ${seriesS.toFixed(1)} s series; job still running: ${after.running > 0 ? 'yes' : 'no'})`, 'p50 ms', pct(during, 50)]))
      out.push(row([label, '… the same series, slowest request', 'max ms', pct(during, 100)]))
    }
    // the backfill still completes once requests stop (idle twice in a row: not between two slots)
    let idle = 0
    let done = after
    while (idle < 2) {
      await Bun.sleep(500)
      done = await rankingsProgress(server.url)
      idle = done.running === 0 && done.ok >= 30 ? idle + 1 : 0
      if ((performance.now() - startedAt) / 1000 > 600) throw new Error(`the backfill did not finish in 600 s (${done.ok} days published)`)
    }
    out.push(row([label, `30-day rankings backfill, server start to the last day published, the series above in between (${done.ok} days)`, 's', (performance.now() - startedAt - 500) / 1000]))
  } finally {
    await server.stop()
  }
  return out
}

const lines = ['| data | measurement | unit | value |', '|---|---|---|---|']
const synth = mkdtempSync(join(tmpdir(), 'perpsim-bench-'))
try {
  const gen = Bun.spawnSync([BUN, join(ROOT, 'src/cli.ts'), 'data', 'generate', '--coins', '535', '--days', '730'], { cwd: ROOT, env: { ...process.env, DATA_DIR: synth }, stderr: 'ignore' })
  if (gen.exitCode !== 0) throw new Error('data generate failed')
  lines.push(...(await benchStore('synthetic 535 × 2y', synth, 535)))
  // the JOBS=0 server published no day file: this start is a fresh store's (30 days to backfill)
  lines.push(...(await benchDuringBackfill('synthetic 535 × 2y', synth, 535)))
} finally {
  rmSync(synth, { recursive: true, force: true })
}
if (existsSync(join(SHARED_DATA, 'binance-usdm-1h'))) {
  const real = mkdtempSync(join(tmpdir(), 'perpsim-bench-'))
  try {
    const imp = Bun.spawnSync([BUN, join(ROOT, 'src/cli.ts'), 'data', 'import', join(SHARED_DATA, 'binance-usdm-1h'), join(SHARED_DATA, 'binance-usdm-funding'), join(SHARED_DATA, 'universe-snapshot-2026-03-15.csv')], { cwd: ROOT, env: { ...process.env, DATA_DIR: real }, stderr: 'ignore', stdout: 'ignore' })
    if (imp.exitCode !== 0) throw new Error('data import failed')
    lines.push(...(await benchStore('real 28 × 3.6y', real, 28)))
  } finally {
    rmSync(real, { recursive: true, force: true })
  }
} else lines.push('| real 28 × 3.6y | skipped: ../shared/data not found | | |')
console.log(lines.join('\n'))
