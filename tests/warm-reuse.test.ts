/**
 * A run computed again (`Cache-Control: no-cache`) recomputes its trades; what is a function
 * of those trades alone (the statistics, the bar rule's figures of `rule_bias`, the capacity
 * curve) is taken from the cached result of the same hash when its accepted trades came out
 * the same, bit for bit (issue 30: the warm path). The answer is the same bytes as a service
 * that keeps nothing computes.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { responseBody, type RunResult } from '../src/runs/present'
import { RunService } from '../src/runs/service'
import { simulateSpec } from '../src/runs/simulate-spec'
import { columnsDigest, tradeColumns } from '../src/runs/statistics-inputs'
import type { TaskName, Transport } from '../src/runs/transport'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const SYMBOLS = ['ETHUSDT', 'SOLUSDT', 'BTCUSDT', 'XRPUSDT', 'ADAUSDT', 'DOGEUSDT', 'LINKUSDT']
const h = makeHarness({ workers: 1, nowMs: Date.UTC(2026, 10, 20, 0, 30), fill: store => fillWalkUniverse(store, SYMBOLS, Date.UTC(2026, 8, 1), 80, 70) })
afterAll(() => h.cleanup())

const spec = () => simulateSpec({ strategy: 'bb-squeeze-short', market_type: 'futures', top_n: 7, timeframe: '1H', start_date: null, end_date: null, leverage: 1, fee_pct: null, sl_pct: 4, per_coin_usd: 60, max_concurrent_positions: 100, compounding: false, include_stablecoins: false })

/** The harness's transport, naming every task submitted. */
function recording(inner: Transport): { transport: Transport; tasks: TaskName[] } {
  const tasks: TaskName[] = []
  return {
    tasks,
    transport: {
      get parallelism() {
        return inner.parallelism
      },
      submit(task, payload, opts) {
        tasks.push(task)
        return inner.submit(task, payload, opts)
      },
      close: () => inner.close(),
      stats: () => inner.stats(),
    },
  }
}

const service = (transport: Transport, cacheSize: number) => new RunService({ store: h.deps.store, universe: h.deps.universe, transport, db: h.deps.db, clock: h.clock, cacheSize })
/** the answer as sent, its compute time aside */
const text = (r: RunResult) => JSON.stringify({ ...responseBody(r), compute_time_ms: 0 })

describe('a warm run computed again', () => {
  test('recomputes its trades, takes the statistics of the cached result with the same trades, and answers the same bytes as a service that keeps nothing', async () => {
    const { transport, tasks } = recording(h.transport)
    const runs = service(transport, 8)
    const first = await runs.run(spec(), { noCache: true })
    expect(first.assembled.portfolio.trades.n).toBeGreaterThan(0)
    expect(tasks).toContain('randomEntry')
    expect(tasks).toContain('bootstrap')
    tasks.length = 0
    const again = await runs.run(spec(), { noCache: true })
    expect(again).not.toBe(first)
    // the coins' trades went to the workers again; no statistic did
    expect(new Set(tasks)).toEqual(new Set(['coinTrades']))
    expect(again.statistics).toBe(first.statistics)
    const cold = await service(h.transport, 0).run(spec(), { noCache: true })
    expect(cold.statistics).not.toBe(first.statistics)
    expect(text(again)).toBe(text(cold))
    expect(text(first)).toBe(text(cold))
  })

  test('whose trades differ from the cached result of its hash computes its own statistics', async () => {
    const { transport, tasks } = recording(h.transport)
    const runs = service(transport, 8)
    const first = await runs.run(spec(), { noCache: true })
    // as if the cached result had been booked on other trades
    first.tradesKey = `${first.tradesKey}-other`
    tasks.length = 0
    const again = await runs.run(spec(), { noCache: true })
    expect(tasks).toContain('randomEntry')
    expect(again.statistics).not.toBe(first.statistics)
    expect(text(again)).toBe(text(first))
  })

  test('the digest of the accepted trades changes with any bit of them', async () => {
    const r = await service(h.transport, 0).run(spec(), { noCache: true })
    const { trades, entryOrder } = r.assembled.portfolio
    const cols = tradeColumns(trades, entryOrder)
    const digest = columnsDigest(cols)
    expect(columnsDigest(tradeColumns(trades, entryOrder))).toBe(digest)
    cols.pnlPct[0] = cols.pnlPct[0] + Number.EPSILON * Math.max(1, Math.abs(cols.pnlPct[0]))
    expect(columnsDigest(cols)).not.toBe(digest)
    cols.pnlPct.set(tradeColumns(trades, entryOrder).pnlPct)
    cols.coin[0] = cols.coin[0] + 1
    expect(columnsDigest(cols)).not.toBe(digest)
  })
})
