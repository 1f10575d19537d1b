import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { schema } from '../src/db'
import { BACKOFF_MS, LEASE_MS } from '../src/mail/outbox'
import { makeHarness } from './helpers/harness'
import { parseMail } from './helpers/mime'
import { startSmtpSink } from './helpers/smtp-sink'

const smtp = await startSmtpSink()
const h = makeHarness({ env: { RATE_LIMIT_SUBSCRIBE_PER_MIN: '5', SMTP_URL: smtp.url, PUBLIC_URL: 'https://perpsim.example.org', MAIL_FROM: 'perpsim <alerts@perpsim.example.org>' } })
afterAll(async () => {
  h.deps.mailer!.close()
  h.cleanup()
  await smtp.close()
})
// each test starts in a fresh rate-limit minute
beforeEach(() => h.clock.advance(61_000))

const subscribe = (email: string, lang = 'en') => h.req('/api/subscribe', { method: 'POST', json: { email, lang } })
const statusOf = async (email: string) => (await h.deps.db.orm.select().from(schema.subscribers).where(eq(schema.subscribers.email, email)))[0]?.status
const deliver = () => h.deps.mailer!.deliverDue()
const lastMailTo = (email: string) => {
  const m = smtp.received.findLast(r => r.to.includes(email))
  return m ? parseMail(m.raw) : null
}
const linkIn = (text: string, path: string) => {
  const m = new RegExp(`https://perpsim\\.example\\.org${path.replaceAll('/', '\\/')}\\?\\S+`).exec(text)
  return m ? new URL(m[0]) : null
}
const local = (u: URL) => `${u.pathname}${u.search}`

describe('POST /api/subscribe', () => {
  test('a syntactically invalid address is a 422 naming the field', async () => {
    for (const bad of ['not-an-address', 'a@b', 'two@@example.org', 'a b@example.org', '<x>@example.org', '']) {
      h.clock.advance(61_000) // every request counts towards the per-client limit
      const r = await subscribe(bad)
      expect(r.status).toBe(422)
      expect(r.body.detail[0].loc).toEqual(['body', 'email'])
    }
    expect((await h.req('/api/subscribe', { method: 'POST', json: { email: 'ok@example.org', lang: 'fr' } })).status).toBe(422)
  })

  test('a new address is pending and gets a confirmation mail whose link activates it', async () => {
    const r = await subscribe('Alice@Example.org')
    expect(r.status).toBe(202)
    expect(r.body.status).toBe('pending_confirmation')
    expect(await statusOf('alice@example.org')).toBe('pending')
    await deliver()
    const mail = lastMailTo('alice@example.org')!
    expect(mail.headers.get('from')).toBe('perpsim <alerts@perpsim.example.org>')
    expect(mail.headers.get('subject')).toContain('Confirm')
    const link = linkIn(mail.text!, '/api/subscribe/confirm')!
    expect(link.searchParams.get('email')).toBe('alice@example.org')
    expect(mail.html).toContain('/api/subscribe/confirm?')
    expect(await statusOf('alice@example.org')).toBe('pending') // the mail alone changes nothing
    const c = await h.req(local(link))
    expect(c.status).toBe(200)
    expect(c.headers.get('content-type')).toContain('text/html')
    expect(await statusOf('alice@example.org')).toBe('active')
    expect((await h.req(local(link))).status).toBe(200) // following it again is harmless
  })

  test('the Korean subscription gets a Korean confirmation', async () => {
    await subscribe('minji@example.kr', 'ko')
    await deliver()
    const mail = lastMailTo('minji@example.kr')!
    expect(mail.text).toContain('구독을 확인하려면')
  })

  test('repeating a subscribe is idempotent and answers the same whether the address is known or not', async () => {
    const known = await subscribe('alice@example.org') // active since the test above
    const fresh = await subscribe('nobody-yet@example.org')
    expect(known.status).toBe(fresh.status)
    expect(known.body).toEqual(fresh.body)
    const before = smtp.received.length
    await subscribe('nobody-yet@example.org')
    const report = await deliver()
    expect(smtp.received.length - before).toBe(1) // one confirmation for the new address, none for the repeat or the active one
    expect(report.sent).toBe(1)
    expect(await statusOf('alice@example.org')).toBe('active')
  })

  test('an expired or forged confirmation link is a 403 and changes nothing', async () => {
    await subscribe('late@example.org')
    await deliver()
    const link = linkIn(lastMailTo('late@example.org')!.text!, '/api/subscribe/confirm')!
    const forged = new URL(link)
    forged.searchParams.set('token', link.searchParams.get('token')!.replace(/.$/, c => (c === '0' ? '1' : '0')))
    expect((await h.req(local(forged))).status).toBe(403)
    h.clock.advance(8 * 86_400_000)
    expect((await h.req(local(link))).status).toBe(403)
    expect(await statusOf('late@example.org')).toBe('pending')
  })

  test('more than a few requests a minute from one client are refused with 429', async () => {
    const answers = []
    for (let i = 0; i < 7; i++) answers.push((await subscribe(`burst${i}@example.org`)).status)
    expect(answers.slice(0, 5)).toEqual([202, 202, 202, 202, 202])
    expect(answers.slice(5)).toEqual([429, 429])
    h.clock.advance(60_000)
    expect((await subscribe('burst9@example.org')).status).toBe(202)
  })
})

