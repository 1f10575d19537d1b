import { Elysia } from 'elysia'
import { DirectionConflict, UnknownCardStrategy } from '../../cards/card-run'
import { unknownSharePage } from '../../cards/share-page'
import type { AppDeps } from '../../deps'
import { unprocessable } from '../../http/errors'
import { OgQuery, ShareQuery } from './model'
import { CARD_MAX_AGE_S, CardService } from './service'

const cacheHeaders = (etag: string) => ({ etag, 'cache-control': `public, max-age=${CARD_MAX_AGE_S}` })

/** Where links point: PUBLIC_URL when set, else the origin the request came to. */
const baseUrlOf = (deps: AppDeps, request: Request) => deps.config.publicUrl ?? new URL(request.url).origin

/** GET /og (1200×630 PNG card) and GET /share (landing page with social-preview tags). */
export function cardsModule(deps: AppDeps) {
  const cards = new CardService({ simulation: deps.simulation, store: deps.store })
  const domain = (e: unknown) => {
    if (e instanceof DirectionConflict) return unprocessable([{ type: 'value_error', loc: ['query', 'dir'], msg: e.message, input: e.requested }])
    return e
  }
  return new Elysia({ name: 'cards' })
    .get(
      '/og',
      async ({ query, headers }) => {
        try {
          const { etag, png } = await cards.card(query, headers['if-none-match'] ?? null)
          if (png === null) return new Response(null, { status: 304, headers: cacheHeaders(etag) })
          return new Response(png, { headers: { 'content-type': 'image/png', ...cacheHeaders(etag) } })
        } catch (e) {
          if (e instanceof UnknownCardStrategy)
            return Response.json({ detail: `Unknown strategy '${e.id}': see GET /strategies and GET /builder/presets` }, { status: 404 })
          throw domain(e)
        }
      },
      { query: OgQuery, detail: { tags: ['cards'], summary: '1200×630 PNG card of a strategy, recomputed from its settings' } },
    )
    .get(
      '/share',
      async ({ query, request, headers }) => {
        const html = { 'content-type': 'text/html; charset=utf-8', 'x-robots-tag': 'noindex, nofollow' }
        try {
          const { etag, html: page } = await cards.share(query, baseUrlOf(deps, request))
          if (headers['if-none-match'] === etag) return new Response(null, { status: 304, headers: cacheHeaders(etag) })
          return new Response(page, { headers: { ...html, ...cacheHeaders(etag) } })
        } catch (e) {
          if (e instanceof UnknownCardStrategy) return new Response(unknownSharePage(e.id, query.lang, `${baseUrlOf(deps, request)}/`), { status: 404, headers: html })
          throw domain(e)
        }
      },
      { query: ShareQuery, detail: { tags: ['cards'], summary: 'Share page: social-preview tags and a redirect to the simulator' } },
    )
}
