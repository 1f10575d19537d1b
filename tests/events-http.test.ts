/**
 * GET /events through app.handle (docs/events.md): the framing, filters and their 422s,
 * resuming with Last-Event-ID (or last_event_id), the kept window, the stream limits, the
 * drop of a client that cannot keep up, heartbeats on the injected clock, and events another
 * process wrote (found by the slow poll).
 */
import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, test } from 'bun:test'
import { appendEvents, type NewEvent } from '../src/records/events'
import { limitClassOf } from '../src/http/rate-limit'
import { DAY_MS } from '../src/time'
import { sseMessage } from '../src/sse-framing'
import { fillWalkUniverse, makeHarness } from './helpers/harness'
import { readUntil, SseReader, type SseRecord } from './helpers/sse'

const T0 = Date.UTC(2026, 0, 1)
const NOW = T0 + 30 * DAY_MS
const h = makeHarness({
  fill: store => fillWalkUniverse(store, ['BTCUSDT', 'ETHUSDT'], T0, 31, 7),
  nowMs: NOW,
  env: { EVENTS_POLL_MS: '20', EVENTS_STREAMS_PER_CLIENT: '3', EVENTS_STREAMS_MAX: '5', TRUST_PROXY: '1', EVENTS_BUFFER_BYTES: '8192' },
})

const signal = (n: number, over: Partial<NewEvent> = {}): NewEvent => ({ kind: 'signal', strategy: 'ema-cross-long', coin: 'BTCUSDT', status: 'verified', payload: { n }, ...over })
const append = (...list: NewEvent[]) => h.deps.db.tx(tx => appendEvents(tx, h.clock.now(), list))

const open: ReadableStream[] = []
async function stream(query = '', headers: Record<string, string> = {}, client = '10.0.0.1') {
  const res = await h.app.handle(new Request(`http://localhost/events${query}`, { headers: { 'x-forwarded-for': client, ...headers } }))
  if (res.body && res.status === 200) open.push(res.body)
  return { res, sse: new SseReader() }
}
const close = async (body: ReadableStream) => {
  await body.cancel()
  open.splice(open.indexOf(body), 1)
}
// the streams end before the database closes
afterAll(async () => {
  for (const b of [...open]) await close(b)
  h.cleanup()
})
const ids = (r: SseRecord) => r.events.filter(e => e.event !== 'error').map(e => Number(e.id))

