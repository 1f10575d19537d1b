/**
 * CORS: any origin may call the public API (no credentials), but a preflight is granted
 * only the request headers the API reads, never e.g. X-Admin-Key (admin routes are not for
 * browsers on other origins). Exposed: what a client needs to back off and to report.
 */
export const CORS_ALLOWED_HEADERS = ['content-type', 'cache-control', 'x-request-id']
export const CORS_EXPOSED_HEADERS = ['retry-after', 'x-request-id', 'content-disposition']

/** the methods of the public API, granted as a fixed list (not an echo of the preflight's method) */
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'OPTIONS']
/** how long a browser may keep a preflight's answer (the plugin's default) */
export const CORS_MAX_AGE_S = 5

/**
 * After the CORS plugin's request hook (its own preflight handling off): drop the `Vary: *`
 * its any-origin mode writes on every answer, which tells caches that no answer can ever
 * be reused, while `Access-Control-Allow-Origin: *` and the granted methods and headers
 * are the same for every request; a route that does vary (/share on Host, the page's
 * files on Accept-Encoding) names what it varies on itself. And answer a preflight
 * (OPTIONS with Access-Control-Request-Method): 204 with the headers the plugin set.
 */
export function corsWithoutVary({ set, request }: { set: { headers: Record<string, unknown> }; request: Request }): Response | undefined {
  delete set.headers.vary
  if (request.method !== 'OPTIONS' || !request.headers.has('access-control-request-method')) return undefined
  set.headers['access-control-max-age'] = String(CORS_MAX_AGE_S)
  return new Response(null, { status: 204 })
}