describe('unsubscribing', () => {
  const active = async (email: string) => {
    await subscribe(email)
    await deliver()
    await h.req(local(linkIn(lastMailTo(email)!.text!, '/api/subscribe/confirm')!))
    expect(await statusOf(email)).toBe('active')
  }

  test('a forged or mismatched token is a 403 and changes nothing', async () => {
    await active('bob@example.org')
    const good = new URL(await h.deps.mailer!.unsubscribeUrl('bob@example.org'))
    const other = new URL(await h.deps.mailer!.unsubscribeUrl('carol@example.org'))
    for (const token of ['0.' + '0'.repeat(64), other.searchParams.get('token')!, 'x', good.searchParams.get('token')! + '0']) {
      const q = new URLSearchParams({ email: 'bob@example.org', token })
      expect((await h.req(`/api/unsubscribe?${q}`)).status).toBe(403)
      expect((await h.req(`/api/unsubscribe?${q}`, { method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(403)
    }
    // a token signed with another secret (another installation) is refused too
    const { LinkTokens } = await import('../src/mail/tokens')
    const foreign = new LinkTokens(Buffer.alloc(32, 7)).sign('unsubscribe', 'bob@example.org', h.clock.now())
    expect((await h.req(`/api/unsubscribe?${new URLSearchParams({ email: 'bob@example.org', token: foreign })}`)).status).toBe(403)
    expect(await statusOf('bob@example.org')).toBe('active')
  })

  test('the signed link unsubscribes (GET), idempotently, with a small page', async () => {
    const url = new URL(await h.deps.mailer!.unsubscribeUrl('bob@example.org'))
    const r = await h.req(local(url))
    expect(r.status).toBe(200)
    expect(r.body).toContain('unsubscribed')
    expect(await statusOf('bob@example.org')).toBe('unsubscribed')
    expect((await h.req(local(url))).status).toBe(200)
  })

  test('the same link takes the RFC 8058 one-click POST', async () => {
    await active('dave@example.org')
    const url = new URL(await h.deps.mailer!.unsubscribeUrl('dave@example.org'))
    const r = await h.req(local(url), { method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(r.status).toBe(200)
    expect(await statusOf('dave@example.org')).toBe('unsubscribed')
  })

  test('the link secret is generated once and kept in the database', async () => {
    const rows = (await h.deps.db.orm.select().from(schema.serviceSecrets))
    expect(rows.length).toBe(1)
    expect(rows[0].value).toMatch(/^[0-9a-f]{64}$/)
  })
})

describe('the outbox', () => {
  test('a send refused for now is retried after its backoff and then delivered once', async () => {
    await subscribe('retry@example.org')
    smtp.failNext(451)
    const first = await deliver()
    expect(first.retrying).toBe(1)
    const row = (await h.deps.db.orm.select().from(schema.mailOutbox).where(eq(schema.mailOutbox.recipient, 'retry@example.org')))[0]!
    expect(row.status).toBe('pending')
    expect(row.attempts).toBe(1)
    expect(row.lastError).toContain('451')
    expect((await deliver()).sent).toBe(0) // not before the backoff
    h.clock.advance(BACKOFF_MS[0])
    expect((await deliver()).sent).toBe(1)
    expect(smtp.received.filter(r => r.to.includes('retry@example.org')).length).toBe(1)
    const done = (await h.deps.db.orm.select().from(schema.mailOutbox).where(eq(schema.mailOutbox.id, row.id)))[0]!
    expect(done.status).toBe('sent')
    expect(done.attempts).toBe(2)
  })

  test('a permanent refusal (5xx) is not retried', async () => {
    await subscribe('gone@example.org')
    smtp.failNext(550)
    const r = await deliver()
    expect(r.failed).toBe(1)
    h.clock.advance(BACKOFF_MS[BACKOFF_MS.length - 1])
    expect((await deliver()).sent).toBe(0)
  })

  test('a row claimed by a process that died is sent after its lease, once', async () => {
    // queued without the delivery a subscribe request starts at once
    await h.deps.db.orm.insert(schema.subscribers).values({ email: 'crash@example.org', lang: 'en', status: 'pending', createdAtMs: h.clock.now(), updatedAtMs: h.clock.now() })
    await h.deps.mailer!.queueConfirmation('crash@example.org', 'en')
    expect(await h.deps.mailer!.queueConfirmation('crash@example.org', 'en')).toBe(false) // one row per recipient, kind and week
    const claimed = await h.deps.mailer!.outbox.claim(10) // "crash": claimed, never sent
    expect(claimed.map(r => r.recipient)).toContain('crash@example.org')
    expect((await deliver()).sent).toBe(0)
    h.clock.advance(LEASE_MS)
    expect((await deliver()).sent).toBe(1)
    expect(smtp.received.filter(r => r.to.includes('crash@example.org')).length).toBe(1)
  })
})
