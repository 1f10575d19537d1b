/**
 * The push outbox (docs/events.md "Webhooks"): events are fanned out to the endpoints whose
 * filters they pass, one row per endpoint and event, with the cursor in the same
 * transaction; a delivery is signed (Standard Webhooks) with the event id as webhook-id, so
 * a retry carries the same idempotency key; failures back off exponentially with jitter
 * until the row's maximum age, when it fails and the endpoint's health says so; a 429
 * pauses the endpoint for the time it names, with no request before then; a lease left by
 * a dead process is taken over only once it expires.
 */
import { sql } from 'drizzle-orm'
import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { isoInstant } from '../src/time'
import { Webhook } from 'standardwebhooks'
import { schema } from '../src/db'
import { createLogger } from '../src/log'
import { BACKOFF_BASE_MS, BACKOFF_CAP_MS, backoffMs, LEASE_MS, MAX_AGE_MS, PushOutbox } from '../src/push/outbox'
import { Pusher } from '../src/push/pusher'
import { appendEvents, type NewEvent } from '../src/records/events'
import { makeHarness } from './helpers/harness'
import { startWebhookReceiver } from './helpers/webhook-receiver'

const KEY = 'k'
// on the real time: the reference library checks a signature's timestamp against Date.now()
const h = makeHarness({ nowMs: Date.now(), env: { ADMIN_KEY: KEY, WEBHOOK_ALLOW_PRIVATE: '1' } })
const receiver = startWebhookReceiver()
// the jitter fixed at its middle: a retry comes exactly 3/4 of its step later
const pusher = new Pusher({ db: h.deps.db, clock: h.clock, config: h.deps.config.push, baseUrl: 'https://perpsim.example.org', log: createLogger('silent'), random: () => 0.5 })
afterAll(async () => {
  h.cleanup()
  await receiver.close()
})

const admin = { 'x-admin-key': KEY }
async function register(body: Record<string, unknown>): Promise<{ id: number; secret: string }> {
  const r = await h.req('/admin/webhooks', { method: 'POST', headers: admin, json: { url: receiver.url, ...body } })
  expect(r.status).toBe(201)
  return r.body
}
async function removeAll() {
  for (const e of (await h.req('/admin/webhooks', { headers: admin })).body.endpoints) await h.req(`/admin/webhooks/${e.id}`, { method: 'DELETE', headers: admin })
}
const append = (...list: NewEvent[]) => h.deps.db.tx(tx => appendEvents(tx, h.clock.now(), list))
const signal = (strategy: string, coin: string, status: string): NewEvent => ({ kind: 'signal', strategy, coin, status, payload: { strategy, coin, status } })
const rowsOf = async (endpointId: number) => (await h.deps.db.orm.select().from(schema.pushDeliveries)).filter(d => d.endpointId === endpointId)
const healthOf = async (id: number) => (await h.req('/admin/webhooks', { headers: admin })).body.endpoints.find((e: { id: number }) => e.id === id).health

beforeEach(async () => {
  await pusher.deliverDue() // nothing left over from the test before
  await removeAll()
  receiver.reset()
})

describe('fan-out', () => {
  test('one row per endpoint and event its filters let through, only events after its registration, the cursor moved in the same transaction', async () => {
    await append(signal('bb-squeeze-short', 'BTC', 'verified'))
    const before = await pusher.outbox.cursor()
    const all = await register({})
    const scoredBtc = await register({ kinds: ['signal'], filters: { coins: ['BTC'], status: ['verified'] } })
    const ids = await append(
      signal('bb-squeeze-short', 'BTC', 'verified'),
      signal('bb-squeeze-short', 'ETH', 'verified'),
      signal('macd-cross-long', 'BTC', 'testing'),
      { kind: 'day_root', payload: { date: '20261121', leaf_count: 0, root: null } },
    )
    expect(await pusher.outbox.fanOut()).toBe(4 + 1)
    expect(await pusher.outbox.cursor()).toBe(ids[3]!)
    expect(await pusher.outbox.cursor()).toBeGreaterThan(before)
    expect((await rowsOf(all.id)).map(r => r.eventId)).toEqual(ids) // the event before its registration is not sent to it
    expect((await rowsOf(scoredBtc.id)).map(r => r.eventId)).toEqual([ids[0]!])
    expect(await pusher.outbox.fanOut()).toBe(0) // nothing twice
    await expect(h.deps.db.rows(sql.raw('UPDATE push_cursor SET event_id = event_id - 1'))).rejects.toThrow(/never moves back/)
  })
})

