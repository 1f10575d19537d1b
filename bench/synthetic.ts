/**
 * Synthetic universe benchmark: generation time of 200 and 535 coins × 2 years of 1H
 * candles into a temporary DATA_DIR (candles, funding, metadata, fsynced), and the cost
 * of demo mode's hourly append on the larger store.
 *
 *   ./node_modules/.bin/bun bench/synthetic.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CandleStore } from '../src/market/candle-store'
import { appendDemoCandles, generateSyntheticUniverse } from '../src/market/synthetic'
import { HOUR_MS } from '../src/time'

const DAYS = 730
const SEED = 7
const END_MS = Date.UTC(2026, 10, 22, 12, 30)

interface Row {
  what: string
  coins: number
  rows: number
  seconds: number
}

function timed<T>(f: () => T): [T, number] {
  const t0 = performance.now()
  const out = f()
  return [out, (performance.now() - t0) / 1000]
}

const results: Row[] = []
for (const coins of [200, 535]) {
  const dir = mkdtempSync(join(tmpdir(), 'perpsim-bench-synthetic-'))
  try {
    const store = CandleStore.open(dir)
    const [res, genS] = timed(() => generateSyntheticUniverse(store, { coins, days: DAYS, seed: SEED, endMs: END_MS }))
    results.push({ what: `generate ${coins} coins × ${DAYS} days`, coins: res.coins, rows: res.rows, seconds: genS })
    const [reopened, openS] = timed(() => CandleStore.open(dir))
    results.push({ what: `reopen the store (load ${coins} coins)`, coins: reopened.coinCount, rows: res.rows, seconds: openS })
    if (coins === 535) {
      const [one, oneS] = timed(() => appendDemoCandles(reopened, END_MS + HOUR_MS, SEED))
      results.push({ what: 'demo: append 1 hour', coins, rows: one, seconds: oneS })
      const [day, dayS] = timed(() => appendDemoCandles(reopened, END_MS + 25 * HOUR_MS, SEED))
      results.push({ what: 'demo: catch up 24 hours', coins, rows: day, seconds: dayS })
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

console.log('| synthetic | coins | candle rows | seconds | rows/s |')
console.log('|---|---:|---:|---:|---:|')
for (const r of results)
  console.log(`| ${r.what} | ${r.coins} | ${r.rows.toLocaleString('en-US')} | ${r.seconds.toFixed(2)} | ${Math.round(r.rows / r.seconds).toLocaleString('en-US')} |`)
