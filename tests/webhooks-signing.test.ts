/**
 * Standard Webhooks signatures (docs/events.md "Webhooks"): our headers match the scheme's
 * published test vector, a generated secret has the scheme's form, and the reference
 * library (`standardwebhooks`, what a receiver uses) verifies what we sign and refuses a
 * body or id changed after signing.
 */
import { describe, expect, test } from 'bun:test'
import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import { newSecret, signedHeaders } from '../src/push/signing'
import { webhookBody } from '../src/push/pusher'

// the specification's vector (standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts "sign function works")
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestampSec: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
}

describe('Standard Webhooks signing', () => {
  test('reproduces the reference test vector, headers and all', () => {
    expect(signedHeaders(VECTOR.secret, VECTOR.id, VECTOR.timestampSec * 1000 + 999, VECTOR.body)).toEqual({
      'webhook-id': VECTOR.id,
      'webhook-timestamp': String(VECTOR.timestampSec),
      'webhook-signature': VECTOR.signature,
    })
  })

  test('the signature is HMAC-SHA256 over "id.timestamp.body" with the base64-decoded secret, base64 encoded', () => {
    const key = Buffer.from(VECTOR.secret.slice('whsec_'.length), 'base64')
    const mac = new Bun.CryptoHasher('sha256', key).update(`${VECTOR.id}.${VECTOR.timestampSec}.${VECTOR.body}`).digest('base64')
    expect(`v1,${mac}`).toBe(VECTOR.signature)
  })

  test('a generated secret is whsec_ + base64 of 32 random bytes, and no two are alike', () => {
    const a = newSecret()
    const b = newSecret()
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(a.slice(6), 'base64').length).toBe(32)
    expect(a).not.toBe(b)
  })

  test('the reference library verifies a delivery we sign, and refuses one whose body or id changed', () => {
    const secret = newSecret()
    const body = webhookBody({ id: 42, kind: 'signal', createdAt: Date.now(), payload: '{"coin":"BTC","id":7}' })
    const headers = signedHeaders(secret, '42', Date.now(), body)
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body))
    expect(() => new Webhook(secret).verify(body.replace('BTC', 'ETH'), { ...headers })).toThrow(WebhookVerificationError)
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': '43' })).toThrow(WebhookVerificationError)
    expect(() => new Webhook(newSecret()).verify(body, { ...headers })).toThrow(WebhookVerificationError)
  })

  test("a delivery's body is the event in canonical JSON: id, type, timestamp and the record as data", () => {
    const body = webhookBody({ id: 9, kind: 'ranking', createdAt: Date.UTC(2026, 10, 22, 0, 30), payload: '{"sha256":"ab","date":"2026-11-22"}' })
    expect(body).toBe('{"data":{"date":"2026-11-22","sha256":"ab"},"id":9,"timestamp":"2026-11-22T00:30:00Z","type":"ranking"}')
  })
})
