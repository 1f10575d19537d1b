import { afterAll, describe, expect, test } from 'bun:test'
import { makeHarness, walkCandles } from './helpers/harness'

const h = makeHarness({
  env: { RATE_LIMIT_PER_MIN: '3' },
  fill: s => {
    const c = walkCandles(100, Date.UTC(2025, 0, 1))
    s.appendCandles('BTCUSDT', c, 100)
  },
})
afterAll(() => h.cleanup())

describe('rate limit', () => {
  test('compute endpoints answer 429 with Retry-After beyond the per-minute limit, and recover next minute', async () => {
    const codes = []
    for (let i = 0; i < 5; i++) codes.push((await h.req('/ohlcv/BTCUSDT?limit=5')).status)
    expect(codes).toEqual([200, 200, 200, 429, 429])
    const r = await h.req('/ohlcv/BTCUSDT?limit=5')
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(r.body.detail).toContain('Rate limit')
    h.clock.advance(60_000)
    expect((await h.req('/ohlcv/BTCUSDT?limit=5')).status).toBe(200)
  })

  test('other endpoints are not limited', async () => {
    for (let i = 0; i < 6; i++) expect((await h.req('/health')).status).toBe(200)
  })
})
