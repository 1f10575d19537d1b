import { afterAll, describe, expect, test } from 'bun:test'
import { makeHarness, walkCandles } from './helpers/harness'

const NOW = Date.UTC(2025, 5, 1)
const T0 = NOW - 24 * 40 * 3_600_000
const META = [
  { symbol: 'ETHUSDT', rank: 2, stablecoin: false, assetClass: 'crypto' },
  { symbol: 'BTCUSDT', rank: 1, stablecoin: false, assetClass: 'crypto' },
  { symbol: 'USDCUSDT', rank: 5, stablecoin: true, assetClass: 'crypto' },
  { symbol: 'XAUUSDT', rank: null, stablecoin: false, assetClass: 'commodity' },
  { symbol: 'ZZZUSDT', rank: null, stablecoin: false, assetClass: 'crypto' },
  { symbol: 'AAAUSDT', rank: null, stablecoin: false, assetClass: 'crypto' },
] as const

const h = makeHarness({
  nowMs: NOW,
  fill: store => {
    META.forEach((m, k) => {
      const cols = walkCandles(24 * 40, T0, k + 3)
      // unranked coins order by volume: AAA trades ten times more than ZZZ
      if (m.symbol === 'AAAUSDT') cols[5] = cols[5].map(v => v * 10)
      store.appendCandles(m.symbol, cols, cols[0].length)
    })
    store.upsertMeta(META.map(m => ({ ...m, name: m.symbol, listingMs: T0 })), 'binance-csv')
  },
})
afterAll(() => h.cleanup())

describe('GET /health', () => {
  test('reports status, version, coins and uptime', async () => {
    h.clock.advance(5_000)
    const r = await h.req('/health')
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ status: 'ok', version: '0.3.0', coins_loaded: 6, uptime_seconds: 5 })
  })
})

describe('GET /coins', () => {
  test('market-cap order, ranked first, unranked by volume; stablecoins and non-crypto hidden by default', async () => {
    const r = await h.req('/coins')
    expect(r.body.map((c: any) => c.symbol)).toEqual(['BTCUSDT', 'ETHUSDT', 'AAAUSDT', 'ZZZUSDT'])
    const btc = r.body[0]
    expect(btc.rows).toBe(960)
    expect(btc.date_from).toBe(new Date(T0).toISOString().slice(0, 10))
    expect(typeof btc.change_7d).toBe('number')
    expect(btc.sparkline_7d.length).toBe(43)
  })

  test('include_stablecoins and include_non_crypto add them back in order', async () => {
    const r = await h.req('/coins?include_stablecoins=true&include_non_crypto=true')
    const syms = r.body.map((c: any) => c.symbol)
    expect(syms.slice(0, 4)).toEqual(['BTCUSDT', 'ETHUSDT', 'USDCUSDT', 'AAAUSDT'])
    expect(syms.slice(4).sort()).toEqual(['XAUUSDT', 'ZZZUSDT'])
    expect(r.body.find((c: any) => c.symbol === 'USDCUSDT').stablecoin).toBe(true)
    expect(r.body.find((c: any) => c.symbol === 'XAUUSDT').asset_class).toBe('commodity')
  })

  test('a non-boolean flag is a 422 on the query', async () => {
    const r = await h.req('/coins?include_stablecoins=maybe')
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['query', 'include_stablecoins'])
  })
})

