/**
 * The admin routes of the push feed (docs/api.md "Webhooks"): POST/GET/DELETE
 * /admin/webhooks and POST /admin/webhooks/{id}/ping behind X-Admin-Key, refused exactly as
 * the other admin routes are (503 without ADMIN_KEY, 401 without the header, 403 with a
 * wrong key) and before the body is read; 422 naming the field for a bad endpoint; the
 * secret shown once; an endpoint with deliveries is disabled, not deleted.
 */
import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { schema } from '../src/db'
import { appendEvents } from '../src/records/events'
import { makeHarness } from './helpers/harness'
import { startWebhookReceiver } from './helpers/webhook-receiver'

const KEY = 'admin-key-for-tests'
// on the real time: a receiver checks the signature's timestamp against its own clock (5 minutes either way)
const h = makeHarness({ nowMs: Date.now(), env: { ADMIN_KEY: KEY, WEBHOOK_ALLOW_PRIVATE: '1' } })
const off = makeHarness({ env: { ADMIN_KEY: '' } })
const receiver = startWebhookReceiver()
afterAll(async () => {
  h.cleanup()
  off.cleanup()
  await receiver.close()
})

const admin = { 'x-admin-key': KEY }
const create = (json: unknown) => h.req('/admin/webhooks', { method: 'POST', headers: admin, json })

describe('the admin key', () => {
  const routes: [string, string, unknown?][] = [
    ['POST', '/admin/webhooks', { url: 'not even a url', kinds: ['nope'] }],
    ['GET', '/admin/webhooks'],
    ['DELETE', '/admin/webhooks/1'],
    ['POST', '/admin/webhooks/1/ping'],
  ]
  test('no ADMIN_KEY on the server: 503 on every route', async () => {
    for (const [method, path, json] of routes) {
      const r = await off.req(path, { method, headers: admin, json })
      expect([method, path, r.status]).toEqual([method, path, 503])
      expect(r.body.detail).toContain('ADMIN_KEY')
    }
  })
  test('no header: 401; a wrong key: 403, before a bad body or an unknown id is looked at', async () => {
    for (const [method, path, json] of routes) {
      expect((await h.req(path, { method, json })).status).toBe(401)
      expect((await h.req(path, { method, headers: { 'x-admin-key': 'wrong' }, json })).status).toBe(403)
    }
  })
})

describe('registering an endpoint', () => {
  test('a webhook gets a whsec_ secret shown once; GET lists it with its filters and health, without the secret', async () => {
    const r = await create({ url: receiver.url, kinds: ['scored', 'signal'], filters: { strategies: ['bb-squeeze-short'], coins: ['btc'], status: ['verified'] } })
    expect(r.status).toBe(201)
    expect(r.body.secret).toMatch(/^whsec_/)
    expect(r.body).toMatchObject({ sink: 'webhook', url: receiver.url, lang: 'en', kinds: ['scored', 'signal'], filters: { strategies: ['bb-squeeze-short'], coins: ['BTC'], status: ['verified'] } })
    expect(r.body.health).toMatchObject({ state: 'new', last_success_at: null, consecutive_failures: 0, failed_deliveries: 0, pending_deliveries: 0 })
    const list = await h.req('/admin/webhooks', { headers: admin })
    expect(list.status).toBe(200)
    const listed = list.body.endpoints.find((e: { id: number }) => e.id === r.body.id)
    expect(listed).toBeDefined()
    expect(JSON.stringify(list.body)).not.toContain(r.body.secret)
    expect('secret' in listed).toBe(false)
  })

  test('Telegram and Discord sinks: their credentials are never listed whole', async () => {
    const token = '123456789:AAEhBP0av28kVaGzkSBg3cKzrzb-ZfTQy2w'
    const tg = await create({ sink: 'telegram', bot_token: token, chat_id: '-1001234567890', lang: 'ko' })
    expect(tg.status).toBe(201)
    expect(tg.body).toMatchObject({ sink: 'telegram', url: null, lang: 'ko', telegram: { chat_id: '-1001234567890', bot_token: '123456789:…Qy2w' }, secret: null })
    const discordUrl = `${h.deps.config.push.discordApiUrl}/webhooks/1234567890/abcdefTOKEN_-xyz`
    const dc = await create({ sink: 'discord', url: discordUrl })
    expect(dc.status).toBe(201)
    expect(dc.body.url).toBe(`${h.deps.config.push.discordApiUrl}/webhooks/1234567890/…`)
    const list = JSON.stringify((await h.req('/admin/webhooks', { headers: admin })).body)
    expect(list).not.toContain(token.split(':')[1])
    expect(list).not.toContain('abcdefTOKEN_-xyz')
  })

  test('422 names the field, the rule and the input', async () => {
    const cases: [unknown, string[], RegExp][] = [
      [{}, ['body', 'url'], /required for a webhook sink/],
      [{ url: 'ftp://example.org/x' }, ['body', 'url'], /http\(s\)/],
      [{ url: 'https://example.org/hook', bot_token: '1:x' }, ['body', 'bot_token'], /not used by a webhook sink/],
      [{ sink: 'telegram', chat_id: '42' }, ['body', 'bot_token'], /required/],
      [{ sink: 'telegram', bot_token: 'nope', chat_id: '42' }, ['body', 'bot_token'], /BotFather/],
      [{ sink: 'telegram', bot_token: '123456789:AAEhBP0av28kVaGzkSBg3cKzrzb-ZfTQy2w', chat_id: 'my chat' }, ['body', 'chat_id'], /numeric chat id/],
      [{ sink: 'discord', url: 'https://example.org/webhooks/1/abc' }, ['body', 'url'], /Discord webhook URL/],
      [{ url: 'https://example.org/hook', kinds: ['signal', 'everything'] }, ['body', 'kinds', '1'], /./],
      [{ url: 'https://example.org/hook', lang: 'fr' }, ['body', 'lang'], /./],
      [{ url: 'https://example.org/hook', filters: { status: ['live'] } }, ['body', 'filters', 'status', '0'], /./],
    ]
    for (const [body, loc, msg] of cases) {
      const r = await create(body)
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422])
      const item = r.body.detail.find((d: { loc: unknown[] }) => d.loc.map(String).join('.') === loc.join('.'))
      expect([JSON.stringify(body), item?.msg]).toEqual([JSON.stringify(body), expect.stringMatching(msg)])
    }
    // a token is never echoed back in an error
    const bad = await create({ sink: 'telegram', bot_token: 'secret-token-value', chat_id: '42' })
    expect(JSON.stringify(bad.body)).not.toContain('secret-token-value')
  })

  test('hostile bodies get a 422 in the contract shape (every item with loc, msg, type and input), never a 5xx', async () => {
    const bodies = [[], 'x', 42, null, { url: 42 }, { url: ['https://example.org'] }, { sink: 'email', url: 'https://example.org/x' }, { url: 'https://example.org/x', kinds: 'signal' }, { url: 'https://example.org/x', filters: [] }, { url: 'x'.repeat(5000) }, { sink: 'telegram' }, { sink: 'discord' }]
    for (const body of bodies) {
      const r = await create(body)
      expect([JSON.stringify(body).slice(0, 80), r.status]).toEqual([JSON.stringify(body).slice(0, 80), 422])
      for (const d of r.body.detail) expect(Object.keys(d).sort()).toEqual(['input', 'loc', 'msg', 'type'])
    }
  })
})

