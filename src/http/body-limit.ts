/**
 * Refuse request bodies whose Content-Length is over the limit with a JSON 413 before they
 * are read (json-body.ts also counts while reading, for bodies sent without a length).
 */
import { Elysia } from 'elysia'
import { tooLarge } from './json-body'

export function bodyLimit(maxBytes: number) {
  return new Elysia({ name: 'body-limit', seed: maxBytes }).onRequest(({ request }) => {
    const len = request.headers.get('content-length')
    if (len !== null && Number(len) > maxBytes) throw tooLarge(maxBytes, Number(len))
  })
}