describe('GET /ohlcv/{symbol}', () => {
  test('unknown symbol is a JSON 404 with a detail message', async () => {
    const r = await h.req('/ohlcv/NOPEUSDT')
    expect(r.status).toBe(404)
    expect(r.body.detail).toContain('NOPEUSDT')
  })

  test('bad timeframe and limit above 5000 are 422 on the query', async () => {
    const a = await h.req('/ohlcv/BTCUSDT?timeframe=3H')
    expect(a.status).toBe(422)
    expect(a.body.detail[0].loc).toEqual(['query', 'timeframe'])
    const b = await h.req('/ohlcv/BTCUSDT?limit=5001')
    expect(b.status).toBe(422)
    expect(b.body.detail[0].loc).toEqual(['query', 'limit'])
  })

  test('a path parameter that is too long is a 422 on the path', async () => {
    const r = await h.req(`/ohlcv/${'X'.repeat(40)}USDT`)
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['path', 'symbol'])
  })

  test('zero or negative limit means 1000; offset skips bars from the newest end', async () => {
    const zero = await h.req('/ohlcv/BTCUSDT?limit=0')
    expect(zero.body.data.length).toBe(960) // fewer than 1000 bars in the store
    const neg = await h.req('/ohlcv/BTCUSDT?limit=-5&offset=10')
    expect(neg.body.data.length).toBe(950)
    const all = await h.req('/ohlcv/BTCUSDT?limit=5000')
    const off = await h.req('/ohlcv/BTCUSDT?limit=3&offset=2')
    expect(off.body.data).toEqual(all.body.data.slice(-5, -2))
    expect(off.body.total_bars).toBe(960)
    expect(Number.isInteger(off.body.data[0].t)).toBe(true)
  })

  test('warm-up values are null, never 0', async () => {
    const r = await h.req('/ohlcv/BTCUSDT?limit=5000')
    const d = r.body.data
    expect(d[18].bb_mid).toBeNull()
    expect(d[19].bb_mid).not.toBeNull()
    expect(d[48].ema50).toBeNull()
    expect(d[49].ema50).not.toBeNull()
    expect(d[18].vol_ratio).toBeNull()
  })

  test('4H bars are UTC buckets of the 1H candles and the unfinished last one is dropped', async () => {
    const one = (await h.req('/ohlcv/ETHUSDT?limit=5000')).body.data
    const four = (await h.req('/ohlcv/ETHUSDT?limit=5000&timeframe=4H')).body
    expect(four.timeframe).toBe('4H')
    for (const b of four.data) expect(b.t % (4 * 3600)).toBe(0)
    const first = four.data[0]
    const hours = one.filter((x: any) => x.t >= first.t && x.t < first.t + 4 * 3600)
    expect(hours.length).toBe(4)
    expect(first.o).toBe(hours[0].o)
    expect(first.c).toBe(hours[3].c)
    expect(first.h).toBe(Math.max(...hours.map((x: any) => x.h)))
    expect(first.l).toBe(Math.min(...hours.map((x: any) => x.l)))
    expect(first.v).toBeCloseTo(hours.reduce((s: number, x: any) => s + x.v, 0), 9)
    const last = four.data[four.data.length - 1]
    expect(last.t + 4 * 3600).toBeLessThanOrEqual(one[one.length - 1].t + 3600)
  })

  test('1W buckets start on Monday 00:00 UTC', async () => {
    const r = await h.req('/ohlcv/BTCUSDT?timeframe=1W')
    for (const b of r.body.data) expect(new Date(b.t * 1000).getUTCDay()).toBe(1)
  })
})

