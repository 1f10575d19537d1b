/**
 * GET / (the simulator page) and GET /static/<file> (its hashed assets). The index is
 * `no-cache` (revalidated by ETag, so a new build shows at once); hashed names never change
 * content, so they are cached for a year as immutable. Gzipped when the client accepts it.
 */
import { Elysia, t } from 'elysia'
import { pageAssets, type PageAssets, type PageFile } from '../../web/assets'

const NO_CACHE = 'no-cache'
const IMMUTABLE = 'public, max-age=31536000, immutable'

function send(file: PageFile, cacheControl: string, request: Request): Response {
  const headers: Record<string, string> = { 'content-type': file.type, 'cache-control': cacheControl, etag: file.etag, vary: 'accept-encoding' }
  if (request.headers.get('if-none-match') === file.etag) return new Response(null, { status: 304, headers })
  if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) {
    headers['content-encoding'] = 'gzip'
    return new Response(file.gzip, { headers })
  }
  return new Response(file.body, { headers })
}

function unavailable(err: unknown): Response {
  const why = err instanceof Error ? err.message : String(err)
  return new Response(JSON.stringify({ detail: `the page is not available: ${why}` }), { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '5' } })
}

/** `load` is the page's loader (the build or the embedded copy); tests pass a failing one */
export const webModule = (load: () => Promise<PageAssets> = pageAssets) =>
  new Elysia({ name: 'web' })
    .get(
      '/',
      async ({ request }) => {
        try {
          return send((await load()).index, NO_CACHE, request)
        } catch (err) {
          return unavailable(err)
        }
      },
      { detail: { hide: true } },
    )
    // browsers ask for /favicon.ico on every HTML page of the service (/share too); a 404 there is an error in their console
    .get(
      '/favicon.ico',
      async ({ request }) => {
        let icon: PageFile | undefined
        try {
          icon = [...(await load()).files].find(([name]) => name.startsWith('favicon-'))?.[1]
        } catch (err) {
          return unavailable(err)
        }
        if (!icon) return new Response(JSON.stringify({ detail: 'Not Found' }), { status: 404, headers: { 'content-type': 'application/json' } })
        return send(icon, 'public, max-age=86400', request)
      },
      { detail: { hide: true } },
    )
    .get(
      '/static/:file',
      async ({ request, params }) => {
        let file: PageFile | undefined
        try {
          file = (await load()).files.get(params.file)
        } catch (err) {
          return unavailable(err)
        }
        if (!file) return new Response(JSON.stringify({ detail: 'Not Found' }), { status: 404, headers: { 'content-type': 'application/json' } })
        return send(file, IMMUTABLE, request)
      },
      { params: t.Object({ file: t.String({ maxLength: 200 }) }), detail: { hide: true } },
    )
