/**
 * The page's files as answers: the index is `no-cache` (revalidated by ETag, so a new build
 * shows at once); hashed names never change content, so they are cached for a year as
 * immutable. Gzipped when the client accepts it; 503 with Retry-After when the page cannot
 * be loaded (a build missing from a checkout), 404 for a name the build does not have.
 */
import type { PageAssets, PageFile } from '../../web/assets'

const NO_CACHE = 'no-cache'
const IMMUTABLE = 'public, max-age=31536000, immutable'
const FAVICON_MAX_AGE = 'public, max-age=86400'

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

const notFound = () => new Response(JSON.stringify({ detail: 'Not Found' }), { status: 404, headers: { 'content-type': 'application/json' } })

/** `load` is the page's loader (the build or the embedded copy); tests pass a failing one. */
export class PageFiles {
  constructor(private readonly load: () => Promise<PageAssets>) {}

  /** the file `pick` chooses from the loaded page, sent with `cacheControl`; 404 when there is none */
  private async answer(request: Request, cacheControl: string, pick: (page: PageAssets) => PageFile | undefined): Promise<Response> {
    let file: PageFile | undefined
    try {
      file = pick(await this.load())
    } catch (err) {
      return unavailable(err)
    }
    return file ? send(file, cacheControl, request) : notFound()
  }

  index(request: Request): Promise<Response> {
    return this.answer(request, NO_CACHE, page => page.index)
  }

  favicon(request: Request): Promise<Response> {
    return this.answer(request, FAVICON_MAX_AGE, page => [...page.files].find(([name]) => name.startsWith('favicon-'))?.[1])
  }

  asset(request: Request, name: string): Promise<Response> {
    return this.answer(request, IMMUTABLE, page => page.files.get(name))
  }
}
