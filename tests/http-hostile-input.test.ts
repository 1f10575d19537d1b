/**
 * Hostile and malformed input (issue #19 §1): every refusal is a 422 (or 413/431) in the
 * contract's {detail:[...]} shape, bounded in size, naming the field, the rule and the input.
 */
import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, test } from 'bun:test'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const NOW = Date.UTC(2025, 5, 1)
const T0 = NOW - 40 * 24 * 3_600_000
const h = makeHarness({ nowMs: NOW, fill: s => fillWalkUniverse(s, ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'], T0, 40, 3) })
afterAll(() => h.cleanup())

const ENTRY = { type: 'AND', conditions: [{ field: 'close', op: '>', value: 0 }] }
const raw = (path: string, body: string, contentType = 'application/json') =>
  h.req(path, { method: 'POST', headers: { 'content-type': contentType }, body })

function expectDetailShape(body: any) {
  expect(Array.isArray(body.detail)).toBe(true)
  for (const d of body.detail) {
    expect(Array.isArray(d.loc)).toBe(true)
    expect(typeof d.msg).toBe('string')
    expect(typeof d.type).toBe('string')
    expect('input' in d).toBe(true)
  }
}

describe('deeply nested and oversized JSON', () => {
  test('a 10,000-deep body is refused before validation, with a short answer', async () => {
    const r = await raw('/backtest', `{"name":${'['.repeat(10_000)}${']'.repeat(10_000)},"entry":{}}`)
    expect(r.status).toBe(422)
    expectDetailShape(r.body)
    expect(r.body.detail[0].type).toBe('json_too_deep')
    expect(JSON.stringify(r.body).length).toBeLessThan(500)
  })

  test('a 40 KB deep array in a string field (strategy) is a 422, not a 500', async () => {
    const r = await raw('/simulate', `{"strategy":${'['.repeat(20_000)}${']'.repeat(20_000)}}`)
    expect(r.status).toBe(422)
    expect(r.body.detail[0].type).toBe('json_too_deep')
  })

  test('a wide array inside the depth limit: the error echoes a bounded summary of the input', async () => {
    const wide = JSON.stringify(Array.from({ length: 50_000 }, (_, i) => i))
    for (const [path, field] of [['/simulate', 'strategy'], ['/backtest', 'name'], ['/simulate/coin', 'symbol']] as const) {
      const r = await raw(path, `{"${field}":${wide},"entry":{"type":"AND"}}`)
      expect(r.status).toBe(422)
      expectDetailShape(r.body)
      const d = r.body.detail.find((x: any) => x.loc[1] === field)
      expect(d.input).toBe('[array of 50000 items]')
      expect(JSON.stringify(r.body).length).toBeLessThan(1000)
    }
  })

  test('nesting up to the documented depth (32) is still read', async () => {
    const nested = `${'['.repeat(31)}1${']'.repeat(31)}`
    const r = await raw('/simulate', `{"strategy":${nested}}`)
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['body', 'strategy'])
  })
})

describe('prototype keys', () => {
  test('__proto__ cannot supply a required field: the key is refused with its location', async () => {
    const r = await raw('/backtest', JSON.stringify({ name: 'x' }).replace('{', `{"__proto__":${JSON.stringify({ entry: ENTRY })},`))
    expect(r.status).toBe(422)
    expect(r.body.detail[0]).toMatchObject({ type: 'forbidden_key', loc: ['body', '__proto__'] })
  })

  test('constructor and prototype keys anywhere in the body are refused too', async () => {
    const a = await raw('/backtest', JSON.stringify({ entry: { ...ENTRY, constructor: { prototype: 1 } } }))
    expect(a.status).toBe(422)
    expect(a.body.detail[0].loc).toEqual(['body', 'entry', 'constructor'])
    const b = await raw('/simulate', JSON.stringify({ strategy: 'bb-squeeze-long', indicators: [{ prototype: {} }] }))
    expect(b.status).toBe(422)
    expect(b.body.detail[0].loc).toEqual(['body', 'indicators', 0, 'prototype'])
  })
})

describe('bodies that are not JSON objects', () => {
  for (const path of ['/backtest', '/simulate/compare', '/simulate', '/simulate/score-session']) {
    test(`${path}: empty, null, [], 123 and "text" are 422 on the body`, async () => {
      for (const body of ['', 'null', '[]', '123', '"text"']) {
        const r = await raw(path, body)
        expect(r.status).toBe(422)
        expectDetailShape(r.body)
        expect(r.body.detail[0].loc).toEqual(['body'])
      }
    })
  }

  test('JSON sent as text/plain (or with no content type) is a 422 naming the header', async () => {
    for (const ct of ['text/plain', '']) {
      const r = await raw('/simulate/compare', '{"top_n":3}', ct)
      expect(r.status).toBe(422)
      expect(r.body.detail[0].loc).toEqual(['header', 'content-type'])
    }
  })

  test('/backtest without `entry` is a 422 (missing); an entry that is present but invalid stays 200 executed=false', async () => {
    const a = await h.req('/backtest', { method: 'POST', json: { name: 'x' } })
    expect(a.status).toBe(422)
    expect(a.body.detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'entry'] })
    const b = await h.req('/backtest', { method: 'POST', json: { entry: {} } })
    expect(b.status).toBe(200)
    expect(b.body.executed).toBe(false)
  })
})

