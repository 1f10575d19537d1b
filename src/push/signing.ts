/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): every delivery carries
 * `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64
 * HMAC-SHA256 of "id.timestamp.body" under the secret>`. The secret is `whsec_` + base64
 * of 32 random bytes, the form the scheme's libraries take as it is, so a receiver checks
 * a delivery with `new Webhook(secret).verify(body, headers)` in any of their languages.
 * The signing itself is the reference library's (`standardwebhooks`), not a copy of it.
 */
import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'

export const SECRET_PREFIX = 'whsec_'

/** A fresh endpoint secret: `whsec_` + base64 of 32 random bytes (256 bits, the HMAC's block-size guidance). */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64')
}

export interface SignedHeaders {
  'webhook-id': string
  'webhook-timestamp': string
  'webhook-signature': string
}

/** The three headers of a delivery of `body` (the exact bytes sent) with message id `id`, signed at `atMs`. */
export function signedHeaders(secret: string, id: string, atMs: number, body: string): SignedHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(atMs / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, new Date(atMs), body),
  }
}
