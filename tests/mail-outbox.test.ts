import { afterAll, expect, test } from 'bun:test'
import { schema } from '../src/db'
import { BACKOFF_MS } from '../src/mail/outbox'
import { makeHarness } from './helpers/harness'
import { startSmtpSink } from './helpers/smtp-sink'

// a port nothing listens on: a sink started and closed again
const dead = await startSmtpSink()
await dead.close()
const h = makeHarness({ env: { SMTP_URL: dead.url, PUBLIC_URL: 'https://perpsim.example.org' } })
const mailer = h.deps.mailer!
afterAll(async () => {
  mailer.close()
  h.cleanup()
})

test('an unreachable SMTP server postpones the batch without using up attempts, and the mails go once it is back', async () => {
  for (const email of ['a@example.org', 'b@example.org', 'c@example.org']) {
    await h.deps.db.orm.insert(schema.subscribers).values({ email, lang: 'en', status: 'pending', createdAtMs: 0, updatedAtMs: 0 })
    await mailer.queueConfirmation(email, 'en')
  }
  const report = await mailer.deliverDue()
  expect(report).toMatchObject({ sent: 0, retrying: 0, failed: 0, postponed: 3 })
  const rows = (await h.deps.db.orm.select().from(schema.mailOutbox))
  expect(rows.map(r => [r.status, r.attempts])).toEqual([['pending', 0], ['pending', 0], ['pending', 0]])
  expect(rows[0].lastError).toBeTruthy()
  expect(rows.every(r => r.nextAttemptAtMs === h.clock.now() + BACKOFF_MS[0])).toBe(true)

  // the server comes back on its address
  const back = await startSmtpSink(Number(new URL(dead.url).port))
  try {
    h.clock.advance(BACKOFF_MS[0])
    expect((await mailer.deliverDue()).sent).toBe(3)
    expect(back.received.map(m => m.to[0]).sort()).toEqual(['a@example.org', 'b@example.org', 'c@example.org'])
    expect((await h.deps.db.orm.select().from(schema.mailOutbox)).map(r => [r.status, r.attempts])).toEqual([['sent', 1], ['sent', 1], ['sent', 1]])
  } finally {
    mailer.close()
    await back.close()
  }
})