describe('422 messages name the field, the rule and the input', () => {
  const cases: [string, string, unknown, (string | number)[], RegExp][] = [
    ['/backtest', 'top_n', 0, ['body', 'top_n'], /integer from 1 to 535, or null/],
    ['/backtest', 'start_date', '2020-1-1', ['body', 'start_date'], /matching \^\\d\{4\}/],
    ['/simulate', 'leverage', 1000, ['body', 'leverage'], /integer from 1 to 125/],
    ['/simulate', 'leverage', 2.5, ['body', 'leverage'], /integer from 1 to 125/],
    ['/simulate', 'market_type', 'margin', ['body', 'market_type'], /one of: futures, spot/],
    ['/simulate', 'fee_pct', 0.5, ['body', 'fee_pct'], /number from 0 to 0.01, or null/],
    ['/backtest', 'name', 'x'.repeat(101), ['body', 'name'], /at most 100 characters/],
    ['/backtest', 'avoid_hours', [25], ['body', 'avoid_hours', 0], /integer from 0 to 23/],
    // a nullable array: the failing element is named, not the whole field
    ['/backtest', 'avoid_months', [13], ['body', 'avoid_months', 0], /^Input should be an integer from 1 to 12$/],
  ]
  for (const [path, field, value, loc, rule] of cases) {
    test(`${path} ${field}=${JSON.stringify(value).slice(0, 20)}`, async () => {
      const base = path === '/backtest' ? { entry: ENTRY } : { strategy: 'bb-squeeze-long' }
      const r = await h.req(path, { method: 'POST', json: { ...base, [field]: value } })
      expect(r.status).toBe(422)
      const d = r.body.detail.find((x: any) => JSON.stringify(x.loc) === JSON.stringify(loc))
      expect(d).toBeDefined()
      expect(d.msg).toMatch(rule)
      expect(d.input).toEqual(typeof value === 'string' && value.length > 200 ? expect.any(String) : Array.isArray(value) ? value[0] : value)
    })
  }

  test('query values: a boolean flag and an out-of-range integer', async () => {
    // 1/0, yes/no, on/off are booleans, as FastAPI reads them (tests/contract-edges.test.ts); other words are not
    const a = await h.req('/coins?include_stablecoins=2')
    expect(a.body.detail[0]).toMatchObject({ loc: ['query', 'include_stablecoins'], msg: 'Input should be a boolean: true/false, 1/0, yes/no, on/off, t/f or y/n, in any case', input: '2' })
    const b = await h.req('/ohlcv/BTCUSDT?limit=99999')
    expect(b.body.detail[0].loc).toEqual(['query', 'limit'])
    expect(b.body.detail[0].msg).toMatch(/at most 5000/)
    expect(b.body.detail[0].input).toBe(99999)
  })

  test('a missing required field says so and states the rule', async () => {
    const r = await h.req('/simulate', { method: 'POST', json: {} })
    expect(r.body.detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'strategy'] })
    expect(r.body.detail[0].msg).toMatch(/^Field required: a string of 1 to 100 characters/)
  })
})

