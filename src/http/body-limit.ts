/** Refuse request bodies over the configured size with a JSON 413 before they are parsed. */
import { Elysia } from 'elysia'

export function bodyLimit(maxBytes: number) {
  return new Elysia({ name: 'body-limit', seed: maxBytes }).onRequest(({ request }) => {
    const len = request.headers.get('content-length')
    if (len !== null && Number(len) > maxBytes)
      return new Response(JSON.stringify({ detail: `Request body too large: ${len} bytes (limit ${maxBytes})` }), {
        status: 413,
        headers: { 'content-type': 'application/json', 'access-control-allow-origin': '*' },
      })
  })
}