describe('sending', () => {
  test('a signed delivery per row: webhook-id is the event id, the body the event, verified by the reference library', async () => {
    const ep = await register({})
    const [id] = await append(signal('bb-squeeze-short', 'SOL', 'verified'))
    expect(await pusher.deliverDue()).toMatchObject({ delivered: 1, failed: 0 })
    expect(receiver.received.length).toBe(1)
    const got = receiver.received[0]!
    expect(got.headers['webhook-id']).toBe(String(id))
    expect(got.headers['content-type']).toBe('application/json')
    const body = new Webhook(ep.secret).verify(got.body, got.headers) as { id: number; type: string; data: unknown }
    expect(body).toMatchObject({ id, type: 'signal', data: { strategy: 'bb-squeeze-short', coin: 'SOL', status: 'verified' } })
    expect((await rowsOf(ep.id))[0]).toMatchObject({ status: 'delivered', attempts: 1, lastStatus: 200 })
    expect(await healthOf(ep.id)).toMatchObject({ state: 'healthy', delivered: 1, pending_deliveries: 0, consecutive_failures: 0 })
  })

  test('a failure is retried after its backoff, with the same webhook-id (the idempotency key)', async () => {
    const ep = await register({})
    const [id] = await append(signal('bb-squeeze-short', 'XRP', 'verified'))
    receiver.answerNext(500)
    expect(await pusher.deliverDue()).toMatchObject({ delivered: 0, retrying: 1 })
    const row = (await rowsOf(ep.id))[0]!
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 500, lastError: 'HTTP 500' })
    expect(row.nextAttemptAtMs).toBe(h.clock.now() + backoffMs(1, () => 0.5))
    expect(await healthOf(ep.id)).toMatchObject({ state: 'failing', consecutive_failures: 1, pending_deliveries: 1 })
    // not before its time
    h.clock.advance(backoffMs(1, () => 0.5) - 1)
    expect((await pusher.deliverDue()).delivered).toBe(0)
    expect(receiver.received.length).toBe(1)
    h.clock.advance(1)
    expect((await pusher.deliverDue()).delivered).toBe(1)
    expect(receiver.received.map(r => r.headers['webhook-id'])).toEqual([String(id), String(id)])
    for (const r of receiver.received) expect(() => new Webhook(ep.secret).verify(r.body, r.headers)).not.toThrow()
    expect((await rowsOf(ep.id))[0]).toMatchObject({ status: 'delivered', attempts: 2 })
    expect(await healthOf(ep.id)).toMatchObject({ state: 'healthy', consecutive_failures: 0 })
  })

  test('backoff: exponential from 30 s, capped at an hour, half of each step drawn at random', async () => {
    expect([1, 2, 3, 4].map(n => backoffMs(n, () => 0))).toEqual([15_000, 30_000, 60_000, 120_000])
    expect([1, 2, 3, 4].map(n => backoffMs(n, () => 1))).toEqual([30_000, 60_000, 120_000, 240_000])
    expect(backoffMs(20, () => 1)).toBe(BACKOFF_CAP_MS)
    expect(backoffMs(20, () => 0)).toBe(BACKOFF_CAP_MS / 2)
    expect(BACKOFF_BASE_MS).toBe(30_000)
  })

  test('a receiver that never answers 2xx: the row fails at its maximum age and the health says so', async () => {
    const ep = await register({})
    await append(signal('bb-squeeze-short', 'ADA', 'verified'))
    const start = h.clock.now()
    receiver.answerNext(503, 1000)
    let attempts = 0
    while (h.clock.now() - start <= MAX_AGE_MS + BACKOFF_CAP_MS) {
      const r = await pusher.deliverDue()
      attempts += r.retrying + r.failed
      if (r.failed) break
      h.clock.set(Math.max(h.clock.now() + 1, (await rowsOf(ep.id))[0]!.nextAttemptAtMs))
    }
    const row = (await rowsOf(ep.id))[0]!
    expect(row.status).toBe('failed')
    expect(h.clock.now() - start).toBeLessThanOrEqual(MAX_AGE_MS)
    expect(attempts).toBe(row.attempts)
    expect(receiver.received.length).toBe(row.attempts) // one request per attempt, never more
    expect(await healthOf(ep.id)).toMatchObject({ state: 'failing', failed_deliveries: 1, pending_deliveries: 0, last_error: 'HTTP 503' })
  })

  test('a 429 pauses the endpoint for its Retry-After: no request before then, no attempt counted', async () => {
    const ep = await register({})
    await append(signal('a', 'BTC', 'verified'), signal('b', 'BTC', 'verified'), signal('c', 'BTC', 'verified'))
    receiver.answerNext(429, 1, { 'retry-after': '120' })
    expect(await pusher.deliverDue()).toMatchObject({ delivered: 0, postponed: 3 })
    expect(receiver.received.length).toBe(1) // the other two waited with it
    expect((await rowsOf(ep.id)).map(r => [r.status, r.attempts])).toEqual([['pending', 0], ['pending', 0], ['pending', 0]])
    expect((await healthOf(ep.id)).paused_until).toBe(isoInstant(h.clock.now() + 120_000))
    h.clock.advance(119_000)
    await pusher.deliverDue()
    expect(receiver.received.length).toBe(1)
    h.clock.advance(1_000)
    expect((await pusher.deliverDue()).delivered).toBe(3)
    expect(receiver.received.length).toBe(4)
  })
})