describe('field combinations', () => {
  test('spot with leverage 10 is a 422 on leverage (it used to run at 1x silently)', async () => {
    for (const path of ['/simulate', '/simulate/coin']) {
      const body = path === '/simulate' ? { strategy: 'bb-squeeze-long' } : { symbol: 'BTCUSDT' }
      const r = await h.req(path, { method: 'POST', json: { ...body, market_type: 'spot', leverage: 10 } })
      expect(r.status).toBe(422)
      expect(r.body.detail[0].loc).toEqual(['body', 'leverage'])
      expect(r.body.detail[0].msg).toContain('spot')
    }
  })

  test('symbol and symbols together are a 422 (symbol used to win silently)', async () => {
    const r = await h.req('/backtest', { method: 'POST', json: { entry: ENTRY, symbol: 'BTCUSDT', symbols: ['ETHUSDT'] } })
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['body', 'symbols'])
  })
})

describe('POST /simulate/score-session bounds', () => {
  const trade = (t: Record<string, unknown>) => h.req('/simulate/score-session', { method: 'POST', json: { trades: [{ direction: 'long', entry_price: 1, exit_price: 2, ...t }] } })

  test('extreme prices are refused on the request, never blamed on the response', async () => {
    for (const [field, v] of [['entry_price', 5e-324], ['exit_price', 1e308], ['size_usd', 1e308]] as const) {
      const r = await trade({ [field]: v })
      expect(r.status).toBe(422)
      expect(r.body.detail[0].loc).toEqual(['body', 'trades', 0, field])
    }
  })

  test('the most extreme accepted trade still gives finite figures', async () => {
    const r = await h.req('/simulate/score-session', {
      method: 'POST',
      json: {
        trades: [
          { direction: 'long', entry_price: 1e-12, exit_price: 1e12, size_usd: 1e12, leverage: 125 },
          { direction: 'short', entry_price: 1e-12, exit_price: 1e12, size_usd: 1e12, leverage: 125 },
        ],
      },
    })
    expect(r.status).toBe(200)
    const numbers = JSON.stringify(r.body).match(/-?\d[\d.e+-]*/gi) ?? []
    expect(JSON.stringify(r.body)).not.toMatch(/null,"max_drawdown_usd"|NaN|Infinity/)
    expect(numbers.length).toBeGreaterThan(5)
  })

  test('impossible times are refused: Feb 30, 25:00, negative Unix seconds, exit before entry', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ entry_time: '2024-02-30T00:00:00' }, 'entry_time'],
      [{ exit_time: '2024-03-01T25:00:00Z' }, 'exit_time'],
      [{ entry_time: -5 }, 'entry_time'],
      [{ entry_time: '2024-03-02T00:00:00Z', exit_time: '2024-03-01T00:00:00Z' }, 'exit_time'],
    ]
    for (const [t, field] of cases) {
      const r = await trade(t)
      expect(r.status).toBe(422)
      expect(r.body.detail[0].loc).toEqual(['body', 'trades', 0, field])
    }
    expect((await trade({ entry_time: '2024-02-29T00:00:00', exit_time: '2024-03-01T00:00:00' })).status).toBe(200)
  })
})

describe('/openapi.json', () => {
  test('defaulted fields are optional: /backtest requires only entry, /simulate only strategy', async () => {
    const doc = (await h.req('/openapi.json')).body
    const required = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema.required
    expect(required('/backtest')).toEqual(['entry'])
    expect(required('/simulate')).toEqual(['strategy'])
    expect(required('/simulate/compare')).toBeUndefined()
    const limit = doc.paths['/ohlcv/{symbol}'].get.parameters.find((p: any) => p.name === 'limit')
    expect(limit.required).toBe(false)
  })
})

