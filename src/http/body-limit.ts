/**
 * Size limits checked when a request arrives, each answered in JSON:
 * - a Content-Length over the body limit: 413 before the body is read (json-body.ts also
 *   counts while reading, for bodies sent without a length);
 * - request headers over MAX_HEADER_BYTES in all: 431. Bun's own header cap (16 KiB unless
 *   `--max-http-header-size` raises it, as `npm start` and the binary do) answers with an
 *   empty body, so ours sits below it.
 */
import { Elysia } from 'elysia'
import { HttpError } from './errors'
import { tooLarge } from './json-body'

export function headerBytes(headers: Headers): number {
  let n = 0
  headers.forEach((v, k) => {
    n += k.length + v.length + 4 // "k: v\r\n"
  })
  return n
}

export function bodyLimit(maxBytes: number, maxHeaderBytes = Infinity) {
  return new Elysia({ name: 'body-limit', seed: [maxBytes, maxHeaderBytes] }).onRequest(({ request }) => {
    const hb = headerBytes(request.headers)
    if (hb > maxHeaderBytes) throw new HttpError(431, { detail: `Request headers too large: ${hb} bytes, over the limit of ${maxHeaderBytes} bytes` })
    const len = request.headers.get('content-length')
    if (len !== null && Number(len) > maxBytes) throw tooLarge(maxBytes, Number(len))
  })
}
