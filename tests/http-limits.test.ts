/**
 * Rate limits, load shedding, /metrics, security headers and error bodies (issue #19 §2).
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { errorHandler } from '../src/http/errors'
import { clientOf, limitClassOf, rateLimit, WindowCounter } from '../src/http/rate-limit'
import { isLocalScrape } from '../src/http/metrics'
import { ManualClock } from '../src/clock'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const NOW = Date.UTC(2025, 5, 1)
const T0 = NOW - 20 * 24 * 3_600_000
const fill = (s: Parameters<typeof fillWalkUniverse>[0]) => fillWalkUniverse(s, ['BTCUSDT', 'ETHUSDT'], T0, 20, 5)
const ENTRY = { type: 'AND', conditions: [{ field: 'close', op: '>', value: 0 }] }

describe('rate limit classes by route template', () => {
  test('compute, subscribe, other, unlimited', async () => {
    for (const r of ['/backtest', '/simulate', '/simulate/coin', '/simulate/dca', '/simulate/grid', '/simulate/validate', '/ohlcv/:symbol', '/export/csv', '/share/:hash', '/og/:hash', '/generate-bot'])
      expect(limitClassOf(r)).toBe('compute')
    expect(limitClassOf('/api/subscribe')).toBe('subscribe')
    for (const r of ['/coins', '/strategies', '/rankings/daily', '/openapi.json']) expect(limitClassOf(r)).toBe('other')
    expect(limitClassOf('/health')).toBeNull()
    expect(limitClassOf('/metrics')).toBeNull()
  })

  test('POST /backtest/ (trailing slash) is counted with /backtest', async () => {
    const h = makeHarness({ nowMs: NOW, fill, env: { RATE_LIMIT_PER_MIN: '2' } })
    try {
      const codes: number[] = []
      for (const p of ['/backtest', '/backtest/', '/backtest/', '/backtest'])
        codes.push((await h.req(p, { method: 'POST', json: { entry: ENTRY, top_n: 1 } })).status)
      expect(codes).toEqual([200, 200, 429, 429])
    } finally {
      h.cleanup()
    }
  })

  test('exact under concurrency: 130 requests at once against 120/min give exactly 120 answers and 10 JSON 429s with Retry-After', async () => {
    const h = makeHarness({ nowMs: NOW, fill, env: { RATE_LIMIT_PER_MIN: '120' } })
    try {
      const res = await Promise.all(Array.from({ length: 130 }, () => h.req('/ohlcv/BTCUSDT?limit=5')))
      expect(res.filter(r => r.status === 200).length).toBe(120)
      const limited = res.filter(r => r.status === 429)
      expect(limited.length).toBe(10)
      for (const r of limited) {
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
        expect(r.body.detail).toContain('Rate limit')
        expect(r.body.limit_per_minute).toBe(120)
      }
      // other routes have their own (higher) budget; /health is never limited
      expect((await h.req('/coins')).status).toBe(200)
      expect((await h.req('/health')).status).toBe(200)
    } finally {
      h.cleanup()
    }
  })

  test('the other routes have their own documented limit', async () => {
    const h = makeHarness({ nowMs: NOW, fill, env: { RATE_LIMIT_OTHER_PER_MIN: '3' } })
    try {
      const codes = []
      for (let i = 0; i < 4; i++) codes.push((await h.req('/coins')).status)
      expect(codes).toEqual([200, 200, 200, 429])
      for (let i = 0; i < 5; i++) expect((await h.req('/health')).status).toBe(200)
    } finally {
      h.cleanup()
    }
  })

  test('/api/subscribe gets a few per minute, by its route template', async () => {
    const clock = new ManualClock(NOW)
    const app = new Elysia()
      .use(errorHandler)
      .use(rateLimit({ computePerMin: 120, subscribePerMin: 3, otherPerMin: 600, trustProxy: 0, maxClients: 100 }, clock))
      .post('/api/subscribe', () => ({ ok: true }))
    const codes = []
    for (let i = 0; i < 5; i++) codes.push((await app.handle(new Request('http://localhost/api/subscribe', { method: 'POST' }))).status)
    expect(codes).toEqual([200, 200, 200, 429, 429])
    clock.advance(60_000)
    expect((await app.handle(new Request('http://localhost/api/subscribe/', { method: 'POST' }))).status).toBe(200)
  })
})

describe('clients and memory', () => {
  test('the client is the socket address; behind TRUST_PROXY=n hops, the n-th X-Forwarded-For entry from the right', async () => {
    expect(clientOf('10.0.0.9', '1.1.1.1', 0)).toBe('10.0.0.9')
    expect(clientOf('10.0.0.9', '1.1.1.1, 2.2.2.2', 1)).toBe('2.2.2.2')
    expect(clientOf('10.0.0.9', '1.1.1.1, 2.2.2.2', 2)).toBe('1.1.1.1')
    expect(clientOf('10.0.0.9', 'spoofed, 1.1.1.1, 2.2.2.2', 2)).toBe('1.1.1.1')
    expect(clientOf('10.0.0.9', '2.2.2.2', 3)).toBe('2.2.2.2')
    expect(clientOf(undefined, null, 1)).toBe('local')
  })

  test('behind one trusted proxy, two forwarded clients have separate budgets; without TRUST_PROXY the header is ignored', async () => {
    for (const [trust, expected] of [['1', [200, 200, 200, 200]], ['0', [200, 200, 429, 429]]] as const) {
      const h = makeHarness({ nowMs: NOW, fill, env: { RATE_LIMIT_PER_MIN: '2', TRUST_PROXY: trust } })
      try {
        const codes = []
        for (const ip of ['1.1.1.1', '2.2.2.2', '1.1.1.1', '2.2.2.2']) codes.push((await h.req('/ohlcv/BTCUSDT?limit=5', { headers: { 'x-forwarded-for': ip } })).status)
        expect(codes).toEqual([...expected])
      } finally {
        h.cleanup()
      }
    }
  })

  test('an LRU: a flood of new clients evicts the idlest windows, never everyone', async () => {
    const c = new WindowCounter(3)
    expect(c.hit('a', 1, 0)).toBe(0)
    expect(c.hit('b', 1, 0)).toBe(0)
    expect(c.hit('c', 1, 0)).toBe(0)
    expect(c.hit('a', 1, 1)).toBeGreaterThan(0) // a is over its limit and becomes the most recent
    expect(c.hit('d', 1, 2)).toBe(0) // evicts b, the least recently seen
    expect(c.size).toBe(3)
    expect(c.hit('a', 1, 3)).toBeGreaterThan(0) // a's window survived the eviction
    expect(c.hit('c', 1, 3)).toBeGreaterThan(0)
    expect(c.hit('b', 1, 3)).toBe(0) // b was forgotten
  })
})

describe('load shedding', () => {
  test('event-loop lag past SHED_LAG_MS sheds compute requests with 503 + Retry-After; /health and cheap reads still answer', async () => {
    let lag = 0
    const h = makeHarness({ nowMs: NOW, fill, env: { SHED_LAG_MS: '500' } })
    h.deps.eventLoopLag = { lagMs: () => lag }
    const { buildApp } = await import('../src/app')
    const app = buildApp(h.deps)
    const get = async (path: string, init?: RequestInit) => app.handle(new Request(`http://localhost${path}`, init))
    try {
      expect((await get('/ohlcv/BTCUSDT?limit=5')).status).toBe(200)
      lag = 2500
      const shed = await get('/simulate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ strategy: 'bb-squeeze-long' }) })
      expect(shed.status).toBe(503)
      expect(shed.headers.get('retry-after')).toBe('3')
      expect(((await shed.json()) as any).detail).toContain('overloaded')
      expect((await get('/ohlcv/BTCUSDT?limit=5')).status).toBe(503)
      expect((await get('/health')).status).toBe(200)
      expect((await get('/coins')).status).toBe(200)
      lag = 0
      expect((await get('/ohlcv/BTCUSDT?limit=5')).status).toBe(200)
    } finally {
      h.cleanup()
    }
  })

  test('a full run queue sheds validate and optimize too', async () => {
    const h = makeHarness({ nowMs: NOW, fill, workers: 1, queueMax: 1 })
    try {
      const bodies = [1, 2, 3, 4].map(k => ({ strategy: 'bb-squeeze-long', top_n: 2, sl_pct: k + 0.5 }))
      const res = await Promise.all([
        ...bodies.map(b => h.req('/simulate', { method: 'POST', json: b, headers: { 'cache-control': 'no-cache' } })),
        ...bodies.map(b => h.req('/simulate/validate', { method: 'POST', json: { ...b, n_simulations: 10 }, headers: { 'cache-control': 'no-cache' } })),
        ...bodies.map(b => h.req('/simulate/optimize', { method: 'POST', json: { strategy: b.strategy, top_n: 2, sl_values: [1, 2], tp_values: [b.sl_pct] } })),
      ])
      const validate = res.slice(4, 8)
      const optimize = res.slice(8)
      for (const group of [validate, optimize]) {
        const shed = group.filter(r => r.status === 503)
        expect(shed.length).toBeGreaterThan(0)
        expect(Number(shed[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      }
    } finally {
      h.cleanup()
    }
  })
})

describe('GET /metrics', () => {
  test('only a loopback caller with no forwarding header', async () => {
    const none = new Headers()
    expect(isLocalScrape('127.0.0.1', none)).toBe(true)
    expect(isLocalScrape('::1', none)).toBe(true)
    expect(isLocalScrape('::ffff:127.0.0.1', none)).toBe(true)
    expect(isLocalScrape('10.1.2.3', none)).toBe(false)
    expect(isLocalScrape(undefined, none)).toBe(false)
    for (const h of ['x-forwarded-for', 'forwarded', 'x-real-ip']) expect(isLocalScrape('127.0.0.1', new Headers({ [h]: '1.2.3.4' }))).toBe(false)
  })

  test('served on loopback: duration histogram by method, route template and status class, in-flight, queue, workers, cache, process; no address in any label', async () => {
    const h = makeHarness({ nowMs: NOW, fill })
    const server = h.app.listen({ port: 0, hostname: '127.0.0.1' })
    const base = `http://127.0.0.1:${server.server!.port}`
    try {
      await fetch(`${base}/ohlcv/BTCUSDT?limit=5`)
      await fetch(`${base}/ohlcv/ETHUSDT?limit=5`)
      await fetch(`${base}/simulate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ strategy: 'bb-squeeze-long' }) })
      await fetch(`${base}/simulate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ strategy: 'bb-squeeze-long' }) })
      await fetch(`${base}/nowhere?email=a@b.c`)
      // refused on arrival (413, 431) and by the parser (422): each leaves the in-flight gauge
      await fetch(`${base}/simulate`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-big': 'x'.repeat(9000) }, body: '{}' })
      await fetch(`${base}/simulate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"strategy":"${'x'.repeat(2 << 20)}"}` })
      await fetch(`${base}/simulate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' })
      const r = await fetch(`${base}/metrics`)
      expect(r.status).toBe(200)
      expect(r.headers.get('content-type')).toContain('text/plain')
      const text = await r.text()
      expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/ohlcv\/:symbol",status_class="2xx"\} 2/)
      expect(text).toMatch(/http_request_duration_seconds_count\{method="POST",route="\/simulate",status_class="2xx"\} 2/)
      expect(text).toMatch(/route="unmatched",status_class="4xx"/)
      expect(text).toMatch(/^http_requests_in_flight 1$/m) // the scrape itself
      expect(text).toContain('perpsim_runs_in_flight')
      expect(text).toContain('perpsim_worker_queue_depth')
      expect(text).toContain('perpsim_worker_busy_seconds_total')
      expect(text).toMatch(/perpsim_result_cache_lookups_total\{outcome="hit"\} 1/)
      expect(text).toContain('process_cpu_seconds_total')
      expect(text).not.toContain('127.0.0.1')
      expect(text).not.toContain('a@b.c')
      expect(text).not.toContain('BTCUSDT')
      const proxied = await fetch(`${base}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } })
      expect(proxied.status).toBe(404)
      expect(await proxied.json()).toEqual({ detail: 'Not Found' })
    } finally {
      await server.stop()
      h.cleanup()
    }
  })

  test('scheduled jobs: runs by job and outcome, their time, and runs in progress, from job_runs', async () => {
    const h = makeHarness({ nowMs: NOW, fill })
    const db = h.deps.db
    // rows as the scheduler writes them
    const add = (job: string, slot: string, trigger: string, startedAtMs: number, finishedAtMs: number | null, outcome: string | null) =>
      db.orm.insert(db.t.jobRuns).values({ job, slot, attempt: 1, trigger, slotMs: 0, startedAtMs, finishedAtMs, outcome })
    await add('rankings', 'rankings@1', 'schedule', 0, 1500, 'ok')
    await add('rankings', 'rankings@2', 'schedule', 0, 500, 'ok')
    await add('rankings', 'rankings@3', 'retry', 0, 250, 'failed')
    await add('scan', 'scan@1', 'schedule', 0, null, null)
    const server = h.app.listen({ port: 0, hostname: '127.0.0.1' })
    try {
      const text = await (await fetch(`http://127.0.0.1:${server.server!.port}/metrics`)).text()
      expect(text).toMatch(/perpsim_job_runs_total\{job="rankings",outcome="ok"\} 2/)
      expect(text).toMatch(/perpsim_job_runs_total\{job="rankings",outcome="failed"\} 1/)
      expect(text).toMatch(/perpsim_job_run_seconds_total\{job="rankings"\} 2.25/)
      expect(text).toMatch(/perpsim_jobs_running\{job="scan"\} 1/)
    } finally {
      await server.stop()
      h.cleanup()
    }
  })

  test('without a socket address (in-process) it is the ordinary 404', async () => {
    const h = makeHarness({ nowMs: NOW, fill })
    try {
      const r = await h.req('/metrics')
      const other = await h.req('/no-such-route')
      expect(r.status).toBe(404)
      expect(r.body).toEqual(other.body)
    } finally {
      h.cleanup()
    }
  })
})

describe('every answer', () => {
  const h = makeHarness({ nowMs: NOW, fill, env: { RATE_LIMIT_PER_MIN: '1' } })
  afterAll(() => h.cleanup())

  test('security headers and a request id on 200, 404, 422, 429, 413 and a preflight (a refused compute request counts too)', async () => {
    const answers = [
      await h.req('/health'),
      await h.req('/nope'),
      await h.req('/simulate', { method: 'POST', json: {} }),
      await h.req('/ohlcv/BTCUSDT'),
      await h.req('/ohlcv/BTCUSDT'),
      await h.req('/backtest', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(8 << 20) }, body: '{}' }),
      await h.req('/simulate', { method: 'OPTIONS', headers: { origin: 'https://x.org', 'access-control-request-method': 'POST' } }),
    ]
    expect(answers.map(a => a.status)).toEqual([200, 404, 422, 429, 429, 413, 204])
    for (const a of answers) {
      expect(a.headers.get('x-content-type-options')).toBe('nosniff')
      expect(a.headers.get('x-frame-options')).toBe('DENY')
      expect(a.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
      expect(a.headers.get('referrer-policy')).toBe('no-referrer')
      expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    }
  })

  test("a caller's X-Request-Id is returned when it is a short token, replaced otherwise", async () => {
    expect((await h.req('/health', { headers: { 'x-request-id': 'abc-123' } })).headers.get('x-request-id')).toBe('abc-123')
    // replaced by a fresh UUID (whose hex digits may by chance spell "bad", so the whole id is compared)
    const replaced = (await h.req('/health', { headers: { 'x-request-id': 'bad id\u0001' } })).headers.get('x-request-id')
    expect(replaced).not.toBe('bad id\u0001')
    expect(replaced).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  })

  test('an unexpected error is a JSON 500 with no message and no stack trace', async () => {
    const app = new Elysia().use(errorHandler).get('/boom', () => {
      throw new Error('secret detail at /srv/app/src/x.ts:12:3')
    })
    const original = console.error
    console.error = () => {}
    try {
      const r = await app.handle(new Request('http://localhost/boom'))
      expect(r.status).toBe(500)
      const text = await r.text()
      expect(JSON.parse(text)).toEqual({ detail: 'Internal Server Error' })
      expect(text).not.toContain('secret')
    } finally {
      console.error = original
    }
  })
})

describe('the client is the socket address', () => {
  /** One raw HTTP/1.1 GET from a chosen loopback source address; resolves with the status. */
  async function getFrom(localAddress: string, port: number, path: string): Promise<number> {
    const net = await import('node:net')
    return new Promise((resolve, reject) => {
      const sock = net.connect({ host: '127.0.0.1', port, localAddress }, () => sock.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`))
      let text = ''
      sock.on('data', d => (text += d.toString()))
      sock.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)))
      sock.on('error', reject)
    })
  }

  test('two loopback addresses have separate budgets on a listening server', async () => {
    const h = makeHarness({ nowMs: NOW, fill, env: { RATE_LIMIT_PER_MIN: '2' } })
    const server = h.app.listen({ port: 0, hostname: '127.0.0.1' })
    const port = server.server!.port!
    try {
      const a = [await getFrom('127.0.0.1', port, '/ohlcv/BTCUSDT?limit=5'), await getFrom('127.0.0.1', port, '/ohlcv/BTCUSDT?limit=5'), await getFrom('127.0.0.1', port, '/ohlcv/BTCUSDT?limit=5')]
      expect(a).toEqual([200, 200, 429])
      expect(await getFrom('127.0.0.2', port, '/ohlcv/BTCUSDT?limit=5')).toBe(200)
    } finally {
      await server.stop(true)
      h.cleanup()
    }
  })
})

describe('event-loop lag measure', () => {
  test('one long block is a single late tick and decays; a loop that stays late converges to its lateness', async () => {
    const { smoothLag } = await import('../src/http/load-shedding')
    let lag = 0
    lag = smoothLag(lag, 1500) // a background job held the loop for 1.5 s once
    expect(lag).toBeLessThan(1000) // not shed for it
    for (let i = 0; i < 5; i++) lag = smoothLag(lag, 0)
    expect(lag).toBeLessThan(100)
    for (let i = 0; i < 20; i++) lag = smoothLag(lag, 1200) // overloaded: every tick 1.2 s late
    expect(lag).toBeGreaterThan(1000)
  })
})