describe('size limits answer in JSON', () => {
  test('a Content-Length over the body limit is a JSON 413', async () => {
    const r = await h.req('/backtest', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(2 << 20) }, body: '{}' })
    expect(r.status).toBe(413)
    expect(r.body.detail).toContain('too large')
    expect(r.headers.get('x-content-type-options')).toBe('nosniff')
  })

  test('headers over MAX_HEADER_BYTES are a JSON 431', async () => {
    const r = await h.req('/health', { headers: { 'x-big': 'x'.repeat(9000) } })
    expect(r.status).toBe(431)
    expect(r.body.detail).toContain('headers too large')
  })
})

describe('CORS', () => {
  test('a preflight is granted only the headers the API reads: never X-Admin-Key', async () => {
    const r = await h.req('/backtest', {
      method: 'OPTIONS',
      headers: { origin: 'https://example.org', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-admin-key,content-type' },
    })
    const allowed = (r.headers.get('access-control-allow-headers') ?? '').toLowerCase()
    expect(allowed).toContain('content-type')
    expect(allowed).not.toContain('x-admin-key')
  })
})

describe('result-request index', () => {
  test('at most RESULT_INDEX_MAX rows are kept, the newest', async () => {
    const small = makeHarness({ nowMs: NOW, env: { RESULT_INDEX_MAX: '100' }, fill: s => fillWalkUniverse(s, ['BTCUSDT'], T0, 10, 3) })
    try {
      const hashes: string[] = []
      for (let k = 0; k < 103; k++) {
        const r = await small.req('/simulate/coin', { method: 'POST', json: { symbol: 'BTCUSDT', sl_pct: 1 + k * 0.25 } })
        expect(r.status).toBe(200)
        hashes.push(r.body.result_hash ?? String(k))
      }
      const [count] = await small.deps.db.rows<{ n: number }>(sql`SELECT count(*) AS n FROM result_requests`)
      expect(count!.n).toBe(100)
    } finally {
      small.cleanup()
    }
  })
})

describe('routes without a body schema', () => {
  test('keep their own parser: the JSON rules apply only where a JSON body is declared', async () => {
    const { Elysia } = await import('elysia')
    const { jsonBody } = await import('../src/http/json-body')
    const { errorHandler } = await import('../src/http/errors')
    const app = new Elysia().use(errorHandler)
    const routes: { method: string; path: string; hooks: { body?: unknown } }[] = []
    app
      .use(jsonBody(1 << 20, () => routes))
      .post('/one-click', ({ body }) => `got ${String(body)}`, { parse: ({ request }) => request.text() })
      .post('/json', ({ body }) => body as object, { body: (await import('elysia')).t.Object({ a: (await import('elysia')).t.Number() }) })
    routes.push(...(app.routes as unknown as typeof routes))
    const oneClick = await app.handle(new Request('http://localhost/one-click', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '' }))
    expect(oneClick.status).toBe(200)
    const json = await app.handle(new Request('http://localhost/json', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"a":1}' }))
    expect(json.status).toBe(422)
  })
})

describe('the depth scan', () => {
  test('counts arrays and objects, not brackets inside strings or escaped quotes', async () => {
    const { jsonDepth } = await import('../src/http/json-body')
    expect(jsonDepth('{"a":[1,{"b":[]}]}')).toBe(4)
    expect(jsonDepth(`{"name":"${'['.repeat(1000)}"}`)).toBe(1)
    expect(jsonDepth('{"a":"x\\"[[[[","b":[[1]]}')).toBe(3)
    expect(jsonDepth('[[[[[[', 3)).toBe(4) // stops once past the limit
  })

  test('a name made of brackets is plain data', async () => {
    const r = await raw('/backtest', JSON.stringify({ name: '['.repeat(99), entry: ENTRY }))
    expect(r.status).toBe(200)
  })
})