describe('leases', () => {
  test("a row claimed by a process that died is not sent again before its lease runs out, then it is", async () => {
    const ep = await register({})
    await append(signal('bb-squeeze-short', 'DOGE', 'verified'))
    const dead = new PushOutbox(h.deps.db, h.clock, 'dead-process')
    await dead.fanOut()
    const claimed = await dead.claim()
    expect(claimed.map(r => [r.endpointId, r.status, r.owner])).toEqual([[ep.id, 'sending', 'dead-process']])
    expect(claimed[0]!.claimedUntilMs).toBe(h.clock.now() + LEASE_MS)
    expect(await pusher.deliverDue()).toMatchObject({ delivered: 0 })
    h.clock.advance(LEASE_MS)
    expect(await pusher.deliverDue()).toMatchObject({ delivered: 1 })
    expect((await rowsOf(ep.id))[0]).toMatchObject({ status: 'delivered', owner: pusher.outbox.owner })
    // the dead process's late outcome changes nothing
    await dead.retry(claimed[0]!, 500, 'late', h.clock.now())
    expect((await rowsOf(ep.id))[0]!.status).toBe('delivered')
  })

  test('stopping (SIGTERM): the attempt in flight finishes, the claimed rows not yet attempted are handed back at once, nothing more is claimed', async () => {
    const ep = await register({})
    await append(...Array.from({ length: 8 }, (_, k) => signal('s', `C${k}`, 'verified')))
    const stopping = new Pusher({ db: h.deps.db, clock: h.clock, config: h.deps.config.push, baseUrl: 'https://perpsim.example.org', log: createLogger('silent') })
    receiver.delayMs = 50
    try {
      const run = stopping.deliverDue()
      while (receiver.received.length < 2) await Bun.sleep(5)
      await stopping.stop()
      const report = await run
      const rows = await rowsOf(ep.id)
      expect(report.delivered).toBe(rows.filter(r => r.status === 'delivered').length)
      expect(report.delivered).toBeGreaterThanOrEqual(2)
      expect(report.delivered).toBeLessThan(8)
      for (const r of rows.filter(r => r.status !== 'delivered')) expect([r.status, r.attempts, r.claimedUntilMs, r.nextAttemptAtMs]).toEqual(['pending', 0, null, h.clock.now()])
      expect(receiver.received.length).toBe(report.delivered)
      expect((await stopping.deliverDue()).delivered).toBe(0) // a stopped pusher sends nothing
    } finally {
      receiver.delayMs = 0
    }
    const left = 8 - receiver.received.length
    expect((await pusher.deliverDue()).delivered).toBe(left) // handed back: sent by the next delivery, no lease to wait out
  })
})
