/** The access log (issue #19 §5): one JSON line per request with its id, method, route, status and duration; LOG_LEVEL filters. */
import { expect, test } from 'bun:test'
import { buildApp } from '../src/app'
import { createLogger } from '../src/log'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const NOW = Date.UTC(2025, 5, 1)

function appWithLog(level: 'info' | 'warn') {
  const lines: string[] = []
  const h = makeHarness({ nowMs: NOW, fill: s => fillWalkUniverse(s, ['BTCUSDT'], NOW - 10 * 86_400_000, 10, 1) })
  h.deps.log = createLogger(level, l => lines.push(l))
  return { h, app: buildApp(h.deps), lines }
}

test('one JSON line per request: request id (as in X-Request-Id), method, route template, path without query, status, duration', async () => {
  const { h, app, lines } = appWithLog('info')
  try {
    const res = await app.handle(new Request('http://localhost/ohlcv/BTCUSDT?limit=5&email=a@b.c'))
    await app.handle(new Request('http://localhost/simulate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))
    await Bun.sleep(10) // the line is written after the response
    const entries = lines.map(l => JSON.parse(l))
    expect(entries.length).toBe(2)
    expect(entries[0]).toMatchObject({ level: 'info', msg: 'request', request_id: res.headers.get('x-request-id'), method: 'GET', route: '/ohlcv/:symbol', path: '/ohlcv/BTCUSDT', status: 200 })
    expect(typeof entries[0].duration_ms).toBe('number')
    expect(typeof entries[0].time).toBe('string')
    expect(entries[1]).toMatchObject({ method: 'POST', route: '/simulate', status: 422 })
    expect(lines.join('')).not.toContain('a@b.c')
    for (const l of lines) expect(l.endsWith('\n')).toBe(true)
  } finally {
    h.cleanup()
  }
})

test('LOG_LEVEL=warn drops the info lines', async () => {
  const { h, app, lines } = appWithLog('warn')
  try {
    await app.handle(new Request('http://localhost/health'))
    await Bun.sleep(10)
    expect(lines).toEqual([])
  } finally {
    h.cleanup()
  }
})

test('control characters in a message stay escaped inside the JSON line', () => {
  const lines: string[] = []
  createLogger('debug', l => lines.push(l)).warn('bad \u001b[31m input', { file: 'a\u0007b' })
  expect(lines[0]).not.toContain('\u001b')
  expect(lines[0]).not.toContain('\u0007')
  expect(JSON.parse(lines[0])).toMatchObject({ level: 'warn', msg: 'bad \u001b[31m input', file: 'a\u0007b' })
})
