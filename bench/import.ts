/**
 * Import rate of the real 28-coin set (../shared/data/binance-usdm-1h: 28 × 31,973 1H
 * candles, .csv.gz) into an empty store in a temp dir: read, gunzip, parse, validate,
 * append (fsynced segments). Each run starts from a fresh store.
 *   ./node_modules/.bin/bun bench/import.ts [runs]
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CandleStore } from '../src/market/candle-store'
import { importPaths } from '../src/market/import-binance'

const DATA = join(import.meta.dir, '../../shared/data/binance-usdm-1h')
const runs = Number(process.argv[2] ?? 5)

if (!existsSync(DATA)) {
  console.log(`skipped: ${DATA} is absent`)
  process.exit(0)
}

interface Run { seconds: number; rows: number; files: number }
const results: Run[] = []
for (let i = 0; i < runs; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'perpsim-bench-import-'))
  try {
    const store = CandleStore.open(dir)
    const t0 = performance.now()
    const report = await importPaths(store, [DATA])
    const seconds = (performance.now() - t0) / 1000
    if (report.failed) throw new Error(`import failed: ${JSON.stringify(report.files.filter(f => f.error))}`)
    results.push({ seconds, rows: report.candlesAppended, files: report.files.length })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const sorted = [...results].sort((a, b) => a.seconds - b.seconds)
const median = sorted[Math.floor(sorted.length / 2)]
const best = sorted[0]
const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
console.log(`28-coin real set, ${best.files} files, ${fmt(best.rows)} candles; ${runs} runs, each into an empty store`)
console.log()
console.log('| measure | seconds | rows/s |')
console.log('|---|---:|---:|')
console.log(`| best | ${best.seconds.toFixed(2)} | ${fmt(best.rows / best.seconds)} |`)
console.log(`| median | ${median.seconds.toFixed(2)} | ${fmt(median.rows / median.seconds)} |`)