describe('cross-cutting HTTP', () => {
  test('CORS allows every origin, preflight included', async () => {
    const get = await h.req('/health', { headers: { origin: 'https://example.org' } })
    expect(get.headers.get('access-control-allow-origin')).toBe('*')
    const pre = await h.app.handle(
      new Request('http://localhost/backtest', { method: 'OPTIONS', headers: { origin: 'https://example.org', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } }),
    )
    expect(pre.status).toBeLessThan(300)
    expect(pre.headers.get('access-control-allow-origin')).toBe('*')
  })

  test('no answer says `Vary: *`: only what really varies is named (Host for /share without PUBLIC_URL, Accept-Encoding for the page)', async () => {
    const origin = { origin: 'https://example.org' }
    const answers = [
      await h.req('/health', { headers: origin }),
      await h.req('/rankings/criteria', { headers: origin }),
      await h.req('/strategies'),
      await h.req('/no/such/route'),
      await h.req('/signals/history?hours=0'),
      await h.req('/simulate', { method: 'POST', json: {}, headers: origin }),
    ]
    for (const a of answers) expect(a.headers.get('vary')).toBeNull()
    // a preflight grants a fixed list of methods and headers: the same for every request
    const pre = await h.app.handle(new Request('http://localhost/backtest', { method: 'OPTIONS', headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } }))
    expect([pre.status, pre.headers.get('vary'), pre.headers.get('access-control-allow-methods')]).toEqual([204, null, 'GET, HEAD, POST, OPTIONS'])
    expect(pre.headers.get('access-control-allow-headers')).toBe('content-type, cache-control, x-request-id')
    expect(pre.headers.get('access-control-max-age')).toBe('5')
    expect((await h.req('/')).headers.get('vary')).toBe('accept-encoding')
  })

  test('unknown routes answer a JSON 404', async () => {
    const r = await h.req('/no/such/route')
    expect(r.status).toBe(404)
    expect(r.body).toEqual({ detail: 'Not Found' })
  })

  test('a body above the limit is a 413', async () => {
    const big = 'x'.repeat(h.deps.config.bodyLimitBytes + 10)
    const r = await h.req('/backtest', { method: 'POST', body: big, headers: { 'content-type': 'application/json', 'content-length': String(big.length) } })
    expect(r.status).toBe(413)
    expect(r.body.detail).toContain('too large')
  })

  test('malformed JSON is a 422 with the detail list', async () => {
    const r = await h.req('/backtest', { method: 'POST', body: '{"entry":', headers: { 'content-type': 'application/json' } })
    expect(r.status).toBe(422)
    expect(r.body.detail[0].type).toBe('json_invalid')
  })

  test('/openapi.json is OpenAPI 3.1.0, version 0.3.0, public routes only, no UI route', async () => {
    const r = await h.req('/openapi.json')
    expect(r.status).toBe(200)
    expect(r.body.openapi).toBe('3.1.0')
    expect(r.body.info.version).toBe('0.3.0')
    const paths = Object.keys(r.body.paths)
    for (const p of ['/health', '/coins', '/ohlcv/{symbol}', '/backtest', '/simulate', '/simulate/coin', '/simulate/compare', '/export/csv']) expect(paths).toContain(p)
    expect((await h.req('/openapi')).status).toBe(404)
    expect((await h.req('/swagger')).status).toBe(404)
  })
})

describe('response schema formats', () => {
  test("the 'date' format in response schemas is a strict calendar-day check (not the OpenAPI plugin's slow one)", async () => {
    const { FormatRegistry } = await import('@sinclair/typebox')
    const { isFullDate } = await import('../src/http/openapi')
    const check = FormatRegistry.Get('date')!
    for (const ok of ['2024-02-29', '2000-02-29', '2026-11-22', '1999-12-31']) expect([ok, check(ok)]).toEqual([ok, true])
    for (const bad of ['2023-02-29', '1900-02-29', '2026-13-01', '2026-04-31', '2026-1-01', '2026-01-01T00:00:00Z', '']) expect([bad, check(bad)]).toEqual([bad, false])
    expect(check).not.toBe(undefined)
    expect(isFullDate('2024-02-29')).toBe(true)
  })

  test("the 'date-time' format accepts and refuses what the libraries' check does; the API's own instants at once", async () => {
    const { FormatRegistry } = await import('@sinclair/typebox')
    const { givenDateTime } = await import('../src/http/openapi')
    const { isoInstant, isIsoInstant } = await import('../src/time')
    const check = FormatRegistry.Get('date-time')!
    expect(givenDateTime).toBeDefined()
    expect(check).not.toBe(givenDateTime)
    // the premise of the fast acceptance: every instant the API writes passes the libraries' check
    for (let ms = Date.UTC(1970, 0, 1); ms < Date.UTC(2101, 0, 1); ms += 7919 * 60_000 + 13_000) {
      const s = isoInstant(ms)
      expect([s, isIsoInstant(s), givenDateTime!(s)]).toEqual([s, true, true])
    }
    const seeds = ['2024-02-29T23:59:59Z', '2026-01-01T00:00:00Z', '2026-12-31T23:59:59.120Z', '2026-01-01T00:00:00+02:00']
    const strings = new Set(['', 'yesterday', '2026-02-30T00:00:00Z', '2026-12-31T24:00:00Z', '2026-01-01', 'Thu Jan 01 2026 00:00:00 GMT+0000 (UTC)', '"2026-01-01T00:00:00Z"'])
    for (const seed of seeds)
      for (let i = 0; i < seed.length; i++) for (const c of ['', '0', '3', '9', '-', ':', 'T', 'Z', ' ', '"']) strings.add(seed.slice(0, i) + c + seed.slice(i + 1))
    for (const s of strings) expect([s, check(s)]).toEqual([s, givenDateTime!(s)])
  })
})
