/**
 * No server-side request forgery (docs/events.md "Webhooks"): with WEBHOOK_ALLOW_PRIVATE
 * off, a webhook URL whose address is loopback, private, link-local, unique-local (v4 and
 * v6, IPv4-mapped v6 included) or a name resolving to one is refused at registration (422
 * naming `url`) and again at delivery, where a name that now resolves to such an address
 * gets no request.
 */
import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, test } from 'bun:test'
import { schema } from '../src/db'
import { appendEvents } from '../src/records/events'
import { addEndpoint } from '../src/records/push-endpoints'
import { Pusher } from '../src/push/pusher'
import { refusedAddress, refusedTarget, systemResolver } from '../src/push/targets'
import { createLogger } from '../src/log'
import { ConfigError, loadConfig } from '../src/config'
import { makeHarness } from './helpers/harness'
import { startWebhookReceiver } from './helpers/webhook-receiver'

const KEY = 'k'
const h = makeHarness({ env: { ADMIN_KEY: KEY } }) // WEBHOOK_ALLOW_PRIVATE unset: off
afterAll(() => h.cleanup())

describe('which addresses may be targets', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.0.0.7', 'private'],
    ['172.16.4.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['0.0.0.0', 'unspecified'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:a9fe:a9fe', 'linkLocal'],
    ['224.0.0.1', 'multicast'],
    ['2002:7f00:1::1', '6to4'],
  ])('%s is refused (%s)', (address, range) => {
    expect(refusedAddress(address)).toContain(range)
  })

  test.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s may be a target', address => {
    expect(refusedAddress(address)).toBeNull()
  })

  test('URLs: literal addresses in every spelling the URL parser accepts, and names by what they resolve to', async () => {
    const names: Record<string, string[]> = { 'hooks.example.org': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'], 'sneaky.example.org': ['93.184.215.14', '10.0.0.1'], 'mapped.example.org': ['::ffff:127.0.0.1'] }
    const policy = { allowPrivate: false, resolve: async (host: string) => names[host] ?? [] }
    for (const url of ['http://127.0.0.1/x', 'http://2130706433/x', 'http://0x7f.1/x', 'http://[::1]:8080/x', 'http://[::ffff:7f00:1]/x', 'https://sneaky.example.org/x', 'https://mapped.example.org/x', 'https://nowhere.example.org/x'])
      expect([url, await refusedTarget(url, policy)]).toEqual([url, expect.any(String)])
    expect(await refusedTarget('https://hooks.example.org/perpsim', policy)).toBeNull()
    expect(await refusedTarget('https://user:pw@hooks.example.org/perpsim', policy)).toContain('credentials')
    // the setting on: loopback allowed (the tests' receivers), credentials and schemes still checked
    expect(await refusedTarget('http://127.0.0.1:9/x', { ...policy, allowPrivate: true })).toBeNull()
    expect(await refusedTarget('file:///etc/passwd', { ...policy, allowPrivate: true })).toContain('http(s)')
  })

  test('localhost, resolved by the system (no DNS traffic: /etc/hosts), is refused', async () => {
    expect(await systemResolver('localhost')).toContain('127.0.0.1')
    expect(await refusedTarget('http://localhost:8000/hook', { allowPrivate: false, resolve: systemResolver })).toMatch(/localhost resolves to 127\.0\.0\.1 is a loopback address|localhost resolves to ::1 is a loopback address/)
  })
})

describe('the setting', () => {
  test('WEBHOOK_ALLOW_PRIVATE is off unless set; a bad value, or a base URL that is not http(s), stops start-up naming the variable', async () => {
    expect(loadConfig({}).push).toEqual({ allowPrivate: false, telegramApiUrl: 'https://api.telegram.org', discordApiUrl: 'https://discord.com/api', timeoutMs: 10_000 })
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: '1' }).push.allowPrivate).toBe(true)
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'maybe' })).toThrow(ConfigError)
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'maybe' })).toThrow(/WEBHOOK_ALLOW_PRIVATE/)
    expect(() => loadConfig({ TELEGRAM_API_URL: 'ftp://telegram' })).toThrow(/TELEGRAM_API_URL/)
    expect(() => loadConfig({ DISCORD_API_URL: 'discord' })).toThrow(/DISCORD_API_URL/)
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '5' })).toThrow(/WEBHOOK_TIMEOUT_MS/)
  })
})

describe('at registration', () => {
  test('POST /admin/webhooks refuses a loopback, private or link-local URL, or a name resolving to one, with 422 naming url', async () => {
    for (const url of ['http://127.0.0.1:8000/hook', 'http://localhost:8000/hook', 'http://[::ffff:127.0.0.1]/hook', 'http://169.254.169.254/latest/meta-data', 'http://192.168.0.10/hook', 'http://[fd00::1]/hook']) {
      const r = await h.req('/admin/webhooks', { method: 'POST', headers: { 'x-admin-key': KEY }, json: { url } })
      expect([url, r.status]).toEqual([url, 422])
      expect(r.body.detail).toEqual([{ type: 'value_error', loc: ['body', 'url'], msg: expect.stringMatching(/refused as a webhook target: .*WEBHOOK_ALLOW_PRIVATE=1/), input: url }])
    }
    expect((await h.deps.db.orm.select().from(schema.pushEndpoints))).toEqual([])
  })
})

describe('at delivery', () => {
  test('a name that resolved to a public address at registration and resolves to 127.0.0.1 now gets no request; the row fails and the health says why', async () => {
    const receiver = startWebhookReceiver()
    try {
      const target = `http://rebind.example.org:${receiver.port}/hook`
      let answer = ['93.184.215.14']
      const pusher = new Pusher({ db: h.deps.db, clock: h.clock, config: h.deps.config.push, baseUrl: 'https://perpsim.example.org', log: createLogger('silent'), resolve: async () => answer })
      expect(await pusher.refusedTarget(target)).toBeNull() // registration would pass
      const ep = await addEndpoint(h.deps.db, h.clock.now(), { sink: 'webhook', url: target, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', telegramBotToken: null, telegramChatId: null, lang: 'en', kinds: [], strategies: [], coins: [], statuses: [] })
      await h.deps.db.tx(async tx => await appendEvents(tx, h.clock.now(), [{ kind: 'day_root', payload: { date: '20261121', leaf_count: 0, root: null } }]))
      answer = ['127.0.0.1'] // the name now points at the service's own host
      const report = await pusher.deliverDue()
      expect(report).toMatchObject({ delivered: 0, failed: 1 })
      expect(receiver.received).toEqual([])
      const row = (await h.deps.db.orm.select().from(schema.pushDeliveries)).find(d => d.endpointId === ep.id)!
      expect(row.status).toBe('failed')
      expect(row.lastError).toContain('target refused: rebind.example.org resolves to 127.0.0.1 is a loopback address')
      const health = (await h.deps.db.orm.select().from(schema.pushEndpoints)).find(e => e.id === ep.id)!
      expect(health).toMatchObject({ failedDeliveries: 1, consecutiveFailures: 1 })
    } finally {
      await receiver.close()
    }
  })
})
