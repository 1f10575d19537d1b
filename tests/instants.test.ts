/**
 * One form for every instant the API writes (issue #24 §3): ISO 8601 UTC with `Z`, whole
 * seconds; days YYYY-MM-DD. The exceptions are the contract's (a signal's `signal_time`,
 * without zone, meaning UTC) and the published records' own text (a scored signal's and a
 * paper trade's fields are their Merkle leaf's, which is never rewritten; docs/api.md).
 * The clock stands at a fraction of a second, so a millisecond would show.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { scanSignals } from '../src/live/signal-scan'
import { scoreSignals } from '../src/live/signal-score'
import { DAY_MS } from '../src/time'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const T0 = Date.UTC(2025, 0, 1)
const NOW = T0 + 35 * DAY_MS + 10_123
const h = makeHarness({ fill: store => fillWalkUniverse(store, ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'], T0, 35, 11), nowMs: NOW })
afterAll(() => h.cleanup())
beforeAll(async () => {
  await scanSignals(h.deps)
  await scoreSignals(h.deps)
})

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/
const NO_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/

/** every date-time written in a string (a range "A to B" holds two), with the path it stands at */
function instants(v: unknown, path = ''): [string, string][] {
  if (typeof v === 'string') return [...v.matchAll(/\d{4}-\d{2}-\d{2}T\S*/g)].map(m => [path, m[0]])
  if (Array.isArray(v)) return v.flatMap((x, i) => instants(x, `${path}[${i}]`))
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => instants(x, path ? `${path}.${k}` : k))
  return []
}

function expectOneForm(body: unknown, min = 1) {
  const found = instants(body)
  expect(found.length).toBeGreaterThanOrEqual(min)
  for (const [path, s] of found) {
    const rule = /(^|\.)signal_time$/.test(path) ? NO_ZONE : INSTANT
    expect([path, s, rule.test(s)]).toEqual([path, s, true])
  }
}

describe('every instant the API writes: ISO 8601 UTC, Z, whole seconds', () => {
  test('/signals/history and /signals/live (signal_time: the contract’s form without zone)', async () => {
    const history = await h.req('/signals/history?hours=72&limit=20')
    expect(history.body.signals.length).toBeGreaterThan(0)
    expectOneForm(history.body, 3)
    expect(history.body.as_of).toBe('2025-02-05T00:00:10Z')
    expectOneForm({ x: (await h.req('/signals/live')).body }, 0)
  })

  test('/signals/scored: the envelope; the rows are their leaves’ text', async () => {
    const scored = await h.req('/signals/scored')
    expect(scored.body.as_of).toMatch(INSTANT)
  })

  test('/hot-strategies, /trust/metrics, /trust/merkle', async () => {
    expectOneForm((await h.req('/hot-strategies')).body, 2)
    expectOneForm((await h.req('/trust/metrics')).body, 1)
    const day = await h.req('/trust/merkle/20250201')
    expect(day.status).toBe(200)
    expectOneForm(day.body, 0)
  })

  test('/simulate/coin trades and /simulate/dca', async () => {
    const coin = await h.req('/simulate/coin', { method: 'POST', json: { symbol: 'BTCUSDT', strategy: 'macd-cross-long', direction: 'long', start_date: '2025-01-05', end_date: '2025-02-01' } })
    expect(coin.status).toBe(200)
    expectOneForm(coin.body.trades, 2)
    const dca = await h.req('/simulate/dca', { method: 'POST', json: { symbol: 'BTCUSDT', params: {}, start: '2025-01-05', end: '2025-02-01' } })
    expect(dca.status).toBe(200)
    expectOneForm(dca.body, 1)
  })

  test('/market and /coins/stats (served from the store when offline)', async () => {
    expectOneForm((await h.req('/market')).body, 1)
    expectOneForm((await h.req('/coins/stats')).body, 1)
  })
})
