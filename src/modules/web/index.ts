/** GET / (the simulator page), /favicon.ico and /static/<file> (its hashed assets); the answers are built in service.ts. */
import { Elysia, t } from 'elysia'
import { pageAssets, type PageAssets } from '../../web/assets'
import { PageFiles } from './service'

/** `load` is the page's loader (the build or the embedded copy); tests pass a failing one */
export function webModule(load: () => Promise<PageAssets> = pageAssets) {
  const files = new PageFiles(load)
  return (
    new Elysia({ name: 'web' })
      .get('/', ({ request }) => files.index(request), { detail: { hide: true } })
      // browsers ask for /favicon.ico on every HTML page of the service (/share too); a 404 there is an error in their console
      .get('/favicon.ico', ({ request }) => files.favicon(request), { detail: { hide: true } })
      .get('/static/:file', ({ request, params }) => files.asset(request, params.file), { params: t.Object({ file: t.String({ maxLength: 200 }) }), detail: { hide: true } })
  )
}