describe('GET /events', () => {
  test('the framing: id, event, data lines, a blank line; a multi-line data value is split; ids and event names take no line break', async () => {
    expect(sseMessage({ id: 7, event: 'signal', data: '{"a":1}' })).toBe('id: 7\nevent: signal\ndata: {"a":1}\n\n')
    expect(sseMessage({ data: 'one\ntwo\r\nthree' })).toBe('data: one\ndata: two\ndata: three\n\n')
    expect(() => sseMessage({ id: '1\n2', data: '' })).toThrow('line break')
    const r = new SseReader()
    r.feed(sseMessage({ id: 3, event: 'scored', data: 'a\nb' }))
    expect(r.record.events).toEqual([{ id: '3', event: 'scored', data: 'a\nb' }])
  })

  test('unknown filter values and a malformed Last-Event-ID are 422s naming the field, the rule and the input', async () => {
    const bad = await h.req('/events?types=signal,sweep&strategies=nope&coins=btcusdt,XYZUSDT&status=gold')
    expect(bad.status).toBe(422)
    const byField = Object.fromEntries(bad.body.detail.map((d: any) => [d.loc.join('.'), d]))
    expect(Object.keys(byField).sort()).toEqual(['query.coins', 'query.status', 'query.strategies', 'query.types'])
    expect(byField['query.types'].msg).toContain("'sweep'")
    expect(byField['query.types'].msg).toContain('signal, scored, day_root, ranking, paper')
    expect(byField['query.types'].input).toBe('signal,sweep')
    expect(byField['query.coins'].msg).toContain("'XYZUSDT'")
    expect(byField['query.coins'].msg).not.toContain("'BTCUSDT'")
    expect(byField['query.status'].msg).toContain('verified, testing, research')
    const header = await h.req('/events', { headers: { 'last-event-id': 'abc' } })
    expect(header.status).toBe(422)
    expect(header.body.detail[0]).toMatchObject({ loc: ['header', 'last-event-id'], input: 'abc' })
    expect((await h.req('/events?last_event_id=-1')).status).toBe(422)
  })

  test('a stream starts with retry once, then delivers events committed after it opened, in id order, each with its kind and payload', async () => {
    const { res, sse } = await stream()
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(res.headers.get('cache-control')).toContain('no-cache')
    const [a] = await append(signal(1))
    const [b, c] = await append(signal(2), { kind: 'ranking', payload: { date: '2026-01-31' } })
    const r = await readUntil(res.body!, sse, x => x.events.length >= 3)
    expect(r.retry).toBe(3000)
    expect(r.events).toEqual([
      { id: String(a), event: 'signal', data: '{"n":1}' },
      { id: String(b), event: 'signal', data: '{"n":2}' },
      { id: String(c), event: 'ranking', data: '{"date":"2026-01-31"}' },
    ])
    await close(res.body!)
  })

  test('Last-Event-ID resumes right after that id: nothing before it, nothing missing, nothing twice, then live', async () => {
    const first = await append(signal(10), signal(11), signal(12), signal(13))
    const { res, sse } = await stream('', { 'last-event-id': String(first[1]) })
    await readUntil(res.body!, sse, x => x.events.length >= 2)
    const [live] = await append(signal(14))
    const r = await readUntil(res.body!, sse, x => x.events.length >= 3)
    expect(ids(r)).toEqual([first[2]!, first[3]!, live!])
    await close(res.body!)
  })

  test('the header wins over last_event_id (an EventSource reconnects to the same URL with the header)', async () => {
    const list = await append(signal(20), signal(21), signal(22))
    const q = await stream(`?last_event_id=${list[0]}`)
    await readUntil(q.res.body!, q.sse, x => x.events.length >= 2)
    expect(ids(q.sse.record)).toEqual([list[1]!, list[2]!])
    await close(q.res.body!)
    const both = await stream(`?last_event_id=${list[0]}`, { 'last-event-id': String(list[1]) })
    await readUntil(both.res.body!, both.sse, x => x.events.length >= 1)
    await Bun.sleep(60)
    expect(ids(both.sse.record)).toEqual([list[2]!])
    await close(both.res.body!)
  })

  test('filters: types, strategies, coins and status narrow the replay and the live fan-out alike', async () => {
    const before = await append(
      signal(30, { coin: 'ETHUSDT' }),
      signal(31, { status: 'research', strategy: 'rsi-divergence-short' }),
      { kind: 'day_root', payload: { d: 1 } },
      signal(32),
    )
    const { res, sse } = await stream(`?types=signal&coins=ethusdt,BTCUSDT&status=verified&last_event_id=${before[0]! - 1}`)
    await readUntil(res.body!, sse, x => x.events.length >= 2)
    const after = await append(signal(33, { coin: 'ETHUSDT', status: 'testing' }), { kind: 'paper', coin: 'BTCUSDT', status: 'verified', payload: {} }, signal(34, { coin: 'ETHUSDT' }))
    await readUntil(res.body!, sse, x => x.events.length >= 3)
    await Bun.sleep(60)
    expect(ids(sse.record)).toEqual([before[0]!, before[3]!, after[2]!])
    await close(res.body!)
    const strat = await stream(`?strategies=rsi-divergence-short&last_event_id=${before[0]! - 1}`)
    await readUntil(strat.res.body!, strat.sse, x => x.events.length >= 1)
    await Bun.sleep(60)
    expect(ids(strat.sse.record)).toEqual([before[1]!])
    await close(strat.res.body!)
  })

  test('a resume point older than the 7-day window gets an error event naming where the stream continues, never a silent gap', async () => {
    const old = await append(signal(40))
    h.clock.advance(8 * DAY_MS)
    const kept = await append(signal(41))
    const { res, sse } = await stream('', { 'last-event-id': String(old[0]! - 1) })
    const r = await readUntil(res.body!, sse, x => x.events.length >= 2)
    const err = JSON.parse(r.events[0]!.data)
    expect(r.events[0]!.event).toBe('error')
    expect(err).toMatchObject({ error: 'resume_point_expired', last_event_id: old[0]! - 1, resume_after: kept[0]! - 1, kept_window_days: 7 })
    // the error's id moves the client's Last-Event-ID past the gap, so a reconnect does not repeat it
    expect(r.events[0]!.id).toBe(String(kept[0]! - 1))
    expect(ids(r)).toEqual([kept[0]!])
    await close(res.body!)
  })

  test('a resume point this feed never gave gets an error event and continues after the newest id', async () => {
    const [newest] = await append(signal(50))
    const { res, sse } = await stream('', { 'last-event-id': '999999' })
    const r = await readUntil(res.body!, sse, x => x.events.length >= 1)
    expect(JSON.parse(r.events[0]!.data)).toMatchObject({ error: 'resume_point_unknown', last_event_id: 999999, resume_after: newest })
    const [next] = await append(signal(51))
    await readUntil(res.body!, sse, x => x.events.length >= 2)
    expect(ids(sse.record)).toEqual([next!])
    await close(res.body!)
  })

  test('events written by another process (no wake-up here) arrive by the slow poll', async () => {
    const { res, sse } = await stream()
    await readUntil(res.body!, sse, x => x.retry !== null)
    await h.deps.db.rows(sql.raw(`INSERT INTO events (kind, created_at, payload) VALUES ('ranking', ${h.clock.now()}, '{"other":true}')`))
    const r = await readUntil(res.body!, sse, x => x.events.length >= 1)
    expect(r.events[0]).toMatchObject({ event: 'ranking', data: '{"other":true}' })
    await close(res.body!)
  })

  test('a heartbeat comment goes to a stream quiet for 15 s on the injected clock, not before', async () => {
    const { res, sse } = await stream()
    await readUntil(res.body!, sse, x => x.retry !== null)
    h.clock.advance(14_000)
    // ticks run every 20 ms meanwhile: none of them finds the stream quiet long enough
    await expect(readUntil(res.body!, sse, x => x.comments.length >= 1, 150)).rejects.toThrow('timed out')
    h.clock.advance(1_000)
    const r = await readUntil(res.body!, sse, x => x.comments.length >= 1)
    expect(r.comments).toEqual(['heartbeat'])
    await close(res.body!)
  })

  test('per-client and global stream limits: 429 and 503 with Retry-After and a JSON body; a closed stream frees its place', async () => {
    const mine = [await stream('', {}, '10.0.0.9'), await stream('', {}, '10.0.0.9'), await stream('', {}, '10.0.0.9')]
    const fourth = await stream('', {}, '10.0.0.9')
    expect(fourth.res.status).toBe(429)
    expect(fourth.res.headers.get('retry-after')).toBe('10')
    expect(await fourth.res.json()).toMatchObject({ limit: 3, retry_after_seconds: 10 })
    const others = [await stream('', {}, '10.0.0.10'), await stream('', {}, '10.0.0.11')]
    const sixth = await stream('', {}, '10.0.0.12')
    expect(sixth.res.status).toBe(503)
    expect(sixth.res.headers.get('retry-after')).toBe('10')
    expect(((await sixth.res.json()) as { detail: string }).detail).toContain('5 event streams')
    await close(mine[0]!.res.body!)
    const again = await stream('', {}, '10.0.0.12')
    expect(again.res.status).toBe(200)
    for (const s of [...mine.slice(1), ...others, again]) await close(s.res.body!)
    // streams are not compute requests: they never count against RATE_LIMIT_PER_MIN
    expect(limitClassOf('/events')).toBe('other')
  })

  test('an event larger than the buffer bound still reaches a client that has read everything before it', async () => {
    const { res, sse } = await stream()
    await readUntil(res.body!, sse, x => x.retry !== null)
    const [big] = await append(signal(90, { payload: { pad: 'y'.repeat(20_000) } }))
    const r = await readUntil(res.body!, sse, x => x.events.length >= 1)
    expect(r.events[0]).toMatchObject({ id: String(big), event: 'signal' })
    expect(r.events[0]!.data.length).toBeGreaterThan(20_000)
    await close(res.body!)
  })

  test('a client that does not read is dropped past the buffer bound, with a final event naming the id to resume after', async () => {
    const { res, sse } = await stream()
    await Bun.sleep(10)
    const big = (n: number) => signal(n, { payload: { n, pad: 'x'.repeat(1000) } })
    // one transaction after another, each fanned out on its own (nothing reads the stream meanwhile)
    const written: number[] = []
    for (let i = 0; i < 20; i++) {
      written.push(...(await append(big(100 + i))))
      await Bun.sleep(2)
    }
    const r = await readUntil(res.body!, sse, x => x.events.some(e => e.event === 'error'))
    const last = r.events.at(-1)!
    const delivered = ids(r)
    expect(delivered.length).toBeGreaterThan(2)
    expect(delivered.length).toBeLessThan(20)
    expect(delivered).toEqual(written.slice(0, delivered.length))
    expect(JSON.parse(last.data)).toMatchObject({ error: 'too_slow', resume_after: delivered.at(-1) })
    expect(last.id).toBe(String(delivered.at(-1)))
    // the stream has ended, and the resume point gives the rest, exactly
    const rest = await stream('', { 'last-event-id': last.id })
    await readUntil(rest.res.body!, rest.sse, x => x.events.length >= 20 - delivered.length)
    expect(ids(rest.sse.record)).toEqual(written.slice(delivered.length))
    await close(rest.res.body!)
  })
})