describe('ping and removal', () => {
  test('ping sends a signed ping event now and answers with what the receiver said', async () => {
    const r = await create({ url: receiver.url })
    const before = receiver.received.length
    const ping = await h.req(`/admin/webhooks/${r.body.id}/ping`, { method: 'POST', headers: admin })
    expect(ping.status).toBe(200)
    expect(ping.body).toMatchObject({ delivered: true, status: 200, error: null })
    const got = receiver.received[before]!
    expect(got.headers['webhook-id']).toBe(ping.body.webhook_id)
    const verified = new Webhook(r.body.secret).verify(got.body, got.headers) as { type: string; data: { endpoint_id: number } }
    expect(verified.type).toBe('ping')
    expect(verified.data.endpoint_id).toBe(r.body.id)

    receiver.answerNext(500)
    const failed = await h.req(`/admin/webhooks/${r.body.id}/ping`, { method: 'POST', headers: admin })
    expect(failed.body).toMatchObject({ delivered: false, status: 500, error: 'HTTP 500' })
    const health = (await h.req('/admin/webhooks', { headers: admin })).body.endpoints.find((e: { id: number }) => e.id === r.body.id).health
    expect(health).toMatchObject({ state: 'failing', consecutive_failures: 1, last_error: 'ping: HTTP 500' })
  })

  test('unknown ids: 404; a bad id: 422 naming it', async () => {
    expect((await h.req('/admin/webhooks/99999/ping', { method: 'POST', headers: admin })).status).toBe(404)
    expect((await h.req('/admin/webhooks/99999', { method: 'DELETE', headers: admin })).status).toBe(404)
    const bad = await h.req('/admin/webhooks/abc', { method: 'DELETE', headers: admin })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].loc).toEqual(['path', 'id'])
  })

  test('an endpoint nothing was delivered to is deleted; one with deliveries is disabled, its secret erased and its waiting rows cancelled', async () => {
    const fresh = await create({ url: receiver.url })
    const del = await h.req(`/admin/webhooks/${fresh.body.id}`, { method: 'DELETE', headers: admin })
    expect(del.body).toEqual({ id: fresh.body.id, removed: 'deleted', cancelled_deliveries: 0 })
    expect((await h.deps.db.orm.select().from(schema.pushEndpoints)).some(e => e.id === fresh.body.id)).toBe(false)

    const used = await create({ url: receiver.url, kinds: ['day_root'] })
    await h.deps.db.tx(async tx => await appendEvents(tx, h.clock.now(), [{ kind: 'day_root', payload: { date: '20261121', leaf_count: 0, root: null } }]))
    await h.deps.pusher!.outbox.fanOut()
    const removed = await h.req(`/admin/webhooks/${used.body.id}`, { method: 'DELETE', headers: admin })
    expect(removed.body).toEqual({ id: used.body.id, removed: 'disabled', cancelled_deliveries: 1 })
    const row = (await h.deps.db.orm.select().from(schema.pushEndpoints)).find(e => e.id === used.body.id)!
    expect(row.disabledAtMs).toBe(h.clock.now())
    expect(row.secret).toBeNull()
    expect((await h.req('/admin/webhooks', { headers: admin })).body.endpoints.some((e: { id: number }) => e.id === used.body.id)).toBe(false)
    expect((await h.req(`/admin/webhooks/${used.body.id}`, { method: 'DELETE', headers: admin })).status).toBe(404)
    // the database keeps it removed and keeps its deliveries
    await expect(h.deps.db.rows(sql`UPDATE push_endpoints SET disabled_at_ms = NULL WHERE id = ${used.body.id}`)).rejects.toThrow(/never enabled again/)
    await expect(h.deps.db.rows(sql.raw('DELETE FROM push_deliveries'))).rejects.toThrow(/never removed/)
    await expect(h.deps.db.rows(sql.raw("UPDATE push_deliveries SET status = 'pending'"))).rejects.toThrow(/finished push delivery is never changed/)
  })
})
