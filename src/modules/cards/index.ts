import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { OgQuery, ShareQuery } from './model'
import { CARD_MAX_AGE_S, CardService } from './service'

const cacheHeaders = (etag: string) => ({ etag, 'cache-control': `public, max-age=${CARD_MAX_AGE_S}` })

/**
 * A card varies on nothing but its URL (and, for /share without PUBLIC_URL, the Host its
 * links are built on); no answer carries the CORS plugin's `Vary: *` (src/http/cors-headers.ts).
 */
function cacheable(set: { headers: Record<string, unknown> }, vary: string | null): void {
  if (vary) set.headers.vary = vary
}

/** Where links point: PUBLIC_URL when set, else the origin the request came to. */
const baseUrlOf = (deps: AppDeps, request: Request) => deps.config.publicUrl ?? new URL(request.url).origin

/** GET /og (1200×630 PNG card) and GET /share (landing page with social-preview tags). */
export function cardsModule(deps: AppDeps) {
  const cards = new CardService({ runs: deps.runs, store: deps.store })
  return new Elysia({ name: 'cards' })
    .get(
      '/og',
      async ({ query, headers, set }) => {
        cacheable(set, null)
        const { etag, png } = await cards.card(query, headers['if-none-match'] ?? null)
        if (png === null) return new Response(null, { status: 304, headers: cacheHeaders(etag) })
        return new Response(png, { headers: { 'content-type': 'image/png', ...cacheHeaders(etag) } })
      },
      { query: OgQuery, detail: { tags: ['cards'], summary: '1200×630 PNG card of a strategy, recomputed from its settings' } },
    )
    .get(
      '/share',
      async ({ query, request, headers, set }) => {
        cacheable(set, deps.config.publicUrl ? null : 'Host')
        const html = { 'content-type': 'text/html; charset=utf-8', 'x-robots-tag': 'noindex, nofollow' }
        const { etag, html: page, unknown } = await cards.share(query, baseUrlOf(deps, request), headers['if-none-match'] ?? null)
        if (unknown) return new Response(page, { status: 404, headers: html })
        if (page === null) return new Response(null, { status: 304, headers: cacheHeaders(etag) })
        return new Response(page, { headers: { ...html, ...cacheHeaders(etag) } })
      },
      { query: ShareQuery, detail: { tags: ['cards'], summary: 'Share page: social-preview tags and a redirect to the simulator' } },
    )
}
